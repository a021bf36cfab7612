/**
 * One logical GET: through the budget, with retries, following a few same-origin
 * redirects by hand, reporting every exchange to the observer. A redirect to another
 * origin is refused before anything is sent there (docs/architecture.md, invariant 4).
 */
import type { Validators } from './http.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import type { Priority, RequestBudget, Urgency } from './budget.js';
import { redact, UpstreamError } from '../errors.js';
import { describePath, type HttpTransport, headerValue, type JsonResponse } from './http.js';
import { rateLimitHeaders } from './rate-limit.js';
import { statusClass, type UpstreamObserver } from '../observer.js';
import { type RetryPolicy, withRetries } from './retry.js';

/** Who asks, for what, how urgently. */
export interface RequestContext {
  org: string;
  token: string;
  /** Endpoint name for metrics and logs (`channels`, `sessions` …). */
  endpoint: string;
  priority: Priority;
  /** When given, the priority it says now, and its rises while a request waits. */
  urgency?: Urgency | undefined;
  signal?: AbortSignal | undefined;
  /** Validators of a copy held (first page of a list only): a 304 means it is current. */
  validators?: Validators | undefined;
}

/** Everything a {@link Requester} uses. */
export interface RequesterDeps {
  transport: HttpTransport;
  budget: RequestBudget;
  policy: RetryPolicy;
  clock: Clock;
  rng: () => number;
  observer: UpstreamObserver;
  logger: Logger;
  /** Same-origin redirects followed per attempt (default 3). */
  maxRedirects?: number;
}

/** Sends GETs the safe way. */
export class Requester {
  private readonly maxRedirects: number;

  constructor(private readonly deps: RequesterDeps) {
    this.maxRedirects = deps.maxRedirects ?? 3;
  }

  /** The origin requests go to. */
  get origin(): string {
    return this.deps.transport.origin;
  }

  /**
   * GETs `url` and returns its JSON answer; throws the last {@link UpstreamError} once
   * retries are spent, or the signal's reason when aborted.
   */
  getJson(url: URL, ctx: RequestContext): Promise<JsonResponse> {
    const { deps } = this;
    return withRetries(() => this.attempt(url, ctx), {
      policy: deps.policy,
      clock: deps.clock,
      rng: deps.rng,
      signal: ctx.signal,
      pauseLeftMs: () => deps.budget.pauseLeftMs(),
      onRetry: (err, attempt, delayMs) => {
        deps.observer.onRetry?.({ org: ctx.org, endpoint: ctx.endpoint, reason: err.reason });
        deps.logger.debug(
          {
            org: ctx.org,
            endpoint: ctx.endpoint,
            reason: err.reason,
            attempt,
            delayMs,
            err: redact(err.message, ctx.token),
          },
          'retrying request',
        );
      },
    });
  }

  /** One attempt: an exchange, plus the same-origin redirects it leads to. */
  private async attempt(url: URL, ctx: RequestContext): Promise<JsonResponse> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const res = await this.exchange(current, ctx);
      if (res.kind === 'json') return res;
      const what = `GET ${describePath(current)}`;
      if (res.location === undefined) {
        throw new UpstreamError(`${what}: ${res.status} redirect without a Location`, {
          reason: 'redirect',
          status: res.status,
        });
      }
      let next: URL;
      try {
        next = new URL(res.location, current);
      } catch {
        throw new UpstreamError(`${what}: ${res.status} redirect to an invalid URL`, {
          reason: 'redirect',
          status: res.status,
        });
      }
      if (next.origin !== this.origin) {
        throw new UpstreamError(`${what}: ${res.status} redirect to another origin refused`, {
          reason: 'cross_origin',
          status: res.status,
        });
      }
      if (hop >= this.maxRedirects) {
        throw new UpstreamError(`${what}: more than ${this.maxRedirects} redirects`, {
          reason: 'redirect',
          status: res.status,
        });
      }
      current = next;
    }
  }

  /** One exchange through the budget, reported to the observer. */
  private async exchange(url: URL, ctx: RequestContext) {
    const { deps } = this;
    const release = await deps.budget.acquire(ctx.urgency ?? ctx.priority, ctx.signal);
    const started = deps.clock.now();
    try {
      const res = await deps.transport.exchange(url, ctx);
      if (res.kind === 'json')
        deps.budget.serverLimits(rateLimitHeaders(res.headers), headerValue(res.headers.date));
      deps.observer.onRequest?.({
        org: ctx.org,
        endpoint: ctx.endpoint,
        status: res.status,
        statusClass: statusClass(res.status),
        durationMs: deps.clock.now() - started,
      });
      return res;
    } catch (err) {
      if (err instanceof UpstreamError) this.failed(err, ctx, deps.clock.now() - started);
      throw err;
    } finally {
      release();
    }
  }

  private failed(err: UpstreamError, ctx: RequestContext, durationMs: number): void {
    const { observer, budget } = this.deps;
    observer.onRequest?.({
      org: ctx.org,
      endpoint: ctx.endpoint,
      status: err.status,
      statusClass: statusClass(err.status),
      reason: err.reason,
      durationMs,
    });
    if (err.rateLimit !== undefined) budget.serverLimits(err.rateLimit, err.serverDate);
    if (err.reason === 'rate_limited') {
      const pause = budget.rateLimited(err.retryAfter, err.serverDate, err.rateLimit);
      observer.onRateLimited?.({ retryAfterMs: pause.retryAfterMs });
      observer.onPause?.({ untilMs: pause.untilMs });
      // One line per pause, not one per request answered 429 while it starts.
      const line = {
        org: ctx.org,
        endpoint: ctx.endpoint,
        retryAfterMs: pause.retryAfterMs,
        trusted: pause.trusted,
      };
      if (pause.started) this.deps.logger.warn(line, 'rate limited: every request paused');
      else this.deps.logger.debug(line, 'rate limited during a pause');
    } else if (err.reason === 'auth' && err.status !== undefined) {
      observer.onAuthFailure?.({ org: ctx.org, status: err.status });
    }
  }
}
