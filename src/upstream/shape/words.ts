/**
 * Keys as words: `scheduledStartTime`, `scheduled_start_time`, `Scheduled-Start-Time`,
 * `@odata.nextLink` and `$scheduled.start` all split into lower-case words, so a field can
 * be recognised by what its key says rather than by one spelling of it
 * (docs/upstream-shapes.md, "Fields").
 */

/** Split keys remembered; bounded, emptied when full, long keys never kept. */
const MEMO_MAX = 4096;
const MEMO_KEY_MAX = 64;
const memo = new Map<string, readonly string[]>();

/**
 * The words of a key: split at `_`, `-`, `.`, spaces and other punctuation, at a lower-to-
 * upper case change (`startedAt`), at the end of an upper-case run (`URLPath` → url, path)
 * and between letters and digits; `@` and `$` prefixes dropped; all lower-cased.
 */
export function splitWords(key: string): readonly string[] {
  if (key.length > MEMO_KEY_MAX) return split(key);
  let words = memo.get(key);
  if (words === undefined) {
    words = split(key);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(key, words);
  }
  return words;
}

/**
 * A custom-field marker after a double underscore at the end of a key (`Status__c`,
 * `Channel__r`: Salesforce custom fields and relations) is no word of the key's meaning.
 */
export const CUSTOM_SUFFIX = /__[a-z]{1,3}$/;

function split(key: string): string[] {
  return key
    .replace(CUSTOM_SUFFIX, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .flatMap((w) => unglue(w.toLowerCase()));
}

/** A word with `date` or `time` glued on (`duedate`, `resolutiondate`, `starttime`) as two words. */
function unglue(w: string): string[] {
  const m = /^([a-z]{3,})(date|time)$/.exec(w);
  return m === null ? [w] : [m[1]!, m[2]!];
}

/** Last words that make a key an identifier (`id`, `channelId`, `uuid`, `@id`, `_key`, a string id `sid`). */
const ID_WORDS = new Set(['id', 'uuid', 'guid', 'uid', 'sid', 'slug', 'key', 'urn']);

/** Whether a key names an identifier: its last word is `id`, `uuid`, `slug` … */
export function isIdLikeKey(key: string): boolean {
  const words = splitWords(key);
  const last = words[words.length - 1];
  return last !== undefined && ID_WORDS.has(last);
}

/** Whether a key names the record's own identifier (`id`, `uuid`, `_id`, `@id`), not another's. */
export function isOwnIdKey(key: string): boolean {
  const words = splitWords(key);
  return words.length === 1 && ID_WORDS.has(words[0] ?? '');
}
