/**
 * Finds the list or the object inside whatever envelope a response came in: a bare
 * array or object, `data`, `items`, `results`, `records`, a key named after the resource,
 * or one of those nested under `data`. An operator path (`upstream.shape.envelope`) wins.
 */
import { SchemaDriftError } from './drift.js';
import { type Endpoint, LIST_KEYS, RESOURCE_KEYS } from './endpoints.js';
import {
  describeBody,
  describeValue,
  getPath,
  hasOwn,
  isRecord,
  type JsonRecord,
  prop,
  resolveIncluded,
} from './json.js';
import type { ShapeOptions } from './options.js';

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
    if (Array.isArray(v)) return withHolder({ items: v, path: override }, holderOf(body, override));
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `configured envelope path '${override}' holds ${describeValue(v)}` +
        ` instead of a list; the response is ${describeBody(body)}`,
    );
  }
  if (Array.isArray(body)) return { items: body, path: '' };
  if (isRecord(body)) {
    let nullAt: string | undefined;
    for (const path of listPaths(endpoint)) {
      const v = getPath(body, path);
      if (Array.isArray(v)) return withHolder({ items: v, path }, holderOf(body, path));
      if (v === null) nullAt ??= path;
    }
    // Some servers (Go's nil slices) write an empty list as null; accept it unless the body is an error.
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

function withHolder(found: FoundList, holder: JsonRecord | undefined): FoundList {
  return holder === undefined ? found : { ...found, holder };
}

/** Unwraps a single-object response ({data:{...}}, {organization:{...}}, bare). */
export function readObject(endpoint: Endpoint, body: unknown, opts: ShapeOptions): Record<string, unknown> {
  const override = opts.envelope?.[endpoint];
  if (typeof override === 'string') {
    const v = getPath(body, override);
    if (isRecord(v)) return v;
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
  return unwrap(endpoint, unwrap(endpoint, body));
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
