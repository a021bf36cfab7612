import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/notify/backoff.js';

const opts = { baseMs: 1000, maxMs: 60_000 };

describe('retryDelay: exponential backoff with full jitter', () => {
  it.each([
    // failures, random, retryAfterMs, expected
    [1, 0.999999, undefined, 999],
    [2, 0.999999, undefined, 1999],
    [3, 0.5, undefined, 2000],
    [7, 0.999999, undefined, 59_999], // capped at max
    [40, 0.999999, undefined, 59_999], // no overflow with many failures
    [1, 0, undefined, 0], // full jitter reaches zero
    [1, 0.5, 30_000, 30_000], // Retry-After longer than the backoff wins
    [5, 0.999999, 2000, 15_999], // a shorter Retry-After does not cut the backoff
  ])('failures=%i random=%f retryAfter=%s → %i ms', (failures, r, retryAfter, expected) => {
    expect(retryDelay(failures, opts, () => r, retryAfter)).toBe(expected);
  });
});
