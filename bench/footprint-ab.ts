/**
 * Whether a change of node flags or environment moves tally's resident memory: runs of a
 * resumed `tally run` (bench/footprint.ts, `startResumedTally`) with the image's flags and
 * with each variant, interleaved, so that a load on the machine or a drift over the
 * afternoon touches both alike. RSS of runs of the same code differs by up to 12 MiB
 * (docs/performance.md, footprint): one run of each says nothing, hence the rounds.
 *
 *   BENCH_AB='{"hgp20":{"flags":["--heap-growing-percent=20"]}}' npm run bench -- footprint-ab
 *   BENCH_AB='{"jemalloc":{"env":{"LD_PRELOAD":"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}}}' …
 *   BENCH_AB='{"before":{"entry":"/tmp/before/dist/main.js"}}' …   (another build of tally)
 *
 * Each run: 80 s (`BENCH_AB_SECONDS`) at 5000 channels (or the first `--channels`), a gzip
 * scrape every 2 s (`BENCH_AB_SCRAPE_EVERY`, seconds; Prometheus' usual 15 s shows what a
 * deployment holds), RSS sampled every second; the first 20 s (start-up) are left out. `BENCH_AB_ROUNDS`
 * (default 3) rounds of every variant and the image's. `BENCH_AB_ORGS` spreads the channels
 * over that many orgs of equal size (20 for the fleet view of the footprint bench). Besides RSS, each run reads V8's
 * heap in use and the external memory (ArrayBuffers: the `/metrics` page) from tally's own
 * page. `BENCH_NODE` picks the node as for the footprint bench.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { buildForBench, startResumedTally } from './footprint.js';
import { readProc } from './lib/proc.js';
import { type Bench, type BenchOptions, type BenchResult, BenchUsageError, table } from './lib/report.js';
import { summarize } from './lib/stats.js';

const MiB = 2 ** 20;

/**
 * A variant: node flags after the image's, environment variables, and another build of
 * tally (the path of its `dist/main.js`, e.g. of a worktree at an earlier commit).
 */
interface Variant {
  flags?: string[];
  env?: Record<string, string>;
  entry?: string;
}

/** What one run measured (MiB). */
interface Run {
  rssMedian: number;
  rssPeak: number;
  externalMedian: number;
  externalPeak: number;
  heapUsedMedian: number;
}

/** The variants `BENCH_AB` names (a JSON object), with the image's own as `image`. */
export function variants(json = process.env['BENCH_AB']): Record<string, Variant> {
  if (json === undefined || json.trim() === '') {
    throw new BenchUsageError(
      `BENCH_AB is not set: give the variants as JSON, e.g. BENCH_AB='{"name":{"flags":["--flag"]}}'`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new BenchUsageError(`BENCH_AB is not JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new BenchUsageError('BENCH_AB must be a JSON object of variants by name');
  }
  const out: Record<string, Variant> = { image: {} };
  for (const [name, v] of Object.entries(parsed as Record<string, unknown>)) {
    const ok =
      typeof v === 'object' &&
      v !== null &&
      (!('flags' in v) || (Array.isArray(v.flags) && v.flags.every((f) => typeof f === 'string'))) &&
      (!('env' in v) ||
        (typeof v.env === 'object' &&
          v.env !== null &&
          Object.values(v.env).every((x) => typeof x === 'string'))) &&
      (!('entry' in v) || typeof v.entry === 'string');
    if (!ok || name === 'image') {
      throw new BenchUsageError(
        `BENCH_AB.${name}: expected {"flags": [strings], "env": {name: string}, "entry": "path"} under a name other than "image"`,
      );
    }
    const entry = (v as Variant).entry;
    if (entry !== undefined && !existsSync(entry)) {
      throw new BenchUsageError(`BENCH_AB.${name}.entry: no file at ${entry} (build that tally first)`);
    }
    out[name] = v as Variant;
  }
  return out;
}

function scrape(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve((res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function sample(page: string, name: string): number | undefined {
  const m = new RegExp(`^${name} (\\S+)`, 'm').exec(page);
  return m ? Number(m[1]) : undefined;
}

async function runOnce(
  channels: number,
  orgs: number,
  v: Variant,
  seconds: number,
  scrapeEvery: number,
): Promise<Run> {
  // The variant's environment goes over the image's (a variant may change MALLOC_ARENA_MAX).
  const tally = await startResumedTally(channels, v.flags ?? [], orgs, v.entry, v.env ?? {});
  const rss: number[] = [];
  const external: number[] = [];
  const heap: number[] = [];
  const start = Date.now();
  const warm = Math.min(20, seconds / 4) * 1000;
  try {
    for (let tick = 1; Date.now() - start < seconds * 1000; tick++) {
      await new Promise((r) => setTimeout(r, 1000));
      const steady = Date.now() - start > warm;
      const p = await readProc(tally.child.pid!);
      if (steady && p) rss.push(p.rssBytes / MiB);
      if (tick % scrapeEvery !== 0) continue;
      const page = await scrape(tally.url);
      if (!steady) continue;
      const ext = sample(page, 'nodejs_external_memory_bytes');
      const used = sample(page, 'nodejs_heap_size_used_bytes');
      if (ext !== undefined) external.push(ext / MiB);
      if (used !== undefined) heap.push(used / MiB);
    }
  } finally {
    await tally.stop();
  }
  return {
    rssMedian: summarize(rss).p50 ?? 0,
    rssPeak: Math.max(...rss),
    externalMedian: summarize(external).p50 ?? 0,
    externalPeak: Math.max(...external),
    heapUsedMedian: summarize(heap).p50 ?? 0,
  };
}

/** A whole number from 1 in the environment variable `name`, or `fallback` when unset. */
function wholeFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new BenchUsageError(`${name}=${raw}: a whole number from 1`);
  return n;
}

/** The footprint A/B bench. */
export const footprintAbBench: Bench = {
  name: 'footprint-ab',
  description: "RSS of tally run with node flags or environments (BENCH_AB) against the image's, interleaved",
  onlyNamed: true,
  async run(opts: BenchOptions): Promise<BenchResult> {
    const named = variants();
    buildForBench();
    const channels = opts.channels?.[0] ?? 5000;
    const seconds = wholeFromEnv('BENCH_AB_SECONDS', opts.quick ? 30 : 80);
    const rounds = wholeFromEnv('BENCH_AB_ROUNDS', 3);
    const scrapeEvery = wholeFromEnv('BENCH_AB_SCRAPE_EVERY', 2);
    const orgs = wholeFromEnv('BENCH_AB_ORGS', 1);
    const runs = new Map<string, Run[]>(Object.keys(named).map((n) => [n, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const [name, v] of Object.entries(named)) {
        const r = await runOnce(channels, orgs, v, seconds, scrapeEvery);
        runs.get(name)!.push(r);
        console.log(
          `  round ${round}, ${name}: RSS ${r.rssMedian.toFixed(1)} / ${r.rssPeak.toFixed(1)} MiB, ` +
            `external ${r.externalMedian.toFixed(1)} / ${r.externalPeak.toFixed(1)} MiB`,
        );
      }
    }
    const f = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
    const rows = [...runs].map(([name, rs]) => [
      name,
      f(rs.map((r) => r.rssMedian)),
      f(rs.map((r) => r.rssPeak)),
      f(rs.map((r) => r.externalMedian)),
      f(rs.map((r) => r.heapUsedMedian)),
    ]);
    const described = Object.entries(named).map(
      ([name, v]) =>
        `${name}: ${[...(v.flags ?? []), ...Object.entries(v.env ?? {}).map(([k, x]) => `${k}=${x}`), ...(v.entry ? [v.entry] : [])].join(' ') || "the image's flags and environment"}`,
    );
    return {
      name: 'footprint-ab',
      tables: [
        `${channels} channels${orgs > 1 ? ` in ${orgs} orgs` : ''}, ${rounds} rounds of ${seconds} s, a scrape every ${scrapeEvery} s, interleaved; MiB per run`,
        table(['variant', 'RSS median', 'RSS peak', 'external median', 'heap used median'], rows),
        described.join('\n'),
      ],
      data: { channels, orgs, seconds, rounds, scrapeEvery, variants: named, runs: Object.fromEntries(runs) },
    };
  },
};
