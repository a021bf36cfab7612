/**
 * Whether a change of node flags or environment moves tally's resident memory: runs of a
 * resumed `tally run` (bench/footprint.ts, `startResumedTally`) with the image's flags and
 * with each variant, interleaved, so that a load on the machine or a drift over the
 * afternoon touches both alike. RSS of runs of the same code differs by up to 12 MiB
 * (docs/performance.md, footprint): one run of each says nothing, hence the rounds.
 *
 *   BENCH_AB='{"hgp20":{"flags":["--heap-growing-percent=20"]}}' npm run bench -- footprint-ab
 *   BENCH_AB='{"jemalloc":{"env":{"LD_PRELOAD":"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}}}' …
 *
 * Each run: 80 s at 5000 channels (or the first `--channels`), a gzip scrape every 2 s,
 * RSS sampled every second; the first 20 s (start-up) are left out. `BENCH_AB_ROUNDS`
 * (default 3) rounds of every variant and the image's. Besides RSS, each run reads V8's
 * heap in use and the external memory (ArrayBuffers: the `/metrics` page) from tally's own
 * page. `BENCH_NODE` picks the node as for the footprint bench.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { buildForBench, startResumedTally } from './footprint.js';
import { readProc } from './lib/proc.js';
import { type Bench, type BenchOptions, type BenchResult, BenchUsageError, table } from './lib/report.js';
import { summarize } from './lib/stats.js';

const MiB = 2 ** 20;

/** A variant: node flags after the image's, and environment variables, for tally. */
interface Variant {
  flags?: string[];
  env?: Record<string, string>;
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
          Object.values(v.env).every((x) => typeof x === 'string')));
    if (!ok || name === 'image') {
      throw new BenchUsageError(
        `BENCH_AB.${name}: expected {"flags": [strings], "env": {name: string}} under a name other than "image"`,
      );
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

async function runOnce(channels: number, v: Variant, seconds: number): Promise<Run> {
  const saved = new Map(Object.keys(v.env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, v.env ?? {});
  let tally: Awaited<ReturnType<typeof startResumedTally>>;
  try {
    tally = await startResumedTally(channels, v.flags ?? []);
  } finally {
    for (const [k, was] of saved) {
      if (was === undefined) delete process.env[k];
      else process.env[k] = was;
    }
  }
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
      if (tick % 2 !== 0) continue;
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

/** The footprint A/B bench. */
export const footprintAbBench: Bench = {
  name: 'footprint-ab',
  description: "RSS of tally run with node flags or environments (BENCH_AB) against the image's, interleaved",
  onlyNamed: true,
  async run(opts: BenchOptions): Promise<BenchResult> {
    const named = variants();
    buildForBench();
    const channels = opts.channels?.[0] ?? 5000;
    const seconds = opts.quick ? 30 : 80;
    const rounds = Number(process.env['BENCH_AB_ROUNDS'] ?? 3);
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new BenchUsageError(`BENCH_AB_ROUNDS=${process.env['BENCH_AB_ROUNDS']}: a whole number from 1`);
    const runs = new Map<string, Run[]>(Object.keys(named).map((n) => [n, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const [name, v] of Object.entries(named)) {
        const r = await runOnce(channels, v, seconds);
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
        `${name}: ${[...(v.flags ?? []), ...Object.entries(v.env ?? {}).map(([k, x]) => `${k}=${x}`)].join(' ') || "the image's flags and environment"}`,
    );
    return {
      name: 'footprint-ab',
      tables: [
        `${channels} channels, ${rounds} rounds of ${seconds} s, interleaved; MiB per run`,
        table(['variant', 'RSS median', 'RSS peak', 'external median', 'heap used median'], rows),
        described.join('\n'),
      ],
      data: { channels, seconds, rounds, variants: named, runs: Object.fromEntries(runs) },
    };
  },
};
