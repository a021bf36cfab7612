/**
 * Typed reading of one model field from a record, in two tiers: its alias table, then the
 * words of the record's keys (words-tier.ts). The first alias holding a usable value wins;
 * a value that can be coerced (a number where a string was expected) is used only when no
 * alias holds a proper one, and is reported; with neither, a key whose words mean the
 * field is read; a value of the wrong type is reported only when nothing usable is found.
 */
import type { DriftLog } from './drift.js';
import { aliasesFor, FIELD_KEYS, type FieldKey } from './fields.js';
import { describeValue, getPath, isRecord, type JsonRecord, labelOf, quoteWord } from './json.js';
import { parseNumber } from './numbers.js';
import type { ShapeOptions } from './options.js';
import { epochUnitOf, parseTime } from './time.js';
import { findByWords, foldKey, hasConcepts } from './words-tier.js';

/** What a field reader needs: the options (for aliases) and where to report drift. */
export interface ReadContext {
  opts: ShapeOptions;
  drift: DriftLog;
}

/** A conversion: a proper value, a coerced value with its problem, a type problem, or `skip` (treat as absent). */
export type Conversion<T> = { ok: T } | { coerced: T; problem: string } | { problem: string } | 'skip';

/** Converts one raw value. */
export type Converter<T> = (v: unknown) => Conversion<T>;

/** Reads a field from `scope` (a record) through its aliases with a converter; see the file comment. */
export function readField<T>(
  ctx: ReadContext,
  scope: unknown,
  key: FieldKey,
  convert: Converter<T>,
): T | undefined {
  let coerced: { value: T; message: string } | undefined;
  let wrong: string | undefined;
  let wrongIsObject = false;
  let nulled = false;
  for (const path of aliasesFor(key, ctx.opts)) {
    const raw = getPath(scope, path);
    if (raw === null) nulled = true;
    if (raw === undefined || raw === null) continue;
    const r = convert(raw);
    if (r === 'skip') continue;
    if ('ok' in r) {
      // Only a time has an epoch unit: an id or a count is a number, never a time.
      const how = convert === asTime ? epochUnit(raw) : undefined;
      ctx.opts.trace?.field(ctx.drift.endpoint, key, path, how, { tier: 'alias', confidence: 1 });
      return r.ok;
    }
    if ('coerced' in r) {
      if (coerced === undefined)
        ctx.opts.trace?.field(ctx.drift.endpoint, key, path, 'coerced', { tier: 'alias', confidence: 1 });
      coerced ??= { value: r.coerced, message: `'${path}' ${r.problem}` };
    } else if (wrong === undefined) {
      wrong = `'${path}' ${r.problem}`;
      wrongIsObject = isRecord(raw);
    }
  }
  if (coerced !== undefined) {
    ctx.drift.note(key, coerced.message);
    return coerced.value;
  }
  // A field the server names, empty or of the wrong type, is reported as it is, not looked
  // for elsewhere; unless it is an object, whose keys may hold it (`status: { lifeCycleStatus }`).
  const byWords =
    nulled || (wrong !== undefined && !wrongIsObject) ? undefined : readByWords(ctx, scope, key, convert);
  if (byWords !== undefined) return byWords;
  if (wrong !== undefined) ctx.drift.note(key, wrong);
  ctx.opts.trace?.missing?.(ctx.drift.endpoint, key);
  return undefined;
}

/**
 * The words tier (words-tier.ts): a key whose words mean the field and whose value fits,
 * when no alias is in the record. Two equally good keys are drift, and neither is read.
 */
function readByWords<T>(
  ctx: ReadContext,
  scope: unknown,
  key: FieldKey,
  convert: Converter<T>,
): T | undefined {
  if (!isRecord(scope) || !hasConcepts(key)) return undefined;
  const found = findByWords(scope, key, { claimed: claimedBySiblings(key, ctx.opts) });
  if (found === undefined) return undefined;
  if ('ambiguous' in found) {
    const keys = found.ambiguous.slice(0, 4).map((p) => quoteWord(p));
    ctx.drift.note(key, `ambiguous: keys ${keys.join(', ')} each look like it; none was read`);
    return undefined;
  }
  const r = convert(found.match.value);
  if (r === 'skip' || !('ok' in r)) return undefined;
  const how = convert === asTime ? epochUnit(found.match.value) : undefined;
  ctx.opts.trace?.field(ctx.drift.endpoint, key, found.match.path, how, {
    tier: 'words',
    confidence: found.match.confidence,
  });
  return r.ok;
}

/** Per options and field: the alias paths of the other fields of the same record. */
const claimedMemo = new WeakMap<ShapeOptions, Map<FieldKey, ReadonlySet<string>>>();
const NO_OPTIONS: ShapeOptions = {};

/**
 * The keys the aliases of a field's siblings (the other `session.*` fields of a session)
 * read: exact names, surer than any reading by words, so never taken for this field.
 */
function claimedBySiblings(key: FieldKey, opts: ShapeOptions): ReadonlySet<string> {
  // Without operator aliases every options object claims the same keys.
  const memoOf = opts.fields === undefined ? NO_OPTIONS : opts;
  let byKey = claimedMemo.get(memoOf);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const prefix = key.slice(0, key.indexOf('.') + 1);
  const paths = FIELD_KEYS.filter((k) => k !== key && k.startsWith(prefix)).flatMap((k) =>
    aliasesFor(k, opts),
  );
  const own = new Set(aliasesFor(key, opts));
  const claimed: ReadonlySet<string> = new Set(paths.filter((p) => !own.has(p)).map(foldKey));
  byKey ??= new Map();
  claimedMemo.set(memoOf, byKey);
  byKey.set(key, claimed);
  return claimed;
}

/** The epoch unit a numeric time was read in, for `--explain` (the sizes parseTime tells apart). */
function epochUnit(raw: unknown): string | undefined {
  const n =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim())
        ? Number(raw)
        : undefined;
  const unit = n === undefined ? undefined : epochUnitOf(n);
  return unit === undefined ? undefined : `epoch ${unit}`;
}

/** Reports the keys of one record to the trace (`--explain`), when one listens. */
export function traceKeys(ctx: ReadContext, record: JsonRecord): void {
  ctx.opts.trace?.keys(ctx.drift.endpoint, Object.keys(record));
}

/**
 * Text: a trimmed non-empty string, or the name of an object standing for a named thing
 * (`plan: { id, name: "Pro" }`); a number is coerced and reported; anything else is wrong.
 */
export const asText: Converter<string> = (v) => {
  if (typeof v === 'string') return v.trim() === '' ? 'skip' : { ok: v.trim() };
  const label = labelOf(v);
  if (label !== undefined) return { ok: label };
  if (typeof v === 'number' && Number.isFinite(v)) {
    return { coerced: String(v), problem: 'is a number, expected a string' };
  }
  return { problem: `is ${describeValue(v)}, expected a string` };
};

/** Keys of a word given as an object (`status: { name: 'On Air', id }`, Jira's way), in order. */
const WORD_OBJECT_KEYS = ['name', 'value', 'label', 'code', 'key'];

/** An enum-like word (status, role, visibility): text, trimmed and lower-cased; an object's `name`. */
export const asWord: Converter<string> = (v) => {
  if (isRecord(v)) {
    const inner = WORD_OBJECT_KEYS.map((k) => v[k]).find((x) => typeof x === 'string' && x.trim() !== '');
    if (inner !== undefined) return asWord(inner);
  }
  const r = asText(v);
  if (r === 'skip' || !('ok' in r || 'coerced' in r)) return r;
  return 'ok' in r ? { ok: r.ok.toLowerCase() } : { coerced: r.coerced.toLowerCase(), problem: r.problem };
};

/** An identifier: a non-empty string or a finite number (stringified, not drift). */
export const asId: Converter<string> = (v) => {
  if (typeof v === 'string') return v.trim() === '' ? 'skip' : { ok: v.trim() };
  if (typeof v === 'number' && Number.isFinite(v)) return { ok: String(v) };
  return { problem: `is ${describeValue(v)}, expected a string or number id` };
};

/** A time: ISO 8601, epoch seconds or milliseconds; an unparseable string is reported. */
export const asTime: Converter<number> = (v) => {
  if (typeof v === 'string' && v.trim() === '') return 'skip';
  const t = parseTime(v);
  if (t !== undefined) return { ok: t };
  if (typeof v === 'string') return { problem: 'is not a recognizable time' };
  if (typeof v === 'number') return 'skip';
  return { problem: `is ${describeValue(v)}, expected a time` };
};

/** A number or numeric string. */
export const asNumber: Converter<number> = (v) => {
  const n = parseNumber(v);
  if (n !== undefined) return { ok: n };
  return { problem: `is ${describeValue(v)}, expected a number` };
};

/** A count: a non-negative number (numeric strings accepted), rounded down. */
export const asCount: Converter<number> = (v) => {
  const n = parseNumber(v);
  if (n !== undefined && n >= 0) return { ok: Math.floor(n) };
  return { problem: `is ${describeValue(v)}, expected a count` };
};

/** A boolean; also `"true"`/`"false"`/`"yes"`/`"no"` strings and 0/1. */
export const asBool: Converter<boolean> = (v) => {
  const b = toBool(v);
  if (b !== undefined) return { ok: b };
  return { problem: `is ${describeValue(v)}, expected a boolean` };
};

/** An object. */
export const asRecord: Converter<JsonRecord> = (v) => {
  if (isRecord(v)) return { ok: v };
  return { problem: `is ${describeValue(v)}, expected an object` };
};

/** Any present value, unconverted. */
export const asAny: Converter<unknown> = (v) => ({ ok: v });

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0', 'n']);

/** A boolean from a boolean, 0/1 or a yes/no word. */
export function toBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return true;
  if (FALSE_WORDS.has(s)) return false;
  return undefined;
}

/**
 * Whether `scope` holds any of `keys` under any of their spellings (an explicit `null`
 * counts), or a key whose words mean one of them (words-tier.ts).
 */
export function hasAnyField(ctx: ReadContext, scope: unknown, keys: readonly FieldKey[]): boolean {
  return keys.some(
    (key) =>
      aliasesFor(key, ctx.opts).some((path) => getPath(scope, path) !== undefined) || byWordsAt(scope, key),
  );
}

/**
 * Whether a key of `scope` means field `key` by its words (ambiguity counts: the field is
 * there). With `parts` off, keys of objects inside it count only under a name the field knows.
 */
function byWordsAt(scope: unknown, key: FieldKey, parts = true): boolean {
  return isRecord(scope) && hasConcepts(key) && findByWords(scope, key, { parts }) !== undefined;
}

/**
 * How many of `keys` `scope` holds a value for (an explicit `null` does not count), for
 * telling which object of a body is the record: a wrapper's inner keys are not its own.
 */
export function fieldsPresent(ctx: ReadContext, scope: unknown, keys: readonly FieldKey[]): number {
  return keys.filter(
    (key) =>
      aliasesFor(key, ctx.opts).some((path) => {
        const v = getPath(scope, path);
        return v !== undefined && v !== null;
      }) || byWordsAt(scope, key, false),
  ).length;
}

/**
 * The top-level keys of a body, for a drift message: names only, never values, at most 12,
 * each cut to 40 characters, so a body of any size gives a short, safe line.
 */
export function keysSeen(raw: unknown): string {
  if (!isRecord(raw)) return describeValue(raw);
  const keys = Object.keys(raw);
  if (keys.length === 0) return 'none (an empty object)';
  const shown = keys.slice(0, 12).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
  return `${shown.join(', ')}${keys.length > 12 ? ` and ${keys.length - 12} more` : ''}`;
}
