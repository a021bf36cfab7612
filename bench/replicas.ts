/**
 * Replicas: three tally processes, each taking a third of six orgs as `--shard i/3` does
 * (`inShard`, src/config/shard.ts), each with the default budget (240/min) and no budget
 * tuned, all behind one simulator address that allows 300 requests a minute. Real time,
 * 4 minutes in the calm world, then 4 in the lively one (many live channels and flips, so
 * follow-ups compete with the lists); --quick: 2.5 minutes of the lively one.
 * Measured from the simulator's request log, after the first two minutes: 429s as a
 * share of the requests, requests accepted as a share of the limit, and, over the whole
 * run, the longest time each org's channel list went unread; from each replica, the
 * limit it learned (BudgetStats.learned) as it goes.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inShard } from '../src/config/shard.js';
import { startSimulator } from '../src/sim/index.js';
import type { RequestLogEntry, Scenario } from '../src/sim/types.js';
import { startTallyChild, type TallyChild } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';

/** Two orgs in each of the three shards (by the slug's hash). */
const ORGS = ['globex', 'cyberdyne', 'acme', 'initech', 'hooli', 'tyrell'];
const REPLICAS = 3;
const LIMIT = 300;
const SETTLE_MS = 120_000;
const SAMPLE_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The longest gap between successive answered reads of each org's channel list, from its first. */
export function listGaps(log: readonly RequestLogEntry[], orgs: readonly string[], end: number) {
  const out: Record<string, { reads: number; maxGapMs: number }> = {};
  for (const org of orgs) {
    const times = log
      .filter((e) => e.org === org && e.status === 200 && /\/channels$/.test(e.path) && !e.query['cursor'])
      .map((e) => e.at)
      .sort((a, b) => a - b);
    let gap = times.length === 0 ? Number.NaN : end - times.at(-1)!;
    for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
    out[org] = { reads: times.length, maxGapMs: gap };
  }
  return out;
}

/** 429s and accepted requests of the main origin from `from` to `to`. */
export function spend(log: readonly RequestLogEntry[], from: number, to: number) {
  const seen = log.filter((e) => e.origin === 'main' && e.at >= from && e.at < to);
  const refused = seen.filter((e) => e.status === 429).length;
  const accepted = seen.length - refused;
  return {
    requests: seen.length,
    refused,
    refusedShare: seen.length === 0 ? 0 : refused / seen.length,
    acceptedPerMinute: (accepted * 60_000) / Math.max(1, to - from),
  };
}

async function runReplicas(durationMs: number, scenario: Scenario) {
  const sim = await startSimulator({
    seed: 7,
    scenario,
    orgs: ORGS.map((slug) => ({ slug, channels: 40, sessionsPerChannel: 3 })),
    rateLimitPerMinute: LIMIT,
    maxRequests: 1_000_000,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-replicas-'));
  const children: TallyChild[] = [];
  let stopped = false;
  const learned: { at: number; replica: number; perMinute?: number; effective: number; used: number }[] = [];
  try {
    const all = ORGS.map((slug) => ({ slug }));
    const shards = Array.from({ length: REPLICAS }, (_, i) =>
      inShard(all, { index: i + 1, count: REPLICAS }).map((o) => o.slug),
    );
    const started = Date.now();
    for (const [i, orgs] of shards.entries()) {
      const sub = path.join(dir, `r${i + 1}`);
      await mkdir(sub, { recursive: true });
      const { path: config } = await writeBenchConfig(sub, {
        baseUrl: sim.url,
        stateDir: path.join(sub, 'state'),
        orgs,
      });
      children.push(await startTallyChild({ config, origin: Date.now(), factor: 1, mode: 'tally' }));
    }
    while (Date.now() - started < durationMs) {
      await sleep(SAMPLE_MS);
      for (const [i, child] of children.entries()) {
        const b = (await child.sample()).budget;
        if (b === undefined) continue;
        learned.push({
          at: Date.now() - started,
          replica: i + 1,
          ...(b.learned ? { perMinute: b.learned.perMinute } : {}),
          effective: b.effective,
          used: b.usedLastMinute,
        });
      }
    }
    const end = Date.now();
    const log = sim.requests();
    stopped = true;
    await Promise.all(children.map((c) => c.stop()));
    return {
      shards,
      durationMs: end - started,
      after: spend(log, started + SETTLE_MS, end),
      whole: spend(log, started, end),
      gaps: listGaps(log, ORGS, end),
      gapsAfter: listGaps(
        log.filter((e) => e.at >= started + SETTLE_MS - 60_000),
        ORGS,
        end,
      ),
      learned,
    };
  } finally {
    // A child stopped once has closed its channel: stop only those a failure left running.
    if (!stopped) await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The replicas bench. */
export const replicasBench: Bench = {
  name: 'replicas',
  description:
    'three replicas (--shard i/3, default budget) behind one address allowing 300/min: calm and lively worlds, 4 min real time each',
  onlyNamed: true,
  async run(opts: BenchOptions): Promise<BenchResult> {
    const worlds: Scenario[] = opts.quick ? ['lively'] : ['calm', 'lively'];
    const tables: string[] = [];
    const data: Record<string, unknown> = { limit: LIMIT, settleMs: SETTLE_MS };
    for (const scenario of worlds) {
      const r = await runReplicas(opts.quick ? 150_000 : 240_000, scenario);
      tables.push(...report(r, scenario));
      data[scenario] = r;
    }
    return { name: 'replicas', tables, data };
  },
};

/** The tables of one run. */
function report(r: Awaited<ReturnType<typeof runReplicas>>, scenario: Scenario): string[] {
  const last = (i: number) => r.learned.filter((l) => l.replica === i).at(-1);
  const tail = (i: number) => r.learned.filter((l) => l.replica === i && l.at >= SETTLE_MS);
  const rows = r.shards.map((orgs, i) => {
    const t = tail(i + 1);
    return [
      `${i + 1}/${REPLICAS}`,
      orgs.join(', '),
      last(i + 1)?.perMinute ?? '—',
      t.length ? `${Math.min(...t.map((x) => x.effective))}–${Math.max(...t.map((x) => x.effective))}` : '—',
      orgs.map((o) => Math.round(r.gaps[o]!.maxGapMs / 1000)).join(' / '),
    ];
  });
  const maxGap = Math.max(...Object.values(r.gaps).map((g) => g.maxGapMs));
  const pct = (x: number) => (x * 100).toFixed(1);
  return [
    `${scenario} world: ${REPLICAS} replicas, ${ORGS.length} orgs of 40 channels, one address allowing ${LIMIT}/min, ${Math.round(r.durationMs / 1000)} s real time`,
    `after ${SETTLE_MS / 1000} s: ${r.after.requests} requests, ${r.after.refused} answered 429 (${pct(r.after.refusedShare)} %), ` +
      `${Math.round(r.after.acceptedPerMinute)}/min accepted (${pct(r.after.acceptedPerMinute / LIMIT)} % of the limit); ` +
      `whole run: ${r.whole.refused} 429s of ${r.whole.requests} (${pct(r.whole.refusedShare)} %)`,
    table(
      ['shard', 'orgs', 'learned limit at end', 'effective after 2 min', 'max list gap s (per org)'],
      rows,
    ),
    `longest any org's channel list went unread: ${Math.round(maxGap / 1000)} s (from the second minute on: ${Math.round(Math.max(...Object.values(r.gapsAfter).map((g) => g.maxGapMs)) / 1000)} s)`,
  ];
}
