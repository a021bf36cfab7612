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
 * Collects lines a batch at a time: every {@link BATCH} lines are joined into one flat
 * string and handed on. A scrape of a large org is megabytes of short lines; joined in
 * batches, each line is garbage as soon as its batch is. (Writing each line into a
 * Buffer instead costs a runtime call per write, several times more.)
 */
abstract class BatchedLines implements LineSink {
  private lines: string[] = [];

  push(...lines: string[]): void {
    for (const line of lines) {
      this.lines.push(line);
      if (this.lines.length >= BATCH) this.close();
    }
  }

  /** Hands on the lines pushed since the last batch, each ending in a newline. */
  protected close(): void {
    if (this.lines.length === 0) return;
    this.lines.push('');
    this.take(this.lines.join('\n'));
    this.lines = [];
  }

  protected abstract take(batch: string): void;
}

/** Collects lines as text: the batches are joined once at the end. */
export class TextBuffer extends BatchedLines {
  private readonly batches: string[] = [];

  /** The text written so far. */
  override toString(): string {
    this.close();
    return this.batches.join('');
  }

  protected take(batch: string): void {
    this.batches.push(batch);
  }
}

/**
 * Collects lines as UTF-8 bytes, each batch encoded as it closes, so the page is never
 * one string. Joined whole, a page of 5000 channels was a 2.3-million-character string,
 * twice that in bytes when a label held one character beyond Latin-1, made on V8's heap
 * at every render and encoded again for every response and every gzip; as bytes it is
 * made once, off the heap, and sent as it is.
 *
 * Given a buffer (`into`, one an earlier page was written into: page-buffers.ts), batches
 * are encoded straight into it while they fit, and the page is its first bytes. What does
 * not fit goes into chunks, joined at the end into a new buffer with `room` bytes to spare,
 * so that the next, slightly larger, page fits.
 */
export class ByteBuffer extends BatchedLines {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private into: Buffer | undefined;
  private written = 0;

  constructor(
    into?: Buffer,
    private readonly room = 0,
  ) {
    super();
    this.into = into;
  }

  /** The bytes written so far. */
  toBuffer(): Buffer {
    return this.finish().body;
  }

  /** The bytes written so far (`body`), and the whole buffer they are the start of (`store`). */
  finish(): { body: Buffer; store: Buffer } {
    this.close();
    if (this.into && this.chunks.length === 0)
      return { body: this.into.subarray(0, this.written), store: this.into };
    const head = this.into ? [this.into.subarray(0, this.written)] : [];
    const parts = [...head, ...this.chunks];
    if (parts.length === 1 && this.room === 0) return { body: parts[0]!, store: parts[0]! };
    const store = Buffer.allocUnsafeSlow(this.size + this.room);
    let at = 0;
    for (const part of parts) at += part.copy(store, at);
    return { body: store.subarray(0, at), store };
  }

  protected take(batch: string): void {
    const into = this.into;
    if (into && this.chunks.length === 0) {
      // UTF-8 takes at most three bytes per UTF-16 unit; count exactly only near the end.
      const free = into.length - this.written;
      if (batch.length * 3 <= free || Buffer.byteLength(batch, 'utf8') <= free) {
        const n = into.write(batch, this.written, 'utf8');
        this.written += n;
        this.size += n;
        return;
      }
    }
    const chunk = Buffer.from(batch, 'utf8');
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
}

/** Lines joined at a time. */
const BATCH = 512;

/** Renders every metric of the registry in the given format, in registration order. */
export async function render(
  registry: Registry,
  format: ExpositionFormat,
): Promise<{ contentType: string; body: string }> {
  const out = new TextBuffer();
  await writeRegistry(registry, format, out);
  return { contentType: CONTENT_TYPES[format], body: out.toString() };
}

/**
 * {@link render} as UTF-8 bytes: what `/metrics` sends. With `into`, written into that
 * buffer while the page fits, else into a new one with `room` bytes to spare
 * ({@link ByteBuffer}); `store` is the buffer the page is the start of.
 */
export async function renderBytes(
  registry: Registry,
  format: ExpositionFormat,
  into?: Buffer,
  room = 0,
): Promise<{ contentType: string; body: Buffer; store: Buffer }> {
  const out = new ByteBuffer(into, room);
  await writeRegistry(registry, format, out);
  return { contentType: CONTENT_TYPES[format], ...out.finish() };
}

async function writeRegistry(registry: Registry, format: ExpositionFormat, out: LineSink): Promise<void> {
  // One after another, in registration order: a family may count what an earlier one dropped.
  for (const metric of registry.getMetricsAsArray() as unknown as (Partial<SelfWriting> & Metric)[]) {
    if (typeof metric.writeTo === 'function') metric.writeTo(out, format);
    else writeFamily(out, (await metric.get()) as JsonMetric, format);
  }
  if (format === 'openmetrics') out.push('# EOF');
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
