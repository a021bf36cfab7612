/**
 * The second tier of field reading (docs/upstream-shapes.md, "Fields"): when no alias of a
 * field is in a record, its keys — and the keys of the objects directly inside it — are
 * split into words and matched against the field's concepts (concepts.ts), each candidate
 * confirmed by its value (a time for a time, a status word for a status). The best match
 * is read; two equally good ones are reported as ambiguous, never guessed between.
 */
import { channelClass, statusClass } from '../../snapshot/vocabulary.js';
import { CONCEPTS, type Concept, FILLER_WORDS, SELF_WORDS, type ValueKind } from './concepts.js';
import type { FieldKey } from './field-aliases.js';
import { isRecord, type JsonRecord, labelOf } from './json.js';
import { parseMoney, parseNumber } from './numbers.js';
import { parseTime } from './time.js';
import { isOwnIdKey, splitWords } from './words.js';

/** Keys of a record looked at, and of each object inside it: a record of endless keys costs a bounded scan. */
const MAX_KEYS = 200;
const MAX_INNER_KEYS = 50;
/** Words naming a kind of record, not an edition of it (`type: "organizations"`). */
const RECORD_KINDS: ReadonlySet<string> = new Set(
  ['organization', 'organisation', 'org', 'account', 'workspace', 'tenant', 'team', 'company'].flatMap(
    (w) => [w, `${w}s`],
  ),
);
/** Epoch numbers below this (early 1973 in seconds) are not taken for times by their key's words. */
const MIN_EPOCH = 1e8;

/** A key read by its words: where, the value, and how sure (matched words / words of the key). */
export interface WordsMatch {
  path: string;
  value: unknown;
  confidence: number;
}

/** The outcome of the words tier for one field of one record. */
export type WordsResult = { match: WordsMatch } | { ambiguous: string[] } | undefined;

/** Whether a field has concepts at all (fields without are read by their aliases only). */
export function hasConcepts(key: FieldKey): boolean {
  return CONCEPTS[key] !== undefined;
}

/**
 * A key whose meaning follows leading words the concept does not know — the record's vendor
 * prefix (`hs_`, `sf_`, `x_`: a first word of at most three letters that several keys of the
 * record share, see {@link vendorPrefixes}) and then the record's own type name (`meeting`,
 * `call`, `session`, `event`) — reads as the rest at this share of its confidence:
 * `hs_meeting_outcome` is an outcome, yet a key saying the same without them wins.
 */
export const PREFIXED_WEIGHT = 0.9;

/** Keys of a record that must share a short first word for it to be the record's vendor prefix. */
const PREFIX_KEYS = 3;
/** Words naming another process (`ai_started_at`) are never a vendor prefix. */
const NEVER_PREFIX: ReadonlySet<string> = new Set(['ai', 'key', 'id', 'is', 'no', 'not', 'non']);

/**
 * The vendor prefixes of a record: short first words (at most three letters) that at least
 * three of its keys begin with, before other words (`hs_object_id`, `hs_meeting_title`,
 * `hs_timestamp`). One key's first word is no convention of the record.
 */
export function vendorPrefixes(record: JsonRecord): ReadonlySet<string> {
  const counts = new Map<string, number>();
  let n = 0;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    if (++n > MAX_KEYS) break;
    const words = splitWords(k);
    const first = words[0];
    if (words.length < 2 || first === undefined || !/^[a-z]{1,3}$/.test(first) || NEVER_PREFIX.has(first))
      continue;
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, c]) => c >= PREFIX_KEYS).map(([w]) => w));
}

/** How many leading words of `meaningful` are a vendor prefix and type names the concept does not know. */
function leadingOthers(
  meaningful: readonly string[],
  known: ReadonlySet<string>,
  prefixes: ReadonlySet<string>,
): number {
  let i = 0;
  const first = meaningful[0] ?? '';
  if (meaningful.length > 1 && prefixes.has(first) && !known.has(first)) i = 1;
  while (i < meaningful.length - 1 && SELF_WORDS.has(meaningful[i]!) && !known.has(meaningful[i]!)) i += 1;
  return i;
}

const NO_PREFIXES: ReadonlySet<string> = new Set();

/**
 * How well the words of a key say a concept: the share of its meaningful words the concept
 * knows, or 0; `prefixes` are the vendor prefixes of the key's record.
 */
export function conceptScore(
  words: readonly string[],
  concept: Concept,
  prefixes: ReadonlySet<string> = NO_PREFIXES,
): number {
  const all = words.filter((w) => !FILLER_WORDS.has(w));
  if (all.length === 0) return 0;
  if (concept.not?.some((w) => all.includes(w))) return 0;
  const known = new Set(concept.all.flat());
  const lead = leadingOthers(all, known, prefixes);
  const meaningful = all.slice(lead);
  if (!concept.all.every((group) => group.some((w) => meaningful.includes(w)))) return 0;
  const matched = meaningful.filter((w) => known.has(w)).length;
  if (concept.alone === true && matched !== meaningful.filter((w) => !SELF_WORDS.has(w)).length) return 0;
  const prefixed = lead > 0 ? PREFIXED_WEIGHT : 1;
  return (matched / meaningful.length) * (concept.weight ?? 1) * prefixed;
}

/** Whether a value looks like what a concept expects. */
export function valueFits(kind: ValueKind, v: unknown, key: FieldKey): boolean {
  switch (kind) {
    case 'time':
      return looksLikeTime(v);
    case 'amount':
      // A money object (`balance_money: { amount, currency }`) is an amount as a whole:
      // read together, its currency says in which units the amount is written.
      if (isRecord(v)) return parseMoney(v)?.amount !== undefined;
      return typeof v !== 'boolean' && parseNumber(v) !== undefined;
    case 'count': {
      const n = parseNumber(v);
      return typeof v !== 'boolean' && n !== undefined && n >= 0 && Number.isInteger(n);
    }
    case 'status':
      if (typeof v === 'boolean') return key === 'channel.status';
      return (
        typeof v === 'string' && (key === 'channel.status' ? channelClass(v) : statusClass(v)) !== 'unknown'
      );
    case 'word':
      return typeof v === 'string' && v.trim() !== '' && v.length <= 64;
    case 'id':
      return (
        (typeof v === 'string' && /^\S{1,256}$/.test(v.trim()) && v.trim() !== '') ||
        (typeof v === 'number' && Number.isSafeInteger(v))
      );
    case 'text':
      return (typeof v === 'string' && v.trim() !== '') || labelOf(v) !== undefined;
    case 'edition':
      return typeof v === 'string' && v.trim() !== '' && !splitWords(v).every((w) => RECORD_KINDS.has(w));
    case 'email':
      return typeof v === 'string' && /^[^\s@]+@[^\s@]+$/.test(v.trim());
    case 'bool':
      return typeof v === 'boolean';
    case 'list':
      return Array.isArray(v) || isRecord(v);
  }
}

function looksLikeTime(v: unknown): boolean {
  if (typeof v === 'number') return v >= MIN_EPOCH && parseTime(v) !== undefined;
  if (typeof v !== 'string') return false;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) >= MIN_EPOCH && parseTime(s) !== undefined;
  return parseTime(s) !== undefined;
}

/** The words of a key, and of the object holding it when it is inside one. */
interface KeyWords {
  inner: readonly string[];
  outer?: readonly string[];
  /** The object holding the key has an id of its own: another thing, not a part of the record. */
  entity?: boolean;
}

/**
 * How well a key says a concept. A key inside an object with an id of its own (another
 * thing: `role: { id, name }`) counts only when the object's name is part of the concept
 * (`slot.from` is a planned start; `role.name` is no member's name). An object without an
 * id is a part of the record (`snippet`, `time_range`, `period`): its name is context,
 * read where the concept knows it and passed over where not, unless it rules the concept
 * out (`host.name` is no title, `recording.status` no session status).
 */
function keyScore(
  k: KeyWords,
  concept: Concept,
  ruledOut: ReadonlySet<string>,
  prefixes: ReadonlySet<string>,
): number {
  if (k.outer === undefined) return conceptScore(k.inner, concept, prefixes);
  const known = new Set(concept.all.flat());
  if (k.outer.some((w) => ruledOut.has(w))) return 0;
  if (k.entity === true) {
    if (!k.outer.every((w) => FILLER_WORDS.has(w) || known.has(w))) return 0;
    return conceptScore([...k.outer, ...k.inner], concept);
  }
  return conceptScore([...k.outer.filter((w) => known.has(w)), ...k.inner], concept, prefixes);
}

/** A key's fit to a field by its words alone: each concept it says, best first, with its value kind. */
type KeyFit = readonly { score: number; kind: ValueKind; beside?: Concept['beside'] }[];
const NO_FIT: KeyFit = [];

/**
 * The fits of keys seen lately, per field and path: a list of thousands of records asks the
 * same few keys for the same fields, and only their values differ. Bounded: emptied when full.
 */
const FIT_MEMO_MAX = 8192;
const FIT_PATH_MAX = 128;
const fitMemo = new Map<FieldKey, Map<string, KeyFit>>();
let fitCount = 0;

/**
 * The fit of key `inner` (of the object under `outer`, an entity or a part, when given) to
 * field `key`, with the vendor prefixes of its record (remembered apart from the same key
 * in a record without).
 */
function fitOf(
  key: FieldKey,
  concepts: readonly Concept[],
  path: string,
  prefixes: ReadonlySet<string>,
  inside?: { outer: string; inner: string; entity: boolean },
): KeyFit {
  const own = prefixes.has(splitWords(inside?.outer ?? path)[0] ?? '') ? prefixes : NO_PREFIXES;
  const memoKey = `${path}${inside?.entity === true ? '\u0000' : ''}${own === NO_PREFIXES ? '' : '\u0000prefixed'}`;
  let byPath = fitMemo.get(key);
  const known = byPath?.get(memoKey);
  if (known !== undefined) return known;
  const k: KeyWords =
    inside === undefined
      ? { inner: splitWords(path) }
      : { inner: splitWords(inside.inner), outer: splitWords(inside.outer), entity: inside.entity };
  // An object whose name rules out any reading of the field rules out the field (`run_time`
  // holds no planned start, `start` no planned end).
  const ruledOut = new Set(concepts.flatMap((c) => c.not ?? []));
  const fits = concepts
    .map((c) => ({ score: keyScore(k, c, ruledOut, own), kind: c.value, beside: c.beside }))
    .filter((f) => f.score > 0)
    .sort((x, y) => y.score - x.score);
  const fit = fits.length === 0 ? NO_FIT : fits;
  if (path.length <= FIT_PATH_MAX) {
    if (fitCount >= FIT_MEMO_MAX) {
      fitMemo.clear();
      fitCount = 0;
    }
    byPath = fitMemo.get(key) ?? new Map<string, KeyFit>();
    fitMemo.set(key, byPath);
    byPath.set(memoKey, fit);
    fitCount += 1;
  }
  return fit;
}

/** Whether a concept's `beside` condition holds in `record` for the key at `path` (concepts.ts). */
function besideHolds(record: JsonRecord, path: string, beside: Concept['beside']): boolean {
  if (beside === undefined) return true;
  const top = path.split('.')[0];
  let n = 0;
  for (const k in record) {
    if (!Object.hasOwn(record, k) || k === top) continue;
    if (++n > MAX_KEYS) break;
    const v = record[k];
    if (v === null || v === undefined || !splitWords(k).some((w) => beside.words.includes(w))) continue;
    // Only a time (or an object holding one, `scheduled: { start }`) names a planned time.
    if (looksLikeTime(v) || (isRecord(v) && Object.values(v).some(looksLikeTime))) return beside.present;
  }
  return !beside.present;
}

/** A key as aliases match it, whatever its case or separators (`EndTime` is `end_time`). */
export function foldKey(path: string): string {
  return path.replace(/[_-]/g, '').toLowerCase();
}

/** Whether an object carries an id of its own (`id`, `uuid`, `@id` …): another thing, not a part. */
function hasOwnId(v: JsonRecord): boolean {
  let n = 0;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (++n > MAX_INNER_KEYS) return false;
    if (isOwnIdKey(k)) return true;
  }
  return false;
}

/** How the words tier looks at a record. */
export interface WordsScope {
  /**
   * Whether objects without an id of their own are read as parts of the record (default
   * true). Off when telling which object of a body is the record (envelope.ts): there, a
   * wrapper's keys are not the record's.
   */
  parts?: boolean;
  /** Keys another field's alias reads (`end_time`, an actual end), folded by foldKey: never taken for this field. */
  claimed?: ReadonlySet<string>;
}

/** Reads field `key` of `record` by the words of its keys; see the file comment. */
export function findByWords(record: JsonRecord, key: FieldKey, scope: WordsScope = {}): WordsResult {
  const concepts = CONCEPTS[key];
  if (concepts === undefined) return undefined;
  const parts = scope.parts ?? true;
  const prefixes = vendorPrefixes(record);
  let best: WordsMatch[] = [];
  const consider = (fit: KeyFit, path: string, value: unknown): void => {
    if (fit.length === 0 || value === undefined || value === null) return;
    if (scope.claimed?.has(foldKey(path)) === true) return;
    const score =
      fit.find((f) => valueFits(f.kind, value, key) && besideHolds(record, path, f.beside))?.score ?? 0;
    if (score === 0) return;
    const top = best[0]?.confidence ?? 0;
    if (score > top) best = [{ path, value, confidence: score }];
    else if (score === top) best.push({ path, value, confidence: score });
  };
  let n = 0;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    if (++n > MAX_KEYS) break;
    const v = record[k];
    consider(fitOf(key, concepts, k, prefixes), k, v);
    if (!isRecord(v)) continue;
    const entity = !parts || hasOwnId(v);
    let m = 0;
    for (const k2 in v) {
      if (!Object.hasOwn(v, k2)) continue;
      if (++m > MAX_INNER_KEYS) break;
      const path = `${k}.${k2}`;
      consider(fitOf(key, concepts, path, prefixes, { outer: k, inner: k2, entity }), path, v[k2]);
    }
  }
  if (best.length === 0) return undefined;
  // An object and a key inside it naming the same thing (`start: { at }`) are one candidate: the outer.
  const distinct = best.filter((m) => !best.some((o) => o !== m && m.path.startsWith(`${o.path}.`)));
  // The record's own id (`sid`, `id`) beside another's (`account_sid`) is the record's.
  const own = key.endsWith('.id') ? distinct.filter((m) => isOwnIdKey(m.path)) : [];
  const first = own.length === 1 ? own[0] : distinct.length === 1 ? distinct[0] : undefined;
  if (first !== undefined) return { match: first };
  return { ambiguous: distinct.map((m) => m.path) };
}
