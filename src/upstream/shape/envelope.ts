/**
 * Finds the list or the object inside whatever envelope a response came in: a bare
 * array or object, `data`, `items`, `results`, `records`, a key named after the resource,
 * or one of those nested under `data`. An operator path (`upstream.shape.envelope`) wins.
 */
import { DriftLog, SchemaDriftError } from './drift.js';
import { type Endpoint, LIST_KEYS, RESOURCE_KEYS } from './endpoints.js';
import {
  describeBody,
  describeValue,
  flattenResource,
  getPath,
  hasOwn,
  isRecord,
  type JsonRecord,
  prop,
  resolveIncluded,
} from './json.js';
import type { ShapeOptions } from './options.js';
import { arraysIn, pickList } from './structure.js';
import { fieldsPresent, type ReadContext } from './read.js';
import type { FieldKey } from './fields.js';

/** The fields that make an object the record of a single-object endpoint. */
const OBJECT_FIELDS: Partial<Record<Endpoint, readonly FieldKey[]>> = {
  org: ['org.name', 'org.plan', 'org.settings'],
  subscription: [
    'subscription.plan',
    'subscription.limits',
    'subscription.usage',
    'subscription.funding',
    'subscription.fundingMode',
  ],
  session: [
    'session.id',
    'session.title',
    'session.status',
    'session.scheduledAt',
    'session.startedAt',
    'session.endedAt',
    'detail.questions',
    'detail.announcements',
    'detail.speakers',
    'detail.reactions',
  ],
};

/** Where a list was found. */
export interface FoundList {
  items: unknown[];
  /** The object directly holding the list (the body, or `data` for `data.items`); paging may sit there. */
  holder?: JsonRecord;
  /** The path the list was found at (`""` for a bare array). */
  path: string;
  /** The list was `null` there (read as empty). */
  wasNull?: boolean;
}

/** Keys whose presence on a record says it is the resource itself, not an envelope. */
const ID_KEYS = ['id', 'uuid', 'slug'];
const ERROR_KEYS = new Set(['error', 'errors']);
/** Names that break a tie between arrays of records: the generic list keys, and HAL's and Solr's. */
const LIST_NAMES = [...LIST_KEYS, 'value', 'elements', 'entries', 'docs', 'list', 'nodes', 'content'];

/** Candidate paths of a list, in the order they are tried. */
function listPaths(endpoint: Endpoint): string[] {
  const top = [...RESOURCE_KEYS[endpoint], ...LIST_KEYS];
  // `data.items` …, and HAL's `_embedded.channels` ….
  const nested = ['data', '_embedded'].flatMap((outer) =>
    [...RESOURCE_KEYS[endpoint], ...LIST_KEYS.filter((k) => k !== outer)].map((k) => `${outer}.${k}`),
  );
  return [...top, ...nested];
}

/** The object holding the last step of a path (the body for `items`, `body.data` for `data.items`). */
function holderOf(body: unknown, path: string): JsonRecord | undefined {
  const dot = path.lastIndexOf('.');
  const holder = dot < 0 ? body : getPath(body, path.slice(0, dot));
  return isRecord(holder) ? holder : undefined;
}

/** Finds the list of a list response; throws {@link SchemaDriftError} when there is none. */
export function findList(endpoint: Endpoint, body: unknown, opts: ShapeOptions): FoundList {
  const override = opts.envelope?.[endpoint];
  if (typeof override === 'string') {
    const v = getPath(body, override);
    if (Array.isArray(v)) {
      opts.trace?.located?.(endpoint, override, 'operator');
      return withHolder({ items: v, path: override }, holderOf(body, override));
    }
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `configured envelope path '${override}' holds ${describeValue(v)}` +
        ` instead of a list; the response is ${describeBody(body)}`,
    );
  }
  if (Array.isArray(body)) {
    opts.trace?.located?.(endpoint, '', 'name');
    return { items: body, path: '' };
  }
  if (isRecord(body)) {
    const found = byShape(endpoint, body, opts);
    if (found !== undefined) return found;
    // Some servers (Go's nil slices) write an empty list as null; accept it unless the body is an error.
    const nullAt = listPaths(endpoint).find((path) => getPath(body, path) === null);
    if (nullAt !== undefined && !Object.keys(body).some((k) => ERROR_KEYS.has(k.toLowerCase()))) {
      return withHolder({ items: [], path: nullAt, wasNull: true }, holderOf(body, nullAt));
    }
  }
  throw new SchemaDriftError(
    endpoint,
    'envelope',
    `no list found in the response (${describeBody(body)}); set upstream.shape.envelope.${endpoint}`,
  );
}

/**
 * The list of a body by its shape (structure.ts): the array of records wherever it sits,
 * known names breaking ties only. Two arrays that tie are drift naming both, not a guess.
 */
function byShape(endpoint: Endpoint, body: JsonRecord, opts: ShapeOptions): FoundList | undefined {
  const picked = pickList(arraysIn(body, { resource: RESOURCE_KEYS[endpoint], generic: LIST_NAMES }));
  if (picked === undefined) return undefined;
  if ('tie' in picked) {
    const paths = picked.tie.map((p) => `'${p}'`);
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `ambiguous: ${paths.length} arrays could each be the list (${paths.slice(0, 4).join(', ')}); ` +
        `set upstream.shape.envelope.${endpoint}`,
    );
  }
  if (opts.trace?.located !== undefined) {
    // By name when the fixed names alone lead to it; found by its shape otherwise.
    const named = listPaths(endpoint).some((p) => getPath(body, p) === picked.list.items);
    opts.trace.located(endpoint, picked.list.path, named ? 'name' : 'shape');
  }
  return { items: picked.list.items, path: picked.list.path, holder: picked.list.holder };
}

function withHolder(found: FoundList, holder: JsonRecord | undefined): FoundList {
  return holder === undefined ? found : { ...found, holder };
}

/** Unwraps a single-object response ({data:{...}}, {organization:{...}}, bare). */
export function readObject(endpoint: Endpoint, body: unknown, opts: ShapeOptions): Record<string, unknown> {
  const override = opts.envelope?.[endpoint];
  if (typeof override === 'string') {
    const v = getPath(body, override);
    if (isRecord(v)) {
      opts.trace?.located?.(endpoint, override, 'operator');
      return v;
    }
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `configured envelope path '${override}' holds ${describeValue(v)} instead of an object;` +
        ` the response is ${describeBody(body)}`,
    );
  }
  if (!isRecord(body) || Object.keys(body).length === 0 || isErrorOnly(body)) {
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `expected an object, found ${describeBody(body)}; set upstream.shape.envelope.${endpoint}`,
    );
  }
  // A JSON:API compound document: relationships read with the resources it includes.
  const data = prop(body, 'data');
  const included = prop(body, 'included');
  if (isRecord(data) && Array.isArray(included)) return resolveIncluded(data, included);
  // Two levels cover `{ data: { organization: {...} } }`.
  const named = unwrap(endpoint, unwrap(endpoint, body));
  return byFields(endpoint, body, named, opts);
}

/** Objects of a body weighed as its record at most: a body of endless objects costs a bounded look. */
const MAX_OBJECTS = 64;

/**
 * Objects of a body up to two keys down (outside arrays), with their paths, and the one
 * item of a list of one: a server that answers every read as a list (Twitch's `data`,
 * YouTube's `items` for a resource asked by id) keeps its single object there.
 */
function objectsIn(body: JsonRecord): { path: string; o: JsonRecord }[] {
  const out = [{ path: '', o: body }];
  for (const [k, v] of Object.entries(body)) {
    if (out.length >= MAX_OBJECTS) break;
    if (Array.isArray(v) && v.length === 1 && isRecord(v[0]) && !ERROR_KEYS.has(k.toLowerCase())) {
      out.push({ path: `${k}[0]`, o: v[0] });
      continue;
    }
    if (!isRecord(v) || ERROR_KEYS.has(k.toLowerCase())) continue;
    out.push({ path: k, o: v });
    for (const [k2, v2] of Object.entries(v)) {
      if (out.length >= MAX_OBJECTS) break;
      if (isRecord(v2)) out.push({ path: `${k}.${k2}`, o: v2 });
    }
  }
  return out;
}

/**
 * The record of a single-object body by what it carries: of the objects in the body, the
 * one holding the most of the resource's fields. The object the known names lead to
 * (`named`) wins every tie; two other objects that tie are drift naming both.
 */
function byFields(endpoint: Endpoint, body: JsonRecord, named: JsonRecord, opts: ShapeOptions): JsonRecord {
  const fields = OBJECT_FIELDS[endpoint];
  if (fields === undefined) return named;
  const ctx: ReadContext = { opts: { ...opts, trace: undefined }, drift: new DriftLog(endpoint) };
  const score = (o: JsonRecord): number => fieldsPresent(ctx, flattenResource(o), fields);
  const namedScore = score(named);
  // A bag of the named record's own fields (`properties`, `fields`) is read as part of it.
  const flatNamed = flattenResource(named);
  // So is an object without an id of its own inside a named record that has one (YouTube's
  // `snippet`, `contentDetails`): a part of that record, not a rival to it.
  const ownId = ID_KEYS.some((k) => hasOwn(named, k));
  const spread = new Set(
    Object.keys(named)
      .filter(
        (k) =>
          isRecord(named[k]) &&
          (!hasOwn(flatNamed, k) || (ownId && !ID_KEYS.some((i) => hasOwn(named[k] as JsonRecord, i)))),
      )
      .map((k) => named[k]),
  );
  let best = namedScore;
  let winners: { path: string; o: JsonRecord }[] = [];
  for (const c of objectsIn(body)) {
    if (c.o === named || spread.has(c.o) || isLinkMap(c.o)) continue;
    const n = score(c.o);
    if (n > best) {
      best = n;
      winners = [c];
    } else if (n === best && n > namedScore) winners.push(c);
  }
  if (winners.length === 0) {
    const at = objectsIn(body).find((c) => c.o === named)?.path ?? '';
    opts.trace?.located?.(endpoint, at, 'name');
    return named;
  }
  if (winners.length === 1 && winners[0] !== undefined) {
    opts.trace?.located?.(endpoint, winners[0].path, 'shape');
    return winners[0].o;
  }
  const paths = winners.slice(0, 4).map((w) => `'${w.path === '' ? '(the body)' : w.path}'`);
  throw new SchemaDriftError(
    endpoint,
    'envelope',
    `ambiguous: ${winners.length} objects could each be the record (${paths.join(', ')}); ` +
      `set upstream.shape.envelope.${endpoint}`,
  );
}

/**
 * An object of links only (`links: { questions: "s1/questions" }`, HAL's `_links`): it
 * names the resource's parts without carrying them, so it is never the record.
 */
function isLinkMap(o: JsonRecord): boolean {
  const values = Object.values(o);
  return (
    values.length > 0 &&
    values.every((v) =>
      typeof v === 'string'
        ? v.includes('/')
        : isRecord(v) &&
          (typeof v['href'] === 'string' || isRecord(v['links']) || typeof v['related'] === 'string'),
    )
  );
}

/** One level of unwrapping: a resource key, else `data`, else the body itself. */
function unwrap(endpoint: Endpoint, body: JsonRecord): JsonRecord {
  for (const key of RESOURCE_KEYS[endpoint]) {
    const v = prop(body, key);
    if (isRecord(v) && Object.keys(v).length > 0) return v;
  }
  if (ID_KEYS.some((k) => hasOwn(body, k))) return body;
  const data = prop(body, 'data');
  if (isRecord(data) && Object.keys(data).length > 0) return data;
  return body;
}

function isErrorOnly(body: JsonRecord): boolean {
  return Object.keys(body).every((k) => ERROR_KEYS.has(k.toLowerCase()));
}
