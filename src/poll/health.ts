/**
 * Upstream health of one org, from the outcomes of its fetches: reachable, unreachable
 * (several failures in a row, or failures for longer than a grace period), or refusing
 * the token. Each change of state becomes one upstream event; nothing else does.
 *
 * Reads overlap, so outcomes arrive out of the order the reads were sent in. A read takes
 * a ticket from {@link UpstreamHealth.begin} when it starts (a counter, so a clock that
 * jumps changes nothing); an outcome whose read started before the opposite news arrived
 * is stale and changes nothing: a read sent during an outage that times out after a newer
 * read has already succeeded does not count as a failure, and a read sent before an
 * outage was declared that answers late does not end it. Without this the health would
 * flap (recovered, unreachable, recovered) as the reads of an outage drain.
 */
import { createHash } from 'node:crypto';
import type { ChangeEvent, EventKind } from '../snapshot/events.js';
import type { OrgSnapshot, Part, PartError } from '../snapshot/model.js';

/** The health of one org's upstream. */
export type HealthState = 'unknown' | 'ok' | 'unreachable' | 'auth_failed';

/** Reasons that say the token was refused rather than the API being down. */
const AUTH_REASONS = new Set(['auth']);
/**
 * Reasons that say nothing about reachability: the API answered, and the answer was odd
 * (drift, paging trouble, a 404) or refused the query (a 400 or 422 that no safer query
 * made work: fatal drift `query_refused`, alerted on by `upstream_unreadable`). A 401 or
 * 403 is the token (auth); a 429, a 5xx, a timeout or a broken body count towards an outage.
 */
const ANSWERED_REASONS = new Set(['schema', 'paging', 'not_found', 'http_4xx', 'oversized', 'cross_origin']);

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
  /** Tickets handed out so far, and their count when the last success counted and when the state last turned bad. */
  private tickets = 0;
  private successSeen = 0;
  private failingSince = 0;
  private readonly failures: number;
  private readonly graceMs: number;

  constructor(
    private readonly org: string,
    opts: HealthOptions = {},
  ) {
    this.failures = opts.failures ?? 3;
    this.graceMs = opts.graceMs ?? 120_000;
  }

  /** A ticket for a read that starts now, to hand back with its outcome. */
  begin(): number {
    this.tickets += 1;
    return this.tickets;
  }

  /**
   * Records a fetch that returned data at `at` (`ticket`: from {@link begin} when it
   * started; a fetch without one counts as started just now); returns a `recovered` event
   * when it ends an outage.
   */
  success(at: number, ticket = this.begin()): ChangeEvent | undefined {
    this.lastSuccessAt = at;
    if (ticket <= this.failingSince) return undefined;
    this.successSeen = this.tickets;
    this.consecutive = 0;
    this.firstFailureAt = undefined;
    const was = this.state;
    this.state = 'ok';
    if (was === 'unreachable' || was === 'auth_failed') {
      return this.event('upstream.recovered', at, was, 'ok');
    }
    return undefined;
  }

  /**
   * Records a failed fetch at `at` (`ticket` as for {@link success}); returns an event when
   * the org's health changes because of it.
   */
  failure(at: number, error: PartError, ticket = this.begin()): ChangeEvent | undefined {
    this.lastError = error;
    if (ANSWERED_REASONS.has(error.reason)) return undefined;
    if (ticket <= this.successSeen) return undefined;
    if (AUTH_REASONS.has(error.reason)) {
      if (this.state === 'auth_failed') return undefined;
      const was = this.state;
      this.state = 'auth_failed';
      this.failingSince = this.tickets;
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
    this.failingSince = this.tickets;
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

/**
 * A list not read completely for longer than its interval × this is stale (docs/polling.md,
 * "Health"): the org's health says `stale`, naming it, instead of `ok`. Three intervals
 * leave room for a read that failed now and then, and for a plan stretched by the budget
 * (the plan's intervals are the stretched ones).
 */
export const STALE_FACTOR = 3;
/** The most stale lists named; the rest are counted (`… and 40 more`). */
const MAX_STALE_NAMED = 20;

/** How often each of an org's lists is meant to be read (ms), from the plan in force. */
export interface ListIntervals {
  org: number;
  team: number;
  subscription: number;
  channels: number;
  /** Within how long every channel's session list is read once (the sweep's bound). */
  sessions: number;
}

/**
 * The lists of `s` last read completely longer ago than their interval × {@link STALE_FACTOR}
 * at `now`: `profile`, `team`, `subscription`, `channels` and `sessions:<channel id>` (of the
 * channels in the channel list). A list never read completely is not stale but unread (the
 * org is not ready, or its first baseline not complete: src/http/routes-health.ts).
 */
export function staleLists(
  s: OrgSnapshot,
  intervals: ListIntervals,
  now: number,
  factor = STALE_FACTOR,
): string[] {
  const out: string[] = [];
  const old = (at: number | undefined, every: number) => at !== undefined && now - at > every * factor;
  const at = (p: Part<unknown> | undefined) => (p?.state === 'complete' ? p.at : undefined);
  if (old(at(s.profile), intervals.org)) out.push('profile');
  if (old(at(s.team), intervals.team)) out.push('team');
  if (old(at(s.subscription), intervals.subscription)) out.push('subscription');
  if (old(at(s.channels), intervals.channels)) out.push('channels');
  const channels = s.channels?.state === 'complete' ? s.channels.value : [];
  let more = 0;
  for (const c of channels) {
    if (!old(at(s.sessions[c.id]), intervals.sessions)) continue;
    if (out.length < MAX_STALE_NAMED) out.push(`sessions:${c.id}`);
    else more += 1;
  }
  if (more > 0) out.push(`… and ${more} more`);
  return out;
}
