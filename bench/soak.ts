/**
 * Soak: an hour of clock time in a couple of real minutes — the simulator's lively
 * scenario at 100 channels (it keeps the budget busy all the time) and tally (the real
 * App, a child process) on a shared accelerated clock. Sampled every clock minute: RSS,
 * live heap (after a forced GC), and the size of each part of the state directory. A
 * leak shows as a slope; the event log is expected to grow (it is a log, capped by
 * `state.events.max_bytes`), everything else to stay flat.
 *
 * The event log keeps an index entry per retained event in memory (~210 bytes), so the
 * heap grows with the log until the log reaches its cap. The soak caps the log at 4 MiB,
 * which this busy world fills in about a quarter of an hour, so that the second half of
 * the run shows whether anything else grows.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../src/core/log.js';
import { startSimulator } from '../src/sim/index.js';
import { SnapshotStore } from '../src/store/snapshot-store.js';
import { shapeFromConfig } from '../src/upstream/client.js';
import { AcceleratedClock } from './lib/accelerated-clock.js';
import { startTallyChild } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import type { ChildSample } from './lib/protocol.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';
import { slope } from './lib/stats.js';
import { snapshotFromSim } from './lib/world-snapshot.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MiB = 2 ** 20;
const PARTS = ['snapshots', 'events', 'outbox', 'alerts'] as const;
/** The event log's cap in the soak (see the module comment). */
const EVENTS_MAX_BYTES = '4MiB';

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const p = path.join(dir, name);
    const s = await stat(p).catch(() => undefined);
    if (!s) continue;
    total += s.isDirectory() ? await bytesUnder(p) : s.size;
  }
  return total;
}

/** One sample of the soak. */
interface SoakSample {
  /** Clock minutes since start. */
  minute: number;
  rssMiB: number;
  heapMiB: number;
  stateKiB: Record<(typeof PARTS)[number], number>;
  events: number;
}

/** Per hour, from a least-squares fit over the second half of the run (after warm-up). */
function perHour(samples: readonly SoakSample[], y: (s: SoakSample) => number): number {
  const half = samples.slice(Math.floor(samples.length / 2));
  return slope(half.map((s) => ({ x: s.minute / 60, y: y(s) })));
}

/** The soak bench. */
export const soakBench: Bench = {
  name: 'soak',
  description: 'an hour of clock time at 40× speed: RSS, heap and state-file sizes over time',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const factor = 40;
    const durationMs = opts.quick ? 20 * MINUTE : HOUR;
    const channels = 100;
    const clock = new AcceleratedClock(factor);
    const sim = await startSimulator({
      seed: 5,
      channels,
      sessionsPerChannel: 20,
      scenario: 'lively',
      clock,
      maxChanges: 2_000_000,
      maxRequests: 200_000,
    });
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-soak-'));
    try {
      const stateDir = path.join(dir, 'state');
      const { path: config, loaded } = await writeBenchConfig(dir, {
        baseUrl: sim.url,
        stateDir,
        eventsMaxBytes: EVENTS_MAX_BYTES,
      });
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
      const child = await startTallyChild({
        config,
        origin: clock.origin,
        factor,
        mode: 'tally',
        gcBeforeSample: true,
      });
      const started = clock.now();
      const samples: SoakSample[] = [];
      let last: ChildSample | undefined;
      while (clock.now() - started < durationMs) {
        await clock.sleep(MINUTE);
        last = await child.sample();
        const stateKiB = {} as SoakSample['stateKiB'];
        for (const p of PARTS) stateKiB[p] = (await bytesUnder(path.join(stateDir, p))) / 1024;
        samples.push({
          minute: (last.at - started) / MINUTE,
          rssMiB: last.rssBytes / MiB,
          heapMiB: last.heapUsedBytes / MiB,
          stateKiB,
          events: child.events.length,
        });
      }
      const requests = sim.requests().filter((r) => r.at >= started);
      await child.stop();
      const slopes = {
        rssMiBPerHour: perHour(samples, (s) => s.rssMiB),
        heapMiBPerHour: perHour(samples, (s) => s.heapMiB),
        ...Object.fromEntries(PARTS.map((p) => [`${p}KiBPerHour`, perHour(samples, (s) => s.stateKiB[p])])),
      };
      const every = Math.max(1, Math.floor(samples.length / 12));
      return {
        name: 'soak',
        tables: [
          table(
            [
              'clock min',
              'RSS MiB',
              'heap MiB',
              'snapshots KiB',
              'events KiB',
              'outbox KiB',
              'alerts KiB',
              'events',
            ],
            samples
              .filter((_, i) => i % every === 0 || i === samples.length - 1)
              .map((s) => [
                Math.round(s.minute),
                s.rssMiB,
                s.heapMiB,
                s.stateKiB.snapshots,
                s.stateKiB.events,
                s.stateKiB.outbox,
                s.stateKiB.alerts,
                s.events,
              ]),
          ),
          table(
            ['slope over the second half', 'per hour'],
            Object.entries(slopes).map(([k, v]) => [k, v]),
          ),
          `${requests.length} requests, ${requests.filter((r) => r.status === 429).length} answered 429; factor ${factor}, ${channels} channels, lively; event log capped at ${EVENTS_MAX_BYTES}`,
        ],
        data: { factor, channels, durationMs, samples, slopes, requests: requests.length },
      };
    } finally {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
