/**
 * Notices large steps of the wall clock (an NTP step, a VM or laptop resumed) and reports
 * each once: a log line and `tally_clock_steps_total` (docs/reliability.md, "Clock steps").
 * Durations never depend on it — every part that measures time moves its own times by the
 * step (src/core/clock.ts, StepWatch) — it only tells people it happened.
 */
import { type Clock, LARGE_STEP_MS, StepWatch, type TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/log.js';

/** How often the wall clock is compared with the monotonic one. */
export const CLOCK_CHECK_EVERY_MS = 5000;

/** Which way the wall clock stepped. */
export type StepDirection = 'forward' | 'back';

/** Compares the clocks every few seconds; `onStep` counts a step. */
export class ClockStepReporter {
  readonly #watch: StepWatch;
  #timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly onStep: (direction: StepDirection) => void,
  ) {
    this.#watch = new StepWatch(clock, LARGE_STEP_MS);
  }

  /** Looks now: logs and counts a step of a minute or more since the last one; returns it (ms). */
  check(): number {
    const step = this.#watch.take();
    if (step === 0) return 0;
    const direction: StepDirection = step > 0 ? 'forward' : 'back';
    this.log.warn(
      { stepMs: Math.round(step), direction, now: new Date(this.clock.now()).toISOString() },
      'the wall clock stepped; durations keep the time that passed',
    );
    this.onStep(direction);
    return step;
  }

  start(): void {
    if (this.#timer) return;
    const loop = () => {
      this.check();
      this.#timer = this.clock.setTimeout(loop, CLOCK_CHECK_EVERY_MS);
    };
    this.#timer = this.clock.setTimeout(loop, CLOCK_CHECK_EVERY_MS);
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}
