/**
 * Plan limits and usage, given as a map (`{ channels: 50 }`, `{ channels: { limit: 50,
 * used: 3 } }`) or as a list (`[{ name: 'channels', limit: 50, used: 3 }]`). Names are
 * kept in snake_case whatever case the server writes (`aiMinutes` → `ai_minutes`), so
 * metrics and events name a limit the same way on every server. Unlimited limits
 * (`null`, `-1`, `"unlimited"`) are omitted.
 */
import type { DriftLog } from './drift.js';
import { aliasesFor, type FieldKey } from './fields.js';
import { describeValue, getPath, isRecord, type JsonRecord } from './json.js';
import { isUnlimited, parseNumber } from './numbers.js';
import type { ShapeOptions } from './options.js';
import { asAny, asText, type ReadContext, readField } from './read.js';

/** Limits and usage read from one value. */
export interface LimitsRead {
  limits: [string, number][];
  usage: [string, number][];
}

/** `aiMinutes`, `AI-Minutes`, `ai minutes` → `ai_minutes`. */
export function snakeName(name: string): string {
  return name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();
}

/** Reads limits (or usage, with `field` = `subscription.usage`) from a map or a list. */
export function readLimits(value: unknown, field: FieldKey, opts: ShapeOptions, drift: DriftLog): LimitsRead {
  const out: LimitsRead = { limits: [], usage: [] };
  if (Array.isArray(value)) {
    value.forEach((entry, i) => {
      readEntry(entry, i, field, opts, drift, out);
    });
    return out;
  }
  if (!isRecord(value)) {
    drift.note(field, `is ${describeValue(value)}, expected an object or a list`);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    readValue(snakeName(k), v, k, field, opts, drift, out);
  }
  return out;
}

function readEntry(
  entry: unknown,
  i: number,
  field: FieldKey,
  opts: ShapeOptions,
  drift: DriftLog,
  out: LimitsRead,
): void {
  if (!isRecord(entry)) {
    drift.note(field, `entry [${i}] is ${describeValue(entry)}, expected an object`);
    return;
  }
  const ctx: ReadContext = { opts, drift };
  const name = readField(ctx, entry, 'limit.name', asText);
  if (name === undefined) {
    drift.note(field, `entry [${i}] has no name`);
    return;
  }
  readValue(snakeName(name), entry, `[${i}]`, field, opts, drift, out);
}

/** One limit value: a number, an unlimited marker, or `{ limit, used }`. */
function readValue(
  name: string,
  v: unknown,
  where: string,
  field: FieldKey,
  opts: ShapeOptions,
  drift: DriftLog,
  out: LimitsRead,
): void {
  const isUsage = field === 'subscription.usage';
  if (isRecord(v)) {
    readObjectValue(name, v, where, field, opts, drift, out);
    return;
  }
  if (isUnlimited(v)) return;
  const n = parseNumber(v);
  if (n === undefined) {
    drift.note(field, `'${where}' is ${describeValue(v)}, expected a number`);
    return;
  }
  (isUsage ? out.usage : out.limits).push([name, n]);
}

function readObjectValue(
  name: string,
  o: JsonRecord,
  where: string,
  field: FieldKey,
  opts: ShapeOptions,
  drift: DriftLog,
  out: LimitsRead,
): void {
  const ctx: ReadContext = { opts, drift };
  if (field === 'subscription.usage') {
    const used = parseNumber(readField(ctx, o, 'limit.used', asAny));
    if (used !== undefined) out.usage.push([name, used]);
    else drift.note(field, `'${where}' has no numeric usage`);
    return;
  }
  const used = parseNumber(readField(ctx, o, 'limit.used', asAny));
  if (used !== undefined) out.usage.push([name, used]);
  if (isUnlimited(o)) return;
  const limit = readField(ctx, o, 'limit.limit', asAny);
  if (limit === undefined) {
    // `{ limit: null }` is unlimited; an entry that only reports usage has no limit at all.
    if (hasLimitKey(o, opts)) return;
    if (used === undefined) drift.note(field, `'${where}' has no limit`);
    return;
  }
  if (isUnlimited(limit)) return;
  const n = parseNumber(limit);
  if (n === undefined) drift.note(field, `'${where}' limit is ${describeValue(limit)}, expected a number`);
  else out.limits.push([name, n]);
}

/** Whether the entry has a limit key holding null (which the field reader skips as absent). */
function hasLimitKey(o: JsonRecord, opts: ShapeOptions): boolean {
  return aliasesFor('limit.limit', opts).some((path) => getPath(o, path) === null);
}
