/**
 * The poller: every org's reads on one schedule and one budget. Org-level parts and
 * channel lists run at their intervals; hot channels and live sessions at the live
 * intervals; a background sweep reads every channel's sessions with what the budget has
 * left, paced by the planner. See docs/polling.md.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import { emptySnapshot, type OrgSnapshot } from '../snapshot/model.js';
import type { Fetcher, OrgAuth } from './fetcher.js';
import type { ChannelFilter } from './channel-filter.js';
import { type DiffFn, OrgPoller } from './org-poller.js';
import {
  CHANGE_WAITS_AT_MOST_MS,
  pickToSweep,
  type Plan,
  type PlanIntervals,
  plan,
  reachableBoundMs,
  type SweepEntry,
  statedBoundMs,
} from './planner.js';
import { Scheduler } from './scheduler.js';
import { SpendMeter } from './spend.js';
import { SweepLeads, underwayAtRisk } from './sweep-pace.js';
import { AGING_MS } from '../upstream/transport/budget.js';
import type { RemovalPolicy } from './removals.js';
import { stopController } from './stop-signal.js';

/** One org to poll. */
export interface PolledOrg {
  auth: OrgAuth;
  filter?: ChannelFilter | undefined;
  /** The stored snapshot to resume from; absent on a first run (a silent baseline). */
  initial?: OrgSnapshot | undefined;
  /** Share weight in the sweep (`orgs[].weight`, default 1). */
  weight?: number | undefined;
}

/** Options of {@link Poller}. */
export interface PollerOptions {
  orgs: readonly PolledOrg[];
  intervals: PlanIntervals & { jitter: number };
  window: { past: number; future: number };
  perPage: number;
  /** The budget's current capacity in requests per minute. */
  capacity: () => number;
  /** Told how many requests of every window to keep for high-priority reads: one read of every channel list, and some. */
  reserveForHigh?: (requests: number) => void;
  /** When a read's removals are suspect and what confirms them. */
  removals?: RemovalPolicy;
  /**
   * Requests the budget could send now without keeping anything else waiting (nothing
   * queued, a headroom kept): the sweep spends them too, so an idle budget always works.
   */
  spare?: () => number;
}

/** Dependencies of {@link Poller}. */
export interface PollerDeps {
  fetcher: Fetcher;
  clock: Clock;
  logger: Logger;
  diff: DiffFn;
  onUpdate: (org: string, snapshot: OrgSnapshot, events: ChangeEvent[]) => void;
  /** Told how long each read took. */
  onPoll?: (org: string, resource: string, durationMs: number) => void;
  rng?: () => number;
}

const SWEEP_TICK_MS = 1000;
const PLAN_EVERY_MS = 30_000;
/**
 * Sweep reads waiting or running at once. A sweep read waits in the budget behind every
 * higher priority, so too few slots would hold the sweep below the pace it was planned
 * at (and its bound) whenever the budget is busy.
 */
const MAX_SWEEP_INFLIGHT = 8;
/** The share of their interval over which a round of hot reads or live details is spread. */
const SPREAD_SHARE = 0.8;
/**
 * The channel lists' share beyond their reads' pages: one more read of every list (a read
 * that comes early with jitter, or a list that grew by a page), at least
 * {@link LIST_MARGIN_MIN} and at most {@link LIST_MARGIN_MAX} requests. No other read may
 * use it: a fixed 10 left 4 % of a 240/min budget unused at 100 channels.
 */
const LIST_MARGIN_MIN = 2;
const LIST_MARGIN_MAX = 10;

/**
 * While an org's first baseline is under way, its live channels are read again only every
 * this many of their intervals (and live details not at all), so that the baseline gets
 * the budget (docs/polling.md, "Readiness and the first baseline"); changes the channel list shows still
 * get their follow-up at once.
 */
const BASELINE_SLOWDOWN = 4;

/**
 * A change of a channel already read waits for the first baseline only while the first
 * reads left take at most this long at {@link BASELINE_PACE} of the budget: a few minutes'
 * delay of a session event on a channel already read buys a baseline that much sooner;
 * a baseline of half an hour (5000 channels) would hold such events as long.
 */
const FOLLOW_UPS_WAIT_MS = CHANGE_WAITS_AT_MOST_MS;
/** The share of the budget first reads are counted to get for {@link FOLLOW_UPS_WAIT_MS}. */
const BASELINE_PACE = 0.85;

/** Whether a periodic read of an org still in its first baseline is due. */
function dueInBaseline(p: OrgPoller, key: string, now: number, intervalMs: number): boolean {
  const last = p.lastAttemptAt(key);
  // Half an interval of slack: the job's own ticks are jittered.
  return last === undefined || last > now || now - last >= (BASELINE_SLOWDOWN - 0.5) * intervalMs;
}

/** Polls every configured org within one budget. */
export class Poller {
  private readonly pollers = new Map<string, OrgPoller>();
  private readonly scheduler: Scheduler;
  private readonly stopping = stopController();
  private current: Plan;
  private sweepCredit = 0;
  /** A sweep tick asked for before the next regular one, and when it runs. */
  private wake: { timer: TimerHandle; at: number } | undefined;
  private halted = false;
  private readonly sweepInflight = new Set<string>();
  private readonly log: Logger;
  /** What the reads of the last minute were for, per org. */
  readonly spend: SpendMeter;
  private readonly fetcher: Fetcher;

  /** The options but `orgs`: each org's stored snapshot is its poller's to keep, or drop. */
  private readonly opts: Omit<PollerOptions, 'orgs'>;

  constructor(
    { orgs, ...opts }: PollerOptions,
    private readonly deps: PollerDeps,
  ) {
    // Keeping the orgs given here would keep every stored snapshot they were resumed from
    // for the life of the process: every list replaced since, twice over once the poller
    // holds the lists compactly (session-list.ts).
    this.opts = opts;
    this.log = deps.logger.child({ component: 'poller' });
    this.spend = new SpendMeter(deps.clock);
    this.fetcher = this.spend.wrap(deps.fetcher);
    this.scheduler = new Scheduler({
      clock: deps.clock,
      logger: this.log,
      ...(deps.rng ? { rng: deps.rng } : {}),
    });
    for (const org of orgs) this.addOrg(org);
    this.current = this.computePlan();
  }

  /** The org pollers, by slug. */
  orgs(): ReadonlyMap<string, OrgPoller> {
    return this.pollers;
  }

  /** The plan in force. */
  plan(): Plan {
    return this.current;
  }

  /** Starts every job; org-level parts and channel lists are read at once. */
  start(): void {
    this.schedule(true);
    this.scheduler.add({
      name: 'plan',
      intervalMs: PLAN_EVERY_MS,
      jitter: 0,
      run: async () => this.replan(),
    });
    this.scheduler.add({
      name: 'sweep',
      intervalMs: SWEEP_TICK_MS,
      jitter: 0,
      run: async () => this.sweepTick(),
    });
    this.log.info(
      { orgs: this.pollers.size, sweepBoundMs: this.current.sweepBoundMs, notes: this.current.notes },
      'polling started',
    );
  }

  /** Stops scheduling, lets reads in flight finish for up to `timeoutMs`, then aborts them. */
  async stop(timeoutMs: number): Promise<void> {
    for (const p of this.pollers.values()) p.stopping = true;
    this.halted = true;
    this.wake?.timer.cancel();
    this.wake = undefined;
    const deadline = this.deps.clock.now() + timeoutMs;
    await this.scheduler.stop(timeoutMs);
    const left = Math.max(0, deadline - this.deps.clock.now());
    const settled = Promise.allSettled([...this.pollers.values()].map((p) => p.settle()));
    let timer: { cancel(): void } | undefined;
    await Promise.race([settled, new Promise<void>((r) => (timer = this.deps.clock.setTimeout(r, left)))]);
    timer?.cancel();
    this.stopping.abort(new Error('poller stopped'));
    await settled;
  }

  /** Adopts a new org list after a config reload: new orgs start, removed ones stop. */
  reconfigure(orgs: readonly PolledOrg[]): void {
    const wanted = new Set(orgs.map((o) => o.auth.slug));
    for (const slug of [...this.pollers.keys()]) {
      if (wanted.has(slug)) continue;
      this.pollers.delete(slug);
      for (const name of this.scheduler.names()) if (name.startsWith(`${slug}:`)) this.scheduler.remove(name);
    }
    for (const org of orgs) {
      const existing = this.pollers.get(org.auth.slug);
      if (existing) {
        existing.reconfigure(org.auth, org.filter);
        existing.weight = org.weight ?? 1;
      } else {
        this.addOrg(org);
        this.scheduleOrg(this.pollers.get(org.auth.slug)!, this.current.intervals, true);
      }
    }
  }

  private addOrg(org: PolledOrg): void {
    const slug = org.auth.slug;
    const poller = new OrgPoller(
      org.auth,
      org.filter,
      org.initial ?? emptySnapshot(slug, this.deps.clock.now()),
      {
        fetcher: this.fetcher,
        clock: this.deps.clock,
        logger: this.log.child({ org: slug }),
        diff: this.deps.diff,
        window: this.opts.window,
        onUpdate: (snapshot, events) => {
          this.deps.onUpdate(slug, snapshot, events);
          // The first channel list: the first baseline starts now, not at the next tick.
          if (this.current.sweepReadsPerMinute === 0 && snapshot.channels?.state === 'complete')
            this.wakeSweep(0);
        },
        onPoll: (resource, ms) => this.deps.onPoll?.(slug, resource, ms),
        perPage: this.opts.perPage,
        signal: this.stopping.signal,
        ...(this.opts.removals ? { removals: this.opts.removals } : {}),
        followUpsWait: () => this.followUpsWait(),
      },
    );
    poller.weight = org.weight ?? 1;
    this.pollers.set(slug, poller);
  }

  private computePlan(): Plan {
    const now = this.deps.clock.now();
    const horizon = this.opts.intervals.live_sessions * 2;
    const orgs = [...this.pollers.values()].map((p) => p.load(now, horizon));
    const next = plan({
      budgetPerMinute: this.opts.capacity(),
      intervals: this.opts.intervals,
      orgs,
      listAtMin: this.current?.listAtMin,
    });
    // The channel lists' share of every minute: each read of every list, and some, so
    // that every page of the next read finds the budget free.
    const pages = orgs.reduce((n, o) => n + Math.max(1, o.channelPages), 0);
    const readsPerMinute = Math.max(1, Math.ceil(60_000 / Math.max(1, next.intervals.channels)));
    const margin = Math.max(LIST_MARGIN_MIN, Math.min(pages, LIST_MARGIN_MAX));
    this.opts.reserveForHigh?.(pages * readsPerMinute + margin);
    const channels = orgs.reduce((n, o) => n + o.channels, 0);
    const reads = orgs.reduce((n, o) => n + o.channels * Math.max(1, o.sessionPages), 0);
    this.planBoundMs = next.sweepBoundMs;
    this.readsPerChannel = channels > 0 ? reads / channels : 1;
    return { ...next, sweepBoundMs: this.reachable(next, now) };
  }

  /** The plan's own bound: what the sweep's deadline keeps (planner.ts, `mustReadNow`). */
  private planBoundMs = 0;
  /** How long recent sweep reads took from being chosen to being answered. */
  private readonly leads = new SweepLeads();
  private readsPerChannel = 1;

  /**
   * Channels a ms the sweep reads at least: its planned pace, or what its slots let
   * through when its reads wait long in the budget.
   */
  private sweepChannelsPerMs(p: Plan): number {
    const lead = this.leads.mean();
    const slots = lead > 0 ? MAX_SWEEP_INFLIGHT / lead : Number.POSITIVE_INFINITY;
    return Math.min(p.sweepReadsPerMinute / 60_000, slots) / this.readsPerChannel;
  }

  /** The bound to state now: the plan's, or longer when the channels' state cannot meet it (planner.ts). */
  private reachable(p: Plan, now: number, entries?: readonly SweepEntry[]): number {
    const list = entries ?? [...this.pollers.values()].flatMap((o) => o.sweepEntries(now));
    const reach = reachableBoundMs(list, now, {
      channelsPerMs: this.sweepChannelsPerMs(p),
      minEveryMs: this.minEveryMs(),
      leadMs: this.leads.max(),
      tickMs: SWEEP_TICK_MS,
    });
    return statedBoundMs(this.planBoundMs, reach);
  }

  private minEveryMs(): number {
    return Math.min(this.opts.intervals.sweep, Math.max(1000, this.opts.intervals.sweep_min ?? 15_000));
  }

  /**
   * Whether the first reads every org still needs fit in {@link FOLLOW_UPS_WAIT_MS} at
   * {@link BASELINE_PACE} of the budget, so that a change of a channel already read may
   * wait for them (org-poller.ts).
   */
  private followUpsWait(): boolean {
    let unread = 0;
    for (const p of this.pollers.values()) unread += p.unreadChannels();
    const perMinute = Math.max(1, this.opts.capacity() * BASELINE_PACE);
    return (unread / perMinute) * 60_000 <= FOLLOW_UPS_WAIT_MS;
  }

  private replan(): void {
    const before = this.current;
    this.current = this.computePlan();
    const moved = (a: number, b: number) => Math.abs(a - b) > 0.05 * Math.max(1, b);
    if (moved(this.current.stretch, before.stretch) || moved(this.current.hotStretch, before.hotStretch)) {
      this.log.warn(
        { stretch: this.current.stretch, hotStretch: this.current.hotStretch, notes: this.current.notes },
        'intervals changed to fit the budget',
      );
      this.schedule(false);
    } else if (this.current.listAtMin !== before.listAtMin) {
      // The lists grew past (or shrank below) what is cheap to read at `channels_min`:
      // only the list jobs change; the others keep their schedule.
      this.log.info(
        { from: before.intervals.channels, to: this.current.intervals.channels },
        'channel list interval changed',
      );
      for (const p of this.pollers.values()) this.scheduleOrg(p, this.current.intervals, false, ['channels']);
    }
  }

  private schedule(immediate: boolean): void {
    const iv = this.current.intervals;
    for (const p of this.pollers.values()) this.scheduleOrg(p, iv, immediate);
    const jitter = this.opts.intervals.jitter;
    this.scheduler.add({
      name: 'hot',
      intervalMs: iv.live_sessions,
      jitter,
      run: async (signal) => {
        const now = this.deps.clock.now();
        const reads = [...this.pollers.values()].flatMap((p) => {
          const baseline = p.inBaseline();
          // Normal: a round over many hot channels must not hold back the channel list.
          return p
            .hotChannels(now, iv.live_sessions * 2)
            .filter((ch) => !baseline || dueInBaseline(p, `sessions:${ch}`, now, iv.live_sessions))
            .map((ch) => async () => {
              // Read a moment ago (a follow-up, the sweep): not again before `sweep_min`,
              // as the sweep would not, nor half the hot interval; the budget goes to
              // staler channels.
              const within = Math.min(this.minEveryMs(), iv.live_sessions / 2);
              if (p.sessionsReadWithin(ch, within, this.deps.clock.now())) return;
              await p.readSessions(ch, 'normal', signal);
            });
        });
        await this.spread(reads, iv.live_sessions, signal);
      },
    });
    this.scheduler.add({
      name: 'detail',
      intervalMs: iv.live_detail,
      jitter,
      run: async (signal) => {
        // While an org's first baseline is under way its live details wait (a session
        // that starts meanwhile still gets its follow-up): at 1000 channels they were
        // a tenth of the budget the first reads of every channel need.
        // A session's detail put off for the baseline waits at most as long as a change.
        const now = this.deps.clock.now();
        const reads = [...this.pollers.values()].flatMap((p) =>
          (p.inBaseline() ? p.waitedDetails(now, CHANGE_WAITS_AT_MOST_MS) : p.detailTargets()).map(
            (id) => () => p.readDetail(id, 'normal', signal),
          ),
        );
        await this.spread(reads, iv.live_detail, signal);
      },
    });
  }

  /**
   * Runs a round of periodic reads spread evenly over most of their interval instead of
   * all at once. Each read keeps its period (the same place in every round), and the
   * sweep's reads, served after periodic ones, are not held back for seconds behind a
   * burst of them: with 44 live details at once every minute, the sweep stalled 11 s a
   * minute and its stalest channels waited past the bound.
   */
  private async spread(
    reads: (() => Promise<void>)[],
    intervalMs: number,
    signal: AbortSignal,
  ): Promise<void> {
    const step = reads.length > 1 ? (intervalMs * SPREAD_SHARE) / reads.length : 0;
    await Promise.allSettled(
      reads.map(async (read, i) => {
        if (i > 0) await this.deps.clock.sleep(i * step, signal);
        await read();
      }),
    );
  }

  private scheduleOrg(
    p: OrgPoller,
    iv: PlanIntervals,
    immediate: boolean,
    only?: readonly ('channels' | 'profile' | 'team' | 'subscription')[],
  ): void {
    const jitter = this.opts.intervals.jitter;
    const parts = (
      [
        ['channels', iv.channels],
        ['profile', iv.org],
        ['team', iv.team],
        ['subscription', iv.subscription],
      ] as const
    ).filter(([part]) => only === undefined || only.includes(part));
    for (const [part, intervalMs] of parts) {
      this.scheduler.add({
        name: `${p.slug}:${part}`,
        intervalMs,
        jitter,
        immediate,
        run: async (signal) => {
          // Read early on idle budget a moment ago: not again before `channels_min`.
          if (part === 'channels' && this.listReadWithin(p, this.deps.clock.now())) return;
          await p.refresh(part, signal);
        },
      });
    }
  }

  /**
   * Spends the sweep's share of the budget, and any budget nobody is waiting for, on the
   * reads worth most (planner.ts, `sweepScore`). A read dated after now means the clock
   * was set back since: its age is unknown, so the channel counts as never read. Taken at
   * face value, every channel read before the jump would wait out the whole jump while
   * the sweep kept rereading the few it read after it.
   */
  private async sweepTick(scheduled = true): Promise<void> {
    if (this.halted) return;
    // The first plan is made before any channel list is known; plan again as soon as one is.
    if (
      this.current.sweepReadsPerMinute === 0 &&
      [...this.pollers.values()].some((p) => p.sweepEntries().length > 0)
    ) {
      // Through replan: the first list's pages may change the list's interval or stretch.
      this.replan();
    }
    const now = this.deps.clock.now();
    // Credit accrues on the regular ticks only (an early one, see wakeSweep, spends what is
    // there); what is saved while every slot was busy is spent later, up to half a
    // minute's worth.
    const perTick = (this.current.sweepReadsPerMinute * SWEEP_TICK_MS) / 60_000;
    if (scheduled) this.sweepCredit = Math.min(this.sweepCredit + perTick, Math.max(1, perTick * 30));
    // Rounds close on every tick, also one with nothing to spend: reads for other reasons count.
    for (const p of this.pollers.values()) p.trackSweepRound(now);
    // The plan's pace is a floor: budget nobody else is waiting for goes to the sweep too.
    const spare = Math.max(0, Math.floor(this.opts.spare?.() ?? 0));
    const n = Math.min(
      Math.max(Math.floor(this.sweepCredit), spare),
      MAX_SWEEP_INFLIGHT - this.sweepInflight.size,
    );
    const all = [...this.pollers.values()].flatMap((p) => p.sweepEntries(now));
    // The bound stated is kept true at every tick: it rises at once when the state needs
    // it, and comes down only with a new plan (every 30 s), so that it does not flicker.
    const reach = this.reachable(this.current, now, all);
    if (reach > this.current.sweepBoundMs) this.current = { ...this.current, sweepBoundMs: reach };
    // The deadline keeps the plan's bound, so that a longer bound stated while the sweep
    // catches up shrinks back to it. A channel that crosses the line just after a tick
    // waits for the next one too.
    const minEveryMs = this.minEveryMs();
    const policy = {
      now,
      minEveryMs,
      boundMs: this.planBoundMs,
      leadMs: this.leads.p95() + SWEEP_TICK_MS,
      channelsPerMs: this.sweepChannelsPerMs(this.current),
    };
    // A read under way counts as the channel's read from when it began: one that may still
    // wait its turn as a periodic read (up to the budget's aging time) is raised before it
    // could land past the bound stated.
    // Not while a channel waits for its first read: the bound holds from the first baseline
    // on, and first reads at the sweep's priority would wait behind the raised ones.
    const raise = ![...this.pollers.values()].some((p) => p.inBaseline());
    const stated = { ...policy, boundMs: this.current.sweepBoundMs, leadMs: policy.leadMs + AGING_MS };
    for (const e of raise ? underwayAtRisk(all, stated) : [])
      this.pollers.get(e.org)?.raiseSessions(e.channelId, 'follow');
    if (n <= 0) return;
    const candidates = all.filter((e) => !this.sweepInflight.has(`${e.org}\0${e.channelId}`));
    const picked = pickToSweep(candidates, n, policy);
    for (const { entry, urgent } of picked) {
      const poller = this.pollers.get(entry.org);
      if (!poller) continue;
      const key = `${entry.org}\0${entry.channelId}`;
      const first = entry.lastReadAt === undefined;
      // Spare reads are free: only planned ones use up credit.
      this.sweepCredit = Math.max(0, this.sweepCredit - 1);
      this.sweepInflight.add(key);
      const chosenAt = now;
      poller
        .readSessions(entry.channelId, 'low', this.stopping.signal)
        .catch((err: unknown) => {
          if (!poller.stopping && !this.stopping.signal.aborted)
            this.log.warn({ org: entry.org, err }, 'sweep read failed');
        })
        .finally(() => {
          this.leads.note(this.deps.clock.now() - chosenAt);
          this.sweepInflight.delete(key);
          // The first baseline goes as fast as the budget allows: a freed slot is used at once.
          if (first) this.wakeSweep(0);
        });
      // A sweep read still, counted as one; the bound needs it now, so it goes with the
      // follow-ups rather than behind every periodic read.
      if (urgent && raise) poller.raiseSessions(entry.channelId, 'follow');
    }
    if (picked.length < n) this.wakeAtNextDue(candidates, now, minEveryMs);
    this.readListsEarly(spare - picked.length, now);
  }

  /**
   * Whether `p`'s channel list was read less than `intervals.channels_min` ago, while
   * that minimum is below the list's interval (otherwise lists are never read early).
   */
  private listReadWithin(p: OrgPoller, now: number): boolean {
    const minMs = this.opts.intervals.channels_min;
    if (minMs === undefined || minMs >= this.current.intervals.channels) return false;
    const last = p.lastAttemptAt('channels');
    return last !== undefined && last <= now && now - last < minMs;
  }

  /**
   * Budget nobody is waiting for, once the sweep has taken what it can, reads a channel
   * list before its interval is due (at most every `intervals.channels_min`): one list
   * read shows every channel going live or offline, the most a request can see. Only a
   * small org, whose sweep is held back by `sweep_min`, leaves such budget.
   */
  private readListsEarly(spareLeft: number, now: number): void {
    const minMs = this.opts.intervals.channels_min;
    if (minMs === undefined || minMs >= this.current.intervals.channels) return;
    let left = spareLeft;
    for (const p of this.pollers.values()) {
      const pages = p.channelPages();
      if (pages > left) continue;
      if (p.lastAttemptAt('channels') === undefined || this.listReadWithin(p, now)) continue;
      left -= pages;
      p.refresh('channels', this.stopping.signal).catch((err: unknown) => {
        if (!p.stopping && !this.stopping.signal.aborted)
          this.log.warn({ org: p.slug, err }, 'early channel list read failed');
      });
    }
  }

  /**
   * When the per-channel minimum is what holds the sweep back, the next read goes out the
   * moment a channel's minimum has passed rather than at the next tick: a channel read
   * every `sweep_min` is then read every `sweep_min`, not up to a tick later.
   */
  private wakeAtNextDue(
    candidates: readonly { lastReadAt: number | undefined }[],
    now: number,
    minEveryMs: number,
  ): void {
    let next = Number.POSITIVE_INFINITY;
    for (const e of candidates) {
      if (e.lastReadAt === undefined || e.lastReadAt > now) continue;
      const due = e.lastReadAt + minEveryMs;
      if (due > now && due < next) next = due;
    }
    if (next - now < SWEEP_TICK_MS) this.wakeSweep(next - now);
  }

  /** Runs a sweep tick in `delayMs`, unless one is asked for sooner already. */
  private wakeSweep(delayMs: number): void {
    if (this.halted) return;
    const at = this.deps.clock.now() + Math.max(0, delayMs);
    if (this.wake && this.wake.at <= at) return;
    this.wake?.timer.cancel();
    const timer = this.deps.clock.setTimeout(
      () => {
        this.wake = undefined;
        this.sweepTick(false).catch((err: unknown) => this.log.warn({ err }, 'sweep tick failed'));
      },
      Math.max(0, delayMs),
    );
    this.wake = { timer, at };
  }
}
