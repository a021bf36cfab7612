/**
 * The read-only view of a running tally that metrics collectors and the HTTP API read
 * at scrape or request time. The app implements it; nothing here writes.
 */
import type { Plan } from '../poll/planner.js';
import type { BudgetStats } from '../upstream/budget.js';
import type { ChangeEvent, EventKind } from '../snapshot/events.js';
import type { OrgSnapshot, Part } from '../snapshot/model.js';

/** Health of one org's upstream, as the poller sees it. */
export interface OrgHealthView {
  state: 'unknown' | 'ok' | 'unreachable' | 'auth_failed';
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

/** What the metrics collectors and the HTTP API read. */
export interface StatusSource {
  orgs(): readonly OrgView[];
  plan(): Plan;
  budget(): BudgetStats;
  /** Ready once every org has had a first complete read of its org-level parts. */
  ready(): boolean;
  /** Recent change events, newest first. */
  events(query: EventQuery): Promise<{ events: ChangeEvent[]; nextCursor?: string }>;
  /** When the process started (ms). */
  startedAt: number;
}
