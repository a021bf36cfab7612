/**
 * The read-only view of a running tally that metrics collectors and the HTTP API read
 * at scrape or request time. The app implements it; nothing here writes.
 */
import type { Plan } from './planner.js';
import type { BudgetStats } from '../upstream/transport/budget.js';
import type { ChangeEvent, EventKind } from '../snapshot/events.js';
import type { OrgSnapshot, Part } from '../snapshot/model.js';

/** Health of one org's upstream, as the poller sees it. */
export interface OrgHealthView {
  /** `stale`: the upstream answers, but some lists were not read for too long (see `stale`). */
  state: 'unknown' | 'ok' | 'stale' | 'unreachable' | 'auth_failed';
  /** Lists not read completely for longer than their interval × 3 (src/poll/health.ts, staleLists). */
  stale?: readonly string[] | undefined;
  lastSuccessAt: number | undefined;
  lastError: { reason: string; message: string } | undefined;
}

/** One org as the read side sees it. */
export interface OrgView {
  slug: string;
  /** Last complete value of each part (see OrgPoller). */
  snapshot: OrgSnapshot;
  health: OrgHealthView;
  /** Last attempt per part key (`profile`, `team`, `subscription`, `channels`, `sessions:<id>`, `detail:<id>`). */
  attempts: ReadonlyMap<string, { at: number; state: Part<unknown>['state']; reason?: string }>;
  /** When the org's token expires (ms), when configured. */
  tokenExpiresAt?: number | undefined;
  /** Extra labels from the org's config. */
  labels: Readonly<Record<string, string>>;
  /** Whether every org-level part has been read completely at least once. */
  ready: boolean;
  /** Removals waiting for evidence from further reads, by list (docs/polling.md). */
  heldRemovals?: readonly { list: string; count: number; suspect: boolean; since: number }[] | undefined;
  /** Recent distinct schema drift of the org's reads, most recently seen first (bounded). */
  drift?:
    | readonly {
        endpoint: string;
        field: string;
        reason: string;
        problem: string;
        fatal: boolean;
        firstAt: number;
        lastAt: number;
        count: number;
      }[]
    | undefined;
  /**
   * Fields a decision depends on that cannot be read on most records of some of the org's
   * lists now (docs/upstream-shapes.md, "Blindness is loud"): that part is degraded.
   */
  degraded?:
    | readonly { endpoint: string; field: string; problem: string; since: number; lists: number }[]
    | undefined;
  /** What the org's endpoints were learned to take (requests that adapt), by endpoint. */
  learned?:
    | Readonly<
        Record<
          string,
          {
            perPage?: number;
            drop?: string[];
            times?: Record<string, string>;
            ignored?: string[];
            refused?: boolean;
          }
        >
      >
    | undefined;
  /** Reads of the last minute by purpose (channel_list, org_parts, hot, follow_up, sweep, recheck, detail). */
  spend?: Readonly<Record<string, number>> | undefined;
  /** The last full sweep of the org's session lists, once one has completed. */
  lastFullSweep?: { durationMs: number; completedAt: number } | undefined;
  /**
   * How long the channel whose sessions were read longest ago (for any reason) has waited,
   * ms: what `Plan.sweepBoundMs` bounds (docs/polling.md, "The bound it reports").
   */
  stalestSweepAgeMs?: number | undefined;
}

/** A query over recent change events. */
export interface EventQuery {
  org?: string;
  kinds?: readonly EventKind[];
  entityId?: string;
  since?: number;
  until?: number;
  limit: number;
  cursor?: string;
}

/** A range of event sequence numbers handed out whose events the log no longer holds (not retention). */
export interface MissingEvents {
  from: number;
  to: number;
  reason: string;
  /** When tally noticed (ms). */
  at: number;
}

/** How the state directory is doing (docs/state.md, "State health"). */
export interface StateView {
  /** False while writes to the state directory fail (readiness says not ready). */
  writable: boolean;
  /** Write paths whose last write failed (snapshots, journal, events, outbox, alerts, learned, lock). */
  failingPaths: string[];
  /** Failed writes since start by path and reason. */
  failures: Record<string, Record<string, number>>;
  lastError?: { path: string; area: string; reason: string; message: string; at: number } | undefined;
  lastSuccessAt?: number | undefined;
  eventLog: { highestSeq: number; missingEvents: number; missing: MissingEvents[] };
  /** Whether this process holds the state directory's lock. */
  lock: { held: boolean; lastHeartbeatAt?: number | undefined; problem?: string | undefined };
}

/** What the metrics collectors and the HTTP API read. */
export interface StatusSource {
  orgs(): readonly OrgView[];
  plan(): Plan;
  budget(): BudgetStats;
  /** Ready once every org has had a first complete read of its org-level parts. */
  ready(): boolean;
  /** Recent change events, newest first; `missing` when part of the log's history is lost. */
  events(
    query: EventQuery,
  ): Promise<{ events: ChangeEvent[]; nextCursor?: string; missing?: readonly MissingEvents[] }>;
  /** The state directory's health; absent where there is none (tests, replay). */
  state?(): StateView;
  /** When the process started (ms). */
  startedAt: number;
}
