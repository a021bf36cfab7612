/**
 * Delivers notifications from the durable outbox to their receivers: one place for
 * retries (exponential backoff with full jitter, `Retry-After` honoured), per-attempt
 * timeouts, dropping what cannot succeed, and metrics. Sinks only send once.
 *
 * Guarantee: a notification is in the outbox before its first attempt and leaves it only
 * after its receiver accepted it, or when it is given up on (a non-retryable error, older
 * than `maxAgeMs`, more than `maxAttempts` failures), which is logged and counted. After a
 * crash it is sent again under the same id: at least once, never silently lost.
 *
 * Ages, expiry and retries measure elapsed time: the wall times kept (and shown) move with
 * a step of the wall clock, and times read back from the last run are checked against
 * it (docs/reliability.md, "Clock steps").
 */
import { truncatedCount } from '../alerts/cap.js';
import type { Notification } from '../alerts/types.js';
import { type Clock, StepWatch, type TimerHandle } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { type BackoffOptions, retryDelay } from './backoff.js';
import type { DeliveryMetrics } from './metrics.js';
import { abortError, DeliveryError, type DropReason, type Notifier } from './notifier.js';
import {
  type DeliveryItem,
  deliveryId,
  type OutboxEntry,
  type OutboxPort,
  parseDeliveryItem,
} from './outbox.js';
import { type PendingEntry, PendingSet, type ReceiverBacklog } from './pending.js';

/** Delivery settings (the `delivery:` config section, in milliseconds). */
export interface DeliveryOptions {
  /** Longest one attempt may take, unless the receiver sets its own. */
  timeoutMs: number;
  /** Per-receiver attempt timeouts, by receiver name. */
  receiverTimeoutsMs?: Readonly<Record<string, number>>;
  /** Attempts in flight at once, over all receivers. */
  concurrency: number;
  /** A notification older than this is dropped. */
  maxAgeMs: number;
  /** Failed attempts after which a notification is dropped; 0 means no limit but `maxAgeMs`. */
  maxAttempts: number;
  backoff: BackoffOptions;
  /** How many given-up notifications to remember for the status API. */
  deadLetterLimit: number;
}

/** What the delivery worker is built from. */
export interface DeliveryDeps {
  notifiers: Iterable<Notifier>;
  outbox: OutboxPort<DeliveryItem>;
  clock: Clock;
  logger: Logger;
  metrics: DeliveryMetrics;
  options: DeliveryOptions;
  /** Uniform in [0, 1); injected so that tests get fixed delays. */
  random?: () => number;
}

/** A notification that was given up on, kept in memory for the status API. */
export interface DeadLetter {
  id: string;
  notificationId: string;
  receiver: string;
  groupKey: string;
  reason: DropReason;
  error: string;
  attempts: number;
  createdAt: number;
  droppedAt: number;
}

/** A waiting notification, as the status API shows it. */
export interface PendingView {
  id: string;
  notificationId: string;
  receiver: string;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
  lastError: string | undefined;
}

/** Delivers from the outbox; `start()` resumes what a previous run left pending. */
export class DeliveryWorker {
  readonly #notifiers: ReadonlyMap<string, Notifier>;
  readonly #outbox: OutboxPort<DeliveryItem>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: DeliveryMetrics;
  readonly #opts: DeliveryOptions;
  readonly #random: () => number;
  readonly #pending = new PendingSet();
  readonly #deadLetters: DeadLetter[] = [];
  readonly #attempts = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  readonly #idleWaiters = new Set<() => void>();
  readonly #steps: StepWatch;
  #timer: TimerHandle | undefined;
  #started = false;
  #stopped = false;

  constructor(deps: DeliveryDeps) {
    this.#notifiers = new Map([...deps.notifiers].map((n) => [n.name, n]));
    this.#outbox = deps.outbox;
    this.#clock = deps.clock;
    this.#log = deps.logger.child({ component: 'notify' });
    this.#metrics = deps.metrics;
    this.#opts = deps.options;
    this.#random = deps.random ?? Math.random;
    this.#steps = new StepWatch(deps.clock);
  }

  /** The wall time, with what is pending moved by any step of the wall clock since the last look. */
  #now(): number {
    const step = this.#steps.take();
    if (step !== 0) this.#pending.shift(step);
    return this.#clock.now();
  }

  /**
   * Stores `n` durably for its receiver and schedules it; resolves once it is in the
   * outbox. Returns the delivery id, or undefined when the receiver is not configured.
   */
  async enqueue(n: Notification): Promise<string | undefined> {
    const id = deliveryId(n.id, n.receiver);
    if (!this.#notifiers.has(n.receiver)) {
      this.#log.error(
        { receiver: n.receiver, notification: n.id },
        'notification for unknown receiver dropped',
      );
      this.#metrics.dropped(n.receiver, 'unknown', 'unknown_receiver');
      return undefined;
    }
    if (this.#pending.get(id)) return id;
    await this.#outbox.put(id, { notification: n });
    const left = truncatedCount(n);
    if (left > 0) this.#metrics.truncated?.(n.receiver, left);
    const now = this.#now();
    this.#pending.add({
      id,
      notification: n,
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
      lastError: undefined,
      inFlight: false,
    });
    this.#log.debug({ receiver: n.receiver, id, notification: n.id }, 'notification queued');
    this.#pump();
    return id;
  }

  /** Loads what the outbox holds from a previous run and starts delivering. */
  async start(): Promise<void> {
    if (this.#stopped) throw new Error('a stopped delivery worker cannot be started again; build a new one');
    if (this.#started) return;
    this.#started = true;
    const entries: readonly OutboxEntry<unknown>[] = await this.#outbox.list();
    const now = this.#now();
    let resumed = 0;
    let future = 0;
    for (const e of entries) {
      if (!isDeliveryEntry(e)) {
        const id = (e as OutboxEntry<unknown>).id;
        this.#log.error({ id }, 'malformed outbox entry dropped');
        await this.#outbox.ack(id);
        continue;
      }
      const times = resumedTimes(e, now, this.#opts.maxAgeMs);
      if (times.createdAt !== e.createdAt) future++;
      const added = this.#pending.add({
        id: e.id,
        notification: e.item.notification,
        ...times,
        attempts: e.attempts,
        lastError: e.lastError ?? undefined,
        inFlight: false,
        heldSince: now,
      });
      if (added) resumed++;
    }
    if (resumed > 0) this.#log.info({ pending: resumed }, 'resuming notifications left from the last run');
    if (future > 0) {
      this.#log.warn(
        { entries: future },
        'outbox entries dated in the future (the clock was set back): their ages count from now',
      );
    }
    this.#pump();
  }

  /**
   * Stops delivering: waits up to `graceMs` for attempts in flight, then aborts them.
   * Whatever did not finish stays in the outbox for the next start.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#started = false;
    this.#stopped = true;
    if (this.#attempts.size > 0) {
      let grace: TimerHandle | undefined;
      const timedOut = new Promise<void>((resolve) => {
        grace = this.#clock.setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...this.#attempts]), timedOut]);
      grace?.cancel();
    }
    this.#stop.abort(new DeliveryError('tally is stopping', { reason: 'aborted' }));
    await Promise.allSettled([...this.#attempts]);
  }

  /** Resolves when nothing waits for delivery (or at once when nothing does). */
  whenIdle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  /** Notifications given up on, newest last (bounded by `deadLetterLimit`). */
  deadLetters(): readonly DeadLetter[] {
    return [...this.#deadLetters];
  }

  /** Notifications waiting for delivery, oldest first. */
  pending(): PendingView[] {
    this.#now();
    return this.#pending.all().map((e) => ({
      id: e.id,
      notificationId: e.notification.id,
      receiver: e.notification.receiver,
      attempts: e.attempts,
      createdAt: e.createdAt,
      nextAttemptAt: e.nextAttemptAt,
      lastError: e.lastError,
    }));
  }

  /** Depth and oldest age per receiver; also pushed to the metrics recorder. */
  reportBacklog(): Map<string, ReceiverBacklog> {
    const backlog = this.#pending.backlog(this.#now(), this.#notifiers.keys());
    for (const [receiver, row] of backlog) {
      this.#metrics.setQueueDepth(receiver, row.depth);
      this.#metrics.setOldestPendingAge(receiver, row.oldestAgeMs / 1000);
    }
    return backlog;
  }

  /** Starts every attempt that is due and sets a timer for the next one. */
  #pump(): void {
    if (!this.#started) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    const now = this.#now();
    for (const e of this.#pending.olderThan(now - this.#opts.maxAgeMs)) {
      this.#track(
        this.#drop(e, 'expired', `not delivered within ${Math.round(this.#opts.maxAgeMs / 1000)}s`),
      );
    }
    const free = this.#opts.concurrency - this.#pending.inFlight;
    for (const e of this.#pending.due(now, Math.max(0, free))) this.#track(this.#attempt(e));
    this.reportBacklog();
    const next = this.#pending.nextDueAt();
    if (next !== undefined && this.#pending.inFlight < this.#opts.concurrency) {
      this.#timer = this.#clock.setTimeout(() => this.#pump(), Math.max(0, next - now));
    }
  }

  #track(p: Promise<void>): void {
    this.#attempts.add(p);
    p.then(
      () => undefined,
      (err: unknown) => {
        // A drop whose outbox removal failed (a read-only state directory): the entry
        // stays on disk and is dropped again by the next run; nothing else to do.
        this.#log.error({ error: describeError(err) }, 'outbox write failed');
      },
    ).finally(() => this.#attempts.delete(p));
  }

  async #attempt(e: PendingEntry): Promise<void> {
    const n = e.notification;
    const notifier = this.#notifiers.get(n.receiver);
    if (!notifier) {
      await this.#drop(e, 'unknown_receiver', 'receiver is no longer configured');
      return;
    }
    e.inFlight = true;
    const timeoutMs = this.#opts.receiverTimeoutsMs?.[n.receiver] ?? this.#opts.timeoutMs;
    const ctrl = new AbortController();
    const timer = this.#clock.setTimeout(() => {
      ctrl.abort(
        new DeliveryError(`${n.receiver}: no answer within ${timeoutMs}ms`, {
          reason: 'timeout',
        }),
      );
    }, timeoutMs);
    const onStop = () => ctrl.abort(this.#stop.signal.reason);
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    const started = this.#clock.monotonic();
    let failure: DeliveryError | undefined;
    try {
      await untilAborted(notifier.send(n, { signal: ctrl.signal, idempotencyKey: e.id }), ctrl.signal);
    } catch (err) {
      failure = classify(err, ctrl.signal, n.receiver);
    } finally {
      timer.cancel();
      this.#stop.signal.removeEventListener('abort', onStop);
    }
    this.#metrics.observeLatency(n.receiver, notifier.type, (this.#clock.monotonic() - started) / 1000);
    try {
      if (failure === undefined) await this.#delivered(e, notifier);
      else if (this.#stop.signal.aborted)
        e.inFlight = false; // cut short by stop(): not the receiver's fault
      else await this.#failed(e, notifier, failure);
    } catch (err) {
      // The outbox could not record the outcome. A delivered entry is not sent again by
      // this run (the next run may: at least once); a failed one stays and is retried.
      e.inFlight = false;
      this.#log.error({ receiver: n.receiver, id: e.id, error: describeError(err) }, 'outbox write failed');
    }
    this.#pump();
    this.#checkIdle();
  }

  async #delivered(e: PendingEntry, notifier: Notifier): Promise<void> {
    const n = e.notification;
    this.#forget(e);
    this.#metrics.sent(n.receiver, notifier.type);
    this.#log.info(
      { receiver: n.receiver, id: e.id, notification: n.id, status: n.status, attempts: e.attempts + 1 },
      'notification delivered',
    );
    await this.#outbox.ack(e.id);
  }

  async #failed(e: PendingEntry, notifier: Notifier, err: DeliveryError): Promise<void> {
    const n = e.notification;
    this.#metrics.failed(n.receiver, notifier.type, err.reason);
    const attempts = e.attempts + 1;
    if (!err.retryable) {
      e.attempts = attempts;
      await this.#drop(e, err.reason, err.message);
      return;
    }
    if (this.#opts.maxAttempts > 0 && attempts >= this.#opts.maxAttempts) {
      e.attempts = attempts;
      await this.#drop(e, 'max_attempts', err.message);
      return;
    }
    const now = this.#now();
    const delay = retryDelay(attempts, this.#opts.backoff, this.#random, err.retryAfterMs);
    // Never wait past the entry's expiry: it is dropped then, on time.
    const nextAttemptAt = Math.min(now + delay, e.createdAt + this.#opts.maxAgeMs + 1);
    // In memory first: an outbox that cannot record it (a full disk) must not leave the
    // entry due at once, retried back to back without backoff or attempt count.
    e.attempts = attempts;
    e.nextAttemptAt = nextAttemptAt;
    e.lastError = err.message;
    e.inFlight = false;
    await this.#outbox.update(e.id, { attempts, nextAttemptAt, lastError: err.message });
    // An error, not a warning: the notification has not reached anyone yet.
    this.#log.error(
      { receiver: n.receiver, id: e.id, reason: err.reason, error: err.message, attempts, retryInMs: delay },
      'notification attempt failed; will retry',
    );
  }

  /** Gives up on an entry: out of the outbox, logged, counted and kept as a dead letter. */
  async #drop(e: PendingEntry, reason: DropReason, error: string): Promise<void> {
    const n = e.notification;
    this.#forget(e);
    const type = this.#notifiers.get(n.receiver)?.type ?? 'unknown';
    this.#metrics.dropped(n.receiver, type, reason);
    this.#log.error(
      { receiver: n.receiver, id: e.id, notification: n.id, reason, error, attempts: e.attempts },
      'notification dropped',
    );
    this.#deadLetters.push({
      id: e.id,
      notificationId: n.id,
      receiver: n.receiver,
      groupKey: n.groupKey,
      reason,
      error,
      attempts: e.attempts,
      createdAt: e.createdAt,
      droppedAt: this.#clock.now(),
    });
    if (this.#deadLetters.length > this.#opts.deadLetterLimit) this.#deadLetters.shift();
    try {
      await this.#outbox.ack(e.id);
    } finally {
      this.#checkIdle();
    }
  }

  /** Takes an entry out of the in-memory set, so that this run does not send it again. */
  #forget(e: PendingEntry): void {
    this.#pending.remove(e.id);
    this.reportBacklog();
  }

  /** Wakes {@link whenIdle} callers once nothing waits and the outbox has been written. */
  #checkIdle(): void {
    if (this.#pending.size > 0) return;
    for (const resolve of this.#idleWaiters) resolve();
    this.#idleWaiters.clear();
  }
}

/** Settles with `p`, or rejects as soon as `signal` fires, so a sink that hangs cannot stall delivery. */
function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function classify(err: unknown, signal: AbortSignal, receiver: string): DeliveryError {
  if (err instanceof DeliveryError) return err;
  if (signal.aborted) return abortError(signal, receiver);
  return new DeliveryError(`${receiver}: ${describeError(err)}`, { reason: 'unknown', cause: err });
}

/**
 * The times of an entry taken over from the last run, checked against the clock now. An
 * entry dated in the future was written before the clock was set back: its age counts from
 * now and it is due now. A retry time further ahead than any retry is ever put (the
 * maximum age) cannot be meant either: it is due now.
 */
export function resumedTimes(
  e: { createdAt: number; nextAttemptAt: number },
  now: number,
  maxAgeMs: number,
): { createdAt: number; nextAttemptAt: number } {
  if (e.createdAt > now) return { createdAt: now, nextAttemptAt: now };
  return { createdAt: e.createdAt, nextAttemptAt: e.nextAttemptAt > now + maxAgeMs ? now : e.nextAttemptAt };
}

function isDeliveryEntry(e: OutboxEntry<unknown>): e is OutboxEntry<DeliveryItem> {
  try {
    parseDeliveryItem(e.item);
    return true;
  } catch {
    return false;
  }
}
