/**
 * The read side's view of one org (`OrgView`, src/poll/status.ts), built from its poller
 * and its config at scrape or request time.
 */
import type { Config } from '../config/schema.js';
import type { OrgView } from '../poll/status.js';
import { type ListIntervals, staleLists } from '../poll/health.js';
import type { OrgPoller } from '../poll/org-poller.js';
import type { Plan } from '../poll/planner.js';

/** The org-level parts that must each have been read completely once for an org to be ready. */
const READY_PARTS = ['profile', 'team', 'subscription', 'channels'] as const;

/**
 * The view of the org `p` polls, with `cfg` its config entry (absent while a reload removes
 * it); with `plan` and `now`, an org whose upstream is `ok` but some of whose lists were not
 * read for too long is `stale`, naming them (docs/polling.md, "Health"); with `fresh`,
 * the stalest channel's age too.
 */
export function orgView(
  p: OrgPoller,
  cfg: Config['orgs'][number] | undefined,
  fresh?: { plan: Plan; now: number },
): OrgView {
  const s = p.snapshot();
  const stale = fresh ? staleLists(s, listIntervals(fresh.plan), fresh.now) : [];
  return {
    slug: p.slug,
    snapshot: s,
    health: {
      state: p.health.state === 'ok' && stale.length > 0 ? 'stale' : p.health.state,
      ...(stale.length > 0 ? { stale } : {}),
      lastSuccessAt: p.health.lastSuccessAt,
      lastError: p.health.lastError,
    },
    attempts: p.attempts,
    tokenExpiresAt: cfg?.token_expires_at ? Date.parse(cfg.token_expires_at) : undefined,
    labels: cfg?.labels ?? {},
    ready: READY_PARTS.every((k) => s[k]?.state === 'complete'),
    lastFullSweep: p.lastFullSweep,
    heldRemovals: p.heldRemovals(),
    stalestSweepAgeMs: fresh === undefined ? undefined : stalestAge(p, fresh.now),
  };
}

/** How often each of an org's lists is meant to be read under `plan`. */
function listIntervals(plan: Plan): ListIntervals {
  const iv = plan.intervals;
  return {
    org: iv.org,
    team: iv.team,
    subscription: iv.subscription,
    channels: iv.channels,
    sessions: Math.max(plan.sweepBoundMs, iv.sweep),
  };
}

/** Age of the oldest read among the org's channels that have been read (a read dated after now is left out). */
function stalestAge(p: OrgPoller, now: number): number | undefined {
  let oldest: number | undefined;
  for (const e of p.sweepEntries(now)) {
    if (e.lastReadAt === undefined || e.lastReadAt > now) continue;
    if (oldest === undefined || e.lastReadAt < oldest) oldest = e.lastReadAt;
  }
  return oldest === undefined ? undefined : now - oldest;
}
