/**
 * Periodic jobs on croner: one interval per job, spread by jitter, never overlapping
 * with themselves, and a stop that waits for what is in flight.
 */
import { Cron } from 'croner';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { stopController } from './stop-signal.js';

/** One periodic job. */
export interface JobSpec {
  name: string;
  /** Period in milliseconds (rounded up to whole seconds: croner's resolution). */
  intervalMs: number;
  /** Random delay of up to this fraction of the interval before each run. */
  jitter: number;
  /** Run once right away instead of waiting for the first period. */
  immediate?: boolean;
  run: (signal: AbortSignal) => Promise<void>;
}

/** A set of periodic jobs that start and stop together. */
export class Scheduler {
  private readonly jobs = new Map<string, { cron: Cron; spec: JobSpec }>();
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
   */
  add(spec: JobSpec): void {
    if (this.stopped) return;
    const existing = this.jobs.get(spec.name);
    if (existing && existing.spec.intervalMs === spec.intervalMs && existing.spec.jitter === spec.jitter) {
      existing.spec = spec;
      if (spec.immediate) void this.fire(spec);
      return;
    }
    this.remove(spec.name);
    const seconds = Math.max(1, Math.ceil(spec.intervalMs / 1000));
    // croner's interval jobs fire at the next whole second and then every `interval`
    // seconds; that first fire is skipped so that a job runs one interval after it is
    // added (or at once, when `immediate`). `protect` keeps a run from starting while the
    // previous one is still going.
    let first = true;
    const cron = new Cron('* * * * * *', { interval: seconds, protect: true, unref: true }, () => {
      if (first) {
        first = false;
        return;
      }
      const job = this.jobs.get(spec.name);
      return job ? this.fire(job.spec) : undefined;
    });
    this.jobs.set(spec.name, { cron, spec });
    if (spec.immediate) void this.fire(spec);
  }

  /** Removes a job; a run in flight finishes on its own. */
  remove(name: string): void {
    this.jobs.get(name)?.cron.stop();
    this.jobs.delete(name);
  }

  /** Names of the jobs currently scheduled. */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs a job now (outside its period), unless it is already running. */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (job && !job.cron.isBusy()) await job.cron.trigger();
  }

  /**
   * Stops every job and waits for runs in flight, at most `timeoutMs`; after that they
   * are aborted through their signal.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    for (const { cron } of this.jobs.values()) cron.stop();
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

  private async fire(spec: JobSpec): Promise<void> {
    if (this.stopped) return;
    const run = (async () => {
      const delay = Math.floor(this.rng() * spec.jitter * spec.intervalMs);
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
    }
  }
}
