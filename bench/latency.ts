/**
 * Detection latency: how long after a change in the (simulated) platform tally reports
 * it, against a naive fixed full sweep at the same budget and against the bound the
 * planner states — at 100, 1000 and 5000 channels of a lively world.
 *
 * Time is dilated, not skipped: the simulator and tally share an AcceleratedClock
 * running `factor` times faster than real time, so intervals, the request budget, the
 * API's rate limit and the world's evolution keep their proportions; only CPU and
 * network time are stretched by the same factor (figures err on the slow side). tally
 * runs in a child process (the real App) and resumes from a full snapshot of the world
 * taken just before it starts, so what is measured is the steady state, not the first
 * sweep's silent baseline.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../src/core/log.js';
import type { Plan } from '../src/poll/planner.js';
import { type Change, type RequestLogEntry, startSimulator } from '../src/sim/index.js';
import { SnapshotStore } from '../src/store/snapshot-store.js';
import { shapeFromConfig } from '../src/upstream/client.js';
import { AcceleratedClock } from './lib/accelerated-clock.js';
import { startTallyChild, type Noticed } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import { type Category, judge } from './lib/ground-truth.js';
import type { ChildSample } from './lib/protocol.js';
import { type StalestResult, stalestAgainstBound } from './lib/stalest.js';
import { type Bench, type BenchOptions, type BenchResult, sec, table } from './lib/report.js';
import { maxInWindow, type Summary, summarize } from './lib/stats.js';
import { WorldDriver } from './lib/world-driver.js';
import { sessionCount, snapshotFromSim } from './lib/world-snapshot.js';

const MINUTE = 60_000;
const SEED = 42;
const BUDGET = 240;
/** The steady world: one change every 2 s of clock time, about 20 channels live. */
const STEADY_EVERY_MS = 2000;
const STEADY_LIVE = 20;
const CATEGORIES: Category[] = [
  'channel.live',
  'channel.status',
  'session.started',
  'session.ended',
  'session.created',
  'member',
];

/** One measured run: a size, tally or the naive sweep. */
interface Case {
  /**
   * `steady`: the simulator frozen and changes made at a fixed pace whatever the size
   * (about 20 channels live at once); `lively`: the simulator's own lively scenario,
   * whose per-channel rates make a larger org proportionally busier.
   */
  world: 'steady' | 'lively';
  channels: number;
  sessionsPerChannel: number;
  /** Clock time covered (ms). */
  durationMs: number;
  /** How much faster than real time the clock runs. */
  factor: number;
  /** Interval overrides (config `intervals`), for the tuned variant. */
  intervals?: Record<string, string>;
  /** Run the naive sweep too. */
  naive: boolean;
  /**
   * Start without a stored snapshot (a cold start): measures the first complete baseline
   * (every channel's sessions read once) and the channel-level latency during start-up.
   */
  cold?: boolean;
  /**
   * The simulator offers change hints: `sessions_updated_at` in the channel list and ETags
   * on session lists (docs/upstream-shapes.md). The naive poller ignores them.
   */
  hints?: boolean;
}

/** What one run measured. */
export interface RunResult {
  world: Case['world'];
  mode: 'tally' | 'naive';
  channels: number;
  sessions: number;
  factor: number;
  durationMs: number;
  latency: Record<
    Category,
    { detect: Summary; notice: Summary; outcomes: Record<string, number>; truth: number; matched: number }
  >;
  /** Time from start until every channel's sessions had been read once (cold runs), ms. */
  baselineMs: number | undefined;
  /** A cold start (no stored snapshot). */
  cold: boolean;
  /** Requests per minute left for the sweep after the channel list and hot reads (B′), by the last plan. */
  sweepBudgetPerMinute: number | undefined;
  requests: {
    total: number;
    maxPerMinute: number;
    meanPerMinute: number;
    status429: number;
    resets: number;
    /** Requests per minute by what they read (from the simulator's request log). */
    byKindPerMinute: Record<string, number>;
    /** The same until the first complete baseline (cold runs): what the baseline shared the budget with. */
    byKindPerMinuteInBaseline?: Record<string, number> | undefined;
  };
  sweep: {
    /** The planner's bound (max over the run), or the naive round time. */
    statedBoundMs: number | undefined;
    channelsRead: number;
    channelsTotal: number;
    /** Longest time a channel went without its sessions being read (first read counted from start). */
    maxGapMs: number;
    /** Reads of one channel's sessions over the run: least, median, most (how evenly the budget went). */
    readsPerChannel: { min: number; p50: number; max: number };
    /** Channels not read within the stated bound (only judged when the run is longer than the bound). */
    overBound: number | undefined;
    /** Every channel's age at every moment against the bound stated at that moment (tally only). */
    stalest: StalestResult | undefined;
  };
  plan: { channelsIntervalMs: number; stretch: number; notes: string[] } | undefined;
  naiveRoundMs: number | undefined;
  child: {
    rssMaxMiB: number;
    cpuSeconds: number;
    /** CPU seconds per real second: near 1, tally was CPU-bound and the clock stretched its work. */
    cpuShare: number;
    loopDelayP99MaxMs: number;
  };
  /** Full reads of the channel list (every page), clock ms from the first page to the last. */
  listRead: Summary;
  changesJudged: number;
}

function sessionsReadTimes(requests: readonly RequestLogEntry[], since: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of requests) {
    if (r.at < since) continue;
    const m = /^\/v1\/[^/]+\/channels\/([^/]+)\/sessions\/?$/.exec(r.path);
    if (!m || (r.query['page'] !== undefined && r.query['page'] !== '1')) continue;
    let list = out.get(m[1]!);
    if (!list) {
      list = [];
      out.set(m[1]!, list);
    }
    list.push(r.at);
  }
  return out;
}

/** What a request read, by its path. */
function requestKind(q: RequestLogEntry): string {
  const page = q.query['page'] !== undefined && q.query['page'] !== '1' ? ' (later page)' : '';
  if (/^\/v1\/[^/]+\/channels\/?$/.test(q.path)) return 'channel list';
  if (/^\/v1\/[^/]+\/channels\/[^/]+\/sessions\/?$/.test(q.path)) return `session list${page}`;
  if (/^\/v1\/[^/]+\/sessions\/[^/]+/.test(q.path)) return 'session detail';
  return 'org parts';
}

function spread(counts: number[]): { min: number; p50: number; max: number } {
  const sorted = [...counts].sort((a, b) => a - b);
  return { min: sorted[0] ?? 0, p50: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}

function perMinuteByKind(api: readonly RequestLogEntry[], minutes: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const q of api) counts[requestKind(q)] = (counts[requestKind(q)] ?? 0) + 1;
  for (const k of Object.keys(counts)) counts[k] = Math.round((10 * counts[k]!) / minutes) / 10;
  return counts;
}

/** Durations of full channel-list reads: from a first page (no page parameter) to the last page before the next first. */
function listReads(requests: readonly RequestLogEntry[]): number[] {
  const out: number[] = [];
  let start: number | undefined;
  let last = 0;
  for (const q of requests) {
    if (!/^\/v1\/[^/]+\/channels\/?$/.test(q.path)) continue;
    if (q.query['page'] === undefined || q.query['page'] === '1') {
      if (start !== undefined) out.push(last - start);
      start = q.at;
    }
    last = q.at;
  }
  return out;
}

async function runCase(c: Case, mode: 'tally' | 'naive', log: (s: string) => void): Promise<RunResult> {
  const clock = new AcceleratedClock(c.factor);
  const sim = await startSimulator({
    seed: SEED,
    channels: c.channels,
    sessionsPerChannel: c.sessionsPerChannel,
    scenario: c.world === 'lively' ? 'lively' : 'calm',
    frozen: c.world === 'steady',
    hints: c.hints === true,
    clock,
    maxRequests: 1_000_000,
    maxChanges: 5_000_000,
  });
  const driver =
    c.world === 'steady'
      ? new WorldDriver({
          sim,
          clock,
          org: 'demo',
          everyMs: STEADY_EVERY_MS,
          liveTarget: STEADY_LIVE,
          seed: SEED,
        })
      : undefined;
  driver?.settle();
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-latency-'));
  try {
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir,
      budgetPerMinute: BUDGET,
      ...(c.intervals ? { intervals: c.intervals } : {}),
    });
    const seedAt = clock.now();
    const snapshot = snapshotFromSim(sim, {
      org: 'demo',
      shape: shapeFromConfig(loaded.config.upstream.shape),
      window: loaded.config.upstream.window,
      at: seedAt,
    });
    const seq0 = sim.changes(0).at(-1)?.seq ?? 0;
    const store = await SnapshotStore.open({
      dir: path.join(stateDir, 'snapshots'),
      logger: silentLogger(),
      clock,
    });
    if (!c.cold) await store.save('demo', snapshot);
    const child = await startTallyChild({ config, origin: clock.origin, factor: c.factor, mode });
    const startedAt = clock.now();
    driver?.start();
    const samples: ChildSample[] = [];
    const endAt = startedAt + c.durationMs;
    while (clock.now() < endAt) {
      await clock.sleep(Math.min(30_000, endAt - clock.now()));
      samples.push(await child.sample());
    }
    driver?.stop();
    const end = clock.now();
    const changes = sim.changes(seq0);
    const requests = sim.requests().filter((r) => r.at >= startedAt);
    await child.stop();
    const result = analyse({
      c,
      mode,
      startedAt,
      end,
      changes,
      events: child.events,
      requests,
      samples,
      sessions: sessionCount(snapshot),
      channelIds: Object.keys(snapshot.sessions),
    });
    log(
      `  ${mode.padEnd(5)} ${String(c.channels).padStart(5)} channels: ${result.changesJudged} changes judged, channel live p95 ${sec(result.latency['channel.live'].detect.p95)} s`,
    );
    const kinds = (k: Record<string, number>) =>
      Object.entries(k)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ');
    log(`    requests per minute: ${kinds(result.requests.byKindPerMinute)}`);
    if (result.requests.byKindPerMinuteInBaseline)
      log(`    until the baseline:  ${kinds(result.requests.byKindPerMinuteInBaseline)}`);
    const st = result.sweep.stalest;
    if (st)
      log(
        `    stalest channel: max age / bound stated then ${st.maxRatio.toFixed(3)} (${sec(st.ageMs)} s against ${sec(st.boundMs)} s), ${st.channelsOver} of ${c.channels} channels over it`,
      );
    return result;
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function analyse(r: {
  c: Case;
  mode: 'tally' | 'naive';
  startedAt: number;
  end: number;
  changes: Change[];
  events: Noticed[];
  requests: RequestLogEntry[];
  samples: ChildSample[];
  sessions: number;
  channelIds: string[];
}): RunResult {
  const plans = r.samples.map((s) => s.plan).filter((p): p is Plan => p !== undefined);
  const bound = plans.length > 0 ? Math.max(...plans.map((p) => p.sweepBoundMs)) : undefined;
  const rounds = r.samples.at(-1)?.rounds;
  const naiveRound = rounds && rounds.length > 0 ? Math.max(...rounds) : undefined;
  const stated = r.mode === 'tally' ? bound : naiveRound;
  // Changes this close to the end are left out of the latency figures, so that slow
  // detections cut off by the end do not make the figures look better than they are.
  const channelTail = 3 * (plans.at(-1)?.intervals.channels ?? 30_000);
  const slowTail = Math.min(stated ?? r.c.durationMs / 2, r.c.durationMs / 2);
  const tail = (cat: Category) =>
    r.mode === 'naive'
      ? Math.min(2 * (naiveRound ?? r.c.durationMs / 2), r.c.durationMs / 2)
      : cat.startsWith('channel')
        ? channelTail
        : cat === 'member'
          ? 2 * 5 * MINUTE
          : slowTail;
  const judged = judge(r.changes, r.events, r.end, tail).filter((j) => j.change.at >= r.startedAt);
  const latency = {} as RunResult['latency'];
  for (const cat of CATEGORIES) {
    const mine = judged.filter((j) => j.category === cat);
    const inStats = mine.filter((j) => j.change.at <= r.end - tail(cat));
    const matched = inStats.flatMap((j) => (j.outcome.kind === 'matched' ? [j.outcome] : []));
    const outcomes: Record<string, number> = {};
    for (const j of mine) outcomes[j.outcome.kind] = (outcomes[j.outcome.kind] ?? 0) + 1;
    latency[cat] = {
      detect: summarize(matched.map((m) => m.detectMs)),
      notice: summarize(matched.map((m) => m.noticeMs)),
      outcomes,
      truth: inStats.filter((j) => j.outcome.kind !== 'superseded').length,
      matched: matched.length,
    };
  }
  const api = r.requests.filter((q) => q.origin === 'main');
  const minutes = (r.end - r.startedAt) / MINUTE;
  const reads = sessionsReadTimes(api, r.startedAt);
  let maxGap = 0;
  let overBound = 0;
  const channelIds = r.channelIds;
  for (const id of channelIds) {
    const times = reads.get(id) ?? [];
    let prev = r.startedAt;
    let worst = 0;
    for (const t of times) {
      worst = Math.max(worst, t - prev);
      prev = t;
    }
    worst = Math.max(worst, times.length === 0 ? r.end - r.startedAt : 0);
    maxGap = Math.max(maxGap, worst);
    if (r.mode === 'tally' && stated !== undefined && worst > stated) overBound += 1;
  }
  const last = plans.at(-1);
  const firstReads = channelIds.map((id) => reads.get(id)?.[0]);
  const baselineMs =
    r.c.cold && firstReads.every((t) => t !== undefined)
      ? Math.max(...(firstReads as number[])) - r.startedAt
      : undefined;
  return {
    world: r.c.world,
    baselineMs,
    cold: r.c.cold === true,
    sweepBudgetPerMinute: last ? BUDGET - last.perMinute.fixed - last.perMinute.hot : undefined,
    mode: r.mode,
    channels: r.c.channels,
    sessions: r.sessions,
    factor: r.c.factor,
    durationMs: r.end - r.startedAt,
    latency,
    requests: {
      total: api.length,
      maxPerMinute: maxInWindow(
        api.map((q) => q.at),
        MINUTE,
      ),
      meanPerMinute: api.length / minutes,
      status429: api.filter((q) => q.status === 429).length,
      resets: api.filter((q) => q.status === 0).length,
      byKindPerMinute: perMinuteByKind(api, minutes),
      byKindPerMinuteInBaseline:
        baselineMs === undefined || baselineMs <= 0
          ? undefined
          : perMinuteByKind(
              api.filter((q) => q.at <= r.startedAt + baselineMs),
              baselineMs / MINUTE,
            ),
    },
    sweep: {
      statedBoundMs: stated,
      channelsRead: channelIds.filter((id) => (reads.get(id) ?? []).length > 0).length,
      channelsTotal: channelIds.length,
      maxGapMs: maxGap,
      readsPerChannel: spread(channelIds.map((id) => reads.get(id)?.length ?? 0)),
      overBound:
        r.mode === 'tally' && stated !== undefined && r.end - r.startedAt > stated ? overBound : undefined,
      stalest:
        r.mode === 'tally'
          ? stalestAgainstBound({
              reads,
              channelIds,
              from: r.startedAt,
              end: r.end,
              // The child's record of the bound every clock second.
              bounds: r.samples.flatMap((s) => s.bounds ?? []),
              fromFirstRead: r.c.cold === true,
            })
          : undefined,
    },
    plan: last
      ? { channelsIntervalMs: last.intervals.channels, stretch: last.stretch, notes: last.notes }
      : undefined,
    naiveRoundMs: naiveRound,
    child: {
      rssMaxMiB: Math.max(...r.samples.map((s) => s.rssBytes)) / 2 ** 20,
      cpuSeconds: r.samples.at(-1)?.cpuSeconds ?? 0,
      cpuShare: (r.samples.at(-1)?.cpuSeconds ?? 0) / ((r.end - r.startedAt) / r.c.factor / 1000),
      loopDelayP99MaxMs: Math.max(...r.samples.map((s) => s.loopDelayP99Ms)),
    },
    listRead: summarize(listReads(api)),
    changesJudged: judged.length,
  };
}

type Variant = 'steady' | 'lively' | 'tuned' | 'cold' | 'hints';

function cases(variant: Variant, opts: BenchOptions): Case[] {
  const all =
    variant === 'steady'
      ? steadyCases(opts.quick)
      : variant === 'lively'
        ? livelyCases(opts.quick)
        : variant === 'cold'
          ? coldCases()
          : variant === 'hints'
            ? steadyCases(opts.quick).map((c) => ({ ...c, hints: true }))
            : tunedCases(opts.quick);
  return opts.channels ? all.filter((c) => opts.channels!.includes(c.channels)) : all;
}

// The steady world again, with the hot reads slowed down (session lists of live channels
// every 2 min, details every 2 min) so that they no longer crowd out the channel list:
// what an operator can do today about a channel-list interval that stretches.
function tunedCases(quick: boolean): Case[] {
  return steadyCases(quick)
    .filter((c) => c.channels >= 1000)
    .map((c) => ({ ...c, naive: false, intervals: { live_sessions: '2m', live_detail: '2m' } }));
}

// 20 sessions per channel: 100 000 sessions at 5000 channels. Runs cover the sweep bound
// at 100 and 1000 channels (15 min); at 5000 the bound is hours and only its pace is checked.
function steadyCases(quick: boolean): Case[] {
  // Each read costs tally CPU (at 5000 channels ~10 ms, mostly the diff), which the clock
  // stretches by its factor: larger orgs get a lower factor, to keep tally well below one
  // core. The 1000-channel run is long enough to cover its sweep bound (~25 min).
  const plan: Record<number, { minutes: number; factor: number }> = quick
    ? {
        12: { minutes: 6, factor: 30 },
        100: { minutes: 6, factor: 30 },
        1000: { minutes: 6, factor: 20 },
        5000: { minutes: 6, factor: 20 },
      }
    : {
        12: { minutes: 15, factor: 30 },
        100: { minutes: 20, factor: 30 },
        1000: { minutes: 28, factor: 20 },
        5000: { minutes: 40, factor: 6 },
      };
  return [12, 100, 1000, 5000].map((channels) => ({
    world: 'steady' as const,
    channels,
    sessionsPerChannel: 20,
    durationMs: plan[channels]!.minutes * MINUTE,
    factor: plan[channels]!.factor,
    naive: true,
  }));
}

// A cold start at every size, tally only: the first complete baseline and channel-level
// latency while it is built. Long enough for the baseline at the bound
// (1.2 × (N + 1) / B: 4 s at 12, 30 s at 100, 5 min at 1000, 25 min at 5000).
function coldCases(): Case[] {
  const plan: Record<number, { minutes: number; factor: number }> = {
    12: { minutes: 2, factor: 20 },
    100: { minutes: 3, factor: 20 },
    1000: { minutes: 10, factor: 20 },
    5000: { minutes: 35, factor: 6 },
  };
  return [12, 100, 1000, 5000].map((channels) => ({
    world: 'steady' as const,
    channels,
    sessionsPerChannel: 20,
    durationMs: plan[channels]!.minutes * MINUTE,
    factor: plan[channels]!.factor,
    naive: false,
    cold: true,
  }));
}

// The simulator's lively scenario is busy per channel (30 % of channels live, a status
// flip every 4 min per channel): at 5000 channels it is more than this machine can
// simulate at speed, so it runs at 100 and 1000.
function livelyCases(quick: boolean): Case[] {
  const d = quick ? 5 * MINUTE : 12 * MINUTE;
  return [100, 1000].map((channels) => ({
    world: 'lively' as const,
    channels,
    sessionsPerChannel: 20,
    durationMs: d,
    factor: 20,
    naive: true,
  }));
}

function tables(results: RunResult[]): string[] {
  const lat = table(
    [
      'world',
      'channels',
      'poller',
      'change',
      'n',
      'p50 s',
      'p95 s',
      'max s',
      'notice p95 s',
      'superseded',
      'missed',
    ],
    results.flatMap((r) =>
      CATEGORIES.map((cat) => {
        const l = r.latency[cat];
        return [
          r.world,
          r.channels,
          r.mode,
          cat,
          l.detect.n,
          sec(l.detect.p50),
          sec(l.detect.p95),
          sec(l.detect.max),
          sec(l.notice.p95),
          l.outcomes['superseded'] ?? 0,
          l.outcomes['missed'] ?? 0,
        ];
      }),
    ),
  );
  const cost = table(
    [
      'world',
      'channels',
      'poller',
      'clock min',
      'req max/min',
      'req mean/min',
      '429s',
      'list interval s',
      'stretch',
      'sweep bound s',
      'max gap s',
      'read/total',
      'over bound',
      'max age/bound',
      'list read p95 s',
      'CPU share',
      'RSS MiB',
    ],
    results.map((r) => [
      r.world,
      r.channels,
      r.mode,
      Math.round(r.durationMs / MINUTE),
      r.requests.maxPerMinute,
      r.requests.meanPerMinute,
      r.requests.status429,
      sec(r.plan?.channelsIntervalMs ?? r.naiveRoundMs),
      r.plan?.stretch,
      sec(r.sweep.statedBoundMs),
      sec(r.sweep.maxGapMs),
      `${r.sweep.channelsRead}/${r.sweep.channelsTotal}`,
      r.sweep.overBound,
      r.sweep.stalest?.maxRatio,
      sec(r.listRead.p95),
      r.child.cpuShare,
      r.child.rssMaxMiB,
    ]),
  );
  return [lat, cost];
}

async function runVariant(variant: Variant, opts: BenchOptions): Promise<BenchResult> {
  const results: RunResult[] = [];
  const list = cases(variant, opts);
  for (const c of list) {
    for (const mode of c.naive ? (['tally', 'naive'] as const) : (['tally'] as const))
      results.push(await runCase(c, mode, console.log));
  }
  const targets = results
    .filter((r) => r.mode === 'tally')
    .map((r) => {
      const p95 = r.latency['channel.live'].detect.p95;
      const interval = 30_000;
      return {
        channels: r.channels,
        'live p95 s': sec(p95),
        'target s': sec(1.2 * interval),
        'p95 met': p95 !== undefined && p95 <= 1.2 * interval,
        'max/min ≤ budget': r.requests.maxPerMinute <= BUDGET,
        'no 429': r.requests.status429 === 0,
        'swept within bound':
          r.sweep.overBound === undefined ? 'run shorter than the bound' : r.sweep.overBound === 0,
        'max age/bound': r.sweep.stalest?.maxRatio,
        'age ≤ bound at every moment': (r.sweep.stalest?.maxRatio ?? 0) <= 1,
      };
    });
  const name = variant === 'steady' ? 'latency' : `latency-${variant}`;
  return {
    name,
    tables: [
      ...tables(results),
      goalTable(results),
      table(
        Object.keys(targets[0] ?? {}),
        targets.map((t) => Object.values(t)),
      ),
    ],
    data: {
      method:
        'the simulator and tally (a child process) share an accelerated clock; tally resumes from a full snapshot taken at start; detect = event.at − change.at (ground truth), notice = listener call − change.at',
      variant,
      budgetPerMinute: BUDGET,
      cases: list,
      results,
      targets,
    },
  };
}

const SESSION_KINDS: Category[] = ['session.started', 'session.ended', 'session.created'];
const CHANNEL_KINDS: Category[] = ['channel.live', 'channel.status'];

/**
 * The goals per size and change kind: ground truth, recall, p50/p95, the bound
 * (session kinds: max(15 s, 1.2 × N / B′); channel kinds: 1.2 × the channel-list
 * interval), p95 ÷ bound, naive's p95 and p95 ÷ naive, budget used, 429s, baseline.
 */
function goalTable(results: RunResult[]): string {
  const rows: unknown[][] = [];
  for (const r of results.filter((x) => x.mode === 'tally')) {
    const naive = results.find((x) => x.mode === 'naive' && x.channels === r.channels && x.world === r.world);
    const listMs = r.plan?.channelsIntervalMs ?? 30_000;
    const bPrime = r.sweepBudgetPerMinute ?? BUDGET;
    for (const cat of [...CHANNEL_KINDS, ...SESSION_KINDS]) {
      const l = r.latency[cat];
      const bound = SESSION_KINDS.includes(cat)
        ? Math.max(15_000, (1.2 * r.channels * MINUTE) / Math.max(1, bPrime))
        : 1.2 * listMs;
      const p95 = l.detect.p95;
      const np95 = naive?.latency[cat].detect.p95;
      rows.push([
        r.channels,
        r.cold ? 'cold' : 'steady',
        cat,
        l.truth,
        l.truth === 0 ? undefined : l.matched / l.truth,
        sec(l.detect.p50),
        sec(p95),
        sec(bound),
        p95 === undefined ? undefined : p95 / bound,
        sec(np95),
        p95 === undefined || np95 === undefined || np95 === 0 ? undefined : p95 / np95,
        r.requests.meanPerMinute / BUDGET,
        r.requests.status429,
        sec(r.baselineMs),
      ]);
    }
  }
  return table(
    [
      'channels',
      'start',
      'change',
      'truth',
      'recall',
      'p50 s',
      'p95 s',
      'bound s',
      'p95/bound',
      'naive p95 s',
      'p95/naive',
      'budget used',
      '429s',
      'baseline s',
    ],
    rows,
  );
}

/** The detection-latency bench, in a steady world (same load at every size). */
export const latencyBench: Bench = {
  name: 'latency',
  description: 'detection latency vs a naive full sweep, steady world, 12/100/1000/5000 channels',
  run: (opts) => runVariant('steady', opts),
};

/** The detection-latency bench in the simulator's lively scenario (load grows with size). */
export const latencyLivelyBench: Bench = {
  name: 'latency-lively',
  description: 'detection latency vs a naive full sweep, lively scenario, 100/1000 channels',
  run: (opts) => runVariant('lively', opts),
};

/** Cold starts at 12, 100, 1000 and 5000 channels: the first complete baseline (tally only). */
export const latencyColdBench: Bench = {
  name: 'latency-cold',
  description: 'cold start: first complete baseline and start-up latency, 12/100/1000/5000 channels',
  run: (opts) => runVariant('cold', opts),
};

/** The steady world from a server that offers change hints, against the naive sweep. */
export const latencyHintsBench: Bench = {
  name: 'latency-hints',
  description:
    'detection latency vs a naive full sweep, steady world, a server with change hints, 12/100/1000/5000',
  run: (opts) => runVariant('hints', opts),
};

/** The steady world with slower hot reads, at 1000 and 5000 channels (tally only). */
export const latencyTunedBench: Bench = {
  name: 'latency-tuned',
  description: 'detection latency, steady world, hot reads every 2 min (a config remedy), 1000/5000',
  run: (opts) => runVariant('tuned', opts),
};
