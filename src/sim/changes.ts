/**
 * The ground-truth change log: every change the world made, in order, with a sequence
 * number. Bounded: past `max` entries the oldest are dropped (reads say so).
 */
import type { Change } from './types.js';

/** What a read of the log returns. */
export interface ChangesPage {
  changes: Change[];
  /** The newest sequence number so far (0 when nothing changed yet). */
  seq: number;
  /** True when entries after `since` were already dropped. */
  truncated: boolean;
}

/** Append-only log with a bounded memory. */
export class ChangeLog {
  private entries: Change[] = [];
  private start = 0;
  private lastSeq = 0;

  constructor(private readonly max: number) {}

  /** Appends a change, giving it the next sequence number. */
  append(change: Omit<Change, 'seq'>): Change {
    const full: Change = { seq: ++this.lastSeq, ...change };
    this.entries.push(full);
    // Drop in batches so that trimming is amortized O(1).
    if (this.entries.length - this.start > this.max) this.start += Math.max(1, Math.floor(this.max / 10));
    if (this.start > 4096 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
    return full;
  }

  /** The newest sequence number. */
  get seq(): number {
    return this.lastSeq;
  }

  /** Changes with a sequence number above `since`, optionally of one org, at most `limit`. */
  read(since = 0, org?: string, limit = Number.POSITIVE_INFINITY): ChangesPage {
    const first = this.entries[this.start];
    const firstSeq = first?.seq ?? this.lastSeq + 1;
    const from = this.start + Math.max(0, since + 1 - firstSeq);
    const out: Change[] = [];
    for (let i = from; i < this.entries.length && out.length < limit; i++) {
      const c = this.entries[i]!;
      if (org === undefined || c.org === org) out.push(c);
    }
    return { changes: out, seq: this.lastSeq, truncated: since + 1 < firstSeq };
  }
}
