/**
 * Upstream times arrive as ISO 8601 strings, epoch seconds or epoch milliseconds, as
 * numbers or numeric strings. tally keeps milliseconds since the epoch.
 */

/** Below this a number is taken as epoch seconds (1e11 s is the year 5138, 1e11 ms is 1973). */
const SECONDS_BELOW = 1e11;
/** Below this a number is milliseconds; above, microseconds, then nanoseconds. */
const MILLIS_BELOW = 1e14;
const MICROS_BELOW = 1e17;

const NUMERIC = /^[+-]?\d+(\.\d+)?$/;
// Date, optional time with optional fraction, optional zone; `T` or a space between.
const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
// RFC 7231 / RFC 2822 dates: `Tue, 01 Jan 2030 10:00:00 GMT`.
const HTTP_DATE = /^[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(:\d{2})? ([A-Z]{1,5}|[+-]\d{4})$/;

/** The unit an epoch number is taken in, by its size; undefined for zero, negatives and non-numbers. */
export function epochUnitOf(
  n: number,
): 'seconds' | 'milliseconds' | 'microseconds' | 'nanoseconds' | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  if (n < SECONDS_BELOW) return 'seconds';
  if (n < MILLIS_BELOW) return 'milliseconds';
  if (n < MICROS_BELOW) return 'microseconds';
  return 'nanoseconds';
}

/** Converts an epoch number in s, ms, µs or ns to ms; zero and negatives mean "not set". */
function fromEpoch(n: number): number | undefined {
  const unit = epochUnitOf(n);
  if (unit === undefined) return undefined;
  if (unit === 'seconds') return Math.round(n * 1000);
  if (unit === 'milliseconds') return Math.round(n);
  if (unit === 'microseconds') return Math.round(n / 1000);
  return Math.round(n / 1e6);
}

/** Parses an ISO 8601 string; a time without a zone is UTC (the API speaks UTC). */
function fromIso(s: string): number | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [, date, time, zone] = m;
  if (time === undefined) return finite(Date.parse(`${date}T00:00:00Z`));
  const hhmmss = time.replace(',', '.').length === 5 ? `${time}:00` : time.replace(',', '.');
  let z = zone === undefined || zone === 'z' ? 'Z' : zone;
  if (/^[+-]\d{2}$/.test(z)) z = `${z}:00`;
  else if (/^[+-]\d{4}$/.test(z)) z = `${z.slice(0, 3)}:${z.slice(3)}`;
  return finite(Date.parse(`${date}T${trimFraction(hhmmss)}${z}`));
}

/** Keeps at most millisecond precision, which every JavaScript engine parses. */
function trimFraction(t: string): string {
  return t.replace(/(\.\d{3})\d+$/, '$1');
}

function finite(n: number): number | undefined {
  return Number.isFinite(n) ? n : undefined;
}

/** Parses a time value: ISO 8601 string, epoch seconds or epoch milliseconds (number or numeric string) → ms, or undefined. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v === 'number') return fromEpoch(v);
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (s === '') return undefined;
  if (NUMERIC.test(s)) return fromEpoch(Number(s));
  const iso = fromIso(s);
  if (iso !== undefined) return iso;
  if (HTTP_DATE.test(s)) return finite(Date.parse(s));
  return undefined;
}
