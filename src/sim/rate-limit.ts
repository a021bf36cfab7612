/**
 * The API's rate limit: N requests per minute per client IP over a sliding one-minute
 * window (the times of the last N accepted requests are kept per IP). A refused request
 * does not count, and learns in `Retry-After` when the oldest one leaves the window.
 */

const WINDOW_MS = 60_000;

/** The answer to one request. */
export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A sliding-window limiter keyed by IP. */
export class RateLimiter {
  /** Per IP: a ring of the accepted request times (at most `limit`). */
  private readonly windows = new Map<string, { times: number[]; head: number }>();

  constructor(private limit: number) {}

  /** Requests per minute allowed now. */
  get perMinute(): number {
    return this.limit;
  }

  /** Changes the limit and forgets what was counted. */
  setLimit(perMinute: number): void {
    this.limit = perMinute;
    this.windows.clear();
  }

  /** Forgets what was counted. */
  reset(): void {
    this.windows.clear();
  }

  /**
   * What a client at `ip` sees of the window at `now` without counting a request: the
   * limit, the requests left, and seconds until the oldest counted one leaves.
   */
  state(ip: string, now: number): { limit: number; remaining: number; resetSeconds: number } {
    const w = this.windows.get(ip);
    if (w === undefined) return { limit: this.limit, remaining: this.limit, resetSeconds: 0 };
    let count = 0;
    let oldest = now;
    for (const t of w.times) {
      if (now - t >= WINDOW_MS) continue;
      count++;
      if (t < oldest) oldest = t;
    }
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      resetSeconds: count === 0 ? 0 : Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)),
    };
  }

  /** Counts a request from `ip` at `now` if the window has room. */
  take(ip: string, now: number): RateDecision {
    let w = this.windows.get(ip);
    if (w === undefined) {
      w = { times: [], head: 0 };
      this.windows.set(ip, w);
    }
    if (w.times.length < this.limit) {
      w.times.push(now);
      return { ok: true };
    }
    // The ring is full: the oldest accepted request decides.
    const oldest = w.times[w.head]!;
    if (now - oldest >= WINDOW_MS) {
      w.times[w.head] = now;
      w.head = (w.head + 1) % w.times.length;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
  }
}
