/**
 * Alert quality through the whole daemon: the real tally (`App`, as `tally run` starts it)
 * in a child process reads the simulator with incidents (SimOptions.incidents, the calm
 * world's realistic broadcasts) over HTTP and sends the rules, route and grouping
 * config.example.yaml ships to a webhook receiver on loopback (every receiver pointed at
 * it). Time is dilated, not skipped: the simulator, tally and the receiver share an
 * AcceleratedClock (bench/lib/accelerated-clock.ts), so a few clock hours take real
 * minutes. Measured from what arrived at the webhook only: incidents alerted out of all
 * (`GET /_sim/incidents`), knowable → arrival (p50, p95) and warning-or-above
 * notifications about no incident (routine paged). bench/alert-quality.ts measures the same
 * in one process over a simulated week.
 *
 *   npm run bench -- alert-daemon                                   # 100 channels, 6 clock h at ×20 (18 min)
 *   BENCH_DAEMON_HOURS=1 BENCH_DAEMON_FACTOR=30 npm run bench -- alert-daemon
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { silentLogger } from '../src/core/log.js';
import { startSimulator } from '../src/sim/index.js';
import type { SimIncident } from '../src/sim/incidents.js';
import { SnapshotStore } from '../src/store/snapshot-store.js';
import { shapeFromConfig } from '../src/upstream/client.js';
import { knowableAt, measure, quantile, type Run, type Sent } from './alert-quality.js';
import { AcceleratedClock } from './lib/accelerated-clock.js';
import { startTallyChild } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';
import { snapshotFromSim } from './lib/world-snapshot.js';

const M = 60_000;
const H = 60 * M;
const SEED = 11;

/** A webhook receiver recording every notification with its clock time of arrival. */
async function startReceiver(
  clock: AcceleratedClock,
): Promise<{ url: string; sent: Sent[]; close(): Promise<void> }> {
  const sent: Sent[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const at = clock.now();
      try {
        const p = JSON.parse(body) as {
          status: 'firing' | 'resolved';
          alerts: {
            status: 'firing' | 'resolved';
            labels: Record<string, string>;
            annotations: Record<string, string>;
          }[];
        };
        sent.push({
          status: p.status,
          createdAt: at,
          alerts: p.alerts.map((a) => ({ state: a.status, labels: a.labels, annotations: a.annotations })),
        });
      } catch {
        // Not tally's payload: nothing to measure.
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** config.example.yaml's rules, route and inhibit, with every receiver a webhook to `url`. */
function shippedAlerting(url: string): string {
  const example = parse(readFileSync(new URL('../config.example.yaml', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
  const receivers = (example['receivers'] as { name: string }[]).map((r) => ({
    name: r.name,
    webhook: { url },
  }));
  return stringify({
    rules: example['rules'],
    route: example['route'],
    inhibit: example['inhibit'],
    receivers,
  });
}

/** The simulator's ground truth, on the clock's time line. */
async function incidentsOf(simUrl: string): Promise<SimIncident[]> {
  const res = await fetch(`${simUrl}/_sim/incidents`);
  const body = (await res.json()) as {
    incidents: (Omit<SimIncident, 'at' | 'scheduledAt' | 'scheduledEndAt'> & Record<string, string>)[];
  };
  return body.incidents.map((i) => ({
    ...i,
    at: Date.parse(i['at']!),
    scheduledAt: Date.parse(i['scheduledAt']!),
    scheduledEndAt: Date.parse(i['scheduledEndAt']!),
  }));
}

async function runOne(
  channels: number,
  hours: number,
  factor: number,
  rate: number,
  log: (s: string) => void,
): Promise<Run> {
  const wall = Date.now();
  const clock = new AcceleratedClock(factor);
  const receiver = await startReceiver(clock);
  const sim = await startSimulator({
    seed: SEED,
    channels,
    sessionsPerChannel: 3,
    scenario: 'calm',
    incidents: rate,
    clock,
    maxRequests: 1_000_000,
    maxChanges: 5_000_000,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-alert-daemon-'));
  try {
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir,
      alerting: shippedAlerting(receiver.url),
    });
    // Resume from the world as it is, as a tally that has run for a while would: what is
    // measured is the steady state, not the first reads' silent baseline.
    const store = await SnapshotStore.open({
      dir: path.join(stateDir, 'snapshots'),
      logger: silentLogger(),
      clock,
    });
    await store.save(
      'demo',
      snapshotFromSim(sim, {
        org: 'demo',
        shape: shapeFromConfig(loaded.config.upstream.shape),
        window: loaded.config.upstream.window,
        at: clock.now(),
      }),
    );
    const child = await startTallyChild({ config, origin: clock.origin, factor, mode: 'tally' });
    const start = clock.now();
    const end = start + hours * H;
    while (clock.now() < end) {
      await clock.sleep(Math.min(10 * M, end - clock.now()));
      log(
        `  ${channels} channels: ${((clock.now() - start) / H).toFixed(1)} of ${hours} clock h, ${receiver.sent.length} notifications`,
      );
    }
    await child.stop();
    const all = await incidentsOf(sim.url);
    // Knowable after the first 10 minutes and 20 minutes before the end (an incident is
    // paged within minutes; its knowable time must leave it room to arrive).
    const counted = all.filter((i) => knowableAt(i) > start + 10 * M && knowableAt(i) < end - 20 * M);
    const byRule: Record<string, number> = {};
    for (const n of receiver.sent)
      for (const a of n.alerts) {
        const key = `${a.labels['alertname']} ${a.labels['severity']} ${a.state}`;
        byRule[key] = (byRule[key] ?? 0) + 1;
      }
    log(
      `  ${channels} channels: ${all.length} incidents played, ${counted.length} counted; alerts by rule: ${JSON.stringify(byRule)}`,
    );
    return measure(channels, hours, all, counted, receiver.sent, Date.now() - wall);
  } finally {
    await sim.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export const alertDaemonBench: Bench = {
  name: 'alert-daemon',
  description: 'incidents alerted through the real daemon, HTTP and a webhook (bench/alert-daemon.ts)',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const sizes = opts.channels ?? [100];
    const hours = Number(process.env['BENCH_DAEMON_HOURS'] ?? (opts.quick ? 1 : 6));
    const factor = Number(process.env['BENCH_DAEMON_FACTOR'] ?? 20);
    const rate = Number(process.env['BENCH_DAEMON_RATE'] ?? 0.5);
    const log = (s: string) => process.stderr.write(`${s}\n`);
    const runs: Run[] = [];
    for (const n of sizes) runs.push(await runOne(n, hours, factor, rate, log));
    const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(0)} s`);
    const rows = runs.map((r) => [
      r.channels,
      `${r.hours} h ×${factor}`,
      `${r.alerted} / ${r.incidents}`,
      s(quantile(r.latencies, 0.5)),
      s(quantile(r.latencies, 0.95)),
      s(r.latencies.at(-1)),
      r.routinePages,
      Object.entries(r.missed)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '—',
      `${r.notifications}`,
      `${(r.wallMs / 1000).toFixed(0)} s`,
    ]);
    const said = runs.flatMap((r) => r.routineSaid.map((x) => `  ${r.channels} channels: ${x}`));
    const slow = runs.flatMap((r) => r.slowSaid.map((x) => `  ${r.channels} channels: ${x}`));
    return {
      name: 'alert-daemon',
      tables: [
        ...(said.length > 0 ? [`routine paged (first few):\n${said.join('\n')}`] : []),
        ...(slow.length > 0 ? [`paged after more than 2 minutes (first few):\n${slow.join('\n')}`] : []),
        table(
          [
            'channels',
            'clock time',
            'incidents alerted',
            'p50',
            'p95',
            'max',
            'routine pages',
            'missed',
            'webhooks',
            'wall',
          ],
          rows,
        ),
      ],
      data: {
        rate,
        factor,
        runs: runs.map(({ latencies, ...r }) => ({
          ...r,
          p50: quantile(latencies, 0.5),
          p95: quantile(latencies, 0.95),
          max: latencies.at(-1),
        })),
      },
    };
  },
};
