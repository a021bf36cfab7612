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
import { constants, crc32, deflateRawSync } from 'node:zlib';
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
  /** Adds one line made of `parts` end to end, without joining them first. */
  pushParts(...parts: string[]): void;
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
  /** The lines since the last batch, each as its parts and a newline. */
  private pending: string[] = [];
  private lines = 0;

  push(...lines: string[]): void {
    for (const line of lines) {
      this.pending.push(line, '\n');
      if (++this.lines >= BATCH) this.close();
    }
  }

  pushParts(...parts: string[]): void {
    for (const part of parts) this.pending.push(part);
    this.pending.push('\n');
    if (++this.lines >= BATCH) this.close();
  }

  /** Hands on the lines pushed since the last batch, each ending in a newline. */
  protected close(): void {
    if (this.lines === 0) return;
    this.take(this.pending.join(''));
    this.pending = [];
    this.lines = 0;
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
 * Collects lines as one gzip member (RFC 1952), each batch deflated as it closes, so the
 * page never exists whole: neither as one string nor as one buffer. A page of 5000
 * channels is 2.4 MB of text and about 190 KB gzipped; kept as text it held a page-sized
 * buffer (and, to write the next page into, a spare one) for the life of the process
 * (docs/performance.md, "The page kept gzipped").
 *
 * Node's zlib has no synchronous stream, and its asynchronous one would take every batch
 * of a render before deflating any (a render does not yield), so each batch is deflated on
 * its own into a run of raw deflate blocks that ends byte-aligned and not final
 * (`Z_SYNC_FLUSH`, RFC 1951 3.2.3). Runs end to end are one deflate stream; an empty final
 * block closes it, and the trailer gives the CRC-32 and the length of the whole text. Each
 * run starts with an empty window, which costs about 5 % of the size against one deflate of
 * the whole page.
 */
export class GzipLines extends BatchedLines {
  private readonly parts: Buffer[] = [GZIP_HEADER];
  private crc = 0;
  private size = 0;

  /** The gzip of the text written so far, and the length of that text in bytes. */
  finish(): { gzip: Buffer; size: number } {
    this.close();
    const trailer = Buffer.alloc(10);
    // The final block: BFINAL 1, fixed Huffman codes, end of block at once.
    trailer[0] = 0x03;
    trailer[1] = 0x00;
    trailer.writeUInt32LE(this.crc >>> 0, 2);
    trailer.writeUInt32LE(this.size % 2 ** 32, 6);
    return { gzip: Buffer.concat([...this.parts, trailer]), size: this.size };
  }

  protected take(batch: string): void {
    // Encoded into one scratch buffer: deflating is synchronous, so it is free again at once.
    const length = Buffer.byteLength(batch, 'utf8');
    const bytes =
      length <= SCRATCH.length
        ? SCRATCH.subarray(0, SCRATCH.write(batch, 0, 'utf8'))
        : Buffer.from(batch, 'utf8');
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    this.parts.push(deflateRawSync(bytes, DEFLATE_RUN));
  }
}

/** A gzip member's header: deflate, no name or time, XFL 4 (fastest level), OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0xff]);

/** zlib's fastest level (a 2.7 MiB page in some 4 ms), each run ending byte-aligned, not final. */
const DEFLATE_RUN = { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH };

/** Where a batch is encoded before it is deflated (a batch of 512 lines of 100 bytes is 50 KiB). */
const SCRATCH = Buffer.allocUnsafeSlow(128 * 1024);

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

/** {@link render} gzipped ({@link GzipLines}): what `/metrics` keeps and sends. */
export async function renderGzip(
  registry: Registry,
  format: ExpositionFormat,
): Promise<{ contentType: string; gzip: Buffer; size: number }> {
  const out = new GzipLines();
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
  const text = labelText(labels, 0, Number.POSITIVE_INFINITY, format);
  return `${name}${text === '' ? '' : `{${text}}`} ${number(value)}`;
}

/**
 * A sample line of `name{` + head + tail: the head is the first `head` labels, the tail
 * the other labels, the closing brace and the value. Lines whose first labels are the same
 * (a channel's in each per-channel family) can share one head. Without any label the
 * line is `name{} value`, which both formats read as no labels.
 */
export function sampleLineParts(
  labels: Partial<Record<string, string | number>>,
  head: number,
  value: number,
  format: ExpositionFormat,
): { head: string; tail: string } {
  const first = labelText(labels, 0, head, format);
  const rest = labelText(labels, head, Number.POSITIVE_INFINITY, format);
  return { head: first, tail: `${first !== '' && rest !== '' ? ',' : ''}${rest}} ${number(value)}` };
}

/** Labels `from` to `to` (by place) as `k="v"` pairs, comma separated; absent ones left out. */
function labelText(
  labels: Partial<Record<string, string | number>>,
  from: number,
  to: number,
  format: ExpositionFormat,
): string {
  let text = '';
  let place = 0;
  for (const k in labels) {
    if (place >= to) break;
    if (place++ < from) continue;
    const v = labels[k];
    if (v === undefined) continue;
    const s = format === 'openmetrics' && k === 'le' ? bound(v) : String(v);
    text += `${text === '' ? '' : ','}${k}="${escapeLabel(s)}"`;
  }
  return text;
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
