/**
 * Reading `Retry-After` (RFC 9110 §10.2.3): a number of seconds or an HTTP-date. A value
 * that is missing, unreadable, negative or absurd (more than an hour) is not trusted;
 * the budget then waits a bounded backoff of its own instead.
 *
 * An HTTP-date comes in three forms (RFC 9110 §5.6.7), all of them GMT, and recipients
 * must accept each: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
 * form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`, no
 * zone but GMT all the same). They are parsed here by their grammar rather than by
 * `Date.parse`, which reads asctime as local time and accepts far more than HTTP-dates.
 */

/** Longest Retry-After taken at its word; anything longer is treated as unreadable. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// Names are matched without regard to case: the grammar says case-sensitive, but a
// server that writes `gmt` still means GMT, and nothing else could be meant.
/** `Sun, 06 Nov 1994 08:49:37 GMT` (a one-digit day is tolerated, as RFC 1123 allowed). */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{1,2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
/** `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
/** `Sun Nov  6 08:49:37 1994` (day padded with a space, or two digits). */
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ( ?\\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

/**
 * Milliseconds to wait from `now` according to `value`, or `undefined` when the value
 * cannot be trusted. A date in the past means "now" (0).
 *
 * An HTTP-date is the server's clock: it is measured from the answer's own `Date` header
 * (`serverDate`) when that is a valid HTTP-date, so that a server whose clock is minutes
 * off asks for the wait it means, not an hour's pause or none at all.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number,
  serverDate?: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  let ms: number;
  if (/^-?\d+(\.\d+)?$/.test(v)) {
    ms = Number(v) * 1000;
    if (ms < 0) return undefined;
  } else {
    const at = parseHttpDate(v, now);
    if (at === undefined) return undefined;
    const sent = serverDate === undefined ? undefined : parseHttpDate(serverDate.trim(), now);
    ms = Math.max(0, at - (sent ?? now));
  }
  if (!Number.isFinite(ms) || ms > MAX_RETRY_AFTER_MS) return undefined;
  return Math.ceil(ms);
}

/**
 * The time (ms since the epoch) an HTTP-date in any of its three forms names, or
 * `undefined` when `value` is not one. `now` places the two-digit year of the RFC 850
 * form. The day name is required but not checked against the date.
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) return utc(Number(m[3]), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  m = RFC_850.exec(value);
  if (m !== null) return utc(fullYear(Number(m[3]), now), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  m = ASCTIME.exec(value);
  if (m !== null) return utc(Number(m[6]), m[1]!, m[2]!.trim(), m[3]!, m[4]!, m[5]!);
  return undefined;
}

/**
 * RFC 9110 §5.6.7: a two-digit year that would be more than 50 years in the future is
 * the most recent year in the past with those digits.
 */
function fullYear(twoDigits: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear();
  let year = thisYear - (thisYear % 100) + twoDigits;
  if (year > thisYear + 50) year -= 100;
  else if (year <= thisYear - 50) year += 100;
  return year;
}

/** The instant of a GMT calendar time, or `undefined` when a field is out of range. */
function utc(
  year: number,
  monthName: string,
  day: string,
  hour: string,
  minute: string,
  second: string,
): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const [d, h, mi, s] = [Number(day), Number(hour), Number(minute), Number(second)];
  // Second 60 is a leap second in the grammar; it rolls over into the next minute.
  if (month < 0 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  // setUTCFullYear, not Date.UTC, which would read years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, d);
  // 31 Feb rolls over into March; such a date does not exist.
  if (date.getUTCMonth() !== month || date.getUTCDate() !== d) return undefined;
  return date.getTime() + ((h * 60 + mi) * 60 + s) * 1000;
}
