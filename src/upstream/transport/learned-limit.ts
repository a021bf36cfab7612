/**
 * The limit the address really has, as tally learns it (docs/upstream-client.md, "The
 * learned limit"). Several tally processes behind one IP share the API's limit, and a
 * server may allow less than the configured budget: the budget (budget.ts) spends no more
 * than this limit, which moves like TCP's congestion window:
 *
 * - **down, multiplicatively**, on a 429 or when the server says almost nothing is left
 *   while others spend from the same window: to `decrease` × the requests of this process
 *   the server accepted in the last window (its share of a window the server found full),
 *   or to `deepest` × what it was, whichever is higher; not more than once per `holdMs`
 *   (the requests already in the window still count against it for that long);
 * - **up, additively**, by `increasePerMinute` × the configured budget per minute once
 *   neither has happened since the last step down and its pause is over;
 * - **never above** the configured budget; never below `floor` × the configured budget,
 *   so that a lone process recovers.
 *
 * Replicas that each do so converge on equal shares (additive increase and
 * multiplicative decrease together do that, whatever the shares start at). A server that
 * never refuses and never says it is short leaves the limit at the configured budget.
 * Pure bookkeeping over times passed in.
 */

/** Options of {@link LearnedLimit}; every share is of the configured budget. */
export interface LearnedLimitOptions {
  /** Factor applied to the requests accepted in the last window on a decrease (default 0.85). */
  decrease?: number;
  /** The deepest one decrease goes, as a factor of the limit before it (default 0.5). */
  deepest?: number;
  /** Recovery per minute, as a share of the configured budget (default 0.04). */
  increasePerMinute?: number;
  /** Lowest limit, as a share of the configured budget (default 0.1; at least 1 request). */
  floor?: number;
  /** Least time between two decreases (default 60 s: one window). */
  holdMs?: number;
}

/** What taught the limit in force: nothing yet, refusals (429), or the server's rate-limit fields. */
export type LimitSource = 'configured' | 'refusals' | 'server';

/** The learned limit as the read side sees it (`BudgetStats.learned`). */
export interface LearnedStats {
  /** Requests per minute this process allows itself now (≤ the configured budget). */
  perMinute: number;
  /** What set it last. */
  from: LimitSource;
  /** When it last went down (ms), absent before the first decrease. */
  loweredAt?: number;
  /** How many times it went down. */
  decreases: number;
}

const MINUTE = 60_000;

/** The limit this process learned for its address. */
export class LearnedLimit {
  private readonly decreaseFactor: number;
  private readonly deepest: number;
  private readonly increasePerMinute: number;
  private readonly floorShare: number;
  private readonly holdMs: number;
  private configured: number;
  /** The limit right after the last decrease, and when it may begin to recover. */
  private base: number;
  private growFrom = Number.NEGATIVE_INFINITY;
  private loweredAt = Number.NEGATIVE_INFINITY;
  private decreases = 0;
  private from: LimitSource = 'configured';

  constructor(configured: number, opts: LearnedLimitOptions = {}) {
    this.configured = configured;
    this.base = configured;
    this.decreaseFactor = opts.decrease ?? 0.85;
    this.deepest = opts.deepest ?? 0.5;
    this.increasePerMinute = opts.increasePerMinute ?? 0.04;
    this.floorShare = opts.floor ?? 0.1;
    this.holdMs = opts.holdMs ?? MINUTE;
  }

  /** Requests per minute allowed at `now` (a real number ≥ 1). */
  at(now: number): number {
    const ceiling = this.ceiling();
    if (this.base >= ceiling) return ceiling;
    if (now <= this.growFrom) return this.base;
    const grown = this.base + (this.configured * this.increasePerMinute * (now - this.growFrom)) / MINUTE;
    if (grown >= ceiling) {
      this.base = ceiling;
      this.from = 'configured';
      return ceiling;
    }
    return grown;
  }

  /**
   * A sign the address is short at `now`: a 429, or the server saying almost nothing is
   * left while others spend. `accepted` is what the server took from this process in the
   * last window; recovery begins at `quietFrom` (the end of the pause) at the earliest.
   * Returns whether the limit went down (at most once per hold).
   */
  short(now: number, accepted: number, quietFrom: number, from: LimitSource = 'refusals'): boolean {
    const was = this.at(now);
    const lower = now - this.loweredAt >= this.holdMs;
    if (lower) {
      const share = this.decreaseFactor * Math.min(was, Math.max(0, accepted));
      this.base = Math.max(this.floor(), share, was * this.deepest);
      this.loweredAt = now;
      this.decreases += 1;
      this.from = from;
    } else this.base = was;
    // No growth while the address is short: it resumes once it has been quiet.
    this.growFrom = Math.max(now, quietFrom);
    return lower;
  }

  /** A new configured budget (config reload): a lower learned limit stays in force. */
  setConfigured(configured: number, now: number): void {
    const was = this.at(now);
    this.configured = configured;
    this.base = Math.min(was, this.ceiling());
  }

  /** Moves every recorded time by `ms` (the clock was stepped; budget.ts). */
  shift(ms: number): void {
    this.growFrom += ms;
    this.loweredAt += ms;
  }

  /** The figures for the read side. */
  stats(now: number): LearnedStats {
    return {
      perMinute: Math.max(1, Math.floor(this.at(now))),
      from: this.from,
      ...(this.decreases > 0 ? { loweredAt: this.loweredAt } : {}),
      decreases: this.decreases,
    };
  }

  private ceiling(): number {
    return Math.max(1, this.configured);
  }

  private floor(): number {
    return Math.min(this.ceiling(), Math.max(1, this.configured * this.floorShare));
  }
}
