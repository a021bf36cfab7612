/**
 * What a server says of its rate limit besides `Retry-After` (retry-after.ts), and how
 * tally paces itself by it (docs/upstream-client.md, "Rate-limit signals"):
 *
 * - the IETF fields (draft-ietf-httpapi-ratelimit-headers,
 *   https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/): `RateLimit`
 *   as a dictionary (`limit=100, remaining=50, reset=5`, drafts up to 07) or as items with
 *   parameters (`"default";r=50;t=30`, drafts 08 on), `RateLimit-Policy` (`100;w=60`,
 *   `"default";q=100;w=60`), and the older separate `RateLimit-Limit`, `-Remaining`, `-Reset`
 *   (delta seconds);
 * - the common `X-RateLimit-*` and `X-Rate-Limit-*` fields, whose reset is delta seconds on
 *   some servers and epoch seconds on others (GitHub's `x-ratelimit-reset`,
 *   https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api): a
 *   value of 10^9 or more is a time (a delta that long would be 31 years), 10^12 or more
 *   in milliseconds; `X-RateLimit-Reset-After` (delta seconds).
 *
 * A 429 without a usable `Retry-After` waits for the reset these say (budget.ts). Any
 * answer saying few requests are left spreads them over the time to the reset, and one
 * saying none are left holds every request until it ({@link ServerPace}).
 */
import { MAX_RETRY_AFTER_MS, parseHttpDate } from './retry-after.js';

/** What the server said of its limit; any part may be missing. */
export interface RateLimitHint {
  /** Until the window resets, in ms from now. */
  resetMs?: number | undefined;
  /** Requests left in the window. */
  remaining?: number | undefined;
  /** Requests the window allows. */
  limit?: number | undefined;
}

/** Header values by lower-cased name. */
export type RateHeaders = Record<string, string>;

/** The rate-limit fields of a response, by lower-cased name (kept with a 429's error). */
export function rateLimitHeaders(headers: Record<string, string | string[] | undefined>): RateHeaders {
  const out: RateHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (!/^(x-)?rate-?limit/.test(name) || v === undefined) continue;
    out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Reads the limit from `headers` (lower-cased names), measuring times from `serverDate` when it is an HTTP-date. */
export function readRateLimit(headers: RateHeaders, now: number, serverDate?: string): RateLimitHint {
  const out: RateLimitHint = {};
  const structured = headers['ratelimit'];
  if (structured !== undefined) Object.assign(out, readStructured(structured));
  const policy = headers['ratelimit-policy'];
  if (out.limit === undefined && policy !== undefined) {
    const q = readStructured(policy).limit;
    if (q !== undefined) out.limit = q;
  }
  const sent = serverDate === undefined ? undefined : parseHttpDate(serverDate.trim(), now);
  for (const prefix of ['ratelimit-', 'x-ratelimit-', 'x-rate-limit-']) {
    out.remaining ??= count(headers[`${prefix}remaining`]);
    out.limit ??= count(headers[`${prefix}limit`]);
    out.resetMs ??= resetOf(headers[`${prefix}reset`], sent ?? now);
    out.resetMs ??= resetOf(headers[`${prefix}reset-after`], Number.NaN);
  }
  return out;
}

/** `limit=100, remaining=50, reset=5`, `100;w=60`, or `"default";r=50;t=30` (the lowest `r` of several). */
function readStructured(value: string): RateLimitHint {
  const out: RateLimitHint = {};
  for (const member of value.split(',')) {
    const [head = '', ...params] = member.split(';').map((p) => p.trim());
    const pairs = params.map((p) => p.split('=').map((x) => x.trim()));
    const eq = head.indexOf('=');
    if (eq > 0) pairs.unshift([head.slice(0, eq).trim(), head.slice(eq + 1).trim()]);
    else if (count(head) !== undefined) pairs.unshift(['q', head]);
    const item: RateLimitHint = {};
    for (const [k = '', v] of pairs) {
      const n = count(v);
      if (n === undefined) continue;
      if (k === 'remaining' || k === 'r') item.remaining = n;
      else if (k === 'limit' || k === 'q') item.limit = n;
      else if (k === 'reset' || k === 't') item.resetMs = delta(n);
    }
    if (item.remaining !== undefined && out.remaining !== undefined && item.remaining >= out.remaining)
      continue;
    for (const k of ['remaining', 'limit', 'resetMs'] as const) if (item[k] !== undefined) out[k] = item[k];
  }
  return out;
}

function count(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = v.trim().replace(/^"|"$/g, '');
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t);
}

function delta(seconds: number): number | undefined {
  const ms = Math.ceil(seconds * 1000);
  return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

/** A reset as delta seconds, or as a time (epoch seconds ≥ 10^9, milliseconds ≥ 10^12) measured from `from`. */
function resetOf(v: string | undefined, from: number): number | undefined {
  const n = count(v);
  if (n === undefined) return undefined;
  if (n < 1e9) return delta(n);
  if (Number.isNaN(from)) return undefined;
  const at = n >= 1e12 ? n : n * 1000;
  const ms = Math.max(0, Math.ceil(at - from));
  return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

/** Below this share of the limit left (or 10 requests, when the limit is not said), requests are spread. */
const LOW_SHARE = 0.1;
const LOW_COUNT = 10;

/**
 * tally's pace by what the server last said of its limit: none left, nothing until the
 * reset; few left, one request per (time to reset ÷ requests left). The budget (budget.ts)
 * grants nothing before {@link ServerPace.notBefore}.
 */
export class ServerPace {
  private holdUntil = 0;
  private gapMs = 0;
  private gapUntil = 0;
  private lastGrant = Number.NEGATIVE_INFINITY;
  /** The requests left the server last reported, and the limit it said beside them, for the read side. */
  remaining: number | undefined;
  limit: number | undefined;

  /** Takes what an answer at `now` said. */
  observe(hint: RateLimitHint, now: number): void {
    if (hint.remaining === undefined) return;
    this.remaining = hint.remaining;
    this.limit = hint.limit;
    if (hint.resetMs === undefined) return;
    const until = now + hint.resetMs;
    const low = hint.limit === undefined ? LOW_COUNT : Math.max(1, Math.ceil(hint.limit * LOW_SHARE));
    this.holdUntil = hint.remaining <= 0 ? until : 0;
    this.gapMs = hint.remaining > 0 && hint.remaining <= low ? hint.resetMs / hint.remaining : 0;
    this.gapUntil = until;
  }

  /** The earliest time the next request may go (0: any time). */
  notBefore(now: number): number {
    let t = this.holdUntil > now ? this.holdUntil : 0;
    if (this.gapMs > 0 && now < this.gapUntil) t = Math.max(t, Math.ceil(this.lastGrant + this.gapMs));
    return t > now ? t : 0;
  }

  /** What the server last said, for the budget's figures (`BudgetStats.server`). */
  said(): { server?: { remaining: number; limit?: number } } {
    if (this.remaining === undefined) return {};
    return {
      server: { remaining: this.remaining, ...(this.limit === undefined ? {} : { limit: this.limit }) },
    };
  }

  /** A request went at `now`. */
  granted(now: number): void {
    this.lastGrant = now;
  }

  /** The clock was set back by `ms` (forward when negative; budget.ts): every time moves with it. */
  shift(ms: number): void {
    this.holdUntil -= ms;
    this.gapUntil -= ms;
    this.lastGrant -= ms;
  }
}
