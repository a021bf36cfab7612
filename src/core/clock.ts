/**
 * Time comes in through this interface (docs/architecture.md, invariant 8), so that tests and the
 * simulator can run scenarios fast and deterministically.
 */

/** Handle returned by {@link Clock.setTimeout}. */
export interface TimerHandle {
  /** Cancels the timer; a no-op when it already ran. */
  cancel(): void;
}

/** Source of the current time and of timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch: for what people read and schedules about the world. */
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward with elapsed time, from an arbitrary
   * origin: for durations. A step of the wall clock (NTP, a VM resumed) does not move it;
   * it does not survive a restart (docs/reliability.md, "Clock steps").
   */
  monotonic(): number;
  /** Runs `fn` after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Resolves after `ms` milliseconds, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now` and Node timers (which vitest's fake timers also drive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** Steps of the wall clock smaller than this are drift, not steps: they are left alone. */
export const STEP_TOLERANCE_MS = 1000;

/** A wall-clock step this large is logged and counted (docs/reliability.md, "Clock steps"). */
export const LARGE_STEP_MS = 60_000;

/**
 * Watches the wall clock against the monotonic one. {@link take} returns how far the wall
 * clock stepped since the last step it returned (wall elapsed minus monotonic elapsed), or 0
 * while that stays under the tolerance, so that slow drift adds up until it counts. Whoever
 * keeps wall times for durations moves them by the step, so elapsed times stay true and the
 * times shown stay on the clock people read.
 */
export class StepWatch {
  #wall: number;
  #mono: number;

  constructor(
    private readonly clock: Clock,
    private readonly toleranceMs = STEP_TOLERANCE_MS,
  ) {
    this.#wall = clock.now();
    this.#mono = clock.monotonic();
  }

  /** The wall clock's step (ms, negative: back) since the last one returned; 0 when none. */
  take(): number {
    const wall = this.clock.now();
    const mono = this.clock.monotonic();
    const step = wall - this.#wall - (mono - this.#mono);
    if (Math.abs(step) < this.toleranceMs) return 0;
    this.#wall = wall;
    this.#mono = mono;
    return step;
  }
}

/**
 * A time line that keeps the wall clock's reading at its start and then moves only with
 * elapsed time (docs/reliability.md, "Clock steps"): for waits and ages kept in memory
 * beside wall-clock dates, so that a step of the wall clock neither strands a wait (a step
 * back) nor ends it early (a step forward).
 */
export function steadyNow(clock: Clock): () => number {
  const wall0 = clock.now();
  const mono0 = clock.monotonic();
  return () => wall0 + (clock.monotonic() - mono0);
}
