/**
 * One org's reads in flight, by key (`sessions:<channel>`, `detail:<session>`, `channels`
 * …), shared by whoever asks for the same read while it runs (org-poller.ts).
 */
import type { Clock } from '../core/clock.js';
import { PRIORITIES, Urgency } from '../upstream/transport/budget.js';
import type { Priority } from './fetcher.js';

/** What the owner of the reads is told as each one begins and ends. */
export interface SharedReadHooks {
  /** A read of `key` begins at `at`: returns the health ticket it takes (health.ts). */
  began(key: string, at: number): number;
  /** A read of `key` ended; it began at `startedMono` on the monotonic clock. */
  ended(key: string, startedMono: number): void;
}

/** The reads in flight and the fresh reads queued behind them. */
export class SharedReads {
  private readonly inflight = new Map<string, Promise<void>>();
  /** Fresh reads waiting for the read of the same key in flight to end. */
  private readonly queued = new Map<string, Promise<void>>();
  /** The priority of each read in flight, raised by more urgent askers (see run). */
  private readonly urgencies = new Map<string, Urgency>();
  /** The most urgent priority a queued fresh read was asked at. */
  private readonly queuedPriority = new Map<string, Priority>();

  constructor(
    private readonly clock: Clock,
    private readonly hooks: SharedReadHooks,
  ) {}

  /**
   * Runs `fn` unless a read of `key` is in flight, which is shared instead. A `fresh` read
   * (a follow-up of a change just seen) does not share one that began before it: that one
   * may have been answered before the change, so one more read follows it (at most one
   * queued per key). Either way the read in flight is raised to `priority` when that is
   * more urgent: a follow-up or a periodic read never waits behind a sweep read of the
   * same list still queued at the sweep's priority.
   */
  async run(
    key: string,
    priority: Priority,
    fn: (ticket: number, urgency: Urgency) => Promise<void>,
    fresh = false,
  ): Promise<void> {
    const running = this.inflight.get(key);
    if (running) this.urgencies.get(key)?.raise(priority);
    if (running && fresh) {
      this.queuedPriority.set(key, moreUrgent(this.queuedPriority.get(key), priority));
      const queued = this.queued.get(key);
      if (queued) return queued;
      const next = running
        .catch(() => undefined)
        .then(() => {
          this.queued.delete(key);
          const asked = this.queuedPriority.get(key) ?? priority;
          this.queuedPriority.delete(key);
          return this.run(key, asked, fn);
        });
      this.queued.set(key, next);
      return next;
    }
    if (running) return running;
    const started = this.clock.now();
    const startedMono = this.clock.monotonic();
    const urgency = new Urgency(priority);
    this.urgencies.set(key, urgency);
    const p = fn(this.hooks.began(key, started), urgency).finally(() => {
      this.inflight.delete(key);
      this.urgencies.delete(key);
      this.hooks.ended(key, startedMono);
    });
    this.inflight.set(key, p);
    return p;
  }

  /** Raises the read of `key` in flight, if any, to `priority` when that is more urgent. */
  raise(key: string, priority: Priority): void {
    this.urgencies.get(key)?.raise(priority);
  }

  /** Waits for reads in flight (used on stop). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
  }
}

/** The more urgent of two priorities. */
function moreUrgent(a: Priority | undefined, b: Priority): Priority {
  return a !== undefined && PRIORITIES.indexOf(a) < PRIORITIES.indexOf(b) ? a : b;
}
