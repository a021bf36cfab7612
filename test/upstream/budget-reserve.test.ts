/**
 * The budget keeps room for a burst of high-priority reads (every page of a long channel
 * list) out of reach of normal and low ones, but never more than half a window; reserves
 * are shares, so what a class already holds counts towards its share and the rest of the
 * window goes to whoever waits.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { type Priority, RequestBudget } from '../../src/upstream/transport/budget.js';

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
    [0, 216], // the default 10 % kept for follow-ups and periodic reads
    [60, 156], // 60 for the list and 24 for the others
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

  it('counts the high requests already in the window towards their share', async () => {
    const b = new RequestBudget({ perMinute: 240, clock: systemClock });
    b.reserveForHigh(60);
    const high = queue(b, 50, 'high');
    await vi.advanceTimersByTimeAsync(1000);
    expect(high.granted).toBe(50);
    // The list holds 50 of its 60: normal reads may fill all but the other 10.
    const normal = queue(b, 300, 'normal');
    await vi.advanceTimersByTimeAsync(1000);
    expect(normal.granted).toBe(180);
    expect(b.stats().left).toBe(10);
  });

  it('lets the sweep use the low reserve that follow-ups and periodic reads already fill', async () => {
    const b = new RequestBudget({ perMinute: 240, clock: systemClock });
    const normal = queue(b, 30, 'normal');
    await vi.advanceTimersByTimeAsync(1000);
    expect(normal.granted).toBe(30);
    const low = queue(b, 300, 'low');
    await vi.advanceTimersByTimeAsync(1000);
    // 30 normal reads hold more than the 24 kept for them: the sweep takes the rest.
    expect(low.granted).toBe(210);
    expect(b.stats().left).toBe(0);
  });

  it('releases the share as the window moves on: over ten minutes the sweep and the list use all of it', async () => {
    const b = new RequestBudget({ perMinute: 240, clock: systemClock, burst: 20 });
    b.reserveForHigh(110);
    const granted = { high: 0, normal: 0, low: 0 };
    let stop = false;
    // The sweep always waits with one read; hot reads come 20 at a time every 30 s, the
    // list's 50 pages every 30 s.
    const sweep = () => {
      if (stop) return;
      void b.acquire('low').then((release) => {
        granted.low++;
        release();
        sweep();
      });
    };
    sweep();
    sweep();
    for (let t = 0; t < 600_000; t += 30_000) {
      const list = queue(b, 50, 'high');
      const hot = queue(b, 20, 'normal');
      await vi.advanceTimersByTimeAsync(30_000);
      granted.high += list.granted;
      granted.normal += hot.granted;
      expect(list.granted).toBe(50);
    }
    stop = true;
    const total = granted.high + granted.normal + granted.low;
    // 240 a minute at most; the sweep takes what the others leave (the first minute's burst aside).
    expect(total).toBeLessThanOrEqual(2400 + 20);
    expect(total).toBeGreaterThanOrEqual(0.95 * 2400);
  });
});
