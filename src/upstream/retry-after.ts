/**
 * Reading `Retry-After` (RFC 9110 §10.2.3): a number of seconds or an HTTP-date. A value
 * that is missing, unreadable, negative or absurd (more than an hour) is not trusted;
 * the budget then waits a bounded backoff of its own instead.
 */

/** Longest Retry-After taken at its word; anything longer is treated as unreadable. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * Milliseconds to wait from `now` according to `value`, or `undefined` when the value
 * cannot be trusted. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  let ms: number;
  if (/^-?\d+(\.\d+)?$/.test(v)) {
    ms = Number(v) * 1000;
    if (ms < 0) return undefined;
  } else {
    // An HTTP-date names a day of the week; require one so that numbers in odd
    // spellings ("1e3", "0x10") are not parsed as dates.
    if (!/^[A-Za-z]{3},/.test(v)) return undefined;
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  if (!Number.isFinite(ms) || ms > MAX_RETRY_AFTER_MS) return undefined;
  return Math.ceil(ms);
}
