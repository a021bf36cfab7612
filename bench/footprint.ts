/**
 * Footprint: resident memory and CPU of `tally run` (a child process, real time, the
 * simulator's calm scenario) at 100, 1000 and 5000 channels with 20 sessions each (up to
 * 100 000); `/metrics` over HTTP against the running tally, plain and gzip, with page
 * bytes, series count, heap used and event-loop delay read from tally's own page; and —
 * in process — diff time and snapshot write time for a 100 000-session snapshot. Prints
 * the figures measured before the /metrics and state work (issue 17) beside them.
 *
 * tally runs with the node flags and environment of the container image
 * ({@link IMAGE_NODE_FLAGS}, {@link IMAGE_ENV}).
 * tally starts from a full snapshot of the world stored in its state directory, with a
 * session window wide enough (15 days) to hold every session, so that what is measured
 * is a daemon holding the whole org, not one still sweeping it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
import { type Summary, slope, summarize } from './lib/stats.js';
import { sessionCount, snapshotFromSim } from './lib/world-snapshot.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 2 ** 20;
const WINDOW_PAST = '15d';
const DAY = 86_400_000;

const BENCH_BUILD = path.join(ROOT, 'bench', 'results', 'dist');

/** The node flags the container image starts tally with (Dockerfile, ENTRYPOINT). */
export const IMAGE_NODE_FLAGS = ['--max-semi-space-size=2'];

/**
 * The environment the container image gives tally beyond its paths (Dockerfile, ENV);
 * `BENCH_IMAGE_ENV=none` measures without it.
 */
export const IMAGE_ENV: Record<string, string> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * The node tally runs on: `BENCH_NODE` (a path), else the one running the bench. The
 * image's major version is what its Dockerfile's runtime stage starts from; a different
 * major measures a different footprint (Node 24 held some 12 MiB more than Node 20 at
 * 5000 channels), so the report names both.
 */
export function tallyNode(): string {
  return process.env['BENCH_NODE'] || process.execPath;
}

/** `v24.11.1`: the version of the node tally runs on. */
function tallyNodeVersion(): string {
  const r = spawnSync(tallyNode(), ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`BENCH_NODE=${tallyNode()} did not run: ${r.stderr || r.error}`);
  return r.stdout.trim();
}

/** The Node major the container image ships (the Dockerfile's last `FROM node:<major>`). */
export function imageNodeMajor(
  dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'),
): number | undefined {
  const majors = [...dockerfile.matchAll(/^FROM\s+node:(\d+)/gim)].map((m) => Number(m[1]));
  return majors.at(-1);
}

/** Says what the figures are of: the node version, and whether it is the image's. */
function nodeNote(version: string): string {
  const image = imageNodeMajor();
  const major = Number(/^v(\d+)/.exec(version)?.[1]);
  if (image === undefined || major === image) return `node ${version} (the image's major)`;
  return (
    `node ${version}, not the image's Node ${image}: its footprint differs; ` +
    `BENCH_NODE=$(npx -y node@${image} -p process.execPath) measures the image's`
  );
}

function imageEnv(): Record<string, string> {
  return process.env['BENCH_IMAGE_ENV'] === 'none' ? {} : IMAGE_ENV;
}

/**
 * The node flags tally runs with: the image's, or `BENCH_NODE_FLAGS` (space-separated)
 * to measure others, e.g. `BENCH_NODE_FLAGS='--max-semi-space-size=2 --optimize-for-size'`.
 */
function nodeFlags(): string[] {
  const env = process.env['BENCH_NODE_FLAGS'];
  return env === undefined ? IMAGE_NODE_FLAGS : env.split(/\s+/).filter((f) => f !== '');
}

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

/**
 * Builds tally into bench/results/dist when there is no dist/ (a failed build falls back
 * to tsx), and builds dist/ again when a source is newer than it: a stale dist/ would
 * measure code that is no longer there.
 */
export function buildForBench(): void {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const dist = path.join(ROOT, 'dist', 'main.js');
  if (existsSync(dist)) {
    if (newestSource() <= statSync(dist).mtimeMs) return;
    console.log('  dist/ is older than src/: building it again (npm run build)');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('npm run build failed: the bench would measure a stale dist/');
    return;
  }
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', BENCH_BUILD], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  if (r.status !== 0 && !existsSync(path.join(BENCH_BUILD, 'main.js')))
    console.log('  building tally failed; running the sources through tsx');
}

/** When a file under src/ last changed (ms). */
function newestSource(): number {
  const src = path.join(ROOT, 'src');
  let newest = 0;
  for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    newest = Math.max(newest, statSync(path.join(src, f)).mtimeMs);
  }
  return newest;
}

/** What one size measured. */
interface SizeResult {
  /** Channels in all, over `orgs` orgs of equal size. */
  channels: number;
  orgs: number;
  sessions: number;
  entry: string;
  seconds: number;
  rssMiB: { median: number; last: number; peak: number };
  /** Median RssFile: of RSS, the pages of the node binary and libraries (bench/lib/proc.ts). */
  fileRssMiB: number;
  cpuShare: number;
  /** `/metrics` without compression. */
  metrics: Summary & { bodyKiB: number };
  /** `/metrics` with `Accept-Encoding: gzip` (bytes as sent). */
  gzip: Summary & { bodyKiB: number };
  /** Sample lines on the page. */
  series: number;
  /** `nodejs_heap_size_used_bytes` from tally's page (median over the steady scrapes). */
  heapUsedMiB: number;
  /**
   * Event-loop delay of tally (prom-client's monitorEventLoopDelay, reset at every scrape,
   * so each value covers the time since the previous scrape, that scrape included): the
   * highest p99 and the highest max seen.
   */
  loopDelayMs: { p99: number; max: number };
  exitCode: number | null;
}

/**
 * The figures measured before this change (commit c18facc, `--quick`). Its scrapes went
 * through fetch(), which asks for gzip: its times are gzip times, its page size unpacked.
 */
const BEFORE: Record<number, { rss: number; peak: number; p50: number; p95: number; kib: number }> = {
  100: { rss: 123, peak: 142, p50: 12.9, p95: 37.7, kib: 96.4 },
  1000: { rss: 147, peak: 160, p50: 35.6, p95: 64.4, kib: 681 },
  5000: { rss: 230, peak: 267, p50: 113, p95: 160, kib: 3271 },
};

/** One scrape over HTTP, timed to the last byte; `gzip` asks for (and checks) a compressed page. */
function scrape(
  url: string,
  gzip: boolean,
): Promise<{ ms: number; bytes: number; text: string | undefined }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { 'accept-encoding': gzip ? 'gzip' : 'identity', accept: 'text/plain' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const ms = performance.now() - t0;
          const body = Buffer.concat(chunks);
          if (gzip !== (res.headers['content-encoding'] === 'gzip'))
            reject(
              new Error(`asked for ${gzip ? 'gzip' : 'identity'}, got ${res.headers['content-encoding']}`),
            );
          resolve({ ms, bytes: body.byteLength, text: gzip ? undefined : body.toString() });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The value of an unlabelled sample on a page. */
function sampleValue(page: string, name: string): number | undefined {
  const at = page.indexOf(`\n${name} `);
  if (at < 0) return undefined;
  return Number(page.slice(at + name.length + 2, page.indexOf('\n', at + 1)));
}

/** Sample lines on a page. */
function seriesCount(page: string): number {
  let n = 0;
  for (const line of page.split('\n')) if (line !== '' && !line.startsWith('#')) n++;
  return n;
}

function median(values: number[]): number {
  return summarize(values).p50 ?? 0;
}

/** A `tally run` resumed from a stored snapshot of the whole simulated org. */
export interface ResumedTally {
  child: ChildProcess;
  url: string;
  sessions: number;
  entry: string;
  /** Its state and config directory, also node's diagnostic directory (where a heap snapshot lands). */
  dir: string;
  /** Stops tally (SIGTERM) and the simulator, removes the directory; tally's exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the simulator with `channels` channels of 20 sessions and `tally run` against it,
 * from a snapshot of that whole world stored in its state directory (`nodeArgs` go to node).
 * With `orgs` > 1 the channels are spread over that many orgs of equal size (the fleet view).
 * `env` goes over the image's environment (footprint-ab.ts: a variant may change it).
 */
export async function startResumedTally(
  channels: number,
  nodeArgs: string[] = [],
  orgs = 1,
  entry?: string,
  env: Record<string, string> = {},
): Promise<ResumedTally> {
  const slugs =
    orgs === 1 ? ['demo'] : Array.from({ length: orgs }, (_, i) => `org-${String(i + 1).padStart(2, '0')}`);
  const sim = await startSimulator({
    seed: 7,
    channels: Math.round(channels / orgs),
    sessionsPerChannel: 20,
    scenario: 'calm',
    orgs: slugs,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-footprint-'));
  const cleanup = async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir,
      windowPast: WINDOW_PAST,
      logLevel: 'info',
      orgs: slugs,
    });
    const store = await SnapshotStore.open({
      dir: path.join(stateDir, 'snapshots'),
      logger: silentLogger(),
      clock: systemClock,
    });
    let sessions = 0;
    for (const slug of slugs) {
      const snapshot = snapshotFromSim(sim, {
        org: slug,
        shape: shapeFromConfig(loaded.config.upstream.shape),
        window: loaded.config.upstream.window,
        at: Date.now(),
      });
      sessions += sessionCount(snapshot);
      await store.save(slug, snapshot);
    }

    // `entry`: another build of tally (bench/footprint-ab.ts compares builds).
    const cmd = entry === undefined ? tallyCommand() : { args: [entry], entry };
    const node = [`--diagnostic-dir=${dir}`, ...nodeFlags(), ...nodeArgs];
    const child = spawn(tallyNode(), [...node, ...cmd.args, 'run', '--config', config], {
      cwd: ROOT, // where --import tsx resolves tsx from
      env: { ...process.env, ...imageEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-2000);
    });
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('tally did not start serving within 60 s')), 60_000);
      child.stdout!.on('data', (c: Buffer) => {
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
    return {
      child,
      url,
      sessions,
      entry: cmd.entry,
      dir,
      async stop() {
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        const code = await exited;
        await cleanup();
        return code;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function measureSize(channels: number, seconds: number, orgs = 1): Promise<SizeResult> {
  const tally = await startResumedTally(channels, [], orgs);
  const { child, url } = tally;
  let stopped = false;
  try {
    const samples: ProcSample[] = [];
    const plain: number[] = [];
    const zipped: number[] = [];
    const heap: number[] = [];
    const loop = { p99: 0, max: 0 };
    let bytes = 0;
    let gzipBytes = 0;
    let series = 0;
    const end = Date.now() + seconds * 1000;
    // A scrape every 2 s (more than tally's 1 s page age, so each one renders), plain and gzip
    // by turns, from the end of the first third on (the start-up loads the stored snapshot).
    const steadyFrom = Date.now() + (seconds * 1000) / 3;
    for (let i = 0; Date.now() < end; i++) {
      const s = await readProc(child.pid!);
      if (s) samples.push(s);
      if (i % 2 === 1 && Date.now() >= steadyFrom) {
        const gz = i % 4 === 3;
        const r = await scrape(`${url}/metrics`, gz);
        if (gz) {
          zipped.push(r.ms);
          gzipBytes = r.bytes;
        } else {
          plain.push(r.ms);
          bytes = r.bytes;
          const page = r.text ?? '';
          series = seriesCount(page);
          heap.push((sampleValue(page, 'nodejs_heap_size_used_bytes') ?? 0) / MiB);
          if (plain.length > 1) {
            // The first value's interval reaches back into the start-up.
            loop.p99 = Math.max(
              loop.p99,
              1000 * (sampleValue(page, 'nodejs_eventloop_lag_p99_seconds') ?? 0),
            );
            loop.max = Math.max(
              loop.max,
              1000 * (sampleValue(page, 'nodejs_eventloop_lag_max_seconds') ?? 0),
            );
          }
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    // Then scrapes only, for percentiles of more than the few made above (RSS is taken
    // from the phase above alone): plain and gzip by turns every 0.6 s, so each format is
    // asked for every 1.2 s, past the page's 1-s age, and each scrape renders afresh.
    // Half as many per format as the RSS phase has seconds: 30 at 60 s, some 36 s more.
    for (let i = 0; i < 2 * Math.round(seconds / 2); i++) {
      const gz = i % 2 === 1;
      const r = await scrape(`${url}/metrics`, gz);
      (gz ? zipped : plain).push(r.ms);
      await new Promise((r) => setTimeout(r, 600));
    }
    const exitCode = await tally.stop();
    stopped = true;
    // The first seconds are start-up (loading the stored snapshot); the steady state follows.
    const steady = samples.slice(Math.floor(samples.length / 3));
    return {
      channels,
      orgs,
      sessions: tally.sessions,
      entry: tally.entry,
      seconds,
      rssMiB: {
        median: median(steady.map((s) => s.rssBytes)) / MiB,
        last: (samples.at(-1)?.rssBytes ?? 0) / MiB,
        peak: (samples.at(-1)?.peakRssBytes ?? 0) / MiB,
      },
      fileRssMiB: median(steady.map((s) => s.fileRssBytes)) / MiB,
      cpuShare: steady.length > 1 ? cpuShare(steady[0]!, steady.at(-1)!) : 0,
      metrics: { ...summarize(plain), bodyKiB: bytes / 1024 },
      gzip: { ...summarize(zipped), bodyKiB: gzipBytes / 1024 },
      series,
      heapUsedMiB: median(heap.slice(Math.floor(heap.length / 3))),
      loopDelayMs: loop,
      exitCode,
    };
  } finally {
    if (!stopped) await tally.stop();
  }
}

/** RSS of a node process that loads tsx and does nothing (what the loader costs). */
async function loaderBaselineMiB(): Promise<number> {
  const cmd = tallyCommand();
  const args = cmd.entry.includes('tsx')
    ? ['--import', 'tsx', '-e', 'setTimeout(() => {}, 3000)']
    : ['-e', 'setTimeout(() => {}, 3000)'];
  const child = spawn(tallyNode(), args, { cwd: ROOT, stdio: 'ignore' });
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
    // A store's first save writes the snapshot file whole; a save after one poll appends
    // the list that poll read to the journal (src/store/snapshot-store.ts).
    const saves: number[] = [];
    const pollSaves: number[] = [];
    let file = '';
    for (let i = 0; i < Math.max(3, Math.ceil(runs / 4)); i++) {
      const store = await SnapshotStore.open({ dir, logger: silentLogger(), clock: systemClock });
      file = store.pathFor('demo');
      const t0 = performance.now();
      await store.save('demo', a);
      saves.push(performance.now() - t0);
      const t1 = performance.now();
      await store.save('demo', oneList);
      pollSaves.push(performance.now() - t1);
    }
    const size = (await stat(file)).size;
    return {
      sessions: sessionCount(a),
      events,
      diffs,
      save: summarize(saves),
      pollSave: summarize(pollSaves),
      fileMiB: size / MiB,
    };
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The footprint bench. */
export const footprintBench: Bench = {
  name: 'footprint',
  description:
    'RSS and CPU of tally run at 100/1000/5000 channels, /metrics plain and gzip, diff and save times',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const seconds = opts.quick ? 20 : 60;
    buildForBench();
    const sizes = (opts.channels ?? [100, 1000, 5000]).filter((n) => n <= 5000);
    const results: SizeResult[] = [];
    for (const n of sizes) {
      results.push(await measureSize(n, seconds));
      console.log(`  ${n} channels: RSS ${results.at(-1)!.rssMiB.median.toFixed(0)} MiB`);
    }
    // The fleet view: the same 5000 channels as 20 orgs of 250.
    let fleet: SizeResult | undefined;
    if (sizes.includes(5000)) {
      fleet = await measureSize(5000, seconds, 20);
      console.log(`  20 orgs × 250 channels: RSS ${fleet.rssMiB.median.toFixed(0)} MiB`);
    }
    const baseline = await loaderBaselineMiB();
    const version = tallyNodeVersion();
    const local = await inProcess(opts.quick ? 8 : 20);
    const big = results.find((r) => r.channels === 5000);
    const diffTypical = local.diffs['one session list re-read (a typical poll)'].p95 ?? 0;
    const diffWorst = local.diffs['every part re-read (worst case)'].p95 ?? 0;
    const f = (v: number | undefined, unit: string) => (v === undefined ? '–' : `${v.toFixed(1)} ${unit}`);
    const fleetTargets = fleet
      ? [
          ['fleet 20 × 250: RSS median < 128 MiB', f(fleet.rssMiB.median, 'MiB'), fleet.rssMiB.median < 128],
          ['fleet 20 × 250: RSS peak < 160 MiB', f(fleet.rssMiB.peak, 'MiB'), fleet.rssMiB.peak < 160],
          [
            'fleet 20 × 250: /metrics p50 < 50 ms (plain)',
            f(fleet.metrics.p50, 'ms'),
            (fleet.metrics.p50 ?? 1e9) < 50,
          ],
          [
            'fleet 20 × 250: /metrics p95 < 100 ms (plain)',
            f(fleet.metrics.p95, 'ms'),
            (fleet.metrics.p95 ?? 1e9) < 100,
          ],
          [
            'fleet 20 × 250: event-loop delay p99 < 50 ms',
            f(fleet.loopDelayMs.p99, 'ms'),
            fleet.loopDelayMs.p99 < 50,
          ],
        ]
      : [];
    const targets = [
      [
        'RSS median < 128 MiB (5000 channels)',
        f(big?.rssMiB.median, 'MiB'),
        big ? big.rssMiB.median < 128 : '–',
      ],
      ['RSS peak < 160 MiB', f(big?.rssMiB.peak, 'MiB'), big ? big.rssMiB.peak < 160 : '–'],
      [
        '/metrics p50 < 50 ms (HTTP, plain)',
        f(big?.metrics.p50, 'ms'),
        big ? (big.metrics.p50 ?? 1e9) < 50 : '–',
      ],
      [
        '/metrics p95 < 100 ms (HTTP, plain)',
        f(big?.metrics.p95, 'ms'),
        big ? (big.metrics.p95 ?? 1e9) < 100 : '–',
      ],
      ['/metrics p95 < 100 ms (HTTP, gzip)', f(big?.gzip.p95, 'ms'), big ? (big.gzip.p95 ?? 1e9) < 100 : '–'],
      ['event-loop delay p99 < 50 ms', f(big?.loopDelayMs.p99, 'ms'), big ? big.loopDelayMs.p99 < 50 : '–'],
      ['diff < 100 ms (p95, worst case)', `${diffWorst.toFixed(1)} ms`, diffWorst < 100],
      ['diff < 100 ms (p95, typical poll)', `${diffTypical.toFixed(1)} ms`, diffTypical < 100],
      ...fleetTargets,
    ];
    // Growth: least-squares slope over the sizes measured, per 1000 channels.
    const per = (pick: (r: SizeResult) => number | undefined) =>
      results.length < 2 ? undefined : 1000 * slope(results.map((r) => ({ x: r.channels, y: pick(r) ?? 0 })));
    const growth = {
      rssMiBPer1000: per((r) => r.rssMiB.median),
      heapMiBPer1000: per((r) => r.heapUsedMiB),
      plainP50MsPer1000: per((r) => r.metrics.p50),
      pageKiBPer1000: per((r) => r.metrics.bodyKiB),
      seriesPer1000: per((r) => r.series),
    };
    const before = (r: SizeResult, k: 'rss' | 'peak' | 'p50' | 'p95' | 'kib') =>
      r.orgs === 1 ? (BEFORE[r.channels]?.[k] ?? '–') : '–';
    const shown = fleet ? [...results, fleet] : results;
    const label = (r: SizeResult) => (r.orgs === 1 ? r.channels : `${r.orgs} × ${r.channels / r.orgs}`);
    return {
      name: 'footprint',
      tables: [
        table(
          [
            'channels',
            'sessions',
            'RSS MiB median (before)',
            'peak MiB (before)',
            'of it, files MiB',
            'heap used MiB',
            'CPU share',
            'exit',
          ],
          shown.map((r) => [
            label(r),
            r.sessions,
            `${r.rssMiB.median.toFixed(0)} (${before(r, 'rss')})`,
            `${r.rssMiB.peak.toFixed(0)} (${before(r, 'peak')})`,
            r.fileRssMiB,
            r.heapUsedMiB,
            r.cpuShare,
            r.exitCode,
          ]),
        ),
        table(
          [
            'channels',
            'plain p50 ms',
            'p95 ms',
            'gzip p50 ms (before)',
            'gzip p95 ms (before)',
            'page KiB (before)',
            'gzip KiB',
            'series',
            'loop p99 ms',
            'loop max ms',
          ],
          shown.map((r) => [
            label(r),
            r.metrics.p50,
            r.metrics.p95,
            `${r.gzip.p50?.toFixed(1)} (${before(r, 'p50')})`,
            `${r.gzip.p95?.toFixed(1)} (${before(r, 'p95')})`,
            `${r.metrics.bodyKiB.toFixed(0)} (${before(r, 'kib')})`,
            r.gzip.bodyKiB,
            r.series,
            r.loopDelayMs.p99,
            r.loopDelayMs.max,
          ]),
        ),
        table(
          ['growth per 1000 channels (20 sessions each)', 'value'],
          [
            ['RSS median, MiB', growth.rssMiBPer1000],
            ['heap used, MiB', growth.heapMiBPer1000],
            ['/metrics plain p50, ms', growth.plainP50MsPer1000],
            ['page, KiB', growth.pageKiBPer1000],
            ['series', growth.seriesPer1000],
          ],
        ),
        table(
          [`in process, ${local.sessions} sessions`, 'p50 ms', 'p95 ms', 'max ms'],
          [
            ...Object.entries(local.diffs).map(([k, v]) => [`diff: ${k}`, v.p50, v.p95, v.max]),
            [
              `snapshot save, whole (${local.fileMiB.toFixed(1)} MiB file)`,
              local.save.p50,
              local.save.p95,
              local.save.max,
            ],
            [
              'snapshot save after a poll (journal record)',
              local.pollSave.p50,
              local.pollSave.p95,
              local.pollSave.max,
            ],
          ],
        ),
        table(['target (issue 17)', 'measured', 'met'], targets),
        `tally started as: ${Object.entries(imageEnv())
          .map(([k, v]) => `${k}=${v} `)
          .join(
            '',
          )}node ${nodeFlags().join(' ')} ${results[0]?.entry ?? tallyCommand().entry}, on ${nodeNote(version)}; a node process with only that loader: ${baseline.toFixed(0)} MiB RSS; before: commit c18facc, same command`,
      ],
      data: {
        seconds,
        nodeFlags: nodeFlags(),
        node: version,
        env: imageEnv(),
        results,
        fleet,
        growth,
        before: BEFORE,
        loaderBaselineMiB: baseline,
        inProcess: local,
        targets,
      },
    };
  },
};
