/**
 * Finding a list by its shape (docs/upstream-shapes.md, "Envelopes"): the array of records
 * — objects sharing keys, most of them carrying an id — wherever it sits in a body, at the
 * top or under any key up to three keys deep. Known names (`data`, `items`, `channels` …)
 * only break ties between arrays that look equally like the list; two that still tie are
 * reported, never guessed between.
 */
import { isRecord, type JsonRecord, looseKey } from './json.js';
import { isIdLikeKey } from './words.js';

/** How much an array looks like a list of records, best last. */
export const Shape = {
  /** A non-empty array that is not of records (scalars, links); a candidate only under a known name. */
  Other: 0,
  /** An empty array: may be an empty list. */
  Empty: 1,
  /** Objects sharing keys. */
  Records: 2,
  /** Objects sharing keys, most of them with an id-like key. */
  IdRecords: 3,
} as const;
export type Shape = (typeof Shape)[keyof typeof Shape];

/** An array found in a body, where it is and what holds it. */
export interface ArrayCandidate {
  items: unknown[];
  /** Keys leading to it, joined by `.` for messages and paging. */
  path: string;
  holder: JsonRecord;
  shape: Shape;
  /** 2 under a resource's own name, 1 under a generic list name, 0 otherwise. */
  known: number;
}

/** Keys whose arrays are never the list: errors, warnings, and JSON:API's side resources. */
const NEVER_LIST = new Set(['error', 'errors', 'warnings', 'messages']);
/** Keys of a link object (`{ href, rel }`), whose arrays are navigation, not records. */
const LINK_KEYS = new Set(['href', 'rel', 'url', 'uri', 'method', 'title', 'type', 'templated', 'name']);
/** Arrays this many keys down are looked at; deeper ones are not. */
const MAX_DEPTH = 3;
/** Nodes visited in one body at most: a body of endless keys costs a bounded walk. */
const MAX_NODES = 2000;
/** Items sampled to judge an array's shape. */
const SAMPLE = 50;

/** The shape of one array. */
export function shapeOf(items: readonly unknown[]): Shape {
  if (items.length === 0) return Shape.Empty;
  const sample = items.slice(0, SAMPLE);
  const records = sample.filter(isRecord);
  if (records.length * 2 <= sample.length) return Shape.Other;
  if (records.every(isLinkObject)) return Shape.Other;
  if (!shareKeys(records)) return Shape.Other;
  const withId = records.filter((r) => Object.keys(r).some(isIdLikeKey)).length;
  return withId * 2 > records.length ? Shape.IdRecords : Shape.Records;
}

function isLinkObject(r: JsonRecord): boolean {
  const keys = Object.keys(r);
  return (
    keys.length > 0 &&
    keys.every((k) => LINK_KEYS.has(k.toLowerCase())) &&
    keys.some((k) => ['href', 'url', 'uri'].includes(k.toLowerCase()))
  );
}

/** Whether most records share at least one key with the first (one record shares trivially). */
function shareKeys(records: readonly JsonRecord[]): boolean {
  const first = records[0];
  if (first === undefined) return false;
  if (records.length === 1) return Object.keys(first).length > 0;
  const keys = new Set(Object.keys(first).map(looseKey));
  const sharing = records.filter((r) => Object.keys(r).some((k) => keys.has(looseKey(k)))).length;
  return sharing * 2 > records.length;
}

/** Every array of a body up to {@link MAX_DEPTH} keys down, outside arrays, with its shape. */
export function arraysIn(
  body: JsonRecord,
  names: { resource: readonly string[]; generic: readonly string[] },
): ArrayCandidate[] {
  const resource = new Set(names.resource.map(looseKey));
  const generic = new Set(names.generic.map(looseKey));
  const out: ArrayCandidate[] = [];
  let budget = MAX_NODES;
  const walk = (o: JsonRecord, prefix: string, depth: number): void => {
    const jsonApi = Object.hasOwn(o, 'data');
    for (const [key, v] of Object.entries(o)) {
      if (--budget < 0) return;
      const loose = looseKey(key);
      if (NEVER_LIST.has(loose) || (jsonApi && loose === 'included')) continue;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (Array.isArray(v)) {
        const known = resource.has(loose) ? 2 : generic.has(loose) ? 1 : 0;
        const shape = shapeOf(v);
        if (shape !== Shape.Other || known > 0) out.push({ items: v, path, holder: o, shape, known });
      } else if (isRecord(v) && depth < MAX_DEPTH) walk(v, path, depth + 1);
    }
  };
  walk(body, '', 1);
  return out;
}

/** The list among the candidates, or the paths that tie for it, or nothing. */
export function pickList(
  candidates: readonly ArrayCandidate[],
): { list: ArrayCandidate } | { tie: string[] } | undefined {
  if (candidates.length === 0) return undefined;
  const best = Math.max(...candidates.map((c) => c.shape));
  const top = candidates.filter((c) => c.shape === best);
  const known = Math.max(...top.map((c) => c.known));
  const named = top.filter((c) => c.known === known);
  // A non-list array is a candidate only under a known name.
  if (best === Shape.Other && known === 0) return undefined;
  if (named.length === 1 && named[0] !== undefined) return { list: named[0] };
  return { tie: named.map((c) => c.path) };
}
