/**
 * The lively world on time: the simulator's lively scenario (30 % of channels live, a
 * status flip every 4 min per channel, a session planned every 3 min per channel) with
 * tally at its default config, from a cold start (no stored state) and from a steady one
 * (a full snapshot stored before it starts). For every kind of change, the delay from
 * the simulator's change to tally's event (p50, p95, max), recall, the requests answered
 * 429, and the stalest channel's age against the bound stated at that moment.
 *
 *   npm run bench -- lively --channels 100
 *
 * Time is dilated as in bench/latency.ts: the simulator and tally share an accelerated
 * clock, so the budget, the rate limit and the world keep their proportions; CPU time is
 * stretched by the factor (the `CPU share` column says how much of a core tally took),
 * so the figures err on the slow side.
 *
 * In a cold start the first read of a channel's sessions is its silent baseline
 * (docs/architecture.md, invariant 3): a session change made before its channel's first
 * read is part of that baseline, not news, and is left out; so is a channel change made
 * before the first channel list was read.
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
import { startTallyChild } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import { type Judged, judge } from './lib/ground-truth.js';
import type { ChildSample } from './lib/protocol.js';
import { type Bench, type BenchOptions, type BenchResult, sec, table } from './lib/report.js';
import { type StalestResult, stalestAgainstBound } from './lib/stalest.js';
import { type Summary, summarize } from './lib/stats.js';
import { snapshotFromSim } from './lib/world-snapshot.js';

const MINUTE = 60_000;
const SEED = 42;
/** The default budget (`upstream.budget_per_minute`). */
const BUDGET = 240;
/** The default channel-list interval (`intervals.channels`): a channel going live is due within 1.2× it. */
const LIST_INTERVAL_MS = 30_000;
/** Session-level changes are due within this at p95. */
const SESSION_TARGET_MS = 60_000;
/**
 * Changes this close to the end are left out (neither counted nor missed): twice the
 * slowest target, so that a slow detection cut off by the end does not flatter the figures.
 */
const TAIL_MS = 2 * SESSION_TARGET_MS;

/** The kinds of change judged, as the issue names them. */
const KINDS = [
  'channel.live',
  'channel.status',
  'session.created',
  'session.started',
  'session.ended',
  'session.cancelled',
] as const;
type Kind = (typeof KINDS)[number];
const SESSION_KINDS: readonly Kind[] = [
  'session.created',
  'session.started',
  'session.ended',
  'session.cancelled',
];

interface Case {
  channels: number;
  cold: boolean;
  /** Clock time covered (ms). */
  durationMs: number;
  /** How much faster than real time the clock runs. */
  factor: number;
}

interface KindResult {
  detect: Summary;
  /** Changes judged (after the tail and the cold start's baseline), superseded and moot ones left out. */
  truth: number;
  matched: number;
  missed: number;
  recall: number | undefined;
}

interface LivelyResult {
  channels: number;
  start: 'cold' | 'steady';
  durationMs: number;
  factor: number;
  kinds: Record<Kind, KindResult>;
  requests: { total: number; perMinute: number; status429: number; byKindPerMinute: Record<string, number> };
  /** Time from start until every channel's sessions had been read once (cold starts), ms. */
  baselineMs: number | undefined;
  /** The last plan's shares (requests a minute) and bound. */
  plan:
    | { perMinute: Plan['perMinute']; sweepBoundMs: number; channelsMs: number; notes: string[] }
    | undefined;
  stalest: StalestResult;
  cpuShare: number;
  /** What tally says its reads were for (`planner.spent_last_minute`), the mean over the samples. */
  spentPerMinute: Record<string, number>;
}

/** The kind of a judged change, splitting cancellations from other ends. */
function kindOf(j: Judged): Kind | undefined {
  switch (j.category) {
    case 'channel.live':
      return 'channel.live';
    case 'channel.status':
      return 'channel.status';
    case 'session.ended':
      return j.change.to === 'cancelled' ? 'session.cancelled' : 'session.ended';
    case 'session.created':
    case 'session.started':
      return j.category;
    default:
      return undefined;
  }
}

/** What a request read, by its path. */
function requestKind(q: RequestLogEntry): string {
  if (/^\/v1\/[^/]+\/channels\/?$/.test(q.path)) return 'channel list';
  if (/^\/v1\/[^/]+\/channels\/[^/]+\/sessions\/?$/.test(q.path)) return 'session list';
  if (/^\/v1\/[^/]+\/sessions\/[^/]+/.test(q.path)) return 'session detail';
  return 'org parts';
}

/** First-page session-list reads by channel id, in order. */
function sessionReads(requests: readonly RequestLogEntry[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of requests) {
    const m = /^\/v1\/[^/]+\/channels\/([^/]+)\/sessions\/?$/.exec(r.path);
    if (!m || (r.query['page'] !== undefined && r.query['page'] !== '1')) continue;
    const list = out.get(m[1]!) ?? [];
    list.push(r.at);
    out.set(m[1]!, list);
  }
  return out;
}

async function runCase(c: Case, log: (s: string) => void): Promise<LivelyResult> {
  const clock = new AcceleratedClock(c.factor);
  const sim = await startSimulator({
    seed: SEED,
    channels: c.channels,
    sessionsPerChannel: 20,
    scenario: 'lively',
    clock,
    maxRequests: 1_000_000,
    maxChanges: 5_000_000,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-lively-'));
  try {
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, { baseUrl: sim.url, stateDir });
    if (!c.cold) {
      const snapshot = snapshotFromSim(sim, {
        org: 'demo',
        shape: shapeFromConfig(loaded.config.upstream.shape),
        window: loaded.config.upstream.window,
        at: clock.now(),
      });
      const store = await SnapshotStore.open({
        dir: path.join(stateDir, 'snapshots'),
        logger: silentLogger(),
        clock,
      });
      await store.save('demo', snapshot);
    }
    const seq0 = sim.changes(0).at(-1)?.seq ?? 0;
    const child = await startTallyChild({ config, origin: clock.origin, factor: c.factor, mode: 'tally' });
    const startedAt = clock.now();
    const samples: ChildSample[] = [];
    const spent: Record<string, number>[] = [];
    const endAt = startedAt + c.durationMs;
    while (clock.now() < endAt) {
      await clock.sleep(Math.min(30_000, endAt - clock.now()));
      samples.push(await child.sample());
      spent.push(await spentLastMinute(child.url));
    }
    const end = clock.now();
    const changes = sim.changes(seq0);
    const requests = sim.requests().filter((r) => r.at >= startedAt && r.origin === 'main');
    const view = sim.view('demo');
    await child.stop();
    const result = analyse({
      c,
      startedAt,
      end,
      changes,
      events: child.events,
      requests,
      samples,
      view,
      spent,
    });
    log(
      `  ${c.cold ? 'cold  ' : 'steady'} ${String(c.channels).padStart(5)} channels: ` +
        KINDS.map((k) => `${k} p95 ${sec(result.kinds[k].detect.p95)} s`).join(', ') +
        `; ${result.requests.status429} × 429`,
    );
    log(
      `    spent a minute: ${Object.entries(result.spentPerMinute)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    return result;
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function analyse(r: {
  c: Case;
  startedAt: number;
  end: number;
  changes: Change[];
  events: Parameters<typeof judge>[1];
  requests: RequestLogEntry[];
  samples: ChildSample[];
  view: { channels: unknown[]; sessions: Record<string, unknown[]> };
  spent: Record<string, number>[];
}): LivelyResult {
  const reads = sessionReads(r.requests);
  const channelOf = new Map<string, string>();
  for (const [channel, list] of Object.entries(r.view.sessions))
    for (const s of list) channelOf.set(String((s as { id: unknown }).id), channel);
  const channelIds = r.view.channels.map((ch) => String((ch as { id: unknown }).id));
  const firstList = r.requests.find((q) => requestKind(q) === 'channel list')?.at ?? r.startedAt;
  // What a cold start reads first is its baseline: changes before it are not news.
  const baselineOf = (j: Judged): number => {
    if (!r.c.cold) return r.startedAt;
    if (j.change.entity.kind === 'channel') return firstList;
    const channel = channelOf.get(j.change.entity.id);
    return (channel === undefined ? undefined : reads.get(channel)?.[0]) ?? r.startedAt;
  };
  const judged = judge(r.changes, r.events, r.end, () => TAIL_MS).filter(
    (j) => j.change.at >= baselineOf(j) && j.change.at <= r.end - TAIL_MS,
  );
  const kinds = {} as Record<Kind, KindResult>;
  for (const k of KINDS) {
    const mine = judged.filter((j) => kindOf(j) === k);
    const counted = mine.filter((j) => j.outcome.kind === 'matched' || j.outcome.kind === 'missed');
    const matched = counted.flatMap((j) => (j.outcome.kind === 'matched' ? [j.outcome.detectMs] : []));
    kinds[k] = {
      detect: summarize(matched),
      truth: counted.length,
      matched: matched.length,
      missed: counted.length - matched.length,
      recall: counted.length === 0 ? undefined : matched.length / counted.length,
    };
  }
  const minutes = (r.end - r.startedAt) / MINUTE;
  const byKind: Record<string, number> = {};
  for (const q of r.requests) byKind[requestKind(q)] = (byKind[requestKind(q)] ?? 0) + 1;
  for (const k of Object.keys(byKind)) byKind[k] = Math.round((10 * byKind[k]!) / minutes) / 10;
  const firstReads = channelIds.map((id) => reads.get(id)?.[0]);
  const plan = r.samples
    .map((s) => s.plan)
    .filter((p): p is Plan => p !== undefined)
    .at(-1);
  const cpu = r.samples.at(-1)?.cpuSeconds ?? 0;
  return {
    channels: r.c.channels,
    start: r.c.cold ? 'cold' : 'steady',
    durationMs: r.end - r.startedAt,
    factor: r.c.factor,
    kinds,
    requests: {
      total: r.requests.length,
      perMinute: r.requests.length / minutes,
      status429: r.requests.filter((q) => q.status === 429).length,
      byKindPerMinute: byKind,
    },
    baselineMs:
      r.c.cold && firstReads.every((t) => t !== undefined)
        ? Math.max(...(firstReads as number[])) - r.startedAt
        : undefined,
    plan: plan && {
      perMinute: plan.perMinute,
      sweepBoundMs: plan.sweepBoundMs,
      channelsMs: plan.intervals.channels,
      notes: plan.notes,
    },
    stalest: stalestAgainstBound({
      reads,
      channelIds,
      from: r.startedAt,
      end: r.end,
      bounds: r.samples.flatMap((s) => s.bounds ?? []),
      fromFirstRead: r.c.cold,
    }),
    cpuShare: cpu / ((r.end - r.startedAt) / r.c.factor / 1000),
    spentPerMinute: meanOf(r.spent),
  };
}

/** tally's own account of what its reads of the last minute were for (docs/polling.md, "Explainable"). */
async function spentLastMinute(url: string | undefined): Promise<Record<string, number>> {
  if (url === undefined) return {};
  const res = await fetch(`${url}/api/v1/status`);
  const body = (await res.json()) as {
    orgs?: { planner?: { spent_last_minute?: Record<string, number> } }[];
  };
  const out: Record<string, number> = {};
  for (const org of body.orgs ?? [])
    for (const [k, v] of Object.entries(org.planner?.spent_last_minute ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

function meanOf(list: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of list) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v / list.length;
  for (const k of Object.keys(out)) out[k] = Math.round(out[k]! * 10) / 10;
  return out;
}

function cases(opts: BenchOptions): Case[] {
  const minutes = opts.quick ? 4 : 6;
  const sizes = opts.channels ?? [100, 1000];
  // Each read costs tally CPU that the clock stretches by its factor: the larger org
  // runs slower, to keep tally well below one core.
  return sizes.flatMap((channels) =>
    [true, false].map((cold) => ({
      channels,
      cold,
      durationMs: minutes * MINUTE,
      factor: channels >= 1000 ? 8 : 15,
    })),
  );
}

function target(k: Kind): number | undefined {
  if (k === 'channel.live') return 1.2 * LIST_INTERVAL_MS;
  return SESSION_KINDS.includes(k) ? SESSION_TARGET_MS : undefined;
}

function tables(results: LivelyResult[]): string[] {
  const latency = table(
    ['channels', 'start', 'change', 'n', 'recall', 'p50 s', 'p95 s', 'max s', 'target s', 'met'],
    results.flatMap((r) =>
      KINDS.map((k) => {
        const x = r.kinds[k];
        const t = target(k);
        return [
          r.channels,
          r.start,
          k,
          x.truth,
          x.recall,
          sec(x.detect.p50),
          sec(x.detect.p95),
          sec(x.detect.max),
          sec(t),
          t === undefined ? '' : x.detect.p95 !== undefined && x.detect.p95 <= t && (x.recall ?? 1) >= 0.95,
        ];
      }),
    ),
  );
  const cost = table(
    [
      'channels',
      'start',
      'clock min',
      'req/min',
      '429s',
      'list/min',
      'sessions/min',
      'details/min',
      'plan sweep/min',
      'plan hot/min',
      'bound s',
      'max age/bound',
      'baseline s',
      'CPU share',
    ],
    results.map((r) => [
      r.channels,
      r.start,
      Math.round(r.durationMs / MINUTE),
      r.requests.perMinute,
      r.requests.status429,
      r.requests.byKindPerMinute['channel list'],
      r.requests.byKindPerMinute['session list'],
      r.requests.byKindPerMinute['session detail'],
      r.plan?.perMinute.sweep,
      r.plan?.perMinute.hot,
      sec(r.plan?.sweepBoundMs),
      r.stalest.maxRatio,
      sec(r.baselineMs),
      r.cpuShare,
    ]),
  );
  return [latency, cost];
}

/** The lively world from cold and steady starts, default config. */
export const livelyBench: Bench = {
  name: 'lively',
  description:
    'lively world, default config, cold and steady starts: every change kind on time, 100/1000 channels',
  async run(opts) {
    const results: LivelyResult[] = [];
    const list = cases(opts);
    for (const c of list) results.push(await runCase(c, console.log));
    return {
      name: 'lively',
      tables: tables(results),
      data: {
        method:
          'the simulator (lively scenario, seed 42) and tally (a child process, default config) share an accelerated clock; detect = event.at − change.at; changes in the last 2 min and, from a cold start, before their channel was first read are left out',
        budgetPerMinute: BUDGET,
        cases: list,
        results,
      },
    } satisfies BenchResult;
  },
};
