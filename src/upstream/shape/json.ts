/**
 * Safe reading of parsed JSON of unknown shape: own properties only (a key named
 * `constructor` or `__proto__` never reaches the prototype), tolerant key spelling.
 */
import { CUSTOM_SUFFIX, isOwnIdKey, splitWords } from './words.js';

/** A JSON object. */
export type JsonRecord = Record<string, unknown>;

/** Whether a value is a JSON object (not null, not an array). */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether an object has its own property `key`. */
export function hasOwn(o: object, key: string): boolean {
  return Object.hasOwn(o, key);
}

/**
 * Keys and paths seen lately, with their loose spelling and parsed steps: a list of
 * thousands of sessions asks the same few of them for every item, through alias tables
 * whose unused aliases are looked for each time. Bounded: emptied when full.
 */
const MEMO_MAX = 4096;
const looseMemo = new Map<string, string>();
const pathMemo = new Map<string, readonly Step[]>();

/** Longer keys and paths are not remembered: a server's odd long key must not fill the memo. */
const MEMO_KEY_MAX = 64;

function memo<T>(cache: Map<string, T>, key: string, make: (key: string) => T): T {
  if (key.length > MEMO_KEY_MAX) return make(key);
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    if (cache.size >= MEMO_MAX) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * A key with case, `_`, `-` and spaces ignored: `scheduled_at`, `scheduledAt`, `ScheduledAt`
 * meet; a custom-field marker (`Scheduled_At__c`, words.ts) is no part of the name.
 */
export function looseKey(key: string): string {
  return memo(looseMemo, key, loosen);
}

function loosen(key: string): string {
  return key
    .replace(CUSTOM_SUFFIX, '')
    .toLowerCase()
    .replace(/[_\-\s]/g, '');
}

/**
 * Records with at least this many keys get an index of their loose spellings at their
 * first miss: a miss scans every key, and a record is asked for a few hundred aliases, so
 * 20 records of 20 000 keys took seconds of one read, with the event loop held.
 */
const LOOSE_INDEX_KEYS = 32;
const looseIndexes = new WeakMap<JsonRecord, Map<string, string>>();

/**
 * Reads an own property by its exact name, else by its loose spelling, so snake_case,
 * camelCase, PascalCase and kebab-case servers are read by the same alias tables. Of
 * several keys with the same loose spelling, the first in the record's order answers.
 */
export function prop(o: JsonRecord, key: string): unknown {
  if (hasOwn(o, key)) return o[key];
  const want = looseKey(key);
  let index = looseIndexes.get(o);
  if (index === undefined) {
    const keys = Object.keys(o);
    if (keys.length < LOOSE_INDEX_KEYS) {
      for (const k of keys) if (looseKey(k) === want) return o[k];
      return undefined;
    }
    index = new Map();
    // Not through the memo: thousands of one record's keys would only churn it.
    for (const k of keys) {
      const loose = loosen(k);
      if (!index.has(loose)) index.set(loose, k);
    }
    looseIndexes.set(o, index);
  }
  const found = index.get(want);
  return found === undefined ? undefined : o[found];
}

type Step = { key: string } | { index: number };

/** Splits `a.b[0].c` into steps; a segment `roles[0]` is a key then an index. */
function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  for (const segment of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(segment);
    if (!m) {
      steps.push({ key: segment });
      continue;
    }
    if (m[1] !== '') steps.push({ key: m[1] ?? '' });
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) steps.push({ index: Number(idx[1]) });
  }
  return steps;
}

/**
 * Reads a dot path (`data.items`, `roles[0]`, `_links.next.href`) from a parsed body;
 * `""` is the root. A key that itself contains dots (`@odata.nextLink`) is found too.
 * Returns `undefined` when any step is missing.
 */
export function getPath(root: unknown, path: string): unknown {
  if (path === '') return root;
  if (path.includes('.') && isRecord(root) && hasOwn(root, path)) return root[path];
  let cur: unknown = root;
  for (const step of memo(pathMemo, path, parsePath)) {
    if ('index' in step) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step.index];
    } else {
      if (!isRecord(cur)) return undefined;
      cur = prop(cur, step.key);
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Names the JSON type of a value for drift messages, without its content. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array (${v.length} item${v.length === 1 ? '' : 's'})`;
  if (isRecord(v)) return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

/** Describes a body for an error message: its type and, for objects, its top-level keys. */
export function describeBody(v: unknown): string {
  if (!isRecord(v)) return describeValue(v);
  const keys = Object.keys(v);
  if (keys.length === 0) return 'an empty object';
  // Keys come from the server: control characters are masked so a message stays one line.
  const clean = (k: string): string =>
    Array.from(k, (c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? '?' : c)).join('');
  const shown = keys.slice(0, 12).map((k) => clean(k.length > 40 ? `${k.slice(0, 40)}…` : k));
  const more = keys.length > shown.length ? `, … ${keys.length - shown.length} more` : '';
  return `an object with keys ${shown.join(', ')}${more}`;
}

/**
 * Builds an object from entries with own data properties only, so a key such as
 * `__proto__` coming from the API is stored as data, never as a prototype.
 */
export function fromEntries<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  return Object.fromEntries(entries) as Record<string, V>;
}

/**
 * A resource read as one flat record (docs/upstream-shapes.md, "Fields"). A JSON:API
 * resource object (`{ id, type, attributes, relationships }`) has its attributes beside
 * `id` and `type`, a to-one relationship as its identifier (`channel: { type, id }`) and a
 * to-many one as `{ data: [...], meta }`; a HAL record (`_embedded: { questions: [...] }`)
 * has its embedded resources beside its fields. Any record keeping its fields in a nested
 * bag (`properties`, `attributes`, `fields`: CRM objects, Notion pages) has them beside its
 * own, each typed value (`{ type: "status", status: { name } }`) unwrapped to its value; and
 * a record with no `id` of its own is given the last segment of its resource name
 * (`organizations/acme/channels/ch1`, AIP-122), of its self link (`_links.self.href`) or of
 * its own address (`uri`, `selfLink`).
 * The record's own fields win over all of these. Any other record is returned as is.
 */
export function flattenResource(raw: JsonRecord): JsonRecord {
  const attributes = raw['attributes'];
  const jsonApi = isRecord(attributes) && hasOwn(raw, 'type') && hasOwn(raw, 'id');
  const embedded = raw['_embedded'];
  const bagKey = jsonApi ? 'attributes' : fieldBagKey(raw);
  const bag = bagKey === undefined ? undefined : unwrapTypedValues(raw[bagKey] as JsonRecord);
  const pathId = ownIdFromPath(raw);
  if (!jsonApi && !isRecord(embedded) && bag === undefined && pathId === undefined)
    return spreadFieldBag(raw);
  const related: JsonRecord = {};
  const relationships = jsonApi ? raw['relationships'] : undefined;
  if (isRecord(relationships)) {
    for (const [key, rel] of Object.entries(relationships)) {
      if (!isRecord(rel)) continue;
      related[key] = isRecord(rel['data']) ? rel['data'] : rel;
    }
  }
  const flat: JsonRecord = {
    ...(isRecord(embedded) ? embedded : {}),
    ...related,
    ...(bag ?? {}),
    ...raw,
  };
  // What was spread out is read through its parts (and not listed as a key nobody read).
  if (isRecord(embedded)) delete flat['_embedded'];
  if (bagKey !== undefined) delete flat[bagKey];
  if (isRecord(relationships)) delete flat['relationships'];
  if (pathId !== undefined) {
    flat['id'] = pathId.id;
    // A resource name is the record's address, not its display name (`displayName` is).
    if (pathId.from === 'name') {
      delete flat['name'];
      flat['resource_name'] = raw['name'];
    }
  }
  return flat;
}

/** Keys of a nested object holding a record's fields, by what the word says. */
const FIELD_BAGS = ['properties', 'attributes', 'fields'];
/** Keys that only describe a record (its type, its address): a bag of these is metadata, not fields. */
const DESCRIPTOR_KEYS = new Set(['type', 'url', 'href', 'self', 'kind', 'object', 'id']);

/** The key of the nested object holding the record's fields, if one (a bag of descriptors is not one). */
function fieldBagKey(raw: JsonRecord): string | undefined {
  for (const key of FIELD_BAGS) {
    const bag = raw[key];
    if (isRecord(bag) && Object.keys(bag).some((k) => !DESCRIPTOR_KEYS.has(k.toLowerCase()))) return key;
  }
  return undefined;
}

/** Each value of a field bag with its type tag taken off (see unwrapTyped). */
function unwrapTypedValues(bag: JsonRecord): JsonRecord {
  return fromEntries(Object.entries(bag).map(([k, v]) => [k, unwrapTyped(v)] as const));
}

/**
 * A typed property value (`{ id, type: "number", number: 3 }`) as its value: the value under
 * the key its `type` names, then simplified: rich text (`[{ plain_text }]`) joined, a choice
 * (`{ name, color }`) as its name, a lone reference list (`[{ id }]`) as that id. Anything
 * else is kept: a date `{ start, end }` is read by the words of its keys (`Scheduled.start`).
 */
export function unwrapTyped(v: unknown): unknown {
  if (!isRecord(v)) return v;
  const type = v['type'];
  if (typeof type !== 'string' || type === 'type' || !hasOwn(v, type)) return v;
  return simplify(v[type]);
}

function simplify(v: unknown): unknown {
  if (Array.isArray(v)) {
    if (v.length > 0 && v.every((x) => isRecord(x) && typeof x['plain_text'] === 'string'))
      return v.map((x) => (x as JsonRecord)['plain_text']).join('');
    if (v.length === 1 && isRecord(v[0]) && Object.keys(v[0]).length === 1 && hasOwn(v[0], 'id'))
      return v[0]['id'];
    return v;
  }
  if (!isRecord(v)) return v;
  return typeof v['name'] === 'string' ? v['name'] : v;
}

/** A resource name: collection / id pairs, e.g. `organizations/acme/channels/ch1` (AIP-122). */
const RESOURCE_NAME = /^[A-Za-z][A-Za-z0-9-]*\/[^\s/]+(\/[A-Za-z][A-Za-z0-9-]*\/[^\s/]+)*$/;

/**
 * The id of a record that has none of its own: the last segment of its resource `name`, or
 * of its self link (`_links.self.href`, as HAL and Spring Data REST give it). Undefined when
 * the record has an own id key (`id`, `_id`, `@id` …) or neither.
 */
function ownIdFromPath(raw: JsonRecord): { id: string; from: 'name' | 'self' } | undefined {
  if (Object.keys(raw).some((k) => looseKey(k.replace(/^[@$]/, '')) === 'id')) return undefined;
  const name = raw['name'];
  if (typeof name === 'string' && RESOURCE_NAME.test(name)) return lastSegment(name, 'name');
  const links = raw['_links'] ?? raw['links'];
  const self = isRecord(links) ? links['self'] : undefined;
  const href = isRecord(self) ? self['href'] : self;
  if (typeof href === 'string') return lastSegment(href.split(/[?#]/)[0] ?? '', 'self');
  // The record's own address as a field (`uri`, `selfLink`, `self`, `href`): an API URL,
  // only for a record with no id under any lone id word (`sid`, `uuid`, `key`), and
  // without a format suffix (`/Calls/CA1.json`).
  if (Object.keys(raw).some(isOwnIdKey)) return undefined;
  const own = SELF_KEYS.map((k) => raw[k]).find((v) => typeof v === 'string' && /^https?:\/\/|^\//.test(v));
  if (typeof own !== 'string') return undefined;
  return lastSegment((own.split(/[?#]/)[0] ?? '').replace(/\.(json|xml)$/i, ''), 'self');
}

/** Keys a record's own address is given under, when it has no id (Calendly's `uri`, Google's `selfLink`). */
const SELF_KEYS = ['uri', 'self', 'selfLink', 'self_link', 'href', '@self'];

function lastSegment(path: string, from: 'name' | 'self'): { id: string; from: 'name' | 'self' } | undefined {
  const segment = path.replace(/\/+$/, '').split('/').pop();
  if (segment === undefined || segment === '' || /[{}]/.test(segment)) return undefined;
  try {
    return { id: decodeURIComponent(segment), from };
  } catch {
    return undefined;
  }
}

/** Words of the keys a record keeps beside a bag of its fields: identity, links, bookkeeping. */
const BESIDE_BAG = new Set(
  ['id', 'uid', 'uuid', 'guid', 'sid', 'key', 'slug', 'self', 'url', 'uri', 'href', 'link', 'links'].concat([
    'type',
    'kind',
    'object',
    'etag',
    'version',
    'expand',
    'created',
    'updated',
    'archived',
    'at',
  ]),
);

/** A key naming the record's identity alone (`id`, `uid`, `sid`, `key`, `self` …). */
function isIdentityKey(k: string): boolean {
  const words = splitWords(k);
  return words.length === 1 && ['id', 'uid', 'uuid', 'guid', 'sid', 'key', 'self'].includes(words[0]!);
}

/**
 * A record whose own fields sit in one object beside its identity (Jira's `{ id, key,
 * self, fields: {...} }`, HubSpot's `{ id, properties: {...}, createdAt }`), read with that
 * object's keys beside the others; the record's own keys win. Any other record is as is.
 */
function spreadFieldBag(raw: JsonRecord): JsonRecord {
  let bag: string | undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (isRecord(v)) {
      if (bag !== undefined || Object.keys(v).length < 3) return raw;
      bag = k;
    } else if (!splitWords(k).every((w) => BESIDE_BAG.has(w))) return raw;
  }
  // A wrapper holding one record (`{ item: {...} }`), or an id beside one object field
  // (`{ id, status: { name } }`), is not a record with a bag: an identity and more beside it.
  const beside = Object.keys(raw).filter((k) => k !== bag);
  if (bag === undefined || beside.length < 2 || !beside.some(isIdentityKey)) return raw;
  const flat: JsonRecord = { ...(raw[bag] as JsonRecord), ...raw };
  delete flat[bag];
  return flat;
}

/**
 * A JSON:API compound document's primary resource with each relationship's identifiers
 * (`{ type, id }`) replaced by the resource `included` holds for them (flattened), so a
 * session's questions and speakers are read with their text. Identifiers with no
 * included resource stay as they are.
 */
export function resolveIncluded(data: JsonRecord, included: readonly unknown[]): JsonRecord {
  const relationships = data['relationships'];
  if (!isRecord(relationships)) return data;
  const byKey = new Map<string, JsonRecord>();
  for (const r of included) {
    if (
      isRecord(r) &&
      (typeof r['id'] === 'string' || typeof r['id'] === 'number') &&
      typeof r['type'] === 'string'
    )
      byKey.set(`${r['type']}\u0000${r['id']}`, flattenResource(r));
  }
  // An identifier whose type or id is not a word is left as it is (and read as drift).
  const word = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';
  const resolve = (ident: unknown): unknown =>
    isRecord(ident) && word(ident['type']) && word(ident['id'])
      ? (byKey.get(`${ident['type']}\u0000${ident['id']}`) ?? ident)
      : ident;
  const resolved: JsonRecord = {};
  for (const [key, rel] of Object.entries(relationships)) {
    const d = isRecord(rel) ? rel['data'] : undefined;
    resolved[key] = isRecord(rel) && Array.isArray(d) ? { ...rel, data: d.map(resolve) } : rel;
  }
  return { ...data, relationships: resolved };
}

/** A word from a body for a drift message: quoted, at most 40 characters, no control characters. */
export function quoteWord(word: string): string {
  const clean = [...word].map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? '?' : c)).join('');
  return JSON.stringify(clean.length > 40 ? `${clean.slice(0, 40)}…` : clean);
}

/** Keys of a name given as an object (`plan: { id, name }`, `name: { text, html }`), in order. */
const LABEL_KEYS = ['name', 'display_name', 'displayName', 'title', 'label', 'nickname', 'text'];

/** The name of an object that stands for a named thing (see {@link LABEL_KEYS}), if it has one. */
export function labelOf(v: unknown): string | undefined {
  if (!isRecord(v)) return undefined;
  for (const k of LABEL_KEYS) {
    const x = v[k];
    if (typeof x === 'string' && x.trim() !== '') return x.trim();
  }
  return undefined;
}
