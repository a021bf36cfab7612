/**
 * The budget keeps room for a burst of high-priority reads (every page of a long channel
 * list) out of reach of normal and low ones, but never more than half a window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { type Priority, RequestBudget } from '../../src/upstream/budget.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 5, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Queues `n` requests of `priority`, each answered at once; returns how many were granted. */
function queue(b: RequestBudget, n: number, priority: Priority): { granted: number } {
  const out = { granted: 0 };
  for (let i = 0; i < n; i++) {
    void b.acquire(priority).then((release) => {
      out.granted++;
      release();
    });
  }
  return out;
}

describe('RequestBudget.reserveForHigh', () => {
  it.each([
    // reserve asked, low requests granted in the first window (of 240)
    [0, 216], // the default 10 %
    [60, 180],
    [500, 120], // capped at half the window
  ])('reserving %i leaves the sweep %i of 240', async (reserve, lowGranted) => {
    const b = new RequestBudget({ perMinute: 240, clock: systemClock });
    b.reserveForHigh(reserve);
    const low = queue(b, 300, 'low');
    await vi.advanceTimersByTimeAsync(1000);
    expect(low.granted).toBe(lowGranted);
    const high = queue(b, 300, 'high');
    await vi.advanceTimersByTimeAsync(1000);
    expect(high.granted).toBe(240 - lowGranted); // a burst finds the rest free at once
  });

  it('keeps the reserve from normal requests too, and the default 10 % only from low ones', async () => {
    const b = new RequestBudget({ perMinute: 240, clock: systemClock });
    b.reserveForHigh(20);
    const normal = queue(b, 300, 'normal');
    await vi.advanceTimersByTimeAsync(1000);
    expect(normal.granted).toBe(220);
    const high = queue(b, 300, 'high');
    await vi.advanceTimersByTimeAsync(1000);
    expect(high.granted).toBe(20);
  });
});
