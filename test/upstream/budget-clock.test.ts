/**
 * The budget when the wall clock is set back (an NTP step, a VM restored from a snapshot):
 * the requests of the last minute stay counted for what is left of their minute, and a
 * Retry-After pause for what is left of it — not for as long as the clock jumped. The
 * budget cannot tell how much of the jump was time passing since it last read the clock,
 * so it errs on the safe side by up to that much (20 s and 10 s here), never early.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { RequestBudget } from '../../src/upstream/transport/budget.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const HOUR = 3_600_000;

beforeEach(() => {
  base = T0;
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Where elapsed time starts on the wall clock (moved back with it by {@link setBack}). */
let base = T0;
const elapsed = () => Date.now() - base;
function setBack(ms: number): void {
  base -= ms;
  vi.setSystemTime(Date.now() - ms);
}

/** Acquires `n` requests, answering each at once; returns the elapsed times of the grants. */
function grants(b: RequestBudget, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    void b.acquire('normal').then((release) => {
      out.push(elapsed());
      release();
    });
  }
  return out;
}

describe('RequestBudget across a clock set back', () => {
  it.each([1, 24])(
    'a full window opens a minute after it filled, even after the clock went back %i h',
    async (hours) => {
      const b = new RequestBudget({ perMinute: 10, clock: systemClock });
      const first = grants(b, 10);
      await vi.advanceTimersByTimeAsync(0);
      expect(first).toHaveLength(10);
      await vi.advanceTimersByTimeAsync(20_000);
      setBack(hours * HOUR);
      const later = grants(b, 5);
      await vi.advanceTimersByTimeAsync(39_000);
      expect(later).toEqual([]); // still within the minute of the first ten
      await vi.advanceTimersByTimeAsync(22_000);
      expect(later).toHaveLength(5);
      expect(Math.min(...later)).toBeGreaterThanOrEqual(60_000);
      expect(Math.max(...later)).toBeLessThanOrEqual(81_000);
      expect(b.stats().usedLastMinute).toBeLessThanOrEqual(10);
    },
  );

  it.each([1, 25])(
    'a full window stays full for the rest of its minute after the clock stepped forward %i h',
    async (hours) => {
      const b = new RequestBudget({ perMinute: 10, clock: systemClock });
      const first = grants(b, 10);
      await vi.advanceTimersByTimeAsync(0);
      expect(first).toHaveLength(10);
      await vi.advanceTimersByTimeAsync(20_000);
      // Forward: the wall clock moves, elapsed time (and the timers) does not.
      base += hours * HOUR;
      vi.setSystemTime(Date.now() + hours * HOUR);
      const later = grants(b, 5);
      await vi.advanceTimersByTimeAsync(39_000);
      expect(later).toEqual([]); // not a new window: only 59 s passed
      await vi.advanceTimersByTimeAsync(22_000);
      expect(later).toHaveLength(5);
      expect(Math.min(...later)).toBeGreaterThanOrEqual(60_000);
      expect(b.stats().usedLastMinute).toBeLessThanOrEqual(10);
    },
  );

  it('a Retry-After pause lasts what was left of it', async () => {
    const b = new RequestBudget({ perMinute: 100, clock: systemClock, pauseMarginMs: 0 });
    b.rateLimited('30');
    await vi.advanceTimersByTimeAsync(10_000);
    setBack(2 * HOUR);
    expect(b.pauseLeftMs()).toBeGreaterThanOrEqual(20_000);
    expect(b.pauseLeftMs()).toBeLessThanOrEqual(30_000);
    const after = grants(b, 1);
    await vi.advanceTimersByTimeAsync(19_000);
    expect(after).toEqual([]);
    await vi.advanceTimersByTimeAsync(12_000);
    expect(after).toHaveLength(1);
    expect(after[0]!).toBeGreaterThanOrEqual(30_000);
    expect(after[0]!).toBeLessThanOrEqual(40_000);
  });
});
