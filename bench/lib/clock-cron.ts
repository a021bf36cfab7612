/**
 * A stand-in for croner's `Cron` in the shape tally's Scheduler uses it (an every-second
 * pattern with `interval`, `protect` and `unref`), driven by an injected Clock instead of
 * the wall clock. Like croner, the first run is at the next whole second and the next
 * ones every `interval` seconds after; with `protect`, a run is skipped while the one
 * before is still going. Bench children swap it in for croner (croner-hooks.mjs) so that
 * an accelerated clock drives the schedule too.
 */
import type { Clock, TimerHandle } from '../../src/core/clock.js';

const KEY = Symbol.for('tally.bench.clock');

/** Sets the clock every Cron made from now on runs on. */
export function useCronClock(clock: Clock): void {
  (globalThis as Record<symbol, unknown>)[KEY] = clock;
}

function clockOf(): Clock {
  const c = (globalThis as Record<symbol, unknown>)[KEY] as Clock | undefined;
  if (!c) throw new Error('clock-cron: useCronClock() was not called');
  return c;
}

/** Options of croner that the Scheduler passes. */
export interface CronOptions {
  interval?: number;
  protect?: boolean;
  unref?: boolean;
}

/** A periodic job on the injected clock. */
export class Cron {
  private readonly clock = clockOf();
  private readonly intervalMs: number;
  private timer: TimerHandle | undefined;
  private busy = false;
  private stopped = false;
  private next: number;

  constructor(
    _pattern: string,
    private readonly options: CronOptions,
    private readonly fn: () => unknown,
  ) {
    this.intervalMs = Math.max(1, options.interval ?? 1) * 1000;
    const now = this.clock.now();
    this.next = Math.floor(now / 1000) * 1000 + 1000;
    this.arm(now);
  }

  /** Whether a run is in progress. */
  isBusy(): boolean {
    return this.busy;
  }

  /** Runs the job now. */
  async trigger(): Promise<void> {
    await this.run();
  }

  /** Stops the schedule; a run in progress finishes. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private arm(now: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => this.tick(), Math.max(0, this.next - now));
  }

  private tick(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    // A late tick (a busy process) does not make runs pile up: the next one is a period on.
    while (this.next <= now) this.next += this.intervalMs;
    this.arm(now);
    if (this.busy && this.options.protect) return;
    void this.run();
  }

  private async run(): Promise<void> {
    this.busy = true;
    try {
      await this.fn();
    } catch {
      // The Scheduler's own run logs and swallows failures.
    } finally {
      this.busy = false;
    }
  }
}
