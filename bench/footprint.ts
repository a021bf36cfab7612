/**
 * Footprint: resident memory and CPU of `tally run` (a child process, real time, the
 * simulator's calm scenario) at 10, 1000 and 5000 channels with 20 sessions each (up to
 * 100 000), `/metrics` render time over HTTP against the running tally, and — in
 * process — diff time and snapshot write time for a 100 000-session snapshot.
 *
 * tally starts from a full snapshot of the world stored in its state directory, with a
 * session window wide enough (15 days) to hold every session, so that what is measured
 * is a daemon holding the whole org, not one still sweeping it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/log.js';
import { startSimulator } from '../src/sim/index.js';
import { diff } from '../src/snapshot/diff.js';
import type { OrgSnapshot } from '../src/snapshot/model.js';
import { SnapshotStore } from '../src/store/snapshot-store.js';
import { shapeFromConfig } from '../src/upstream/client.js';
import { writeBenchConfig } from './lib/config.js';
import { cpuShare, type ProcSample, readProc } from './lib/proc.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';
import { type Summary, summarize } from './lib/stats.js';
import { sessionCount, snapshotFromSim } from './lib/world-snapshot.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 2 ** 20;
const WINDOW_PAST = '15d';
const DAY = 86_400_000;

const BENCH_BUILD = path.join(ROOT, 'bench', 'results', 'dist');

/**
 * How `tally run` is started: `dist/main.js` when the project was built; else a build
 * made for the bench under bench/results/dist (git-ignored); else the sources through
 * tsx, whose loader alone costs tens of MiB (reported beside the figures).
 */
function tallyCommand(): { args: string[]; entry: string } {
  const dist = path.join(ROOT, 'dist', 'main.js');
  if (existsSync(dist)) return { args: [dist], entry: 'dist/main.js' };
  const own = path.join(BENCH_BUILD, 'main.js');
  if (existsSync(own)) return { args: [own], entry: 'bench/results/dist/main.js (built for the bench)' };
  return { args: ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts')], entry: 'src/main.ts via tsx' };
}

/** Builds tally into bench/results/dist when there is no dist/ (a failed build falls back to tsx). */
function buildForBench(): void {
  if (existsSync(path.join(ROOT, 'dist', 'main.js'))) return;
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', BENCH_BUILD], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  if (r.status !== 0 && !existsSync(path.join(BENCH_BUILD, 'main.js')))
    console.log('  building tally failed; running the sources through tsx');
}

/** What one size measured. */
interface SizeResult {
  channels: number;
  sessions: number;
  entry: string;
  seconds: number;
  rssMiB: { median: number; last: number; peak: number };
  cpuShare: number;
  metrics: Summary & { bodyKiB: number };
  exitCode: number | null;
}

async function fetchTimed(url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  return { ms: performance.now() - t0, bytes: body.byteLength };
}

function median(values: number[]): number {
  return summarize(values).p50 ?? 0;
}

async function measureSize(channels: number, seconds: number): Promise<SizeResult> {
  const sim = await startSimulator({ seed: 7, channels, sessionsPerChannel: 20, scenario: 'calm' });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-footprint-'));
  try {
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir,
      windowPast: WINDOW_PAST,
      logLevel: 'info',
    });
    const snapshot = snapshotFromSim(sim, {
      org: 'demo',
      shape: shapeFromConfig(loaded.config.upstream.shape),
      window: loaded.config.upstream.window,
      at: Date.now(),
    });
    const store = await SnapshotStore.open({
      dir: path.join(stateDir, 'snapshots'),
      logger: silentLogger(),
      clock: systemClock,
    });
    await store.save('demo', snapshot);

    const cmd = tallyCommand();
    const child = spawn(process.execPath, [...cmd.args, 'run', '--config', config], {
      cwd: ROOT, // where --import tsx resolves tsx from
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-2000);
    });
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('tally did not start serving within 60 s')), 60_000);
      child.stdout.on('data', (c: Buffer) => {
        buf += c.toString();
        const lines = buf.split('\n');
        buf = lines.pop() ?? '';
        for (const l of lines) {
          if (!l.includes('serving metrics')) continue;
          clearTimeout(timer);
          resolve((JSON.parse(l) as { url: string }).url);
        }
      });
      child.once('exit', (code) => reject(new Error(`tally exited early (${code}): ${stderr}${buf}`)));
    });
    const samples: ProcSample[] = [];
    const renders: number[] = [];
    let bytes = 0;
    const end = Date.now() + seconds * 1000;
    for (let i = 0; Date.now() < end; i++) {
      const s = await readProc(child.pid!);
      if (s) samples.push(s);
      if (i % 3 === 2) {
        const r = await fetchTimed(`${url}/metrics`);
        renders.push(r.ms);
        bytes = r.bytes;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const exitCode = await exited;
    // The first seconds are start-up (loading the stored snapshot); the steady state follows.
    const steady = samples.slice(Math.floor(samples.length / 3));
    return {
      channels,
      sessions: sessionCount(snapshot),
      entry: cmd.entry,
      seconds,
      rssMiB: {
        median: median(steady.map((s) => s.rssBytes)) / MiB,
        last: (samples.at(-1)?.rssBytes ?? 0) / MiB,
        peak: (samples.at(-1)?.peakRssBytes ?? 0) / MiB,
      },
      cpuShare: steady.length > 1 ? cpuShare(steady[0]!, steady.at(-1)!) : 0,
      metrics: { ...summarize(renders), bodyKiB: bytes / 1024 },
      exitCode,
    };
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** RSS of a node process that loads tsx and does nothing (what the loader costs). */
async function loaderBaselineMiB(): Promise<number> {
  const cmd = tallyCommand();
  const args = cmd.entry.includes('tsx')
    ? ['--import', 'tsx', '-e', 'setTimeout(() => {}, 3000)']
    : ['-e', 'setTimeout(() => {}, 3000)'];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 2000));
  const s = await readProc(child.pid!);
  child.kill();
  return (s?.rssBytes ?? 0) / MiB;
}

function timeIt(fn: () => unknown, runs: number): Summary {
  fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return summarize(out);
}

/** Diff and snapshot-save times for a 5000-channel, 100 000-session snapshot. */
async function inProcess(runs: number) {
  const sim = await startSimulator({ seed: 7, channels: 5000, sessionsPerChannel: 20, frozen: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-save-'));
  try {
    const now = Date.now();
    const { loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir: dir,
      windowPast: WINDOW_PAST,
    });
    const shape = shapeFromConfig(loaded.config.upstream.shape);
    const a = snapshotFromSim(sim, {
      org: 'demo',
      shape,
      window: { past: 15 * DAY, future: 7 * DAY },
      at: now,
    });
    // The world moves: 50 channels change status and 200 sessions end, then everything is read again.
    const ids = Object.keys(a.sessions);
    for (const id of ids.slice(0, 50)) sim.trigger.channelStatus({ channel: id, status: 'offline' });
    let ended = 0;
    for (const id of ids) {
      if (ended >= 200) break;
      try {
        sim.trigger.endSession({ channel: id });
        ended++;
      } catch {
        // no live session there
      }
    }
    const b = snapshotFromSim(sim, {
      org: 'demo',
      shape,
      window: { past: 15 * DAY, future: 7 * DAY },
      at: now + 1,
    });
    const oneList: OrgSnapshot = { ...a, sessions: { ...a.sessions, [ids[1]!]: b.sessions[ids[1]!]! } };
    const onlyChannels: OrgSnapshot = { ...a, channels: b.channels! };
    const diffs = {
      'one session list re-read (a typical poll)': timeIt(() => diff(a, oneList), runs),
      'channel list re-read': timeIt(() => diff(a, onlyChannels), runs),
      'every part re-read (worst case)': timeIt(() => diff(a, b), runs),
    };
    const events = diff(a, b).length;
    const store = await SnapshotStore.open({ dir, logger: silentLogger(), clock: systemClock });
    const saves: number[] = [];
    for (let i = 0; i < Math.max(3, Math.ceil(runs / 4)); i++) {
      const t0 = performance.now();
      await store.save('demo', a);
      saves.push(performance.now() - t0);
    }
    const size = (await stat(store.pathFor('demo'))).size;
    return { sessions: sessionCount(a), events, diffs, save: summarize(saves), fileMiB: size / MiB };
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The footprint bench. */
export const footprintBench: Bench = {
  name: 'footprint',
  description: 'RSS and CPU of tally run at 10/1000/5000 channels, /metrics, diff and save times',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const seconds = opts.quick ? 20 : 60;
    buildForBench();
    const sizes = (opts.channels ?? [10, 1000, 5000]).filter((n) => n <= 5000);
    const results: SizeResult[] = [];
    for (const n of sizes) {
      results.push(await measureSize(n, seconds));
      console.log(`  ${n} channels: RSS ${results.at(-1)!.rssMiB.median.toFixed(0)} MiB`);
    }
    const baseline = await loaderBaselineMiB();
    const local = await inProcess(opts.quick ? 8 : 20);
    const big = results.find((r) => r.channels === 5000);
    const diffTypical = local.diffs['one session list re-read (a typical poll)'].p95 ?? 0;
    const diffWorst = local.diffs['every part re-read (worst case)'].p95 ?? 0;
    const targets = [
      [
        'RSS at 5000 channels / 100k sessions < 150 MiB',
        big ? `${big.rssMiB.median.toFixed(0)} MiB` : '–',
        big ? big.rssMiB.median < 150 : '–',
      ],
      [
        '/metrics render < 50 ms (p95, HTTP)',
        big ? `${big.metrics.p95?.toFixed(1)} ms` : '–',
        big ? (big.metrics.p95 ?? 1e9) < 50 : '–',
      ],
      ['diff < 100 ms (p95, worst case)', `${diffWorst.toFixed(1)} ms`, diffWorst < 100],
      ['diff < 100 ms (p95, typical poll)', `${diffTypical.toFixed(1)} ms`, diffTypical < 100],
    ];
    return {
      name: 'footprint',
      tables: [
        table(
          [
            'channels',
            'sessions',
            'RSS MiB (median)',
            'peak MiB',
            'CPU share',
            '/metrics p50 ms',
            'p95 ms',
            'body KiB',
            'exit',
          ],
          results.map((r) => [
            r.channels,
            r.sessions,
            r.rssMiB.median,
            r.rssMiB.peak,
            r.cpuShare,
            r.metrics.p50,
            r.metrics.p95,
            r.metrics.bodyKiB,
            r.exitCode,
          ]),
        ),
        table(
          [`in process, ${local.sessions} sessions`, 'p50 ms', 'p95 ms', 'max ms'],
          [
            ...Object.entries(local.diffs).map(([k, v]) => [`diff: ${k}`, v.p50, v.p95, v.max]),
            [
              `SnapshotStore.save (${local.fileMiB.toFixed(1)} MiB file)`,
              local.save.p50,
              local.save.p95,
              local.save.max,
            ],
          ],
        ),
        table(['target', 'measured', 'met'], targets),
        `tally started as: ${results[0]?.entry ?? tallyCommand().entry}; a node process with only that loader: ${baseline.toFixed(0)} MiB RSS`,
      ],
      data: { seconds, results, loaderBaselineMiB: baseline, inProcess: local, targets },
    };
  },
};
