/**
 * Runs tally's benchmarks: all of them, or those named, each printing its tables and
 * writing its figures to bench/results/<name>.json.
 *
 *   npm run bench                       # every bench
 *   npm run bench -- latency storm      # some
 *   npm run bench -- --quick            # shorter runs (a smoke check, not figures to quote)
 *   npm run bench -- latency --channels 100,1000   # some sizes only
 *   npm run bench -- metrics-render     # the /metrics render bench (bench/metrics-render.ts)
 *   npm run bench -- heap               # where the heap goes (bench/heap.ts)
 *   BENCH_AB='{"name":{"flags":[…]}}' npm run bench -- footprint-ab   # RSS of node flags, interleaved
 *   npm run bench -- alloc              # what is allocated, by where (bench/alloc.ts)
 *   npm run bench -- lively --channels 100   # the lively world on time, cold and steady (bench/lively.ts)
 *   npm run bench -- alert-quality      # incidents alerted, how soon, routine paged (bench/alert-quality.ts)
 *   npm run bench -- replicas           # three replicas behind one address allowing 300/min (bench/replicas.ts)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { alertDaemonBench } from './alert-daemon.js';
import { alertQualityBench } from './alert-quality.js';
import { allocBench } from './alloc.js';
import { footprintBench } from './footprint.js';
import { footprintAbBench } from './footprint-ab.js';
import { heapBench } from './heap.js';
import { livelyBench } from './lively.js';
import { statusPageBench } from './status-page.js';
import {
  latencyBench,
  latencyColdBench,
  latencyHintsBench,
  latencyLivelyBench,
  latencyTunedBench,
} from './latency.js';
import { type Bench, type BenchResult, BenchUsageError, writeResult } from './lib/report.js';
import { replicasBench } from './replicas.js';
import { soakBench } from './soak.js';
import { stormBench } from './storm.js';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

/** bench/metrics-render.ts, run as it is, its output kept as the result. */
const metricsRenderBench: Bench = {
  name: 'metrics-render',
  description: '/metrics render time for 1000 and 5000 channels (bench/metrics-render.ts)',
  async run(opts) {
    const script = fileURLToPath(new URL('./metrics-render.ts', import.meta.url));
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, opts.quick ? '10' : '40'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString();
      });
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
    });
    return { name: 'metrics-render', tables: [out.trimEnd()], data: { output: out.split('\n') } };
  },
};

const BENCHES: Bench[] = [
  latencyBench,
  latencyLivelyBench,
  latencyTunedBench,
  latencyHintsBench,
  latencyColdBench,
  livelyBench,
  statusPageBench,
  footprintBench,
  footprintAbBench,
  heapBench,
  allocBench,
  stormBench,
  soakBench,
  metricsRenderBench,
  alertQualityBench,
  replicasBench,
  alertDaemonBench,
];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      channels: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log('usage: npm run bench -- [--quick] [--channels N,N...] [NAME...]\n');
    for (const b of BENCHES) console.log(`  ${b.name.padEnd(16)} ${b.description}`);
    return 0;
  }
  const unknown = positionals.filter((p) => !BENCHES.some((b) => b.name === p));
  if (unknown.length > 0) {
    console.error(`unknown bench: ${unknown.join(', ')} (known: ${BENCHES.map((b) => b.name).join(', ')})`);
    return 2;
  }
  const channels = values.channels?.split(',').map(Number);
  if (channels?.some((n) => !Number.isInteger(n) || n <= 0)) {
    console.error(`--channels takes a comma list of channel counts, got '${values.channels}'`);
    return 2;
  }
  const chosen =
    positionals.length === 0
      ? BENCHES.filter((b) => !b.onlyNamed)
      : BENCHES.filter((b) => positionals.includes(b.name));
  for (const bench of chosen) {
    console.log(`\n== ${bench.name}: ${bench.description}${values.quick ? ' (quick)' : ''}`);
    const started = Date.now();
    let result: BenchResult;
    try {
      result = await bench.run({ quick: values.quick, channels });
    } catch (err) {
      if (!(err instanceof BenchUsageError)) throw err;
      console.error(`${bench.name}: ${err.message}`);
      return 2;
    }
    for (const t of result.tables) console.log(`\n${t}`);
    const file = await writeResult(RESULTS, result, {
      quick: values.quick,
      wallSeconds: Math.round((Date.now() - started) / 1000),
      at: new Date().toISOString(),
    });
    console.log(`\nwritten to ${file} (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
