/**
 * Families filled at scrape time. Each scrape builds them from scratch from what tally
 * knows now, so an entity that went away (a removed channel, an ended session) leaves no
 * stale series behind.
 *
 * Two kinds: {@link collectedGauge} is a prom-client Gauge that its `collect()` resets and
 * sets; {@link listedFamily} is a plain list of series made at scrape time, for the
 * families with one series per channel or session. Those reach tens of thousands of series,
 * where a Gauge's per-series bookkeeping (label validation, hashing, a keyed map) costs
 * more than everything else in a scrape, and nothing in them outlives the scrape anyway.
 */
import { Gauge, type Metric, type Registry } from 'prom-client';
import { type LineSink, type SelfWriting, sampleLine, sampleLineParts, writeHeader } from './exposition.js';
import type { ExpositionFormat } from './negotiate.js';
import type { LineMemo } from './snapshot-summary.js';

/** Registers a gauge whose series are rebuilt from scratch by `fill` at every scrape. */
export function collectedGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  fill: (gauge: Gauge<L>) => void,
): Gauge<L> {
  const gauge: Gauge<L> = new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect: () => {
      gauge.reset();
      fill(gauge);
    },
  });
  return gauge;
}

/**
 * Adds one series to a listed family. With `memo`, its line is rendered once and kept
 * there: the caller passes the same memo only while labels and value stay the same. With
 * `head` as well, in a family registered with `headLabels`, the memo keeps the line's
 * tail and `head` the text of its first labels, which lines of several families may share
 * (a channel's labels, in each per-channel family).
 */
export interface Emit<L extends string> {
  (labels: Record<L, string>, value: number, memo?: LineMemo, head?: LineMemo): void;
  /**
   * Adds the line kept in `memo` (and `head`), without labels or value: true when it did;
   * false when there is none yet or this emit needs labels (then call it with them). A
   * family of 20 000 kept lines then makes no label set per scrape.
   */
  kept(memo: LineMemo, head?: LineMemo): boolean;
}

/** An {@link Emit} of `add`, taking kept lines through `kept`. */
function emitter<L extends string>(
  add: (labels: Record<L, string>, value: number, memo?: LineMemo, head?: LineMemo) => void,
  kept: (memo: LineMemo, head?: LineMemo) => boolean,
): Emit<L> {
  return Object.assign(add, { kept });
}

/**
 * A gauge family listed afresh at every scrape. tally's renderer has it write its lines
 * directly; through prom-client (`registry.metrics()`) it renders like any gauge.
 */
class ListedFamily<L extends string> implements SelfWriting {
  readonly type = 'gauge';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    private readonly fill: (emit: Emit<L>) => void,
    /** How many of the first labels a `head` memo keeps (0: none, lines are kept whole). */
    private readonly headLabels = 0,
  ) {}

  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<L, string>; value: number }[];
  }> {
    const values: { labels: Record<L, string>; value: number }[] = [];
    this.fill(
      emitter(
        (labels, value) => values.push({ labels, value }),
        () => false,
      ),
    );
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  writeTo(out: LineSink, format: ExpositionFormat): void {
    const sample = writeHeader(out, this.name, this.help, this.type, format);
    // A gauge's sample lines are the same in both formats, so a memo serves either.
    const open = `${sample}{`;
    const split = this.headLabels > 0;
    this.fill(
      emitter(
        (labels, value, memo, head) => {
          if (!memo) {
            out.push(sampleLine(sample, labels, value, format));
          } else if (head && split) {
            if (memo.line === undefined || head.line === undefined) {
              const parts = sampleLineParts(labels, this.headLabels, value, format);
              head.line ??= flatten(parts.head);
              memo.line ??= flatten(parts.tail);
            }
            out.pushParts(open, head.line, memo.line);
          } else {
            memo.line ??= flatten(sampleLine(sample, labels, value, format));
            out.push(memo.line);
          }
        },
        (memo, head) => {
          if (memo.line === undefined) return false;
          if (head && split) {
            if (head.line === undefined) return false;
            out.pushParts(open, head.line, memo.line);
          } else {
            out.push(memo.line);
          }
          return true;
        },
      ),
    );
  }

  reset(): void {
    // Nothing is kept between scrapes.
  }
}

/**
 * Registers a gauge family whose series `fill` lists at every scrape. `labelNames` is what
 * the series carry (`fill` passes them in that order); they are not checked per series.
 * With `headLabels`, lines emitted with a `head` memo keep their first that many labels
 * there ({@link Emit}).
 */
export function listedFamily<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  fill: (emit: Emit<L>) => void,
  headLabels = 0,
): void {
  // The registry only calls get() and reset() and reads name/help/type: prom-client
  // duck-types its metrics, so a plain object renders like a Gauge.
  registry.registerMetric(new ListedFamily(name, help, labelNames, fill, headLabels) as unknown as Metric);
}

/**
 * The same text as one flat string. A line built by concatenation is a rope of its
 * pieces (`org="demo"`, `,channel_id="` … each a separate heap object); kept for as long
 * as a channel stays unchanged, 20 000 of them cost half as much again as the flat text
 * (bench/heap.ts). A UTF-8 round trip is the one portable way to flatten a string.
 */
export function flatten(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** Milliseconds since the epoch to Prometheus seconds. */
export function seconds(ms: number): number {
  return ms / 1000;
}
