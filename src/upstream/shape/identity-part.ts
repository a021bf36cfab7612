/**
 * The id of a record that carries none of its own, read from the part named for what the
 * record is: YouTube's member item keeps its member's identity in
 * `snippet.memberDetails.channelId`, a membership in `user: { id }`. Only a part (an
 * object up to two keys down, outside arrays) whose key's words name the record's kind,
 * holding exactly one id-like key, counts; anything less certain is no id.
 */
import { isRecord, type JsonRecord } from './json.js';
import { splitWords } from './words.js';

/** Words a part of a team member's record is named with when it is the member. */
export const MEMBER_NOUNS: ReadonlySet<string> = new Set(['member', 'user', 'person', 'profile', 'account']);

/** The one id-like key of `o` (a key whose last word is `id`) with its value, or undefined when none or several. */
function soleId(o: JsonRecord): { key: string; id: string } | undefined {
  const ids = Object.entries(o).filter(([k, v]) => {
    const words = splitWords(k);
    return words.at(-1) === 'id' && (typeof v === 'string' ? v.trim() !== '' : typeof v === 'number');
  });
  return ids.length === 1 ? { key: ids[0]![0], id: String(ids[0]![1]) } : undefined;
}

/** The id (and its path) of `record`'s part named with one of `nouns`, when exactly one such part holds one. */
export function identityPartId(
  record: JsonRecord,
  nouns: ReadonlySet<string>,
): { id: string; path: string } | undefined {
  const found: { id: string; path: string }[] = [];
  const visit = (o: JsonRecord, at: string, depth: number): void => {
    for (const [k, v] of Object.entries(o)) {
      if (!isRecord(v)) continue;
      const path = at === '' ? k : `${at}.${k}`;
      if (splitWords(k).some((w) => nouns.has(w))) {
        const sole = soleId(v);
        if (sole !== undefined) found.push({ id: sole.id, path: `${path}.${sole.key}` });
      } else if (depth < 2) visit(v, path, depth + 1);
    }
  };
  visit(record, '', 1);
  return found.length === 1 ? found[0] : undefined;
}
