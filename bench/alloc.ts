/**
 * What tally allocates, by where: V8's sampling heap profiler run inside `tally run`
 * (resumed from a stored snapshot of the whole simulated org, as in `footprint`), counting
 * objects that were collected since as well as those still alive, for 45 s with a scrape
 * every 5 s. Garbage made at this rate is what makes resident memory climb between major
 * collections; the heap bench shows what stays.
 *
 *   npm run bench -- alloc [--channels 5000] [--quick]
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildForBench, startResumedTally } from './footprint.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';

const MiB = 2 ** 20;

/** Loaded into tally with --import: samples allocations from 15 s in, writes them on SIGUSR2. */
const PRELOAD = `
import inspector from 'node:inspector';
import { writeFileSync } from 'node:fs';
const session = new inspector.Session();
session.connect();
setTimeout(() => {
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}, 15000).unref();
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.stopSampling', (err, res) => {
    if (!err) writeFileSync(process.env.TALLY_ALLOC_OUT, JSON.stringify(res.profile));
  });
});
`;

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes sampled per allocating frame, and per frame with its three callers. */
export function allocationSites(head: ProfileNode): {
  totalMiB: number;
  frames: { where: string; MiB: number }[];
  stacks: { where: string; MiB: number }[];
} {
  const frames = new Map<string, number>();
  const stacks = new Map<string, number>();
  const name = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(dist|src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  let total = 0;
  const walk = (n: ProfileNode, callers: string[]) => {
    const here = [name(n), ...callers];
    if (n.selfSize > 0) {
      total += n.selfSize;
      frames.set(here[0]!, (frames.get(here[0]!) ?? 0) + n.selfSize);
      const key = here.slice(0, 4).join(' < ');
      stacks.set(key, (stacks.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(head, []);
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([where, bytes]) => ({ where, MiB: bytes / MiB }));
  return { totalMiB: total / MiB, frames: top(frames, 20), stacks: top(stacks, 20) };
}

async function profile(channels: number, seconds: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-alloc-'));
  const preload = path.join(dir, 'preload.mjs');
  await writeFile(preload, PRELOAD);
  const out = path.join(dir, 'profile.json');
  // tally inherits the bench's environment.
  process.env['TALLY_ALLOC_OUT'] = out;
  const run = await startResumedTally(channels, ['--import', preload]);
  try {
    const end = Date.now() + (15 + seconds) * 1000;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 5000));
      await (await fetch(`${run.url}/metrics`)).arrayBuffer();
    }
    run.child.kill('SIGUSR2');
    for (let i = 0; i < 60 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, 500));
    const parsed = JSON.parse(await readFile(out, 'utf8')) as { head: ProfileNode };
    return { ...allocationSites(parsed.head), sessions: run.sessions };
  } finally {
    await run.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The alloc bench. */
export const allocBench: Bench = {
  name: 'alloc',
  description: 'What tally allocates, by where, at 5000 channels (sampling heap profiler, garbage included)',
  async run(opts: BenchOptions): Promise<BenchResult> {
    buildForBench();
    const seconds = opts.quick ? 15 : 45;
    const tables: string[] = [];
    const data: Record<string, unknown> = {};
    for (const n of opts.channels ?? [5000]) {
      const p = await profile(n, seconds);
      data[n] = p;
      tables.push(
        `${n} channels, ${p.sessions} sessions: ${p.totalMiB.toFixed(0)} MiB allocated in ${seconds} s (a scrape every 5 s)`,
        table(
          ['allocating frame', 'MiB'],
          p.frames.map((f) => [f.where, f.MiB]),
        ),
        table(
          ['frame < callers', 'MiB'],
          p.stacks.map((f) => [f.where, f.MiB]),
        ),
      );
    }
    return { name: 'alloc', tables, data };
  },
};
