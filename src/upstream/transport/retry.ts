/**
 * When a GET is tried again, and after how long. GETs are idempotent, so network errors,
 * timeouts, 5xx, 429 and unreadable bodies are retried with exponential backoff and full
 * jitter, bounded by a number of attempts and a deadline. A 429 does not sleep here: the
 * budget pauses every request until its Retry-After has passed, and the next attempt
 * simply waits for the budget. Auth failures, 404 and other 4xx are answers, not retried.
 */
import type { Clock } from '../../core/clock.js';
import { UpstreamError } from '../errors.js';

/** Retry bounds, as in the `upstream.retries` config section. */
export interface RetryPolicy {
  /** Tries per request, the first one included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts later than this after the first attempt. */
  deadlineMs: number;
}

/** What to do after a failed attempt. */
export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

/**
 * Decides whether attempt number `attempt` (1-based) that failed with `err` is tried
 * again, given the time spent so far and the budget's pause still to run (`pauseMs`).
 * Pure: `rng` supplies the jitter.
 */
export function decideRetry(
  err: UpstreamError,
  attempt: number,
  elapsedMs: number,
  policy: RetryPolicy,
  rng: () => number,
  pauseMs = 0,
): RetryDecision {
  if (!err.retryable || attempt >= policy.attempts) return { retry: false };
  // The budget's pause is the wait for a 429: no sleep of our own, but it counts.
  const delayMs = err.reason === 'rate_limited' ? 0 : backoffDelay(attempt, policy, rng);
  if (elapsedMs + Math.max(delayMs, pauseMs) >= policy.deadlineMs) return { retry: false };
  return { retry: true, delayMs };
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base × 2^(attempt-1))). */
export function backoffDelay(attempt: number, policy: RetryPolicy, rng: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(Math.min(0.999_999, Math.max(0, rng())) * ceiling);
}

/** Hooks and context of {@link withRetries}. */
export interface RetryContext {
  policy: RetryPolicy;
  clock: Clock;
  rng: () => number;
  signal?: AbortSignal | undefined;
  /** How long every request still has to wait (the budget's pause), in ms. */
  pauseLeftMs?: () => number;
  /** Called before each retry with the error that caused it. */
  onRetry?: (err: UpstreamError, attempt: number, delayMs: number) => void;
}

/**
 * Runs `op` until it succeeds or the policy says stop; throws the last
 * {@link UpstreamError}. Rejects with the signal's reason when aborted.
 */
export async function withRetries<T>(op: (attempt: number) => Promise<T>, ctx: RetryContext): Promise<T> {
  const started = ctx.clock.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (!(err instanceof UpstreamError)) throw err;
      const pause = ctx.pauseLeftMs?.() ?? 0;
      const decision = decideRetry(err, attempt, ctx.clock.now() - started, ctx.policy, ctx.rng, pause);
      if (!decision.retry) throw err;
      ctx.onRetry?.(err, attempt, decision.delayMs);
      if (decision.delayMs > 0) await ctx.clock.sleep(decision.delayMs, ctx.signal);
    }
  }
}
