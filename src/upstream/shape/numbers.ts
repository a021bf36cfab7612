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
  /** The conversion applied, e.g. `÷ 100 (minor units, USD)`, for `--explain`. */
  how?: string;
}

// ISO 4217 currencies whose minor unit is not 2 digits; every other code has 2.
const ISO_4217_EXPONENT: ReadonlyMap<string, number> = new Map([
  ...[
    'BIF',
    'CLP',
    'DJF',
    'GNF',
    'ISK',
    'JPY',
    'KMF',
    'KRW',
    'PYG',
    'RWF',
    'UGX',
    'UYI',
    'VND',
    'VUV',
    'XAF',
    'XOF',
    'XPF',
  ].map((c) => [c, 0] as const),
  ...['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((c) => [c, 3] as const),
  ['CLF', 4],
  ['UYW', 4],
]);

/** The ISO 4217 minor-unit exponent of a currency code (JPY 0, USD 2, KWD 3); 2 when unknown or absent. */
export function currencyExponent(currency: string | undefined): number {
  if (currency === undefined) return 2;
  return ISO_4217_EXPONENT.get(currency.trim().toUpperCase()) ?? 2;
}

const EXPONENT_KEYS = ['exponent', 'scale', 'decimals', 'minor_unit', 'minorUnit', 'decimal_places'];
const AMOUNT_KEYS = ['amount', 'value', 'balance', 'total'];
const MINOR_KEYS = [
  'amount_cents',
  'cents',
  'amount_minor',
  'minor_units',
  'minor',
  'value_cents',
  'balance_cents',
  'amountMinor',
  'amountCents',
  'minorUnits',
  'balanceCents',
];
const CURRENCY_KEYS = ['currency', 'currency_code', 'currencyCode', 'unit'];
/** Keys beside an amount that may say what it counts in (`unit: "cents"`). */
const UNIT_KEYS = [
  'unit',
  'units',
  'denomination',
  'amount_unit',
  'balance_unit',
  'amount_type',
  'unit_type',
];
const MINOR_UNIT_WORD = /^(cents?|minor|minor[ _-]?units?|sub[ _-]?units?|pence|centimes?|fils|paisa|sen)$/i;
/** Flags beside an amount that say it is in minor units (`in_minor_units: true`). */
const MINOR_FLAGS = [
  'in_minor_units',
  'minor_units',
  'is_minor',
  'in_cents',
  'amounts_in_cents',
  'amount_in_cents',
];

/**
 * Whether an object's keys say the amounts beside them are in the currency's minor unit:
 * a unit word (`unit: "cents"`, `denomination: "minor"`) or a flag (`in_minor_units: true`).
 */
export function saysMinorUnits(o: Record<string, unknown>): boolean {
  for (const key of UNIT_KEYS) {
    const v = getPath(o, key);
    if (typeof v === 'string' && MINOR_UNIT_WORD.test(v.trim())) return true;
  }
  return MINOR_FLAGS.some((key) => getPath(o, key) === true);
}

/**
 * What a server has shown of how it writes money in numbers: `fractions` once it wrote a
 * number with a fraction beside a currency code (`12.5`), so it writes major units and an
 * integer there (`12`) is whole units too, not minor ones. Kept per org by the client.
 */
export interface MoneyHabit {
  fractions: boolean;
}

/** Each org's {@link MoneyHabit}, learned as its subscription is read. */
export class MoneyHabits {
  private readonly byOrg = new Map<string, MoneyHabit>();

  /** The habit of `org` (a new one, nothing seen, the first time). */
  of(org: string): MoneyHabit {
    const known = this.byOrg.get(org);
    if (known !== undefined) return known;
    const habit: MoneyHabit = { fractions: false };
    this.byOrg.set(org, habit);
    return habit;
  }
}

/** A currency code as servers write one: three letters, any case (`usd`, `EUR`). */
export function isCurrencyCode(v: unknown): v is string {
  return typeof v === 'string' && /^[A-Za-z]{3}$/.test(v.trim());
}

/**
 * How an amount written as a plain number or string beside currency code `code` counts
 * (docs/upstream-shapes.md, "Values"): an integer JSON number is in minor units, as the
 * major payment APIs write money (Stripe `{ amount: 1234, currency: "usd" }`, Square
 * `amount_money`) unless the server has written fractions there before; a fraction or a
 * decimal string (`"12.34"`, `"12"`) is in major units. Undefined when `v` is no amount.
 */
export function moneyBesideCode(
  v: unknown,
  key: string,
  beside: Record<string, unknown>,
  code: string | undefined,
  habit?: MoneyHabit,
): Money | undefined {
  const n = parseNumber(v);
  if (n === undefined) return undefined;
  const upper = code?.trim().toUpperCase();
  const coded = isCurrencyCode(code);
  if (typeof v === 'number' && Number.isInteger(v) && coded && habit?.fractions !== true)
    return moneyFromMinor(n, key, beside, upper, 'an integer beside a currency code');
  if (typeof v === 'number' && !Number.isInteger(v) && coded && habit) habit.fractions = true;
  const how =
    typeof v === 'string'
      ? 'a decimal string: major units'
      : !Number.isInteger(v)
        ? 'a decimal number: major units'
        : !coded
          ? 'a number without a currency code: major units'
          : 'an integer where this server writes fractions: major units';
  return withCurrency({ amount: n, how }, upper);
}

/** The currency named beside an amount; `unit` counts only as a three-letter code. */
export function currencyOf(o: Record<string, unknown>): string | undefined {
  for (const key of CURRENCY_KEYS) {
    const v = getPath(o, key);
    if (typeof v !== 'string' || v.trim() === '') continue;
    if (key === 'unit' && !/^[A-Za-z]{3}$/.test(v.trim())) continue;
    return v.trim().toUpperCase();
  }
  return undefined;
}
// `12.50 EUR`, `EUR 12.50`
const AMOUNT_WITH_CODE = /^(?:([A-Za-z]{3})\s*)?([+-]?\d+(?:\.\d+)?)(?:\s*([A-Za-z]{3}))?$/;

/**
 * Reads money from a number, a numeric string (`"42.5"`, `"42.5 EUR"`), an object
 * `{ amount|value|balance, currency }` or minor units `{ amount_cents }` (scaled by a
 * sibling `exponent`/`scale`/`decimals`, else by the ISO 4217 exponent of the currency).
 * Returns undefined when nothing numeric is found.
 */
export function parseMoney(v: unknown, depth = 0, habit?: MoneyHabit): Money | undefined {
  const n = parseNumber(v);
  if (n !== undefined) return { amount: n };
  if (typeof v === 'string') {
    const m = AMOUNT_WITH_CODE.exec(v.trim());
    if (!m || (m[1] !== undefined && m[3] !== undefined)) return undefined;
    const code = (m[1] ?? m[3])?.toUpperCase();
    return code === undefined ? { amount: Number(m[2]) } : { amount: Number(m[2]), currency: code };
  }
  if (!isRecord(v) || depth > 2) return undefined;
  const currency = currencyOf(v);
  const minorBeside = saysMinorUnits(v);
  for (const key of minorBeside ? [...MINOR_KEYS, ...AMOUNT_KEYS] : MINOR_KEYS) {
    const minor = parseNumber(getPath(v, key));
    if (minor !== undefined)
      return moneyFromMinor(minor, key, v, currency, minorBeside && !MINOR_KEYS.includes(key));
  }
  const scaled = scaledMoney(v, currency);
  if (scaled !== undefined) return scaled;
  for (const key of AMOUNT_KEYS) {
    const plain = moneyBesideCode(getPath(v, key), key, v, currency, habit);
    if (plain !== undefined) return plain;
    const inner = parseMoney(getPath(v, key), depth + 1, habit);
    if (inner?.amount !== undefined) {
      return withCurrency({ ...inner, how: inner.how ? `${key}.${inner.how}` : key }, currency);
    }
  }
  return undefined;
}

/** Keys of an amount in millionths of the currency unit (`amount_micros`, Google's style). */
const MICROS_KEYS = [
  'amount_micros',
  'micros',
  'value_micros',
  'balance_micros',
  'amountMicros',
  'balanceMicros',
];

/**
 * Money a server spells as a scaled integer: `{ value: 1234, exponent: 2 }` (an integer
 * amount beside a stated exponent counts in 10^-exponent; a fractional one is already
 * major, its exponent only a display precision), `{ amount_micros }` (millionths), or
 * `{ units, nanos }` (whole units and billionths).
 */
function scaledMoney(v: Record<string, unknown>, currency: string | undefined): Money | undefined {
  if (EXPONENT_KEYS.some((key) => statedExponent(getPath(v, key)) !== undefined)) {
    for (const key of AMOUNT_KEYS) {
      const n = parseNumber(getPath(v, key));
      if (n !== undefined && Number.isInteger(n)) return moneyFromMinor(n, key, v, currency, true);
    }
  }
  for (const key of MICROS_KEYS) {
    const n = parseNumber(getPath(v, key));
    if (n !== undefined)
      return withCurrency({ amount: Number(`${n}e-6`), how: `${key} ÷ 1000000 (millionths)` }, currency);
  }
  const units = parseNumber(getPath(v, 'units'));
  const nanos = parseNumber(getPath(v, 'nanos'));
  if (units !== undefined && Number.isInteger(units) && (nanos === undefined || Number.isInteger(nanos))) {
    const amount = nanos === undefined ? units : Number(`${units}`) + Number(`${nanos}e-9`);
    const how = nanos === undefined ? 'units' : 'units + nanos ÷ 1000000000';
    return withCurrency({ amount: Math.round(amount * 1e9) / 1e9, how }, currency);
  }
  return undefined;
}

function statedExponent(v: unknown): number | undefined {
  const e = parseNumber(v);
  return e !== undefined && Number.isInteger(e) && e >= 0 && e <= 8 ? e : undefined;
}

/**
 * Money from an amount in minor units found under `key`, scaled by an exponent stated in
 * `beside` (the object holding it) or else by the currency's ISO 4217 exponent.
 * `said`: the amount's own key does not say minor units, its siblings do (or, as text, why
 * it counts in minor units).
 */
export function moneyFromMinor(
  minor: number,
  key: string,
  beside: Record<string, unknown>,
  currency: string | undefined,
  said: boolean | string = false,
): Money {
  const { amount, exp, stated } = minorToMajor(minor, beside, currency);
  const why = stated ? 'exponent given by the server' : `${currency ?? 'no currency'}: exponent ${exp}`;
  const rule = typeof said === 'string' ? `, ${said}` : said ? ', said beside it' : '';
  const how = `${key} ÷ ${10 ** exp} (minor units${rule}; ${why})`;
  return withCurrency({ amount, how }, currency);
}

// An explicit sibling exponent wins over the currency's: the server says how it counts.
function minorToMajor(
  minor: number,
  o: Record<string, unknown>,
  currency: string | undefined,
): { amount: number; exp: number; stated: boolean } {
  let exp = currencyExponent(currency);
  let stated = false;
  for (const key of EXPONENT_KEYS) {
    const e = statedExponent(getPath(o, key));
    if (e !== undefined) {
      exp = e;
      stated = true;
      break;
    }
  }
  // Divide by a power of ten through the decimal string so 1999 / 100 is 19.99 exactly.
  return { amount: exp === 0 ? minor : Number(`${minor}e-${exp}`), exp, stated };
}

function withCurrency(m: Money, currency: string | undefined): Money {
  if (currency === undefined || m.currency !== undefined) return m;
  return { ...m, currency };
}
