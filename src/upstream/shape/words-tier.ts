/**
 * The second tier of field reading (docs/upstream-shapes.md, "Fields"): when no alias of a
 * field is in a record, its keys — and the keys of the objects directly inside it — are
 * split into words and matched against the field's concepts (concepts.ts), each candidate
 * confirmed by its value (a time for a time, a status word for a status). The best match
 * is read; two equally good ones are reported as ambiguous, never guessed between.
 */
import { channelClass, statusClass } from '../../snapshot/vocabulary.js';
import { CONCEPTS, type Concept, FILLER_WORDS, type ValueKind } from './concepts.js';
import type { FieldKey } from './field-aliases.js';
import { isRecord, type JsonRecord } from './json.js';
import { parseNumber } from './numbers.js';
import { parseTime } from './time.js';
import { splitWords } from './words.js';

/** Keys of a record looked at, and of each object inside it: a record of endless keys costs a bounded scan. */
const MAX_KEYS = 200;
const MAX_INNER_KEYS = 50;
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

/** How well the words of a key say a concept: the share of its meaningful words the concept knows, or 0. */
export function conceptScore(words: readonly string[], concept: Concept): number {
  const meaningful = words.filter((w) => !FILLER_WORDS.has(w));
  if (meaningful.length === 0) return 0;
  if (concept.not?.some((w) => meaningful.includes(w))) return 0;
  if (!concept.all.every((group) => group.some((w) => meaningful.includes(w)))) return 0;
  const known = new Set(concept.all.flat());
  const matched = meaningful.filter((w) => known.has(w)).length;
  if (concept.alone === true && matched !== meaningful.length) return 0;
  return matched / meaningful.length;
}

/** Whether a value looks like what a concept expects. */
export function valueFits(kind: ValueKind, v: unknown, key: FieldKey): boolean {
  switch (kind) {
    case 'time':
      return looksLikeTime(v);
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
      return typeof v === 'string' && v.trim() !== '';
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

/** A key of a record, or of an object directly inside it (`outer` then names that object). */
interface KeyWords {
  path: string;
  words: readonly string[];
  outer?: readonly string[];
  value: unknown;
}

/** The keys of a record and of the objects directly inside it, with their words. */
function keysOf(record: JsonRecord): KeyWords[] {
  const out: KeyWords[] = [];
  for (const [k, v] of Object.entries(record).slice(0, MAX_KEYS)) {
    out.push({ path: k, words: splitWords(k), value: v });
    if (!isRecord(v)) continue;
    const outer = splitWords(k);
    for (const [k2, v2] of Object.entries(v).slice(0, MAX_INNER_KEYS)) {
      out.push({ path: `${k}.${k2}`, words: [...outer, ...splitWords(k2)], outer, value: v2 });
    }
  }
  return out;
}

/**
 * How well a key says a concept. A key inside an object counts only when the object's own
 * name is part of the concept (`slot.from` is a planned start; `role.name` is no member's name).
 */
function keyScore(k: KeyWords, concept: Concept): number {
  if (k.outer !== undefined) {
    const known = new Set(concept.all.flat());
    if (!k.outer.every((w) => FILLER_WORDS.has(w) || known.has(w))) return 0;
  }
  return conceptScore(k.words, concept);
}

/** Reads field `key` of `record` by the words of its keys; see the file comment. */
export function findByWords(record: JsonRecord, key: FieldKey): WordsResult {
  const concepts = CONCEPTS[key];
  if (concepts === undefined) return undefined;
  let best: WordsMatch[] = [];
  for (const k of keysOf(record)) {
    if (k.value === undefined || k.value === null) continue;
    let score = 0;
    for (const c of concepts) {
      const s = keyScore(k, c);
      if (s > score && valueFits(c.value, k.value, key)) score = s;
    }
    if (score === 0) continue;
    const top = best[0]?.confidence ?? 0;
    if (score > top) best = [{ path: k.path, value: k.value, confidence: score }];
    else if (score === top) best.push({ path: k.path, value: k.value, confidence: score });
  }
  if (best.length === 0) return undefined;
  // An object and a key inside it naming the same thing (`start: { at }`) are one candidate: the outer.
  const distinct = best.filter((m) => !best.some((o) => o !== m && m.path.startsWith(`${o.path}.`)));
  const first = distinct[0];
  if (distinct.length === 1 && first !== undefined) return { match: first };
  return { ambiguous: distinct.map((m) => m.path) };
}
