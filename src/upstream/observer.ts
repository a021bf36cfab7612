/**
 * What the upstream client reports as it works, for metrics: one call per request, per
 * retry, per 429, per pause, per drift issue and per refused token. The client never
 * depends on what the observer does with it.
 */
import type { DriftIssue } from './shape/index.js';

/** HTTP status class of a request, or `error` when no status came back. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error';

/** One request sent (or attempted) to the API. */
export interface RequestEvent {
  org: string;
  endpoint: string;
  status: number | undefined;
  statusClass: StatusClass;
  /** Why it failed, when it did (an `UpstreamReason`). */
  reason?: string;
  durationMs: number;
}

/** Receives the client's reports; every method is optional to implement. */
export interface UpstreamObserver {
  onRequest?(e: RequestEvent): void;
  onRetry?(e: { org: string; endpoint: string; reason: string }): void;
  onRateLimited?(e: { retryAfterMs: number }): void;
  onPause?(e: { untilMs: number }): void;
  /** One call per issue per response; `org` says whose response it was. */
  onDrift?(issue: DriftIssue & { org: string }): void;
  /**
   * A field a decision depends on was readable on most records of one list (`list`: its
   * path), so whatever blindness was reported of it there is over (shape/blindness.ts).
   */
  onSight?(e: { org: string; endpoint: string; field: string; list: string }): void;
  onAuthFailure?(e: { org: string; status: number }): void;
}

/** An observer that ignores everything. */
export const noopObserver: UpstreamObserver = {};

const OBSERVER_METHODS = [
  'onRequest',
  'onRetry',
  'onRateLimited',
  'onPause',
  'onDrift',
  'onSight',
  'onAuthFailure',
] as const satisfies readonly (keyof UpstreamObserver)[];

/** Wraps an observer so that a failing report is logged and never breaks a read. */
export function guardObserver(
  observer: UpstreamObserver,
  onError: (method: string, err: unknown) => void,
): UpstreamObserver {
  const out: UpstreamObserver = {};
  // An explicit list: a class instance keeps its methods on the prototype.
  for (const key of OBSERVER_METHODS) {
    const fn = observer[key];
    if (typeof fn !== 'function') continue;
    (out as Record<string, (e: unknown) => void>)[key] = (e: unknown) => {
      try {
        (fn as (e: unknown) => void).call(observer, e);
      } catch (err) {
        onError(key, err);
      }
    };
  }
  return out;
}

/** The status class of an HTTP status, or `error` when there was none. */
export function statusClass(status: number | undefined): StatusClass {
  if (status === undefined) return 'error';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}
