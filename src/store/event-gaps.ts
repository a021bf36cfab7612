/**
 * Ranges of sequence numbers the event log handed out whose events it no longer holds for a
 * reason other than retention: a segment deleted or cut short under the running log, an
 * events directory lost, lines that no longer read. Pure: the log records and reports them
 * (docs/state.md, "Lost event files").
 */

/** Why a range of events is missing. */
export type GapReason = 'deleted' | 'truncated' | 'unreadable' | 'lost';

/** A range of sequence numbers (both ends included) whose events are missing. */
export interface Gap {
  from: number;
  to: number;
  reason: GapReason;
  /** When tally noticed (ms). */
  at: number;
}

/** The most ranges kept: the oldest are forgotten first. */
export const MAX_GAPS = 64;

/** Adds `gap` to `gaps` (sorted by `from`), merging it with ranges it touches; returns the new list. */
export function addGap(gaps: readonly Gap[], gap: Gap): Gap[] {
  if (gap.to < gap.from) return [...gaps];
  const out: Gap[] = [];
  let merged = { ...gap };
  for (const g of gaps) {
    if (g.to + 1 < merged.from || merged.to + 1 < g.from) {
      out.push(g);
      continue;
    }
    merged = {
      from: Math.min(g.from, merged.from),
      to: Math.max(g.to, merged.to),
      reason: g.from <= merged.from ? g.reason : merged.reason,
      at: Math.min(g.at, merged.at),
    };
  }
  out.push(merged);
  out.sort((a, b) => a.from - b.from);
  return out.slice(-MAX_GAPS);
}

/**
 * The jumps in a run of sequence numbers read in order (retained lines always follow one
 * another by one): each jump is a range of events that is missing. `before` is the last
 * sequence number seen before `seqs` (0 for none: the start of the log is retention's).
 */
export function jumps(seqs: Iterable<number>, before: number, reason: GapReason, at: number): Gap[] {
  const out: Gap[] = [];
  let prev = before;
  for (const seq of seqs) {
    if (prev > 0 && seq > prev + 1) out.push({ from: prev + 1, to: seq - 1, reason, at });
    prev = seq;
  }
  return out;
}

/** How many events the ranges leave out. */
export function missingCount(gaps: readonly Gap[]): number {
  return gaps.reduce((n, g) => n + (g.to - g.from + 1), 0);
}

/** Reads persisted ranges leniently: anything malformed is left out. */
export function parseGaps(value: unknown): Gap[] {
  if (!Array.isArray(value)) return [];
  let out: Gap[] = [];
  for (const v of value) {
    const g = v as Partial<Gap> | null;
    if (
      typeof g === 'object' &&
      g !== null &&
      Number.isSafeInteger(g.from) &&
      Number.isSafeInteger(g.to) &&
      g.from! > 0 &&
      g.to! >= g.from! &&
      (g.reason === 'deleted' || g.reason === 'truncated' || g.reason === 'unreadable' || g.reason === 'lost')
    ) {
      out = addGap(out, { from: g.from!, to: g.to!, reason: g.reason, at: Number(g.at) || 0 });
    }
  }
  return out;
}
