/**
 * A clock that runs `factor` times faster than real time, from a shared origin. The
 * simulator and tally both take it, so everything measured in clock time (intervals,
 * the request budget, the API's rate limit, the world's evolution) keeps its real
 * proportions while a bench covers minutes of clock time in seconds. What it cannot
 * scale is the work itself: one real millisecond of CPU or network costs `factor`
 * clock milliseconds, so figures taken on it err on the slow side.
 *
 * Two processes given the same origin and factor agree on the time (both read the
 * wall clock), which lets a child tally and the simulator in the parent share it.
 */
import { performance } from 'node:perf_hooks';
import type { Clock, TimerHandle } from '../../src/core/clock.js';

/** Wall-clock milliseconds with sub-millisecond resolution. */
export function realNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Time running `factor` times faster than the wall clock from `origin` on. */
export class AcceleratedClock implements Clock {
  constructor(
    readonly factor: number,
    readonly origin: number = Math.floor(realNow()),
  ) {
    if (!(factor > 0)) throw new Error(`factor must be positive, got ${factor}`);
  }

  now(): number {
    return Math.floor(this.origin + (realNow() - this.origin) * this.factor);
  }

  monotonic(): number {
    return performance.now() * this.factor;
  }

  /** Clock milliseconds as real milliseconds. */
  toReal(ms: number): number {
    return Math.max(0, ms) / this.factor;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t = setTimeout(fn, this.toReal(ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, this.toReal(ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
