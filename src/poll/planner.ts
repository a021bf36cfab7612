/**
 * The planner: how tally spends its request budget. Pure arithmetic over what is known
 * about the orgs (channel counts, pages, live channels) and the budget; the poller
 * applies the plan. The policy and its bound are described in docs/polling.md.
 *
 * Order of claims on the budget:
 *  1. a reserve for retries and follow-ups (`reserve`);
 *  2. the fixed reads: profile, team, subscription and every channel list page;
 *  3. hot reads: session lists of live or just-changed channels, details of live sessions;
 *  4. the background sweep of every channel's sessions gets what is left, at least
 *     `minSweepShare` of the budget, and no more than its target pace needs.
 * When 2 and 3 do not fit, the hot reads yield first: their intervals are stretched until
 * they fit beside the fixed reads, keeping at least `minHotShare` of the room, and on
 * until their interval meets the sweep's bound ({@link hotAgainstSweep}). Only when
 * the fixed reads alone do not fit in the rest are their intervals stretched too. The
 * channel list is what shows a channel going live, so it is the last to slow down.
 */
import { byCodeUnits } from '../core/order.js';

/** What the planner knows about one org. */
export interface OrgLoad {
  slug: string;
  /** Channels watched (after the channel filter). */
  channels: number;
  /** Pages the channel list takes. */
  channelPages: number;
  /** Channels whose sessions are read at the hot interval. */
  hotChannels: number;
  /** Live sessions whose detail is read at the detail interval. */
  liveSessions: number;
  /** Average pages one channel's session list takes (≥ 1). */
  sessionPages: number;
}

/** Intervals in milliseconds, as in the `intervals` config section. */
export interface PlanIntervals {
  org: number;
  team: number;
  subscription: number;
  channels: number;
  live_sessions: number;
  live_detail: number;
  sweep: number;
  /**
   * Least time between two sweep reads of one channel's sessions (default 15 s, never
   * more than `sweep`): the sweep spends all the budget left, but reads no channel more
   * often than this.
   */
  sweep_min?: number;
  /**
   * Least time between two reads of a channel list that idle budget reads before its
   * interval is due (default: never early).
   */
  channels_min?: number;
}

/** Input of {@link plan}. */
export interface PlanInput {
  /** Requests per minute the budget allows now (after any step-down). */
  budgetPerMinute: number;
  intervals: PlanIntervals;
  orgs: readonly OrgLoad[];
  /** Fraction of the budget kept free for retries and follow-ups (default 0.1). */
  reserve?: number;
  /** Least fraction of the budget the sweep gets, so it never starves (default 0.1). */
  minSweepShare?: number;
  /** Least fraction of the room for fixed and hot reads that hot reads keep when both do not fit (default 0.25). */
  minHotShare?: number;
  /** Whether the plan in force reads the lists at `channels_min` (see {@link CHEAP_LIST_SHARE}). */
  listAtMin?: boolean | undefined;
}

/** The planner's decision. */
export interface Plan {
  /** Requests per minute by purpose. */
  perMinute: { fixed: number; hot: number; sweep: number; reserve: number };
  /** Intervals to use (the configured ones, or stretched when the budget is short). */
  intervals: PlanIntervals;
  /** How much the fixed reads' intervals (profile, team, subscription, channel list) were stretched (1 = as configured). */
  stretch: number;
  /** How much the hot reads' intervals (sessions of hot channels, live details) were stretched. */
  hotStretch: number;
  /** Session-list reads per minute for the background sweep. */
  sweepReadsPerMinute: number;
  /** The channel lists are read at `channels_min` because that is cheap ({@link CHEAP_LIST_SHARE}). */
  listAtMin: boolean;
  /**
   * Every channel's sessions are read at least once within this many ms: one round of the
   * sweep at {@link ROUND_SHARE} of its rate, never less than the per-channel minimum plus
   * {@link SWEEP_SLACK_MS}. The sweep keeps it as a deadline ({@link sweepScore}).
   */
  sweepBoundMs: number;
  /** Why the plan is not what the config asked for; empty when it is. */
  notes: string[];
}

const MINUTE = 60_000;

/**
 * The share of the sweep's rate its round of every channel is planned at. The rest is
 * room for the reads the sweep gives first — a moved hint, a planned start, a recent
 * change — which re-read channels out of turn; the bound the planner states is one round
 * at this share, and the sweep keeps it as a deadline. A lower share states a longer
 * bound and leaves more room before the deadline overrides what is worth reading first;
 * in the bench (`latency`) no channel went over the bound at 85 % or at 70 %. At 1000
 * channels the deadline never bound (largest gap 595–655 s against 709–898 s), and session
 * changes there ranged 0.89–1.16 of the naive sweep's p95 over four runs with either share:
 * the spread between runs, not the share.
 */
export const ROUND_SHARE = 0.7;
/**
 * Added to a bound the per-channel minimum sets: a read due now goes out within a moment
 * and may wait its turn in the budget's even pace.
 */
export const SWEEP_SLACK_MS = 1000;

/**
 * A channel list whose reads at `channels_min` cost at most this share of the budget is
 * read at `channels_min` rather than `channels`: at 100 channels one page every 15 s is 4
 * of 240 requests a minute, and it halves how long a channel going live or offline — and
 * the session reads that follow it — waits to be seen. Up to 3 pages at 240/min. Only
 * while the fixed reads fit unstretched; hot reads stretched to fit yield to it (in the
 * lively world at 100 channels the list kept 30 s while they were, and a channel going
 * live was seen at p95 in 35 – 41 s, against 14 – 17 s at 15 s: bench `lively`). A list
 * read so already stays so up to {@link CHEAP_LIST_KEEP} of the budget, so that a
 * budget recovering after a step-down does not flip the interval back and forth.
 */
export const CHEAP_LIST_SHARE = 0.05;
/** See {@link CHEAP_LIST_SHARE}. */
export const CHEAP_LIST_KEEP = 0.06;
/**
 * A channel whose sessions have waited this share of the bound is read before anything
 * but a first read: earliest deadline first, so the stalest channel never waits past it.
 */
export const AT_RISK_SHARE = 0.9;

/** Computes the plan for the given load and budget. */
export function plan(input: PlanInput): Plan {
  const reserveShare = input.reserve ?? 0.1;
  const minSweepShare = input.minSweepShare ?? 0.1;
  const minHotShare = input.minHotShare ?? 0.25;
  const budget = Math.max(1, input.budgetPerMinute);
  const reserve = budget * reserveShare;
  const usable = budget - reserve;
  const iv = input.intervals;

  const room = usable * (1 - minSweepShare);
  let listAtMin = cheapList(input, budget);
  let { fixed, hot, sweepNeed } = load(input.orgs, iv, listAtMin ? iv.channels_min! : iv.channels);
  if (listAtMin && fixed > room) {
    listAtMin = false;
    ({ fixed, hot, sweepNeed } = load(input.orgs, iv, iv.channels));
  }
  const listMs = listAtMin ? iv.channels_min! : iv.channels;

  const notes: string[] = [];
  let stretch = 1;
  let hotStretch = 1;
  if (fixed + hot > room) {
    const hotRoom = Math.min(hot, Math.max(room - fixed, room * minHotShare));
    hotStretch = hot > 0 ? hot / hotRoom : 1;
    stretch = Math.max(1, fixed / (room - hotRoom));
    notes.push(
      `budget short: fixed and hot reads need ${Math.ceil(fixed + hot)}/min of ${Math.floor(room)}/min; ` +
        `hot intervals stretched ×${hotStretch.toFixed(2)}` +
        (stretch > 1 ? `, fixed intervals (channel list too) ×${stretch.toFixed(2)}` : ', channel list kept'),
    );
  }
  fixed /= stretch;
  hot /= hotStretch;
  // Hot reads that had to be stretched are stretched on until the sweep reads every
  // channel as often as they read the hot ones (hotAgainstSweep).
  if (hotStretch > 1 && stretch === 1) {
    const further = hotAgainstSweep({
      hot,
      room: usable - fixed,
      sweepNeed,
      hotIntervalMs: iv.live_sessions * hotStretch,
    });
    if (further > 1) {
      hotStretch *= further;
      hot /= further;
      notes.push(
        `hot intervals stretched ×${hotStretch.toFixed(2)} in all, so that the sweep reads every channel as often`,
      );
    }
  }

  const left = Math.max(usable * minSweepShare, usable - fixed - hot);
  // Work-conserving: the sweep spends every request the fixed and hot reads leave, so a
  // change only the sweep can see is found as soon as the budget allows; the configured
  // sweep interval is the slowest pace promised, not a ceiling. Only the per-channel
  // minimum interval caps it, so a small org is not read in a tight loop.
  const minEvery = Math.min(iv.sweep, Math.max(1000, iv.sweep_min ?? 15_000));
  const sweep = Math.min(left, sweepNeed * (MINUTE / minEvery));
  // One round at ROUND_SHARE of what the sweep may spend; when the per-channel minimum
  // holds the pace back, the minimum itself (and a moment for the read to go out).
  const sweepBoundMs =
    sweepNeed === 0
      ? 0
      : Math.ceil(
          Math.max(minEvery + SWEEP_SLACK_MS, (sweepNeed / Math.max(left * ROUND_SHARE, 1e-9)) * MINUTE),
        );
  if (sweepNeed > 0 && sweepBoundMs > iv.sweep * 1.001) {
    notes.push(
      `sweep needs ${Math.ceil(sweepNeed)} reads: every channel within ${Math.ceil(sweepBoundMs / 1000)}s`,
    );
  }

  const scale = (ms: number) => Math.ceil(ms * stretch);
  const scaleHot = (ms: number) => Math.ceil(ms * hotStretch);
  return {
    perMinute: { fixed, hot, sweep, reserve },
    intervals: {
      org: scale(iv.org),
      team: scale(iv.team),
      subscription: scale(iv.subscription),
      channels: scale(listMs),
      live_sessions: scaleHot(iv.live_sessions),
      live_detail: scaleHot(iv.live_detail),
      sweep: Math.max(iv.sweep, sweepBoundMs),
    },
    stretch,
    hotStretch,
    sweepReadsPerMinute: sweep,
    listAtMin,
    sweepBoundMs,
    notes,
  };
}

/** Requests a minute of the fixed and hot reads, and the session-list reads of one sweep. */
function load(
  orgs: readonly OrgLoad[],
  iv: PlanIntervals,
  listMs: number,
): { fixed: number; hot: number; sweepNeed: number } {
  let fixed = 0;
  let hot = 0;
  let sweepNeed = 0;
  for (const o of orgs) {
    fixed += MINUTE / iv.org + MINUTE / iv.team + MINUTE / iv.subscription;
    fixed += (Math.max(1, o.channelPages) * MINUTE) / listMs;
    hot += (o.hotChannels * Math.max(1, o.sessionPages) * MINUTE) / iv.live_sessions;
    hot += (o.liveSessions * MINUTE) / iv.live_detail;
    sweepNeed += o.channels * Math.max(1, o.sessionPages);
  }
  return { fixed, hot, sweepNeed };
}

/**
 * How much further to stretch the hot reads, already stretched to fit beside the fixed
 * reads (docs/polling.md, "The planner"). A hot read and a sweep read read the same thing,
 * a channel's sessions: a hot read is worth its request only while it reads its channel
 * sooner than the sweep's round would read every channel. So the room the fixed reads
 * leave (`room`) is split where the hot interval meets the sweep's bound (one round at
 * {@link ROUND_SHARE} of its rate): the further stretch `k` solves
 * `hot / k + sweepNeed / (ROUND_SHARE × hotIntervalMs × k) = room` (requests a minute).
 * The live details the hot reads include yield with them: they see questions and speakers,
 * no session start or end (a start or end has its detail read at once, as a follow-up).
 * 1 when the sweep's bound is within the hot interval already. In the lively world at 100
 * channels (bench `lively`) the hot reads were planned 192 of 216 requests a minute, which
 * left the sweep a bound of 397 s; session changes of channels the hot reads did not
 * cover waited up to two minutes (p95 73 s).
 */
export function hotAgainstSweep(o: {
  /** Hot reads a minute, at `hotIntervalMs`. */
  hot: number;
  /** Requests a minute for the hot reads and the sweep together. */
  room: number;
  /** Session-list reads of one round of every channel. */
  sweepNeed: number;
  /** The hot channels' session interval so far, ms. */
  hotIntervalMs: number;
}): number {
  if (o.sweepNeed <= 0 || o.hot <= 0 || o.room <= 0) return 1;
  const sweepAtHotPace = (o.sweepNeed * MINUTE) / (ROUND_SHARE * o.hotIntervalMs);
  return Math.max(1, (o.hot + sweepAtHotPace) / o.room);
}

/**
 * Whether every org's list read at `channels_min` costs at most {@link CHEAP_LIST_SHARE}
 * of the budget ({@link CHEAP_LIST_KEEP} while the plan in force reads them so).
 */
function cheapList(input: PlanInput, budget: number): boolean {
  const { channels, channels_min: min } = input.intervals;
  if (min === undefined || min >= channels) return false;
  const pages = input.orgs.reduce((n, o) => n + Math.max(1, o.channelPages), 0);
  const share = input.listAtMin ? CHEAP_LIST_KEEP : CHEAP_LIST_SHARE;
  return (pages * MINUTE) / min <= budget * share;
}

/** A channel's sweep bookkeeping. */
export interface SweepEntry {
  org: string;
  channelId: string;
  /** When its sessions were last read (any reason), or undefined when never. */
  lastReadAt: number | undefined;
  /** The org's share weight (`orgs[].weight`, default 1): staleness counts this much more. */
  weight?: number | undefined;
  /** The channel is live now. */
  live?: boolean | undefined;
  /** When the channel last changed (an event of its own), if recently. */
  changedAt?: number | undefined;
  /** The earliest change of the channel no answered read has seen yet (sweep-ledger.ts). */
  unseenSince?: number | undefined;
  /** The channel list's activity hint moved, or the channel changed in the list, since its sessions were last read. */
  hinted?: boolean | undefined;
  /** The planned start of its nearest scheduled session, when one is known. */
  dueAt?: number | undefined;
  /**
   * While a read of the channel's sessions is under way (`lastReadAt` is when it began):
   * when the read before it began. Until that read is answered the channel's age runs
   * from here, so a read that waits long in a busy budget is raised when the bound needs
   * it (src/poll/poller.ts).
   */
  priorReadAt?: number | undefined;
}

/** What {@link nextToSweep} weighs entries by. */
export interface SweepPolicy {
  now: number;
  /** No channel's sessions are read again sooner than this (`intervals.sweep_min`). */
  minEveryMs: number;
  /**
   * The bound the plan states (`Plan.sweepBoundMs`): a channel that has waited
   * {@link AT_RISK_SHARE} of it is read before any hint, planned start or recent change.
   */
  boundMs?: number | undefined;
  /**
   * How long a sweep read takes from being chosen to being answered (it may wait its turn
   * in the budget behind busier classes): a channel is at risk that much earlier, so that
   * the read still lands within the bound.
   */
  leadMs?: number | undefined;
  /**
   * Channels a second the sweep reads at least (its planned pace, or less when its reads
   * wait long in the budget): with it, the oldest channels are read first as soon as
   * reading them at this pace would otherwise miss `boundMs` ({@link mustReadNow}).
   */
  channelsPerMs?: number | undefined;
  /** The scheduling step of the sweep: a read chosen now may go out this much later. */
  tickMs?: number | undefined;
}

/** A planned start this close (before or after) makes a channel due: starts, late starts, last-minute cancels. */
export const DUE_BEFORE_MS = 30_000;
export const DUE_AFTER_MS = 120_000;
/** A channel that changed this recently is more likely to change again. */
export const RECENT_CHANGE_MS = 10 * 60_000;

/**
 * A channel already read that changed in the channel list while the first baseline was
 * ending waits for the sweep (org-poller.ts), but never longer than this: then it is read
 * before the first reads left, whatever holds them up (a slow upstream, a long channel
 * list, another org's baseline starting).
 */
export const CHANGE_WAITS_AT_MOST_MS = 5 * 60_000;

const WAITED = 1e16;
const NEVER = 1e15;
const AT_RISK = 1e14;
const HINTED = 1e13;
const DUE = 1e12;

/**
 * The expected value of reading a channel's sessions now (docs/polling.md, "What the
 * sweep reads first"): channels whose change has waited {@link CHANGE_WAITS_AT_MOST_MS}
 * since their last read, then never-read channels (the baseline; live ones before the
 * rest), then channels close to the stated bound (stalest first, so the bound holds
 * whatever else asks to be read first), then channels whose list hint moved, then
 * channels with a planned start at hand, then staleness × the org's weight × how likely a
 * change is (a recent change counts more; live channels have their own hot interval). Channels read within `minEveryMs` are
 * not due: `-Infinity`.
 */
export function sweepScore(e: SweepEntry, p: SweepPolicy): number {
  const weight = e.weight !== undefined && e.weight > 0 ? e.weight : 1;
  // A read dated after now means the clock was set back: its age is unknown.
  const last = e.lastReadAt !== undefined && e.lastReadAt <= p.now ? e.lastReadAt : undefined;
  if (last === undefined) return NEVER + (e.live ? NEVER / 10 : 0) + weight;
  const age = p.now - last;
  if (age < p.minEveryMs) return Number.NEGATIVE_INFINITY;
  // A change no answered read has seen for 5 minutes, and no read for as long (one read
  // in 5 minutes of a channel whose reads keep failing).
  if (
    e.unseenSince !== undefined &&
    p.now - e.unseenSince >= CHANGE_WAITS_AT_MOST_MS &&
    age >= CHANGE_WAITS_AT_MOST_MS
  )
    return WAITED + age;
  if (p.boundMs !== undefined && p.boundMs > 0 && age >= riskAfter(p.boundMs, p.leadMs)) return AT_RISK + age;
  if (e.hinted) return HINTED + age * weight;
  if (
    e.dueAt !== undefined &&
    p.now >= e.dueAt - DUE_BEFORE_MS &&
    p.now <= e.dueAt + DUE_AFTER_MS &&
    last < e.dueAt - DUE_BEFORE_MS / 2
  ) {
    return DUE + age * weight;
  }
  // Modest weights: every other channel waits that much longer for the sweep.
  const recent = e.changedAt !== undefined && p.now - e.changedAt <= RECENT_CHANGE_MS ? 0.5 : 0;
  return age * weight * (1 + recent);
}

/** When a channel counts as at risk of missing the bound: its share of it, less the reads' lead, never under half of it. */
export function riskAfter(boundMs: number, leadMs = 0): number {
  return Math.max(boundMs / 2, boundMs * AT_RISK_SHARE - Math.max(0, leadMs));
}

/**
 * Picks the next `n` channels to sweep by {@link sweepScore}, highest first; ties broken
 * by org and channel id so the order is deterministic. Without a policy: never-read
 * first, then the longest unread.
 */
export function nextToSweep(entries: Iterable<SweepEntry>, n: number, policy?: SweepPolicy): SweepEntry[] {
  return pickToSweep(entries, n, policy).map((x) => x.entry);
}

/**
 * {@link nextToSweep}, each pick saying whether the bound needs it now: a channel read
 * before that the deadline ({@link mustReadNow}) or its age ({@link AT_RISK_SHARE} of the
 * bound, less the reads' lead) puts first. Such a read must land within the bound, not
 * wait its turn behind every periodic read (docs/polling.md, "The bound it reports").
 */
export function pickToSweep(
  entries: Iterable<SweepEntry>,
  n: number,
  policy?: SweepPolicy,
): { entry: SweepEntry; urgent: boolean }[] {
  if (n <= 0) return [];
  const p = policy ?? { now: Number.POSITIVE_INFINITY, minEveryMs: 0 };
  const list = [...entries];
  const urgent = policy ? mustReadNow(list, policy) : new Set<SweepEntry>();
  const scored: { e: SweepEntry; score: number; urgent: boolean }[] = [];
  for (const e of list) {
    let score = policy
      ? sweepScore(e, p)
      : e.lastReadAt === undefined
        ? Number.POSITIVE_INFINITY
        : -e.lastReadAt;
    if (score === Number.NEGATIVE_INFINITY) continue;
    const forced = urgent.has(e);
    if (forced && score < AT_RISK) score = AT_RISK + (p.now - e.lastReadAt!);
    scored.push({ e, score, urgent: forced || (policy !== undefined && atRisk(e, p)) });
  }
  scored.sort(
    (a, b) => b.score - a.score || byCodeUnits(a.e.org, b.e.org) || byCodeUnits(a.e.channelId, b.e.channelId),
  );
  return scored.slice(0, n).map((x) => ({ entry: x.e, urgent: x.urgent }));
}

/** A channel read before whose age has reached its share of the bound, less the reads' lead. */
function atRisk(e: SweepEntry, p: SweepPolicy): boolean {
  if (e.lastReadAt === undefined || e.lastReadAt > p.now || p.boundMs === undefined || p.boundMs <= 0)
    return false;
  return p.now - e.lastReadAt >= riskAfter(p.boundMs, p.leadMs);
}

/** Read channels, oldest read first: the order the deadline reads them in. */
function oldestFirst(entries: readonly SweepEntry[], now: number): SweepEntry[] {
  return entries
    .filter((e) => e.lastReadAt !== undefined && e.lastReadAt <= now)
    .sort((a, b) => a.lastReadAt! - b.lastReadAt!);
}

/**
 * The sweep's deadline (docs/polling.md, "The bound it reports"): the oldest channels that,
 * read one after another at the sweep's least pace, would still miss the bound unless
 * read first from now on. The k-th oldest is due by its last read plus the bound less the
 * reads' lead, and its turn comes k reads from now; while any such turn is less than a
 * tick ahead of its due time, it and every older channel go before hints, planned starts
 * and recent changes. Earliest deadline first, started as late as the pace allows: the
 * reads given first keep all the room the bound leaves, and none of the room it needs.
 */
export function mustReadNow(entries: readonly SweepEntry[], p: SweepPolicy): Set<SweepEntry> {
  const rate = p.channelsPerMs ?? 0;
  const out = new Set<SweepEntry>();
  if (p.boundMs === undefined || p.boundMs <= 0 || !(rate > 0)) return out;
  const sorted = oldestFirst(entries, p.now);
  const lead = Math.max(0, p.leadMs ?? 0) + Math.max(0, p.tickMs ?? 0);
  let forced = 0;
  for (let k = 0; k < sorted.length; k++) {
    const due = sorted[k]!.lastReadAt! + p.boundMs - lead;
    if (p.now + (k + 1) / rate >= due) forced = k + 1;
  }
  for (let k = 0; k < forced; k++) out.add(sorted[k]!);
  return out;
}

/**
 * The longest any read channel can wait, from the state at `now`: the oldest first, one
 * every `1 / channelsPerMs`, none before `minEveryMs` after its last read, each landing
 * `leadMs` and a tick after it was chosen. The bound stated is never less than this
 * ({@link statedBoundMs}), so that a plan whose bound shrinks (more budget left for the
 * sweep) does not promise channels already older than it what they cannot get.
 */
export function reachableBoundMs(
  entries: readonly SweepEntry[],
  now: number,
  opts: { channelsPerMs: number; minEveryMs: number; leadMs: number; tickMs: number },
): number {
  if (!(opts.channelsPerMs > 0)) return 0;
  let t = now;
  let worst = 0;
  for (const e of oldestFirst(entries, now)) {
    t = Math.max(t, e.lastReadAt! + opts.minEveryMs) + 1 / opts.channelsPerMs;
    worst = Math.max(worst, t - e.lastReadAt! + opts.leadMs + opts.tickMs);
  }
  return Math.ceil(worst);
}

/** The bound to state: the plan's, or what the channels' state can reach when that is longer. */
export function statedBoundMs(planBoundMs: number, reachableMs: number): number {
  return planBoundMs === 0 ? 0 : Math.max(planBoundMs, reachableMs);
}
