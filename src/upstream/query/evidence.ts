/**
 * When a refusal teaches, and when what it taught is put to the test again
 * (docs/upstream-shapes.md, "Requests that adapt", "Learning that forgets"). A server
 * that refuses a query once may be having a bad few seconds: a burst of 400s must not
 * change how a list is asked for, nor stop it being read. So a refusal of a read's first
 * query teaches only when it repeats: {@link TEACH_REFUSALS} reads refused over at least
 * {@link TEACH_SPAN_MS}. Until then each read still climbs its own ladder of safer
 * queries (and is read without what the server refused). Meanwhile the query known to
 * work is put to the test by one read every {@link probeEveryMs} (a minute by default),
 * enough to gather that evidence; the reads in between start from where the last refused
 * read got to and was answered (adapt.ts, `QueryMemory.begin`), so a server that refuses
 * tally's query for good costs one request a read, not two, while it teaches. What was
 * learned is re-tried
 * every {@link RETRIAL_MIN_MS} to {@link RETRIAL_MAX_MS} (drawn anew each time, so that
 * lists do not re-try together): tally's own query once; answered, what was learned is
 * dropped; refused, it holds and counts as confirmed.
 */

/** Reads whose first query was refused before the refusal teaches. */
export const TEACH_REFUSALS = 3;
/** The least time between the first and the last of those refusals. */
export const TEACH_SPAN_MS = 2 * 60_000;
/** The least wait before what was learned is re-tried. */
export const RETRIAL_MIN_MS = 30 * 60_000;
/** The longest wait before what was learned is re-tried. */
export const RETRIAL_MAX_MS = 60 * 60_000;

/** Options of {@link RefusalEvidence} (tests and the simulator set them; the defaults are above). */
export interface EvidenceOptions {
  refusals?: number;
  spanMs?: number;
  retrialMinMs?: number;
  retrialMaxMs?: number;
  /** In [0, 1): where in the re-trial range each wait falls. */
  rng?: () => number;
}

/**
 * A refusal teaches at once: for a single look (`tally once`), which has no minutes to
 * wait for and reads each list once; and for tests of the ladder of safer queries itself.
 */
export const TEACH_AT_ONCE: EvidenceOptions = { refusals: 1, spanMs: 0 };

/** The refusals of one list's first query since it was last answered. */
interface Tally {
  first: number;
  last: number;
  reads: number;
  /** When a read next asks the query known to work again, to see whether it is still refused. */
  probeAt: number;
}

/** Refusals per list (`org endpoint`) and when each list's learned query is re-tried. Not persisted. */
export class RefusalEvidence {
  private readonly tallies = new Map<string, Tally>();
  private readonly retrials = new Map<string, number>();
  private readonly refusals: number;
  private readonly spanMs: number;
  private readonly retrialMinMs: number;
  private readonly retrialMaxMs: number;
  private readonly rng: () => number;

  constructor(opts: EvidenceOptions = {}) {
    this.refusals = opts.refusals ?? TEACH_REFUSALS;
    this.spanMs = opts.spanMs ?? TEACH_SPAN_MS;
    this.retrialMinMs = opts.retrialMinMs ?? RETRIAL_MIN_MS;
    this.retrialMaxMs = Math.max(this.retrialMinMs, opts.retrialMaxMs ?? RETRIAL_MAX_MS);
    this.rng = opts.rng ?? Math.random;
  }

  /** A read of `key` had its first query refused at `now`. */
  refused(key: string, now: number): void {
    const t = this.tallies.get(key);
    const probeAt = now + this.probeEveryMs();
    if (t === undefined) this.tallies.set(key, { first: now, last: now, reads: 1, probeAt });
    else {
      t.reads += 1;
      t.first = Math.min(t.first, now);
      t.last = Math.max(t.last, now);
      t.probeAt = Math.max(t.probeAt, probeAt);
    }
  }

  /**
   * The least time between two reads that put a refused query to the test again: the
   * refusals that teach, spread evenly over the span they must cover.
   */
  probeEveryMs(): number {
    return this.spanMs / Math.max(1, this.refusals - 1);
  }

  /**
   * Whether a read of `key` at `now` asks the query known to work, although reads refused
   * it lately: yes when no refusal is being tallied, and once every {@link probeEveryMs}
   * while one is. A read that says yes claims the probe: reads at the same time do not
   * ask it too.
   */
  probeDue(key: string, now: number): boolean {
    const t = this.tallies.get(key);
    if (t === undefined) return true;
    if (now < t.probeAt) return false;
    t.probeAt = now + this.probeEveryMs();
    return true;
  }

  /** Whether the refusals of `key` teach: enough reads refused, over long enough. */
  teaches(key: string): boolean {
    const t = this.tallies.get(key);
    return t !== undefined && t.reads >= this.refusals && t.last - t.first >= this.spanMs;
  }

  /** The refusals so far, for messages: reads refused and over how long (ms). */
  tally(key: string): { reads: number; spanMs: number } {
    const t = this.tallies.get(key);
    return t === undefined ? { reads: 0, spanMs: 0 } : { reads: t.reads, spanMs: t.last - t.first };
  }

  /** A read of `key` had its first query answered: the refusals before it were passing. */
  answered(key: string): void {
    this.tallies.delete(key);
  }

  /**
   * Whether a read of `key` at `now` re-tries tally's own query (what was learned was last
   * confirmed at `confirmedAt`, or is as old as this process when unknown). A read that
   * says yes claims the re-trial: reads at the same time do not re-try too.
   */
  retrialDue(key: string, confirmedAt: number | undefined, now: number): boolean {
    let at = this.retrials.get(key);
    if (at === undefined) {
      at = Math.min(confirmedAt ?? now, now) + this.wait();
      this.retrials.set(key, at);
    }
    if (now < at) return false;
    this.retrials.set(key, now + this.wait());
    return true;
  }

  /** What `key` learned was confirmed at `now`: the next re-trial is a full wait away. */
  confirmed(key: string, now: number): void {
    this.tallies.delete(key);
    this.retrials.set(key, now + this.wait());
  }

  /** Forgets everything of `key`. */
  forget(key: string): void {
    this.tallies.delete(key);
    this.retrials.delete(key);
  }

  private wait(): number {
    const r = Math.min(Math.max(this.rng(), 0), 1);
    return this.retrialMinMs + Math.floor(r * (this.retrialMaxMs - this.retrialMinMs));
  }
}
