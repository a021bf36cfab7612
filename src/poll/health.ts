/**
 * Upstream health of one org, from the outcomes of its fetches: reachable, unreachable
 * (several failures in a row, or failures for longer than a grace period), or refusing
 * the token. Each change of state becomes one upstream event; nothing else does.
 */
import { createHash } from 'node:crypto';
import type { ChangeEvent, EventKind } from '../snapshot/events.js';
import type { PartError } from '../snapshot/model.js';

/** The health of one org's upstream. */
export type HealthState = 'unknown' | 'ok' | 'unreachable' | 'auth_failed';

/** Reasons that say the token was refused rather than the API being down. */
const AUTH_REASONS = new Set(['auth']);
/** Reasons that say nothing about reachability (the API answered, the answer was odd). */
const ANSWERED_REASONS = new Set(['schema', 'paging', 'not_found', 'oversized', 'cross_origin']);

/** Options of {@link UpstreamHealth}. */
export interface HealthOptions {
  /** Failures in a row before the org is called unreachable (default 3). */
  failures?: number;
  /** Or failures for this long with no success (default 2 minutes). */
  graceMs?: number;
}

/** Tracks one org's upstream health and says when it changes. */
export class UpstreamHealth {
  state: HealthState = 'unknown';
  /** Time of the last complete or partial read. */
  lastSuccessAt: number | undefined;
  /** The last failure, kept for status pages. */
  lastError: PartError | undefined;
  private consecutive = 0;
  private firstFailureAt: number | undefined;
  private readonly failures: number;
  private readonly graceMs: number;

  constructor(
    private readonly org: string,
    opts: HealthOptions = {},
  ) {
    this.failures = opts.failures ?? 3;
    this.graceMs = opts.graceMs ?? 120_000;
  }

  /** Records a fetch that returned data; returns a `recovered` event when it ends an outage. */
  success(at: number): ChangeEvent | undefined {
    this.lastSuccessAt = at;
    this.consecutive = 0;
    this.firstFailureAt = undefined;
    const was = this.state;
    this.state = 'ok';
    if (was === 'unreachable' || was === 'auth_failed') {
      return this.event('upstream.recovered', at, was, 'ok');
    }
    return undefined;
  }

  /** Records a failed fetch; returns an event when the org's health changes because of it. */
  failure(at: number, error: PartError): ChangeEvent | undefined {
    this.lastError = error;
    if (ANSWERED_REASONS.has(error.reason)) return undefined;
    if (AUTH_REASONS.has(error.reason)) {
      if (this.state === 'auth_failed') return undefined;
      const was = this.state;
      this.state = 'auth_failed';
      return this.event('upstream.auth_failed', at, was, 'auth_failed', error);
    }
    this.consecutive += 1;
    this.firstFailureAt ??= at;
    const tooMany = this.consecutive >= this.failures;
    const tooLong = at - this.firstFailureAt >= this.graceMs;
    if (this.state === 'unreachable' || this.state === 'auth_failed' || !(tooMany || tooLong))
      return undefined;
    const was = this.state;
    this.state = 'unreachable';
    return this.event('upstream.unreachable', at, was, 'unreachable', error);
  }

  private event(
    kind: EventKind,
    at: number,
    from: HealthState,
    to: HealthState,
    error?: PartError,
  ): ChangeEvent {
    const id = createHash('sha256').update(`${this.org}\0${kind}\0${at}`).digest('hex').slice(0, 24);
    const labels: Record<string, string> = {};
    if (error) {
      labels['reason'] = error.reason;
      labels['error'] = error.message;
    }
    return {
      id,
      at,
      org: this.org,
      kind,
      entity: { kind: 'upstream', id: this.org },
      field: 'health',
      from,
      to,
      labels,
    };
  }
}
