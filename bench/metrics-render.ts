/**
 * How long a `/metrics` render takes for large orgs: 1000 and 5000 channels with sessions
 * and live-session details, built in memory. Prints median and p95 over repeated renders,
 * for the Prometheus text format and OpenMetrics, with the snapshot summary cached (no
 * poll since the last scrape) and recomputed (a new snapshot since the last scrape).
 *
 *   npx tsx bench/metrics-render.ts [renders=40]
 */
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { TallyMetrics } from '../src/metrics/index.js';
import type { Plan } from '../src/poll/planner.js';
import type { OrgSnapshot, Part, SessionDetail, SessionsPart } from '../src/snapshot/model.js';
import type { OrgView, StatusSource } from '../src/poll/status.js';

const AT = 1_700_000_000_000;
const CHANNEL_STATUSES = ['live', 'idle', 'offline'];
const SESSION_STATUSES = ['ended', 'ended', 'scheduled', 'cancelled'];

/** An org with `n` channels: 4 sessions each, every tenth channel live with a detailed live session. */
function bigSnapshot(n: number): OrgSnapshot {
  const channels = [];
  const sessions: Record<string, SessionsPart> = {};
  const details: Record<string, Part<SessionDetail>> = {};
  for (let i = 0; i < n; i++) {
    const id = `ch_${String(i).padStart(5, '0')}`;
    const live = i % 10 === 0;
    channels.push({
      id,
      name: `Channel ${i}`,
      status: live ? 'live' : (CHANNEL_STATUSES[1 + (i % 2)] as string),
      visibility: i % 3 ? 'public' : 'private',
    });
    const list = SESSION_STATUSES.map((status, k) => ({
      id: `${id}_s${k}`,
      channelId: id,
      title: `Show ${i}.${k}`,
      status,
    }));
    if (live) {
      const sid = `${id}_live`;
      list.push({ id: sid, channelId: id, title: `Live ${i}`, status: 'live' });
      details[sid] = {
        state: 'complete',
        at: AT,
        value: {
          id: sid,
          questions: { count: i % 17, items: [] },
          announcements: { count: i % 3, items: [] },
          reactions: { count: i % 101, byKind: {} },
          speakers: { count: 1 + (i % 4), items: [] },
          ai: {},
        },
      };
    }
    sessions[id] = {
      state: 'complete',
      at: AT,
      value: list,
      window: { from: AT - 86_400_000, to: AT + 604_800_000 },
    };
  }
  return {
    version: 1,
    org: 'bench',
    takenAt: AT,
    profile: {
      state: 'complete',
      at: AT,
      value: { slug: 'bench', name: 'Bench', plan: 'enterprise', settings: {} },
    },
    team: { state: 'complete', at: AT, value: [{ id: 'u1', role: 'owner' }] },
    subscription: {
      state: 'complete',
      at: AT,
      value: {
        limits: { channels: 10_000 },
        usage: { channels: n },
        funding: { mode: 'wallet', balance: 10, currency: 'EUR' },
      },
    },
    channels: { state: 'complete', at: AT, value: channels },
    sessions,
    details,
  };
}

function sourceFor(view: () => OrgView): StatusSource {
  const plan: Plan = {
    perMinute: { fixed: 10, hot: 20, sweep: 100, reserve: 24 },
    intervals: {
      org: 6e5,
      team: 3e5,
      subscription: 3e5,
      channels: 3e4,
      live_sessions: 3e4,
      live_detail: 6e4,
      sweep: 9e5,
    },
    stretch: 1,
    hotStretch: 1,
    sweepReadsPerMinute: 100,
    listAtMin: false,
    sweepBoundMs: 3_000_000,
    notes: [],
  };
  return {
    startedAt: AT,
    orgs: () => [view()],
    plan: () => plan,
    budget: () => ({
      configured: 240,
      effective: 240,
      usedLastMinute: 100,
      left: 140,
      pausedUntil: 0,
      pauses: 0,
      rateLimited: 0,
      inFlight: 0,
      queued: { high: 0, follow: 0, normal: 0, low: 0 },
    }),
    ready: () => true,
    events: async () => ({ events: [] }),
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function measure(channels: number, renders: number, accept: string | undefined, fresh: boolean) {
  const base = bigSnapshot(channels);
  const attempts = new Map(
    Object.keys(base.sessions).map((id) => [`sessions:${id}`, { at: AT, state: 'complete' as const }]),
  );
  let current = base;
  const view = (): OrgView => ({
    slug: 'bench',
    snapshot: current,
    health: { state: 'ok', lastSuccessAt: AT, lastError: undefined },
    attempts,
    labels: {},
    ready: true,
  });
  const metrics = new TallyMetrics({
    registry: new Registry(),
    source: sourceFor(view),
    defaultMetrics: false,
  });
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    bytes = (await metrics.render(accept)).size; // warm-up
    await new Promise((r) => setImmediate(r));
  }
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < renders; i++) {
    // A shallow copy is a new snapshot object, as after a poll: the summary is computed again.
    if (fresh) current = { ...base };
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await metrics.render(accept);
    const c = process.cpuUsage(c0);
    times.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
    // As between scrapes: a turn of the event loop.
    await new Promise((r) => setImmediate(r));
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), cpu: quantile(cpu, 0.5), bytes };
}

async function main(): Promise<void> {
  const renders = Number(process.argv[2] ?? 40);
  console.log(`/metrics render time over ${renders} renders (Node ${process.versions.node})`);
  // CPU time is shown too: on a busy machine wall time includes waiting for a core.
  console.log('channels  format        summary     median ms   p95 ms   cpu ms (median)   body KiB');
  for (const channels of [1000, 5000]) {
    for (const [format, accept] of [
      ['prometheus', undefined],
      ['openmetrics', 'application/openmetrics-text'],
    ] as const) {
      for (const fresh of [false, true]) {
        const r = await measure(channels, renders, accept, fresh);
        console.log(
          `${String(channels).padStart(8)}  ${format.padEnd(12)}  ${(fresh ? 'recomputed' : 'cached').padEnd(10)}  ${r.median.toFixed(1).padStart(9)}  ${r.p95.toFixed(1).padStart(7)}  ${r.cpu.toFixed(1).padStart(15)}  ${(r.bytes / 1024).toFixed(0).padStart(9)}`,
        );
      }
    }
  }
}

await main();
