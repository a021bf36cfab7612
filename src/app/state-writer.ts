/**
 * How snapshots and change events become durable, per org and in order: coalesced saves,
 * events written with the snapshot that produced them, and failed writes retried with a
 * backoff until the disk takes them again. Nothing accepted is dropped.
 */
import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import type { EventLog } from '../store/event-log.js';
import type { LoggedEvent } from '../store/event-segments.js';
import type { SnapshotStore } from '../store/snapshot-store.js';

/** How long a snapshot may wait to be saved when nothing changed (freshness only). */
const QUIET_SAVE_MS = 30_000;
/** The org-level parts of a baseline. */
const BASELINE_PARTS = ['profile', 'team', 'subscription', 'channels'] as const;
/** How long new events (and their snapshot) may wait to be made durable, at the least. */
const EVENT_SAVE_MS = 1_000;
/** A failed state write is tried again after 1 s, doubling up to this (a full or read-only disk). */
const RETRY_MAX_MS = 30_000;

/**
 * Snapshot and events of one org waiting to be made durable. `kind` says why its timer
 * runs: a quiet save (freshness only), new events, or a retry after a failed write.
 * Deliberately no wall-clock due time: the injected clock may jump (NTP step, VM resume)
 * while timers run in real time, and comparing due times across a jump would park new
 * events behind a quiet save's 30 s timer.
 */
interface DirtyEntry {
  snapshot: OrgSnapshot;
  events: ChangeEvent[];
  kind: 'quiet' | 'events' | 'retry';
  timer: { cancel(): void };
  /** A retry left for later because tally was not running: the next update arms it. */
  parked?: boolean;
}

/** What a {@link StateWriter} writes to and tells. */
export interface StateWriterOptions {
  clock: Clock;
  logger: Logger;
  snapshots: SnapshotStore;
  eventLog: EventLog;
  /** Hears of events once they are durable (only those the log did not have). */
  announce: (appended: readonly ChangeEvent[]) => void;
  /**
   * Told of every failed write, with its reason (`disk_full`, `read_only`, `io`). The app
   * counts failures where they happen instead (StoreHealth, docs/state.md "State health").
   */
  onWriteFailure?: ((reason: string) => void) | undefined;
  /** Whether tally is running: while it stops, a failed write is left for the next start. */
  running: () => boolean;
}

/** Writes each org's snapshots and events (see the module comment). */
export class StateWriter {
  private readonly log: Logger;
  /** Per org: the chain of pending writes, so events and snapshots are written in order. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly dirty = new Map<string, DirtyEntry>();
  /**
   * Per org: events taken into a write that are not in the log yet (its save or its
   * append failed, or it is under way). Every later save carries them in its envelope and
   * appends them again (the log drops ids it has) until an append succeeds, so a save
   * whose write began before a failure was known cannot leave them out.
   */
  private readonly unlogged = new Map<string, ChangeEvent[]>();
  /** Per org: the newest snapshot handed to {@link update}; a retry saves this one, never an older. */
  private readonly latest = new Map<string, OrgSnapshot>();
  /** Per org: consecutive failed state writes, for the retry backoff. */
  private readonly writeFailures = new Map<string, number>();
  private eventSaveDelay = EVENT_SAVE_MS;
  /** Orgs whose snapshot was saved at least once by this process. */
  private readonly saved = new Set<string>();
  /** Orgs whose saved snapshot holds every org-level part complete. */
  private readonly baselined = new Set<string>();
  /** Orgs no longer polled, with how to tell they still are not: see {@link forget}. */
  private readonly leaving = new Map<string, () => boolean>();

  constructor(private readonly opts: StateWriterOptions) {
    this.log = opts.logger.child({ component: 'state' });
  }

  /**
   * Events and the snapshot that produced them become durable together: the snapshot is
   * saved first, carrying the batch's events in its envelope, then the events are
   * appended to the log, then listeners hear of them. A crash before the save leaves the
   * older snapshot, which yields the same changes again; a crash after it leaves the
   * events in the envelope, and the next start appends them (the log drops ids it has).
   * Saves are coalesced so that a busy org does not rewrite a large file on every read.
   */
  update(org: string, snapshot: OrgSnapshot, events: ChangeEvent[]): void {
    this.latest.set(org, snapshot);
    const entry = this.dirty.get(org);
    if (entry) {
      entry.snapshot = snapshot;
      entry.events = [...entry.events, ...events];
      if (entry.parked && this.opts.running()) {
        // A write that failed before tally ran (pending events published at start).
        entry.parked = false;
        entry.timer = this.opts.clock.setTimeout(() => this.flush(org), this.eventSaveDelay);
        return;
      }
      // A quiet save is brought forward by new events; an event save or a retry (which
      // keeps its backoff while the disk refuses writes) already carries them.
      if (entry.kind !== 'quiet' || events.length === 0) return;
      entry.timer.cancel();
      entry.kind = 'events';
      entry.timer = this.opts.clock.setTimeout(() => this.flush(org), this.eventSaveDelay);
      return;
    }
    // Saves are prompt until a saved snapshot holds the whole org-level baseline (profile,
    // team, subscription, channel list), so a restart soon after start resumes from it and
    // a change made meanwhile is reported, not absorbed into a second baseline.
    const prompt = events.length > 0 || !this.saved.has(org) || !this.baselined.has(org);
    const delay = prompt ? this.eventSaveDelay : QUIET_SAVE_MS;
    const timer = this.opts.clock.setTimeout(() => this.flush(org), delay);
    this.dirty.set(org, { snapshot, events, kind: prompt ? 'events' : 'quiet', timer });
  }

  private flush(org: string): void {
    const entry = this.dirty.get(org);
    if (!entry) return;
    entry.timer.cancel();
    this.dirty.delete(org);
    this.chain(org, async () => {
      // How long the save takes, on the monotonic clock: the injected one may jump mid-save.
      const started = performance.now();
      // Taken when the write runs, not when it was queued: a write before it may have failed since.
      const events = this.takeUnlogged(org, entry.events);
      let appended: LoggedEvent[];
      try {
        await this.opts.snapshots.save(org, entry.snapshot, { pendingEvents: events });
        appended = await this.append(events);
      } catch (err) {
        // Nothing accepted is dropped: the batch waits in memory (and, once a save
        // succeeds, in the snapshot's envelope) until the disk takes it again.
        this.retryLater(org);
        throw err;
      }
      this.logged(org);
      this.writeFailures.delete(org);
      // A large snapshot is saved less often: at most a tenth of the time goes to saving.
      const took = performance.now() - started;
      this.eventSaveDelay = Math.min(30_000, Math.max(EVENT_SAVE_MS, took * 10));
      this.saved.add(org);
      if (BASELINE_PARTS.every((k) => entry.snapshot[k]?.state === 'complete')) this.baselined.add(org);
      this.opts.announce(appended);
      await this.release(org);
    });
  }

  /**
   * An org is no longer polled (a reload removed it): what it has waiting is written now,
   * and once all of it is on disk its snapshot and bookkeeping are let go, here and in the
   * snapshot store, instead of being held until the process ends (18 MiB at 100 000
   * sessions). A write that fails first keeps them for its retry, which lets them go once
   * it succeeds. `gone` says whether the org is still not polled: one added back meanwhile
   * keeps everything.
   */
  forget(org: string, gone: () => boolean): void {
    this.leaving.set(org, gone);
    this.flush(org);
    this.chain(org, () => this.release(org));
  }

  /** Whether anything of `org` is held: a snapshot, a write waiting, events not yet logged. */
  holds(org: string): boolean {
    return this.latest.has(org) || this.dirty.has(org) || this.unlogged.has(org);
  }

  /** Lets go of a leaving org once nothing of it waits (runs in the org's chain). */
  private async release(org: string): Promise<void> {
    const gone = this.leaving.get(org);
    if (gone === undefined) return;
    if (!gone()) {
      this.leaving.delete(org);
      return;
    }
    if (this.dirty.has(org) || this.unlogged.has(org)) return;
    this.leaving.delete(org);
    this.latest.delete(org);
    this.writeFailures.delete(org);
    this.saved.delete(org);
    this.baselined.delete(org);
    await this.opts.snapshots.forget(org);
  }

  /** `events` behind the org's events not yet logged; all of them stay unlogged until {@link logged}. */
  private takeUnlogged(org: string, events: readonly ChangeEvent[]): ChangeEvent[] {
    const all = [...(this.unlogged.get(org) ?? []), ...events];
    if (all.length > 0) this.unlogged.set(org, all);
    return all;
  }

  /**
   * The events a write took are in the log. Writes of one org run one at a time (chain),
   * so nothing was taken since: every event of the org is logged.
   */
  private logged(org: string): void {
    this.unlogged.delete(org);
  }

  /**
   * After a failed write, saves the org's newest snapshot again (with every event not yet
   * logged) after a backoff (1 s, doubling, at most {@link RETRY_MAX_MS}). A read-only
   * mount is retried too: it may be remounted read-write, and the retry costs one failed
   * open. A newer batch waiting keeps its snapshot and events and takes the backoff.
   */
  private retryLater(org: string): void {
    const failures = (this.writeFailures.get(org) ?? 0) + 1;
    this.writeFailures.set(org, failures);
    const newer = this.dirty.get(org);
    newer?.timer.cancel();
    const snapshot = newer?.snapshot ?? this.latest.get(org);
    if (snapshot === undefined) return;
    const entry: DirtyEntry = {
      snapshot,
      events: newer?.events ?? [],
      kind: 'retry',
      timer: { cancel: () => undefined },
    };
    this.dirty.set(org, entry);
    // Stopping: the next start gets these events again, from the older snapshot on disk
    // (the diff yields them anew) or from the envelope of the newer one. Starting: the
    // first update arms the retry.
    if (!this.opts.running()) {
      entry.parked = true;
      return;
    }
    const delay = Math.min(RETRY_MAX_MS, EVENT_SAVE_MS * 2 ** Math.min(failures - 1, 16));
    entry.timer = this.opts.clock.setTimeout(() => this.flush(org), delay);
  }

  /** Appends events to the log; returns those it did not have. */
  private async append(events: readonly ChangeEvent[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    return (await this.opts.eventLog.append(events)).appended;
  }

  /**
   * Publishes `events` in order with `org`'s other writes; if that fails, they wait, with
   * the org's other unlogged events, for the retry's save of `snapshot()` (the org's latest).
   */
  publishInOrder(
    org: string,
    events: readonly ChangeEvent[],
    snapshot: () => OrgSnapshot | undefined,
  ): Promise<void> {
    return this.chain(org, async () => {
      const all = this.takeUnlogged(org, events);
      try {
        this.opts.announce(await this.append(all));
      } catch (err) {
        const latest = snapshot();
        if (latest) this.latest.set(org, latest);
        this.retryLater(org);
        throw err;
      }
      this.logged(org);
    });
  }

  /** Writes everything waiting now and resolves once every write has settled (stopping). */
  async flushAll(): Promise<void> {
    for (const org of [...this.dirty.keys()]) this.flush(org);
    await Promise.allSettled([...this.writes.values()]);
  }

  /** Resolves once every write queued so far, and any it queued in turn, has settled. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.writes.values()];
      await Promise.allSettled(pending);
      if ([...this.writes.values()].every((w, i) => w === pending[i])) return;
    }
  }

  /** Queues `work` behind the org's other writes; resolves when it settled (never rejects). */
  private chain(org: string, work: () => Promise<void>): Promise<void> {
    const prev = this.writes.get(org) ?? Promise.resolve();
    const next = prev.then(work).catch((err: unknown) => {
      // A full or read-only disk is reported (log, metric) and does not stop polling.
      this.opts.onWriteFailure?.((err as { reason?: string }).reason ?? 'io');
      this.log.error({ org, err }, 'state write failed');
    });
    this.writes.set(org, next);
    return next;
  }
}
