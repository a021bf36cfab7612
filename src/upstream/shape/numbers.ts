/**
 * Numbers, money and limits as servers write them: numbers, numeric strings,
 * `{ amount, currency }`, minor units, and the many spellings of "unlimited".
 */
import { getPath, isRecord } from './json.js';

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A finite number from a number or a numeric string (`"42"`, `" 4.5 "`), else undefined. */
export function parseNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().replace(/_/g, '');
  if (!NUMERIC.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

const UNLIMITED_WORDS = new Set([
  'unlimited',
  'infinite',
  'infinity',
  'inf',
  '∞',
  'none',
  'no limit',
  'nolimit',
]);

/** Whether a limit value means "no limit": null, a negative number, or a word such as `unlimited`. */
export function isUnlimited(v: unknown): boolean {
  if (v === null) return true;
  if (typeof v === 'number') return v < 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (UNLIMITED_WORDS.has(s)) return true;
    const n = parseNumber(s);
    return n !== undefined && n < 0;
  }
  if (isRecord(v)) return v['unlimited'] === true || v['is_unlimited'] === true || v['isUnlimited'] === true;
  return false;
}

/** An amount of money, either part possibly unknown. */
export interface Money {
  amount?: number;
  currency?: string;
}

const AMOUNT_KEYS = ['amount', 'value', 'balance', 'total'];
const MINOR_KEYS = ['amount_cents', 'cents', 'amount_minor', 'minor_units', 'value_cents', 'balance_cents'];
const CURRENCY_KEYS = ['currency', 'currency_code', 'unit'];
// `12.50 EUR`, `EUR 12.50`
const AMOUNT_WITH_CODE = /^(?:([A-Za-z]{3})\s*)?([+-]?\d+(?:\.\d+)?)(?:\s*([A-Za-z]{3}))?$/;

/**
 * Reads money from a number, a numeric string (`"42.5"`, `"42.5 EUR"`), an object
 * `{ amount|value|balance, currency }` or minor units `{ amount_cents }` (divided by
 * 100). Returns undefined when nothing numeric is found.
 */
export function parseMoney(v: unknown, depth = 0): Money | undefined {
  const n = parseNumber(v);
  if (n !== undefined) return { amount: n };
  if (typeof v === 'string') {
    const m = AMOUNT_WITH_CODE.exec(v.trim());
    if (!m || (m[1] !== undefined && m[3] !== undefined)) return undefined;
    const code = (m[1] ?? m[3])?.toUpperCase();
    return code === undefined ? { amount: Number(m[2]) } : { amount: Number(m[2]), currency: code };
  }
  if (!isRecord(v) || depth > 2) return undefined;
  const currency = firstString(v, CURRENCY_KEYS);
  for (const key of MINOR_KEYS) {
    const minor = parseNumber(getPath(v, key));
    if (minor !== undefined) return withCurrency({ amount: minor / 100 }, currency);
  }
  for (const key of AMOUNT_KEYS) {
    const inner = parseMoney(getPath(v, key), depth + 1);
    if (inner?.amount !== undefined) return withCurrency(inner, currency);
  }
  return undefined;
}

function withCurrency(m: Money, currency: string | undefined): Money {
  if (currency === undefined || m.currency !== undefined) return m;
  return { ...m, currency };
}

function firstString(o: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = getPath(o, key);
    if (typeof v === 'string' && v.trim() !== '') return v.trim().toUpperCase();
  }
  return undefined;
}
