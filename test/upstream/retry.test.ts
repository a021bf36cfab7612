import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { UpstreamError, type UpstreamReason } from '../../src/upstream/errors.js';
import {
  backoffDelay,
  decideRetry,
  type RetryPolicy,
  withRetries,
} from '../../src/upstream/transport/retry.js';

const policy: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 30_000, deadlineMs: 120_000 };
const err = (reason: UpstreamReason, status?: number) =>
  new UpstreamError(`GET /v1/x: ${reason}`, { reason, status });
const half = () => 0.5;

describe('decideRetry', () => {
  it.each<[string, UpstreamError, number, number, ReturnType<typeof decideRetry>]>([
    ['connection reset', err('network'), 1, 0, { retry: true, delayMs: 250 }],
    ['timeout', err('timeout'), 2, 0, { retry: true, delayMs: 500 }],
    ['503', err('http_5xx', 503), 3, 0, { retry: true, delayMs: 1000 }],
    ['malformed JSON', err('malformed', 200), 1, 0, { retry: true, delayMs: 250 }],
    ['429 waits for the budget, not here', err('rate_limited', 429), 1, 0, { retry: true, delayMs: 0 }],
    ['401', err('auth', 401), 1, 0, { retry: false }],
    ['403', err('auth', 403), 1, 0, { retry: false }],
    ['404', err('not_found', 404), 1, 0, { retry: false }],
    ['400', err('http_4xx', 400), 1, 0, { retry: false }],
    ['oversized', err('oversized'), 1, 0, { retry: false }],
    ['cross-origin redirect', err('cross_origin', 302), 1, 0, { retry: false }],
    ['attempts spent', err('http_5xx', 500), 4, 0, { retry: false }],
    ['deadline passed', err('http_5xx', 500), 1, 119_900, { retry: false }],
    ['429 after the deadline', err('rate_limited', 429), 1, 120_000, { retry: false }],
  ])('%s', (_name, e, attempt, elapsed, expected) => {
    expect(decideRetry(e, attempt, elapsed, policy, half)).toEqual(expected);
  });

  it.each([
    [60_000, { retry: true, delayMs: 0 }],
    [120_000, { retry: false }],
  ])('counts a budget pause of %i ms against the deadline for a 429', (pauseMs, expected) => {
    expect(decideRetry(err('rate_limited', 429), 1, 1_000, policy, half, pauseMs)).toEqual(expected);
  });
});

describe('backoffDelay', () => {
  it.each([
    [1, 0.999, 499],
    [2, 0.999, 999],
    [5, 0.999, 7992],
    [10, 0.999, 29_970],
    [30, 1, 29_999],
    [3, 0, 0],
    [3, -1, 0],
  ])('attempt %i with rng %d → %i ms (full jitter under min(max, base·2^(n-1)))', (attempt, r, expected) => {
    expect(backoffDelay(attempt, policy, () => r)).toBe(expected);
  });
});

describe('withRetries', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('retries until success and reports each retry', async () => {
    const outcomes = [err('network'), err('http_5xx', 502)];
    const retries: string[] = [];
    const p = withRetries(
      async (attempt) => {
        const e = outcomes.shift();
        if (e) throw e;
        return attempt;
      },
      { policy, clock: systemClock, rng: half, onRetry: (e) => retries.push(e.reason) },
    );
    await vi.advanceTimersByTimeAsync(1000);
    await expect(p).resolves.toBe(3);
    expect(retries).toEqual(['network', 'http_5xx']);
  });

  it('throws the last error once attempts are spent', async () => {
    let calls = 0;
    const p = withRetries(
      async () => {
        calls += 1;
        throw err('timeout');
      },
      { policy, clock: systemClock, rng: half },
    );
    const settled = expect(p).rejects.toMatchObject({ reason: 'timeout' });
    await vi.advanceTimersByTimeAsync(10_000);
    await settled;
    expect(calls).toBe(4);
  });

  it('does not retry a 401', async () => {
    let calls = 0;
    const p = withRetries(
      async () => {
        calls += 1;
        throw err('auth', 401);
      },
      { policy, clock: systemClock, rng: half },
    );
    await expect(p).rejects.toMatchObject({ reason: 'auth', status: 401 });
    expect(calls).toBe(1);
  });

  it('stops waiting when aborted and rejects with the signal reason', async () => {
    const ctrl = new AbortController();
    const p = withRetries(
      async () => {
        throw err('http_5xx', 500);
      },
      {
        policy: { ...policy, baseDelayMs: 60_000, maxDelayMs: 60_000 },
        clock: systemClock,
        rng: half,
        signal: ctrl.signal,
      },
    );
    const settled = expect(p).rejects.toThrow('bye');
    await vi.advanceTimersByTimeAsync(1000);
    ctrl.abort(new Error('bye'));
    await settled;
  });
});
