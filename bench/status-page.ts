/**
 * Server-side render time of the status page (`GET /`, src/http/status-page/) at 100,
 * 1000 and 5000 channels of 20 sessions each, with 5 % of channels live (their details
 * read) and 500 recent events: the full page, filtered pages (live, recently changed,
 * search) and the refresh fragment.
 * Target: under 300 ms at 5000 channels.
 */
import type { StatusSource } from '../src/poll/status.js';
import { Router } from '../src/http/router.js';
import { addStatusPageRoutes } from '../src/http/status-page/index.js';
import type { ChangeEvent } from '../src/snapshot/events.js';
import type { Channel, OrgSnapshot, Part, SessionDetail, SessionsPart } from '../src/snapshot/model.js';
import type { Bench, BenchResult } from './lib/report.js';
import { table } from './lib/report.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

function world(channels: number): StatusSource {
  const list: Channel[] = [];
  const sessions: Record<string, SessionsPart> = {};
  const details: Record<string, Part<SessionDetail>> = {};
  for (let i = 0; i < channels; i++) {
    const id = `ch_${String(i).padStart(6, '0')}`;
    const live = i % 20 === 0;
    list.push({
      id,
      name: `Channel ${i}`,
      status: live ? 'live' : i % 3 === 0 ? 'offline' : 'idle',
      visibility: 'public',
    });
    const value = Array.from({ length: 20 }, (_, j) => ({
      id: `ses_${i}_${j}`,
      channelId: id,
      title: `Session ${j} of ${i}`,
      status: live && j === 0 ? 'live' : j < 10 ? 'ended' : 'scheduled',
      scheduledAt: NOW + (j - 10) * 3_600_000,
      ...(live && j === 0 ? { startedAt: NOW - 600_000 } : {}),
    }));
    sessions[id] = {
      state: 'complete',
      at: NOW,
      value,
      window: { from: NOW - 86_400_000, to: NOW + 7 * 86_400_000 },
    };
    if (live) {
      details[`ses_${i}_0`] = {
        state: 'complete',
        at: NOW,
        value: {
          id: `ses_${i}_0`,
          questions: { count: 3, items: [] },
          announcements: { count: 0, items: [] },
          reactions: { count: 10, byKind: {} },
          speakers: {
            count: 2,
            items: [
              { id: 'a', text: 'Ann' },
              { id: 'b', text: 'Bo' },
            ],
          },
          ai: {},
        },
      };
    }
  }
  const snapshot: OrgSnapshot = {
    version: 1,
    org: 'big',
    takenAt: NOW,
    channels: { state: 'complete', at: NOW, value: list },
    sessions,
    details,
  };
  const events: ChangeEvent[] = Array.from({ length: 500 }, (_, k) => ({
    id: `e${k}`,
    at: NOW - k * 1000,
    org: 'big',
    kind: 'channel.status_changed',
    entity: { kind: 'channel', id: list[(k * 7) % channels]!.id },
    from: 'idle',
    to: 'live',
    labels: {},
  }));
  return {
    startedAt: NOW - 3_600_000,
    orgs: () => [
      {
        slug: 'big',
        snapshot,
        health: { state: 'ok', lastSuccessAt: NOW, lastError: undefined },
        attempts: new Map(),
        labels: {},
        ready: true,
      },
    ],
    plan: () => ({
      perMinute: { fixed: 10, hot: 60, sweep: 140, reserve: 24 },
      intervals: {
        org: 600_000,
        team: 300_000,
        subscription: 300_000,
        channels: 30_000,
        live_sessions: 30_000,
        live_detail: 60_000,
        sweep: 900_000,
      },
      stretch: 1,
      hotStretch: 1,
      sweepReadsPerMinute: 140,
      listAtMin: false,
      sweepBoundMs: 2_100_000,
      notes: [],
    }),
    budget: () => ({
      configured: 240,
      effective: 240,
      usedLastMinute: 230,
      left: 10,
      pausedUntil: 0,
      pauses: 0,
      rateLimited: 0,
      inFlight: 2,
      queued: { high: 0, follow: 0, normal: 0, low: 3 },
    }),
    ready: () => true,
    events: async (q) => ({ events: events.slice(0, q.limit) }),
  };
}

async function timeRender(
  source: StatusSource,
  query: string,
  runs: number,
): Promise<{ p50: number; p95: number; bytes: number }> {
  const router = new Router();
  addStatusPageRoutes(router, { source, version: 'bench', now: () => NOW });
  const m = router.match('GET', '/');
  if (m.kind !== 'found') throw new Error('no route');
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const url = new URL(`http://x/${query}`);
    const t0 = performance.now();
    const reply = await m.handler({
      method: 'GET',
      url,
      params: {},
      query: url.searchParams,
      headers: {},
      req: undefined as never,
      json: async () => undefined as never,
    });
    times.push(performance.now() - t0);
    bytes = Buffer.byteLength(String(reply.body));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p95: at(0.95), bytes };
}

/** The status page render bench. */
export const statusPageBench: Bench = {
  name: 'status-page',
  description: 'server-side render time of the status page at 100/1000/5000 channels',
  async run(opts): Promise<BenchResult> {
    const runs = opts.quick ? 10 : 40;
    const rows: unknown[][] = [];
    const data: Record<string, unknown>[] = [];
    for (const channels of opts.channels ?? [100, 1000, 5000]) {
      const source = world(channels);
      for (const [what, query] of [
        ['full page', ''],
        ['status=live', '?status=live'],
        ['status=changed', '?status=changed'],
        ['search', '?q=channel%204999'],
        ['refresh fragment', '?fragment=1'],
      ] as const) {
        const r = await timeRender(source, query, runs);
        rows.push([channels, what, r.p50.toFixed(1), r.p95.toFixed(1), Math.round(r.bytes / 1024)]);
        data.push({ channels, what, ...r });
      }
    }
    return {
      name: 'status-page',
      tables: [table(['channels', 'render', 'p50 ms', 'p95 ms', 'KiB'], rows)],
      data: { runs, results: data },
    };
  },
};
