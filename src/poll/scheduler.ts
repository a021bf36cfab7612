/**
 * Periodic jobs on the injected clock: one interval per job, spread by jitter, never
 * overlapping with themselves, and a stop that waits for what is in flight.
 *
 * Not croner: its `interval` option waits at most 30 s per timer and measures the
 * interval again from each wake-up, so every interval over 30 s ran at the next multiple
 * of 30 s (a channel list stretched to 31 s was read every 60 s, 45 s ran as 60 s, 100 s
 * as 120 s). A timer per run, due one interval after the last due time, keeps the period.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { stopController } from './stop-signal.js';

/** One periodic job. */
export interface JobSpec {
  name: string;
  /** Period in milliseconds. */
  intervalMs: number;
  /** Random delay of up to this fraction of the interval before each run. */
  jitter: number;
  /** Run once right away instead of waiting for the first period. */
  immediate?: boolean;
  run: (signal: AbortSignal) => Promise<void>;
}

/** A set of periodic jobs that start and stop together. */
export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly abort = stopController();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly rng: () => number;
  private stopped = false;

  constructor(deps: { clock: Clock; logger: Logger; rng?: () => number }) {
    this.clock = deps.clock;
    this.log = deps.logger;
    this.rng = deps.rng ?? Math.random;
  }

  /**
   * Adds (or replaces) a job; it starts at once. A job added again with the same period
   * and jitter keeps its schedule (only what it runs is replaced): a re-plan that changes
   * other intervals must not push this one's next run back by a whole period each time.
   * A job added again with another period keeps its phase: its next run is the new period
   * after its last due run, at once when that has passed. Starting the new period afresh
   * left a gap of the old and the new period together (a channel list switching from 15
   * to 30 s waited up to 45 s).
   */
  add(spec: JobSpec): void {
    if (this.stopped) return;
    const existing = this.jobs.get(spec.name);
    if (existing && existing.spec.intervalMs === spec.intervalMs && existing.spec.jitter === spec.jitter) {
      existing.spec = spec;
      if (spec.immediate && !existing.busy) void this.fire(existing);
      return;
    }
    if (existing) {
      // The same job, so a run in flight still keeps the next one from overlapping it.
      existing.timer?.cancel();
      const lastDue = existing.dueAt - Math.max(1, existing.spec.intervalMs);
      existing.spec = spec;
      existing.dueAt = lastDue;
      const overdue = lastDue + Math.max(1, spec.intervalMs) <= this.clock.now();
      this.arm(existing);
      if ((spec.immediate || overdue) && !existing.busy) void this.fire(existing, false);
      return;
    }
    const job: Job = { spec, dueAt: this.clock.now(), timer: undefined, busy: false };
    this.jobs.set(spec.name, job);
    this.arm(job);
    if (spec.immediate) void this.fire(job, false);
  }

  /**
   * Sets the timer of the job's next run: one period after the last due time, or after
   * now when that has passed (a run that overran, a clock that jumped), so runs keep
   * their period without bunching up to catch up.
   */
  private arm(job: Job): void {
    const period = Math.max(1, job.spec.intervalMs);
    const now = this.clock.now();
    job.dueAt += period;
    if (job.dueAt <= now || job.dueAt > now + period) job.dueAt = now + period;
    job.timer = this.clock.setTimeout(() => {
      if (this.jobs.get(job.spec.name) !== job) return;
      this.arm(job);
      // A run still going is not doubled: this period's run is skipped.
      if (!job.busy) void this.fire(job);
    }, job.dueAt - now);
  }

  /** Removes a job; a run in flight finishes on its own. */
  remove(name: string): void {
    this.jobs.get(name)?.timer?.cancel();
    this.jobs.delete(name);
  }

  /** Names of the jobs currently scheduled. */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs a job now (outside its period), unless it is already running. */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (job && !job.busy) await this.fire(job, false);
  }

  /**
   * Stops every job and waits for runs in flight, at most `timeoutMs`; after that they
   * are aborted through their signal.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs.values()) job.timer?.cancel();
    this.jobs.clear();
    if (this.inflight.size === 0) return;
    let timer: { cancel(): void } | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = this.clock.setTimeout(() => {
        this.abort.abort(new Error('scheduler stopped'));
        resolve();
      }, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.inflight]), timedOut]);
    timer?.cancel();
    this.abort.abort(new Error('scheduler stopped'));
    await Promise.allSettled([...this.inflight]);
  }

  /**
   * Runs the job. A periodic run waits a random share of its period first (`jitter`), so
   * that jobs of many orgs do not keep firing together; a run asked for at once (the first
   * run, an overdue one, `runNow`) does not: with `intervals.org: 6h`, the first read of
   * the profile, which readiness waits for, would otherwise wait up to 36 minutes.
   */
  private async fire(job: Job, jittered = true): Promise<void> {
    if (this.stopped) return;
    const spec = job.spec;
    job.busy = true;
    const run = (async () => {
      const delay = jittered ? Math.floor(this.rng() * spec.jitter * spec.intervalMs) : 0;
      if (delay > 0) await this.clock.sleep(delay, this.abort.signal);
      if (this.stopped) return;
      await spec.run(this.abort.signal);
    })().catch((err: unknown) => {
      if (this.abort.signal.aborted) return;
      this.log.error({ job: spec.name, err }, 'job failed');
    });
    this.inflight.add(run);
    try {
      await run;
    } finally {
      this.inflight.delete(run);
      job.busy = false;
    }
  }
}

/** A job and its timer. */
interface Job {
  spec: JobSpec;
  /** When its next run is due (clock ms), once armed; one period after the one before. */
  dueAt: number;
  timer: TimerHandle | undefined;
  /** A run is in flight. */
  busy: boolean;
}
