import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { Scheduler } from '../../src/poll/scheduler.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 1, 12, 0, 0) });
});
afterEach(() => {
  vi.useRealTimers();
});

function scheduler(rng = () => 0) {
  return new Scheduler({ clock: systemClock, logger: silentLogger(), rng });
}

describe('Scheduler', () => {
  it('runs a job once per interval', async () => {
    const s = scheduler();
    const runs: number[] = [];
    s.add({ name: 'a', intervalMs: 10_000, jitter: 0, run: async () => void runs.push(Date.now()) });
    await vi.advanceTimersByTimeAsync(35_000);
    expect(runs.length).toBe(3);
    expect(runs[0]! - Date.UTC(2026, 10, 1, 12, 0, 0)).toBeGreaterThanOrEqual(10_000);
    expect(runs[1]! - runs[0]!).toBe(10_000);
    await s.stop(1000);
  });

  it('keeps a job on its schedule when it is added again with the same period', async () => {
    const s = scheduler();
    const runs: string[] = [];
    const add = (tag: string) =>
      s.add({ name: 'a', intervalMs: 30_000, jitter: 0, run: async () => void runs.push(tag) });
    add('first');
    // A re-plan every 20 s re-adds it: it still runs every 30 s, with the latest function.
    for (let i = 0; i < 6; i++) {
      await vi.advanceTimersByTimeAsync(20_000);
      add(`plan ${i}`);
    }
    // Runs at 30, 60, 90 and 120 s, each with the function added last before it (a re-add
    // at the very instant of a run comes after it); re-adding it every 20 s used to
    // restart it every time, so it never ran.
    expect(runs).toEqual(['plan 0', 'plan 1', 'plan 3', 'plan 4']);
    // A new period counts from the last run (at 120 s): the next is at 180 s.
    s.add({ name: 'a', intervalMs: 60_000, jitter: 0, run: async () => void runs.push('slow') });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(runs.at(-1)).toBe('plan 4');
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs.at(-1)).toBe('slow');
    await s.stop(1000);
  });

  it('keeps its phase when the period changes: no gap longer than the longer period', async () => {
    const s = scheduler();
    const t0 = Date.now();
    const runs: number[] = [];
    const add = (intervalMs: number) =>
      s.add({
        name: 'list',
        intervalMs,
        jitter: 0,
        run: async () => void runs.push((Date.now() - t0) / 1000),
      });
    add(15_000);
    await vi.advanceTimersByTimeAsync(40_000); // runs at 15, 30
    add(30_000); // last due 30 s: next at 60 s, not 70 s
    await vi.advanceTimersByTimeAsync(30_000); // to 70 s
    expect(runs).toEqual([15, 30, 60]);
    await vi.advanceTimersByTimeAsync(15_000); // to 85 s: last due 60 s
    add(15_000); // 60 + 15 = 75 has passed: at once, then every 15 s
    await vi.advanceTimersByTimeAsync(31_000); // to 116 s
    expect(runs).toEqual([15, 30, 60, 85, 100, 115]);
    const gaps = runs.slice(1).map((r, i) => r - runs[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(30);
    await s.stop(1000);
  });

  it('does not overlap a run still in flight when it is added again to run at once', async () => {
    const s = scheduler();
    let running = 0;
    let most = 0;
    const spec = {
      name: 'a',
      intervalMs: 10_000,
      jitter: 0,
      immediate: true,
      run: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 25_000));
        running -= 1;
      },
    };
    s.add(spec);
    await vi.advanceTimersByTimeAsync(1000);
    s.add(spec); // same period and jitter, immediate: the run in flight is that run
    await vi.advanceTimersByTimeAsync(60_000);
    expect(most).toBe(1);
    const stopped = s.stop(1000);
    await vi.advanceTimersByTimeAsync(30_000);
    await stopped;
  });

  it('does not overlap a run still in flight when its period changes', async () => {
    const s = scheduler();
    let running = 0;
    let most = 0;
    let release: (() => void) | undefined;
    const run = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((r) => {
        release = r;
      });
      running -= 1;
    };
    s.add({ name: 'a', intervalMs: 10_000, jitter: 0, run });
    await vi.advanceTimersByTimeAsync(10_000); // a run starts and hangs
    expect(running).toBe(1);
    // Overdue under the new period (last due 10 s + 5 s ≤ 16 s), but the run goes on.
    await vi.advanceTimersByTimeAsync(6_000);
    s.add({ name: 'a', intervalMs: 5_000, jitter: 0, run });
    await vi.advanceTimersByTimeAsync(6_000);
    expect(most).toBe(1);
    release!();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(running).toBe(1); // the next period's run, after the first ended
    release!();
    await s.stop(1000);
  });

  it.each([31_200, 45_000, 100_000])('keeps a period of %i ms exactly, not rounded to 30 s', async (ms) => {
    const s = scheduler();
    const runs: number[] = [];
    const t0 = Date.now();
    s.add({ name: 'a', intervalMs: ms, jitter: 0, run: async () => void runs.push(Date.now() - t0) });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await s.stop(1000);
    expect(runs.length).toBe(Math.floor((10 * 60_000) / ms));
    expect(runs).toEqual(runs.map((_, i) => (i + 1) * ms));
  });

  it('runs an immediate job at once', async () => {
    const s = scheduler();
    let n = 0;
    s.add({ name: 'a', intervalMs: 60_000, jitter: 0, immediate: true, run: async () => void n++ });
    await vi.advanceTimersByTimeAsync(10);
    expect(n).toBe(1);
    await s.stop(1000);
  });

  it('runs an immediate job at once however large its jitter; later runs are jittered', async () => {
    // The largest draw: a jittered run waits 10 % of its 6-hour period, 36 minutes.
    const s = scheduler(() => 0.999_999);
    const runs: number[] = [];
    const t0 = Date.now();
    s.add({
      name: 'org',
      intervalMs: 6 * 3_600_000,
      jitter: 0.1,
      immediate: true,
      run: async () => void runs.push(Date.now() - t0),
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toEqual([0]);
    await vi.advanceTimersByTimeAsync(6 * 3_600_000 + 36 * 60_000);
    expect(runs).toHaveLength(2);
    expect(runs[1]! - 6 * 3_600_000).toBeGreaterThan(35 * 60_000);
    await s.stop(1000);
  });

  it('never overlaps a job with itself: a period is skipped while the run before goes on', async () => {
    const s = scheduler();
    let running = 0;
    let most = 0;
    let runs = 0;
    s.add({
      name: 'slow',
      intervalMs: 1000,
      jitter: 0,
      run: async () => {
        running++;
        runs++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 3500));
        running--;
      },
    });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(most).toBe(1);
    // Runs of 3.5 s every second: at 1, 5, 9, 13 and 17 s, the periods in between skipped.
    expect(runs).toBe(5);
    const stopping = s.stop(10_000);
    await vi.advanceTimersByTimeAsync(4000);
    await stopping;
    expect(running).toBe(0);
  });

  it('delays each run by the jitter fraction the random source gives', async () => {
    const plain = scheduler(() => 0.5);
    const jittered = scheduler(() => 0.5);
    const a: number[] = [];
    const b: number[] = [];
    plain.add({ name: 'a', intervalMs: 10_000, jitter: 0, run: async () => void a.push(Date.now()) });
    jittered.add({ name: 'b', intervalMs: 10_000, jitter: 0.2, run: async () => void b.push(Date.now()) });
    await vi.advanceTimersByTimeAsync(35_000);
    expect(b.length).toBe(a.length);
    expect(b.map((t, i) => t - a[i]!)).toEqual(a.map(() => 1000));
    await plain.stop(1000);
    await jittered.stop(1000);
  });

  it('stop waits for a run in flight, then aborts it after the timeout', async () => {
    const s = scheduler();
    let aborted = false;
    s.add({
      name: 'stuck',
      intervalMs: 1000,
      jitter: 0,
      immediate: true,
      run: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          });
        }),
    });
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = s.stop(5000).then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(4000);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(1500);
    await stopping;
    expect(aborted).toBe(true);
    expect(s.names()).toEqual([]);
  });

  it('a failing job is logged and keeps its schedule', async () => {
    const s = scheduler();
    let n = 0;
    s.add({
      name: 'flaky',
      intervalMs: 1000,
      jitter: 0,
      run: async () => {
        n++;
        throw new Error('boom');
      },
    });
    await vi.advanceTimersByTimeAsync(4500);
    expect(n).toBe(4);
    await s.stop(1000);
  });
});
