/**
 * How a bench hands back its figures: a printed table and a JSON file under
 * bench/results/ (git-ignored), plus the machine they came from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import path from 'node:path';

/** Options every bench takes. */
export interface BenchOptions {
  /** A shorter run: fewer sizes or less clock time, for a smoke check. */
  quick: boolean;
  /** Only these org sizes (channel counts), where a bench runs several. */
  channels?: number[] | undefined;
}

/** What a bench returns. */
export interface BenchResult {
  name: string;
  /** Human-readable tables, printed as they are. */
  tables: string[];
  /** Everything measured, written as JSON. */
  data: Record<string, unknown>;
}

/** A bench asked for wrongly (a missing or bad setting): its message is all there is to say. */
export class BenchUsageError extends Error {}

/** One bench: a name and its run function. */
export interface Bench {
  name: string;
  description: string;
  /** Runs only when named (it needs settings of its own), not in `npm run bench`. */
  onlyNamed?: boolean;
  run(opts: BenchOptions): Promise<BenchResult>;
}

/** The machine and its load, recorded beside every result. */
export function machine(): Record<string, unknown> {
  return {
    node: process.versions.node,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    freeMemoryMiB: Math.round(freemem() / 2 ** 20),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    platform: `${process.platform} ${process.arch}`,
  };
}

/** Formats rows as an aligned text table; numbers are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [header.map(String), ...rows.map((r) => r.map(cell))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number' || r[i] === undefined));
  const line = (r: readonly string[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '–';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return String(v);
    return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  }
  return String(v);
}

/** Seconds, from milliseconds, for tables. */
export function sec(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms / 100) / 10;
}

/** Writes `result` to `bench/results/<name>.json` and returns the path. */
export async function writeResult(dir: string, result: BenchResult, extra: Record<string, unknown>) {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${result.name}.json`);
  const body = { name: result.name, ...extra, machine: machine(), ...result.data };
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}
