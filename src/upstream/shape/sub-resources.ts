/**
 * Sub-resources embedded in a session detail: a list as an array, as `{ items, total }` /
 * `{ data, count }`, or only as a count (`questions_count`, `questions: 12`). The count
 * is the reported one when there is one, else the number of items.
 */
import type { DetailItem } from '../../snapshot/model.js';
import { aliasesFor, type FieldKey } from './fields.js';
import { describeValue, flattenResource, getPath, isRecord, type JsonRecord } from './json.js';
import { parseNumber } from './numbers.js';
import { asAny, asCount, asId, asText, asTime, type ReadContext, readField } from './read.js';

/** Field keys of one kind of item. */
export interface ItemFields {
  list: FieldKey;
  count: FieldKey;
  id: FieldKey;
  text: FieldKey;
  at: FieldKey;
}

// `value`: an OData collection.
const ITEM_LIST_KEYS = ['items', 'data', 'results', 'records', 'list', 'nodes', 'edges', 'value'];
// `meta.count`: a JSON:API to-many relationship.
const COUNT_KEYS = ['total', 'count', 'total_count', 'meta.count', 'meta.total', 'meta.total_count'];

/**
 * Whether a sub-resource's value only points elsewhere: a link (`"/v1/…/questions"`, an
 * absolute URL) or an object of links (`{ href }`, a JSON:API relationship with `links`
 * only). Then the sub-resource is not in the detail; it is not 0 (sub-resource-links.ts).
 */
export function onlyPointsElsewhere(value: unknown): boolean {
  if (typeof value === 'string') return /^(\/|https?:\/\/)/i.test(value.trim());
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => LINK_KEYS.has(k));
}
const LINK_KEYS = new Set(['href', 'links', '_links', 'related', 'self', 'url', 'link', 'templated', 'type']);

/**
 * Reads one sub-resource list and its count; undefined when the detail does not hold it
 * (absent, or only a link to it): unknown, never 0.
 */
export function readItems(
  ctx: ReadContext,
  raw: JsonRecord,
  f: ItemFields,
): { count: number; items: DetailItem[] } | undefined {
  const value = readField(ctx, raw, f.list, asAny);
  if (onlyPointsElsewhere(value)) return undefined;
  let list: unknown[] | undefined;
  let count: number | undefined;
  if (Array.isArray(value)) list = value;
  else if (isRecord(value)) {
    list = ITEM_LIST_KEYS.map((k) => getPath(value, k)).find(Array.isArray);
    count = firstCount(value, COUNT_KEYS);
    if (list === undefined && count === undefined) {
      ctx.drift.note(f.list, `is an object without items or a count`);
    }
  } else if (value !== undefined) {
    const n = parseNumber(value);
    if (n !== undefined && n >= 0) count = Math.floor(n);
    else ctx.drift.note(f.list, `is ${describeValue(value)}, expected a list or a count`);
  }
  const reported = readField(ctx, raw, f.count, asCount) ?? count;
  // A list the detail names as `null` is an empty relation (a child query with no rows is
  // written `null`): none, not unknown. A list it does not name at all stays unknown.
  if (value === undefined && reported === undefined) return namedNull(ctx, raw, f.list) ? EMPTY() : undefined;
  const items = distinctContentIds((list ?? []).flatMap((entry, i) => readItem(ctx, entry, i, f)));
  return { count: reported ?? items.length, items };
}

const EMPTY = (): { count: number; items: DetailItem[] } => ({ count: 0, items: [] });

/** Whether the detail names field `key` with an explicit `null` (by an alias). */
function namedNull(ctx: ReadContext, raw: JsonRecord, key: FieldKey): boolean {
  return aliasesFor(key, ctx.opts).some((path) => getPath(raw, path) === null);
}

/** Marks an id made from an item's content (contentId): such ids are made distinct in their list. */
const CONTENT_ID = '~';

/**
 * An id for an item that carries none (value objects embedded or listed without ids, as
 * HAL and resource-oriented APIs may give questions and speakers): its time and text.
 */
function contentId(text: string | undefined, at: number | undefined): string {
  let h = 0x811c9dc5;
  for (const c of `${at ?? ''}\u0000${text ?? ''}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return `${CONTENT_ID}${at === undefined ? '' : `${at.toString(36)}-`}${h.toString(36)}`;
}

/** Items whose content ids repeat (the same question asked twice at once) get `.2`, `.3` … */
function distinctContentIds(items: DetailItem[]): DetailItem[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    if (!item.id.startsWith(CONTENT_ID)) return item;
    const n = (seen.get(item.id) ?? 0) + 1;
    seen.set(item.id, n);
    return n === 1 ? item : { ...item, id: `${item.id}.${n}` };
  });
}

/** One item; a bare string or number is its own id and text (a speaker given by name). */
function readItem(ctx: ReadContext, entry: unknown, i: number, f: ItemFields): DetailItem[] {
  if (typeof entry === 'string' || typeof entry === 'number') {
    const s = String(entry).trim();
    return s === '' ? [] : [{ id: s, text: s }];
  }
  // Relay-style `edges: [{ node: {...} }]`; a JSON:API resource object read flat.
  const inner = isRecord(entry) && isRecord(entry['node']) ? entry['node'] : entry;
  const record = isRecord(inner) ? flattenResource(inner) : inner;
  if (!isRecord(record)) {
    ctx.drift.note(f.list, `item [${i}] is ${describeValue(entry)}, expected an object`);
    return [];
  }
  const own = readField(ctx, record, f.id, asId);
  const text = readField(ctx, record, f.text, asText);
  const at = readField(ctx, record, f.at, asTime);
  // An item without an id is known by its time and text; with neither, it cannot be told apart.
  if (own === undefined && text === undefined && at === undefined) {
    ctx.drift.note(f.id, `item [${i}] has no usable id; skipped`);
    return [];
  }
  const item: DetailItem = { id: own ?? contentId(text, at) };
  if (text !== undefined) item.text = text;
  if (at !== undefined) item.at = at;
  return [item];
}

function firstCount(o: JsonRecord, keys: readonly string[]): number | undefined {
  // OData's `@odata.count` is one key, not a path.
  const odata = parseNumber(o['@odata.count']);
  if (odata !== undefined && odata >= 0) return Math.floor(odata);
  for (const k of keys) {
    const n = parseNumber(getPath(o, k));
    if (n !== undefined && n >= 0) return Math.floor(n);
  }
  return undefined;
}
