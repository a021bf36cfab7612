/**
 * Writing the exposition text for a scrape, in either format.
 *
 * A prom-client registry has one fixed content type, and rendering it as OpenMetrics
 * renames counters in place (it strips `_total` from the shared metric objects), so one
 * registry cannot serve both formats by switching. Both formats are therefore written
 * here, from each metric's values, leaving the registry untouched. Families that can write
 * their own lines (the listed per-channel and per-session families, see collected.ts) do,
 * which spares building tens of thousands of sample objects that would all have to live
 * until the page is done (see bench/metrics-render.ts). The registry's default labels
 * (`setDefaultLabels`) are not applied: tally does not use them.
 */
import type { Metric, Registry } from 'prom-client';
import { CONTENT_TYPES, type ExpositionFormat } from './negotiate.js';

/** A metric family in the registry's JSON form. */
export interface JsonMetric {
  name: string;
  help: string;
  /** A string at run time ('counter', 'gauge' …), whatever prom-client's typings say (a numeric enum). */
  type: unknown;
  values: readonly { labels: Partial<Record<string, string | number>>; value: number; metricName?: string }[];
}

/** Where exposition lines go. */
export interface LineSink {
  push(...lines: string[]): void;
}

/** A family that writes its own lines, header included. */
export interface SelfWriting {
  writeTo(out: LineSink, format: ExpositionFormat): void;
}

/**
 * Collects lines as UTF-8 in a growing buffer. A scrape of a large org is megabytes of
 * short lines; kept as strings until the end they would all survive young-generation
 * collections and be copied, which costs more than writing them. Lines are joined into a
 * short piece first and the piece is written at once: a write into a Buffer is a call
 * into the runtime, too dear to pay per line.
 */
export class TextBuffer implements LineSink {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  private piece = '';

  push(...lines: string[]): void {
    for (const line of lines) {
      this.piece += `${line}\n`;
      if (this.piece.length >= PIECE_CHARS) this.drain();
    }
  }

  /** The text written so far, as UTF-8. */
  bytes(): Buffer {
    this.drain();
    return this.buf.subarray(0, this.length);
  }

  /** The text written so far. */
  toString(): string {
    return this.bytes().toString('utf8');
  }

  private drain(): void {
    if (this.piece === '') return;
    const room = this.piece.length * 3; // a UTF-16 unit never takes more than 3 UTF-8 bytes
    if (this.length + room > this.buf.length) this.grow(this.length + room);
    this.length += this.buf.write(this.piece, this.length, 'utf8');
    this.piece = '';
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
}

/** Lines are written to the buffer in pieces of about this many characters. */
const PIECE_CHARS = 8 * 1024;

/** Renders every metric of the registry in the given format, in registration order. */
export async function render(
  registry: Registry,
  format: ExpositionFormat,
): Promise<{ contentType: string; body: string }> {
  const out = new TextBuffer();
  // One after another, in registration order: a family may count what an earlier one dropped.
  for (const metric of registry.getMetricsAsArray() as unknown as (Partial<SelfWriting> & Metric)[]) {
    if (typeof metric.writeTo === 'function') metric.writeTo(out, format);
    else writeFamily(out, (await metric.get()) as JsonMetric, format);
  }
  if (format === 'openmetrics') out.push('# EOF');
  return { contentType: CONTENT_TYPES[format], body: out.toString() };
}

/** Writes the exposition text of the families (in the registry's JSON form). */
export function expose(metrics: readonly JsonMetric[], format: ExpositionFormat): string {
  const out = new TextBuffer();
  for (const m of metrics) writeFamily(out, m, format);
  if (format === 'openmetrics') out.push('# EOF');
  return out.toString();
}

/** Writes OpenMetrics 1.0 text from the registry's JSON form. */
export function openMetrics(metrics: readonly JsonMetric[]): string {
  return expose(metrics, 'openmetrics');
}

/** Writes the `# HELP` and `# TYPE` lines of a family; returns the name of its plain samples. */
export function writeHeader(
  out: LineSink,
  name: string,
  help: string,
  type: string,
  format: ExpositionFormat,
): string {
  const f = format === 'openmetrics' ? openMetricsFamily(name, type) : textFamily(name, type);
  out.push(`# HELP ${f.family} ${escapeHelp(help)}`, `# TYPE ${f.family} ${f.type}`);
  return f.sample;
}

/** One sample line. */
export function sampleLine(
  name: string,
  labels: Partial<Record<string, string | number>>,
  value: number,
  format: ExpositionFormat,
): string {
  let text = '';
  for (const k in labels) {
    const v = labels[k];
    if (v === undefined) continue;
    const s = format === 'openmetrics' && k === 'le' ? bound(v) : String(v);
    text += `${text === '' ? '' : ','}${k}="${escapeLabel(s)}"`;
  }
  return `${name}${text === '' ? '' : `{${text}}`} ${number(value)}`;
}

function writeFamily(out: LineSink, m: JsonMetric, format: ExpositionFormat): void {
  const sample = writeHeader(out, m.name, m.help, String(m.type), format);
  for (const v of m.values) out.push(sampleLine(v.metricName ?? sample, v.labels, v.value, format));
}

function textFamily(name: string, type: string): { family: string; type: string; sample: string } {
  const known = type === 'counter' || type === 'gauge' || type === 'histogram' || type === 'summary';
  return { family: name, type: known ? type : 'untyped', sample: name };
}

/** OpenMetrics names families without the sample suffix their type adds. */
function openMetricsFamily(name: string, type: string): { family: string; type: string; sample: string } {
  if (type === 'counter') {
    const family = name.replace(/_total$/, '');
    return { family, type: 'counter', sample: `${family}_total` };
  }
  if (type === 'gauge' && name.endsWith('_info')) {
    // `*_info` gauges are always 1 with metadata in labels: exactly OpenMetrics' info type.
    return { family: name.slice(0, -'_info'.length), type: 'info', sample: name };
  }
  const known = type === 'gauge' || type === 'histogram' || type === 'summary';
  return { family: name, type: known ? type : 'unknown', sample: name };
}

function number(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

/** Bucket bounds in canonical form (`1.0`, `+Inf`), as OpenMetrics asks. */
function bound(v: string | number): string {
  if (v === '+Inf' || v === Number.POSITIVE_INFINITY) return '+Inf';
  const n = Number(v);
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

const NEEDS_ESCAPE = /[\\\n"]/;

function escapeHelp(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabel(s: string): string {
  // Most label values are plain; skipping the replaces for them matters at 10⁴ series.
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
