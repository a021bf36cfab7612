/**
 * How fresh each resource of an org is: when it was last read completely (from the
 * snapshot, which keeps the last complete value of each part), when it was last tried
 * and how many of its parts failed on their last try (from the poller's attempt log).
 * Per-channel session lists and per-session details are folded into one row each.
 * Read by the freshness metrics and `/api/v1/status`.
 */
import type { OrgView } from '../poll/status.js';
import { RESOURCES, type Resource, resourceOf, type SnapshotSummary } from './snapshot-summary.js';

/** Freshness of one resource of one org. */
export interface ResourceFreshness {
  /** Newest complete read (ms). */
  lastSuccessAt: number | undefined;
  /** Newest attempt of any outcome (ms). */
  lastAttemptAt: number | undefined;
  /** Parts whose last attempt did not complete (their last error, when there is one). */
  failing: number;
  /** The last error among failing parts, by attempt time. */
  lastError: { at: number; state: string; reason?: string } | undefined;
}

/**
 * Computes per-resource freshness. Only failures of parts that still matter count as
 * failing: session lists of channels in the current channel list and details of live
 * sessions, so a removed channel's last failure does not haunt the org forever.
 */
export function freshness(view: OrgView, summary: SnapshotSummary): Record<Resource, ResourceFreshness> {
  const out = {} as Record<Resource, ResourceFreshness>;
  for (const r of RESOURCES) {
    out[r] = {
      lastSuccessAt: summary.lastSuccess[r],
      lastAttemptAt: undefined,
      failing: 0,
      lastError: undefined,
    };
  }
  // Made at the first failure that needs them: most scrapes meet none.
  let channels: Set<string> | undefined;
  let live: Set<string> | undefined;
  for (const [key, attempt] of view.attempts) {
    const resource = resourceOf(key);
    if (!resource) continue;
    const row = out[resource];
    if (row.lastAttemptAt === undefined || attempt.at > row.lastAttemptAt) row.lastAttemptAt = attempt.at;
    if (attempt.state === 'complete') continue;
    const id = key.slice(resource.length + 1);
    if (resource === 'sessions' && summary.channels) {
      channels ??= new Set(summary.channels.map((c) => c.id));
      if (!channels.has(id)) continue;
    }
    if (resource === 'detail') {
      live ??= new Set(summary.liveSessions.map((s) => s.id));
      if (!live.has(id)) continue;
    }
    row.failing += 1;
    if (!row.lastError || attempt.at > row.lastError.at) {
      row.lastError = {
        at: attempt.at,
        state: attempt.state,
        ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
      };
    }
  }
  return out;
}
