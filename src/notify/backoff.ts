/**
 * When to try again: exponential backoff with full jitter, and never before the far side
 * said it is ready (`Retry-After`). Pure, so it is tested table-driven.
 */

/** Backoff settings, in milliseconds. */
export interface BackoffOptions {
  /** Upper bound of the first delay. */
  baseMs: number;
  /** Upper bound of every delay. */
  maxMs: number;
}

/**
 * Delay before attempt `failures + 1`, given `failures` failed attempts (≥ 1): a uniform
 * random value in [0, min(max, base × 2^(failures−1))] ("full jitter"), raised to
 * `retryAfterMs` when the far side asked for longer.
 */
export function retryDelay(
  failures: number,
  opts: BackoffOptions,
  random: () => number,
  retryAfterMs?: number,
): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  const jittered = Math.floor(random() * exp);
  return Math.max(jittered, retryAfterMs ?? 0);
}
