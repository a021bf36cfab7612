/**
 * Where tally's heap goes: a heap snapshot of `tally run` resumed from a stored snapshot
 * of the whole simulated org (1000 and 5000 channels, 20 sessions each), taken after it
 * settled and served `/metrics`, summed by what V8 calls each object (its constructor, or
 * the kind of string, array or code), with the strings that exist in several copies.
 *
 *   npm run bench -- heap [--channels 1000,5000] [--quick]
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildForBench, startResumedTally } from './footprint.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';

const MiB = 2 ** 20;

/** The parts of a .heapsnapshot file read here. */
interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self sizes summed by class, and duplicated strings. */
interface HeapBreakdown {
  totalMiB: number;
  byClass: { what: string; count: number; MiB: number }[];
  duplicateStrings: {
    copies: number;
    wastedMiB: number;
    top: { text: string; copies: number; KiB: number }[];
  };
}

/** Sums a heap snapshot's nodes by class; strings by kind, with their duplicates. */
export function breakdown(file: HeapSnapshotFile, top = 18): HeapBreakdown {
  const fields = file.snapshot.meta.node_fields;
  const width = fields.length;
  const TYPE = fields.indexOf('type');
  const NAME = fields.indexOf('name');
  const SIZE = fields.indexOf('self_size');
  const types = file.snapshot.meta.node_types[0];
  const classes = new Map<string, { count: number; bytes: number }>();
  const strings = new Map<string, { copies: number; bytes: number }>();
  let total = 0;
  const { nodes } = file;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + TYPE]!] ?? '?';
    const size = nodes[i + SIZE]!;
    total += size;
    let what: string;
    if (type === 'string') {
      what = '(string)';
      const text = file.strings[nodes[i + NAME]!] ?? '';
      const s = strings.get(text) ?? { copies: 0, bytes: 0 };
      s.copies += 1;
      s.bytes += size;
      strings.set(text, s);
    } else if (type === 'object' || type === 'closure' || type === 'array' || type === 'native') {
      what = `${type === 'object' ? '' : `${type}: `}${file.strings[nodes[i + NAME]!] ?? '?'}`;
    } else what = `(${type})`;
    const c = classes.get(what) ?? { count: 0, bytes: 0 };
    c.count += 1;
    c.bytes += size;
    classes.set(what, c);
  }
  let copies = 0;
  let wasted = 0;
  const dup: { text: string; copies: number; wasted: number; bytes: number }[] = [];
  for (const [text, s] of strings) {
    if (s.copies < 2) continue;
    copies += s.copies - 1;
    const w = (s.bytes / s.copies) * (s.copies - 1);
    wasted += w;
    dup.push({ text, copies: s.copies, wasted: w, bytes: s.bytes });
  }
  dup.sort((a, b) => b.wasted - a.wasted);
  return {
    totalMiB: total / MiB,
    byClass: [...classes]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
      .map(([what, c]) => ({ what: what.slice(0, 60), count: c.count, MiB: c.bytes / MiB })),
    duplicateStrings: {
      copies,
      wastedMiB: wasted / MiB,
      top: dup.slice(0, 8).map((d) => ({ text: d.text.slice(0, 40), copies: d.copies, KiB: d.bytes / 1024 })),
    },
  };
}

async function snapshotOf(
  channels: number,
  settleSeconds: number,
): Promise<HeapBreakdown & { sessions: number }> {
  const tally = await startResumedTally(channels, ['--heapsnapshot-signal=SIGUSR2']);
  try {
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    await (await fetch(`${tally.url}/metrics`)).arrayBuffer();
    tally.child.kill('SIGUSR2');
    // Writing the snapshot blocks tally: once it answers again, the file is complete.
    let file: string | undefined;
    for (let i = 0; i < 600 && !file; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const found = (await readdir(tally.dir)).find((f) => f.endsWith('.heapsnapshot'));
      if (!found) continue;
      const ok = await fetch(`${tally.url}/api/v1/status`).then(
        () => true,
        () => false,
      );
      if (ok && (await stat(path.join(tally.dir, found))).size > 0) file = path.join(tally.dir, found);
    }
    if (!file) throw new Error('tally wrote no heap snapshot within 10 minutes');
    const parsed = JSON.parse(await readFile(file, 'utf8')) as HeapSnapshotFile;
    return { ...breakdown(parsed), sessions: tally.sessions };
  } finally {
    await tally.stop();
  }
}

/** The heap bench. */
export const heapBench: Bench = {
  name: 'heap',
  description: "Where tally's heap goes at 1000 and 5000 channels (heap snapshots summed by class)",
  async run(opts: BenchOptions): Promise<BenchResult> {
    buildForBench();
    const sizes = opts.channels ?? [1000, 5000];
    const tables: string[] = [];
    const data: Record<string, unknown> = {};
    for (const n of sizes) {
      const b = await snapshotOf(n, opts.quick ? 15 : 40);
      data[n] = b;
      tables.push(
        `${n} channels, ${b.sessions} sessions: ${b.totalMiB.toFixed(1)} MiB of heap objects`,
        table(
          ['class (self size)', 'objects', 'MiB'],
          b.byClass.map((c) => [c.what, c.count, c.MiB]),
        ),
        `strings in more than one copy: ${b.duplicateStrings.copies} extra copies, ${b.duplicateStrings.wastedMiB.toFixed(1)} MiB`,
        table(
          ['duplicated string', 'copies', 'KiB'],
          b.duplicateStrings.top.map((d) => [JSON.stringify(d.text), d.copies, d.KiB]),
        ),
      );
    }
    return { name: 'heap', tables, data };
  },
};
