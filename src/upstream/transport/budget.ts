/**
 * The request budget: one per process, since every org shares the process's IP and the
 * API allows 300 requests per minute per IP (docs/architecture.md, invariant 5). Pure bookkeeping
 * over the injected clock; the HTTP layer asks it before every request and tells it
 * about every 429.
 *
 * - Accounting is a sliding log: a request counts from when it is granted until
 *   `windowMs` (+ `guardMs`) after it was *released* (its exchange over). The server
 *   receives a request between those two moments, so however long connecting or
 *   queueing takes, the server never sees more than the budget arrive in any window:
 *   when the last of N+1 arrivals in one window was granted, the N others were either
 *   in flight or released within that window, hence still counted.
 * - Waiting requests are served by priority (`high` → `follow` → `normal` → `low`), first
 *   come first served within a class; a request passed over for a while competes one
 *   class higher (aging, below `follow`), so no class starves behind a storm.
 * - Reserves are shares, not holes (docs/polling.md, "The budget"): `high` (the channel list)
 *   has a share of every window that no other class may take, sized by the poller to one
 *   window's worth of list pages, so a list read finds its pages free. `follow` and
 *   `normal` have `lowReserve` that the background sweep may not take: with pacing, a
 *   share of the saved tokens (a read that comes due goes out at once, and the sweep
 *   still gets the whole rate over time); without, a share of the window, which the
 *   slots they hold count towards. What a class does not use goes to whoever waits, so
 *   the whole budget is spent while anything waits.
 * - A 429 pauses every request until its `Retry-After` (plus a margin) has passed, and
 *   the effective budget follows the limit learned for the address (learned-limit.ts):
 *   down to a share of what the server took from this process on a 429 or when the
 *   server says others leave almost nothing, back up slowly while neither happens.
 * - It also bounds the requests in flight (`maxInFlight`), so that a granted request
 *   goes out at once instead of queueing for a connection behind lower priorities.
 * - Requests are spread over the minute by a token bucket (`burst`): tokens refill at the
 *   effective budget's rate and at most `burst` are saved, so a backlog goes out evenly
 *   instead of a third of the minute's budget in a few seconds. `high` requests (the
 *   pages of a channel list) may borrow up to another `burst` ahead. The sliding log
 *   above still bounds every window.
 */
import { type Clock, StepWatch, type TimerHandle } from '../../core/clock.js';
import { LearnedLimit, type LearnedLimitOptions, type LearnedStats } from './learned-limit.js';
import { type RateHeaders, readRateLimit, ServerPace } from './rate-limit.js';
import { PRIORITIES, type Priority, type Urgency } from './priority.js';
import { parseRetryAfter } from './retry-after.js';

// The priority classes and Urgency live in priority.ts; their importers read them from here.
export { PRIORITIES, type Priority, Urgency } from './priority.js';

/** The API's own limit; the budget never goes above it. */
export const API_LIMIT_PER_MINUTE = 300;

/** Options of {@link RequestBudget}; everything but `perMinute` and `clock` has a default. */
export interface BudgetOptions {
  /** Configured requests per minute (clamped to 1…300). */
  perMinute: number;
  clock: Clock;
  /** Length of the accounting window (default 60 s). */
  windowMs?: number;
  /** Extra window length, as insurance (default 0). */
  guardMs?: number;
  /** Fraction of the limit `low` requests leave free for higher classes (default 0.1). */
  lowReserve?: number;
  /** How the limit learned for the address moves (learned-limit.ts); defaults there. */
  learning?: LearnedLimitOptions;
  /** Added to every Retry-After pause (default 500 ms). */
  pauseMarginMs?: number;
  /** First pause when Retry-After cannot be trusted; doubles on each such 429 (default 30 s). */
  fallbackMinMs?: number;
  /** Longest such pause (default 5 min). */
  fallbackMaxMs?: number;
  /** Requests in flight at once (default unbounded); each grant holds one until released. */
  maxInFlight?: number;
  /** Requests that may go out back to back before the even pace applies (default: no pacing). */
  burst?: number;
  /**
   * How long a waiting request may be passed over before it competes one class higher
   * (default 30 s; see {@link RequestBudget}, "aging").
   */
  agingMs?: number;
}

/** Default of {@link BudgetOptions.agingMs}. */
export const AGING_MS = 30_000;

/** Gives back the in-flight slot of a granted request; calling it twice is harmless. */
export type Release = () => void;

/** A snapshot of the budget, for metrics, the status API and the planner. */
export interface BudgetStats {
  /** Configured requests per minute. */
  configured: number;
  /** Requests per minute allowed now: the learned limit (lower after a 429 until it recovers). */
  effective: number;
  /** The limit learned for the address (learned-limit.ts), and what taught it. */
  learned?: LearnedStats;
  /** Requests in flight or answered in the last 60 seconds. */
  usedLastMinute: number;
  /** Requests that may still be sent in the current window. */
  left: number;
  /** Until when every request is paused by a Retry-After (ms), or 0. */
  pausedUntil: number;
  /** How many times a 429 started a pause. */
  pauses: number;
  /** How many 429 answers were seen. */
  rateLimited: number;
  /** Requests left (and the limit) by the server's last word on its limit (rate-limit.ts), when it said. */
  server?: { remaining: number; limit?: number };
  /** Requests waiting, by priority. */
  queued: Record<Priority, number>;
  /** Requests granted and not yet released. */
  inFlight: number;
}

/** What {@link RequestBudget.rateLimited} decided. */
export interface PauseDecision {
  /** How long the server asked for (or the fallback backoff), without the margin. */
  retryAfterMs: number;
  /** Until when every request now waits. */
  untilMs: number;
  /** Whether the Retry-After header was usable. */
  trusted: boolean;
  /** Whether this 429 started a pause (false when it only extended one in force). */
  started: boolean;
}

interface LogEntry {
  /** Grant time while open, release time once closed. */
  at: number;
  open: boolean;
  priority: Priority;
}

interface Waiter {
  /** When it began to wait. */
  since: number;
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

const MINUTE = 60_000;
/** At most this share of the server's stated limit left, while others spend, lowers the learned limit. */
const SHORT_SHARE = 0.1;
const FALLBACK_STREAK_RESET_MS = 10 * MINUTE;

/** The process-wide request budget. */
export class RequestBudget {
  private readonly clock: Clock;
  private configured: number;
  private readonly windowMs: number;
  private readonly spanMs: number;
  private readonly lowReserve: number;
  /** The share of every window only `high` may use (see {@link reserveForHigh}). */
  private highReserve = 0;
  private readonly pauseMarginMs: number;
  private readonly fallbackMinMs: number;
  private readonly fallbackMaxMs: number;
  private readonly maxInFlight: number;
  private inFlight = 0;
  private readonly burst: number;
  private readonly agingMs: number;
  /** Tokens saved, and when they were last counted. */
  private tokens: number;
  private tokensAt = Number.NaN;

  /** Requests in flight (`open`) and released within the last `spanMs` (`at` = release time). */
  private log: LogEntry[] = [];
  private readonly queues: Record<Priority, Waiter[]> = { high: [], follow: [], normal: [], low: [] };
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private pausedUntil = 0;
  /** The limit learned for the address: the effective budget. */
  private readonly learned: LearnedLimit;
  /** When each 429 of the last window came, to tell what the server accepted. */
  private refusedAt: number[] = [];
  private pauseCount = 0;
  private rateLimitCount = 0;
  private fallbackStreak = 0;
  private lastFallbackAt = Number.NEGATIVE_INFINITY;
  /** The latest time read from the clock, to notice it being set back. */
  private seen = Number.NEGATIVE_INFINITY;
  /** The server's own word on its limit (rate-limit.ts): none left holds, few left spreads. */
  private readonly pace = new ServerPace();
  /** Steps of the wall clock, measured against the monotonic one. */
  private readonly steps: StepWatch;

  constructor(opts: BudgetOptions) {
    this.clock = opts.clock;
    this.steps = new StepWatch(opts.clock);
    this.configured = clampBudget(opts.perMinute);
    this.windowMs = opts.windowMs ?? MINUTE;
    this.spanMs = this.windowMs + (opts.guardMs ?? 0);
    this.lowReserve = opts.lowReserve ?? 0.1;
    this.pauseMarginMs = opts.pauseMarginMs ?? 500;
    this.fallbackMinMs = opts.fallbackMinMs ?? 30_000;
    this.fallbackMaxMs = opts.fallbackMaxMs ?? 5 * MINUTE;
    this.maxInFlight = opts.maxInFlight ?? Number.POSITIVE_INFINITY;
    this.burst =
      opts.burst !== undefined && opts.burst >= 1 ? Math.floor(opts.burst) : Number.POSITIVE_INFINITY;
    this.tokens = this.burst;
    this.learned = new LearnedLimit(this.configured, opts.learning);
    this.agingMs = opts.agingMs !== undefined && opts.agingMs > 0 ? opts.agingMs : AGING_MS;
  }

  /**
   * Resolves when a request of this priority may be sent now, and counts it as sent;
   * the caller releases the in-flight slot when the exchange is over. Rejects with the
   * signal's reason when aborted while waiting. Given an {@link Urgency}, the request
   * waits in the class it says, and moves up when it rises.
   */
  acquire(priority: Priority | Urgency = 'normal', signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Release>((resolve, reject) => {
      let queue = this.queues[typeof priority === 'string' ? priority : priority.priority];
      const leave = () => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
      };
      const onAbort = () => {
        leave();
        stopRising();
        reject(signal?.reason);
        this.pump();
      };
      const stopRising =
        typeof priority === 'string'
          ? () => undefined
          : priority.onRaise(() => {
              if (!queue.includes(waiter)) return;
              leave();
              queue = this.queues[priority.priority];
              queue.push(waiter);
              this.pump();
            });
      const waiter: Waiter = {
        since: this.clock.now(),
        resolve,
        reject,
        detach: () => {
          signal?.removeEventListener('abort', onAbort);
          stopRising();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.pump();
    });
  }

  /**
   * Records a 429: pauses every request and lowers the learned limit (learned-limit.ts).
   * `serverDate` is the answer's `Date` header, which an HTTP-date `Retry-After` is
   * measured from.
   */
  rateLimited(retryAfter: string | undefined, serverDate?: string, limits: RateHeaders = {}): PauseDecision {
    const now = this.now();
    // Without a usable Retry-After, the reset the rate-limit fields name (rate-limit.ts).
    let wait = parseRetryAfter(retryAfter, now, serverDate) ?? readRateLimit(limits, now, serverDate).resetMs;
    const trusted = wait !== undefined;
    if (wait === undefined) {
      if (now - this.lastFallbackAt > FALLBACK_STREAK_RESET_MS) this.fallbackStreak = 0;
      this.fallbackStreak += 1;
      this.lastFallbackAt = now;
      wait = Math.min(this.fallbackMaxMs, this.fallbackMinMs * 2 ** (this.fallbackStreak - 1));
    }
    this.rateLimitCount += 1;
    const until = now + wait + this.pauseMarginMs;
    // Answers to requests already in flight arrive during the pause: one pause, extended.
    const started = now >= this.pausedUntil;
    if (started) this.pauseCount += 1;
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.refusedAt.push(now);
    this.learned.short(now, this.acceptedInWindow(now), this.pausedUntil);
    this.pump();
    return { retryAfterMs: wait, untilMs: this.pausedUntil, trusted, started };
  }

  /**
   * Takes what an answer's rate-limit fields say (rate-limit.ts): few requests left slow
   * every request down; few left while others spend from the window (it holds more than
   * this process sent) lowers the learned limit as a 429 would. A stated limit alone does
   * not: its window (a second, a minute, an hour) is seldom said.
   */
  serverLimits(limits: RateHeaders, serverDate?: string): void {
    if (Object.keys(limits).length === 0) return;
    const now = this.now();
    const hint = readRateLimit(limits, now, serverDate);
    this.pace.observe(hint, now);
    if (hint.limit !== undefined && hint.remaining !== undefined) {
      const own = this.acceptedInWindow(now);
      const others = hint.limit - hint.remaining - own;
      if (others > 0 && hint.remaining <= Math.max(1, Math.ceil(hint.limit * SHORT_SHARE)))
        this.learned.short(now, own, now, 'server');
    }
    this.pump();
  }

  /** Requests of this process the server took in the last window: those sent, less the 429s. */
  private acceptedInWindow(now: number): number {
    this.refusedAt = this.refusedAt.filter((t) => t > now - this.windowMs);
    const sent = this.log.filter((e) => e.open || e.at > now - this.windowMs).length;
    return Math.max(0, sent - this.refusedAt.length);
  }

  /** Changes the configured budget (config reload); a lower learned limit stays in force. */
  setConfigured(perMinute: number): void {
    this.configured = clampBudget(perMinute);
    this.learned.setConfigured(this.configured, this.now());
    this.pump();
  }

  /**
   * Gives `high` requests a share of `requests` in every window (at most half of it) that
   * no other class may use, so that a burst of them — every page of a long channel list —
   * finds the window free instead of trickling out as older reads leave it. The share
   * counts requests, not free slots: the `high` requests already in the window are part
   * of it, so it is sized to one window's worth of list reads (and some).
   */
  reserveForHigh(requests: number): void {
    this.highReserve = Math.max(0, Math.floor(requests));
    this.pump();
  }

  /** Milliseconds until the pause in force ends (0 when not paused). */
  pauseLeftMs(): number {
    const now = this.now();
    return Math.max(0, this.pausedUntil - now);
  }

  /** Requests per minute allowed now, after any step-down (a whole number ≥ 1). */
  effective(): number {
    return Math.max(1, Math.floor(this.effectiveAt(this.now())));
  }

  /**
   * Requests that could go out now with nothing else waiting: 0 while anything of
   * `high`, `follow` or `normal` is queued; else what is left of the window (for `low`)
   * minus `headroom`, and no more than the tokens saved when pacing is on.
   */
  spare(headroom = 0): number {
    const now = this.now();
    if (now < this.pausedUntil) return 0;
    if (this.queues.high.length + this.queues.follow.length + this.queues.normal.length > 0) return 0;
    this.prune(now);
    const left = this.room('low', now) - this.queues.low.length - headroom;
    this.refill(now);
    return Math.max(0, Math.min(left, Math.floor(this.tokens - this.lowTokens()) - this.queues.low.length));
  }

  /** Saved tokens the sweep leaves to follow-ups and periodic reads when pacing is on. */
  private lowTokens(): number {
    if (this.burst === Number.POSITIVE_INFINITY) return 0;
    return Math.min(this.burst - 1, Math.ceil(this.burst * this.lowReserve));
  }

  /** The planner's estimate of what it may spend per minute: the effective budget. */
  capacityPerMinute(): number {
    return this.effective();
  }

  /** The state of the budget now. */
  stats(): BudgetStats {
    const now = this.now();
    this.prune(now);
    const effective = this.effective();
    const usedLastMinute = this.log.filter((e) => e.open || e.at > now - this.windowMs).length;
    return {
      configured: this.configured,
      effective,
      learned: this.learned.stats(now),
      usedLastMinute,
      left: Math.max(0, effective - this.log.length),
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : 0,
      pauses: this.pauseCount,
      rateLimited: this.rateLimitCount,
      ...this.pace.said(),
      queued: {
        high: this.queues.high.length,
        follow: this.queues.follow.length,
        normal: this.queues.normal.length,
        low: this.queues.low.length,
      },
      inFlight: this.inFlight,
    };
  }

  /**
   * The clock's time. When the wall clock steps (an NTP step, a VM restored or resumed),
   * every recorded time moves with it by the step measured against the monotonic clock
   * (docs/reliability.md, "Clock steps"): the requests of the last minute stay counted for
   * what is left of their minute, and a pause lasts what was left of it. Taken at face
   * value, a step back would hold the budget shut for as long as the clock jumped, and a
   * step forward would open a full window at once. A set-back too small to tell from drift
   * still moves them back by what the clock went back.
   */
  private now(): number {
    const step = this.steps.take();
    if (step !== 0) this.shift(step);
    const now = this.clock.now();
    if (now < this.seen) this.shift(now - this.seen);
    this.seen = now;
    return now;
  }

  /** Moves every recorded time by `ms`. */
  private shift(ms: number): void {
    for (const e of this.log) e.at += ms;
    if (this.pausedUntil > 0) this.pausedUntil += ms;
    this.learned.shift(ms);
    this.refusedAt = this.refusedAt.map((t) => t + ms);
    this.lastFallbackAt += ms;
    this.tokensAt += ms;
    for (const q of Object.values(this.queues)) for (const w of q) w.since += ms;
    // A timer runs on elapsed time, unmoved by the jump: only its label moves.
    this.timerAt += ms;
    this.pace.shift(-ms);
    this.seen += ms;
  }

  /** Grants what may go now, and arms one timer for the next moment something may. */
  private pump(): void {
    const now = this.now();
    this.prune(now);
    for (;;) {
      const next = this.nextToServe(now);
      if (next === undefined) {
        this.disarm();
        return;
      }
      const { queue, priority } = next;
      const gate = Math.max(this.pausedUntil, this.pace.notBefore(now));
      if (now < gate) {
        this.arm(gate, now);
        return;
      }
      if (this.inFlight >= this.maxInFlight) {
        // A release pumps again; no timer needed.
        this.disarm();
        return;
      }
      if (this.room(priority, now) <= 0) {
        this.armForExpiry(priority, now);
        return;
      }
      // The even pace: a token per request; `high` may run up to a burst into debt, `low`
      // leaves its reserve of tokens.
      this.refill(now);
      const floor = priority === 'high' ? 1 - this.burst : priority === 'low' ? 1 + this.lowTokens() : 1;
      if (this.tokens < floor) {
        this.arm(now + Math.ceil(((floor - this.tokens) * MINUTE) / Math.max(1, this.effectiveAt(now))), now);
        return;
      }
      this.tokens -= 1;
      this.pace.granted(now);
      const waiter = this.queues[queue].shift()!;
      waiter.detach();
      const entry: LogEntry = { at: now, open: true, priority };
      this.log.push(entry);
      this.inFlight += 1;
      waiter.resolve(this.releaser(entry));
    }
  }

  /**
   * The queue served next and the class it is served as. `high` (the channel lists) always
   * goes first. Of the others the most urgent goes, but a request passed over for
   * `agingMs` competes one class higher, and one more for each further `agingMs`, up to
   * `follow` (aging); among equals the one waiting longest goes first. So a storm of
   * follow-ups that outlasts the budget delays the periodic reads of every org (profile,
   * team, subscription, live channels and details) by `agingMs`, or by as long as the
   * follow-ups queued before them take if that is longer, and the sweep by twice that,
   * instead of holding them for as long as the storm lasts.
   */
  private nextToServe(now: number): { queue: Priority; priority: Priority } | undefined {
    if (this.queues.high.length > 0) return { queue: 'high', priority: 'high' };
    let best: { queue: Priority; priority: Priority; rank: number; since: number } | undefined;
    for (const queue of PRIORITIES) {
      const head = this.queues[queue][0];
      if (queue === 'high' || head === undefined) continue;
      const passedOver = Math.floor(Math.max(0, now - head.since) / this.agingMs);
      const rank = Math.max(1, PRIORITIES.indexOf(queue) - passedOver);
      if (best === undefined || rank < best.rank || (rank === best.rank && head.since < best.since))
        best = { queue, priority: PRIORITIES[rank]!, rank, since: head.since };
    }
    return best && { queue: best.queue, priority: best.priority };
  }

  private releaser(entry: LogEntry): Release {
    return () => {
      if (!entry.open) return;
      entry.open = false;
      const now = this.now();
      entry.at = Math.max(entry.at, now);
      this.inFlight -= 1;
      this.pump();
    };
  }

  /**
   * Arms the timer for the first moment a request of `priority` may find room as released
   * entries leave the window (room grows by one per entry that leaves, at most); when open
   * entries are in the way, their release pumps instead. Checked again when it fires.
   */
  private armForExpiry(priority: Priority, now: number): void {
    const closed = this.log
      .filter((e) => !e.open)
      .map((e) => e.at)
      .sort((a, b) => a - b);
    const mustExpire = 1 - this.room(priority, now);
    if (closed.length < mustExpire) {
      this.disarm();
      return;
    }
    this.arm(closed[Math.max(0, mustExpire - 1)]! + this.spanMs, now);
  }

  /** Adds the tokens earned since the last count, at the effective rate, up to `burst`. */
  private refill(now: number): void {
    if (this.burst === Number.POSITIVE_INFINITY) {
      this.tokens = Number.POSITIVE_INFINITY;
      return;
    }
    if (Number.isNaN(this.tokensAt) || now < this.tokensAt) this.tokensAt = now;
    const earned = ((now - this.tokensAt) * this.effectiveAt(now)) / MINUTE;
    this.tokens = Math.min(this.burst, this.tokens + earned);
    this.tokensAt = now;
  }

  /**
   * How many more requests of `priority` the window takes now (≤ 0: none). Every class is
   * bounded by the limit; the others also by the shares of the classes above them.
   */
  private room(priority: Priority, now: number): number {
    const limit = Math.max(1, Math.floor(this.effectiveAt(now)));
    const free = limit - this.log.length;
    // Under a learned limit lower than configured, the channel lists may still take their
    // share on top of it (within the configured budget): a step down must not leave them
    // waiting for the window to drain (docs/upstream-client.md, "The learned limit").
    if (priority === 'high') return Math.min(this.configured, limit + this.highReserve) - this.log.length;
    let high = 0;
    let urgent = 0;
    for (const e of this.log) {
      if (e.priority === 'high') high += 1;
      else if (e.priority !== 'low') urgent += 1;
    }
    const others = this.log.length - high;
    let reserve = this.highReserve;
    // Without pacing, the sweep leaves `lowReserve` of the window to follow-ups and periodic
    // reads, less what they hold (with pacing, it leaves them tokens instead).
    if (priority === 'low' && this.burst === Number.POSITIVE_INFINITY)
      reserve += Math.max(0, Math.ceil(limit * this.lowReserve) - urgent);
    // Never more than half the window: the other classes must not starve.
    return Math.min(free, limit - Math.min(reserve, Math.floor(limit / 2)) - others);
  }

  private effectiveAt(now: number): number {
    return this.learned.at(now);
  }

  private prune(now: number): void {
    const horizon = now - this.spanMs;
    if (this.log.some((e) => !e.open && e.at <= horizon)) {
      this.log = this.log.filter((e) => e.open || e.at > horizon);
    }
  }

  private arm(at: number, now: number): void {
    if (this.timer && this.timerAt === at) return;
    this.disarm();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(1, at - now),
    );
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}

/** Clamps a configured budget to 1…300 requests per minute. */
export function clampBudget(perMinute: number): number {
  if (!Number.isFinite(perMinute)) return API_LIMIT_PER_MINUTE;
  return Math.min(API_LIMIT_PER_MINUTE, Math.max(1, Math.floor(perMinute)));
}
