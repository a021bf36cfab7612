/**
 * `/api/v1/status` (how tally is doing) and `/api/v1/snapshot/:org` (what it knows about
 * an org). Times in the status are ISO 8601 strings; the snapshot is tally's normalized
 * model as is (times in epoch milliseconds). Neither carries a credential: tokens are
 * never part of an OrgView or a snapshot.
 */
import type { Clock } from '../core/clock.js';
import { freshness, type ResourceFreshness } from '../metrics/freshness.js';
import { RESOURCES, summarize } from '../metrics/snapshot-summary.js';
import type { OrgView, StateView, StatusSource } from '../poll/status.js';
import type { Plan } from '../poll/planner.js';
import { HttpError, json } from './reply.js';
import type { Router } from './router.js';

/** Adds `/api/v1/status` and `/api/v1/snapshot/:org`. */
export function addApiRoutes(router: Router, source: StatusSource, clock: Clock, version: string): void {
  router.addRoute('GET', '/api/v1/status', () => json(200, statusBody(source, clock.now(), version)));
  router.addRoute('GET', '/api/v1/snapshot/:org', (ctx) => {
    const slug = ctx.params['org'] ?? '';
    const view = source.orgs().find((o) => o.slug === slug);
    if (!view) throw new HttpError(404, 'not_found', `unknown org "${slug}"`);
    return json(200, view.snapshot);
  });
}

/** The body of `/api/v1/status`. */
export function statusBody(source: StatusSource, now: number, version: string): Record<string, unknown> {
  const plan = source.plan();
  const budget = source.budget();
  return {
    version,
    started_at: iso(source.startedAt),
    uptime_seconds: Math.max(0, Math.round((now - source.startedAt) / 1000)),
    ready: source.ready(),
    orgs: [...source.orgs()].sort((a, b) => (a.slug < b.slug ? -1 : 1)).map((v) => orgStatus(v, plan)),
    ...(source.state ? { state: stateStatus(source.state()) } : {}),
    budget: {
      configured_per_minute: budget.configured,
      effective_per_minute: budget.effective,
      used_last_minute: budget.usedLastMinute,
      left: budget.left,
      paused_until: budget.pausedUntil > now ? iso(budget.pausedUntil) : null,
      pauses: budget.pauses,
      queued: budget.queued,
      learned: budget.learned
        ? {
            per_minute: budget.learned.perMinute,
            from: budget.learned.from,
            lowered_at: budget.learned.loweredAt === undefined ? null : iso(budget.learned.loweredAt),
            decreases: budget.learned.decreases,
          }
        : null,
    },
    plan: {
      sweep_bound_seconds: plan.sweepBoundMs / 1000,
      stretch: plan.stretch,
      hot_stretch: plan.hotStretch,
      requests_per_minute: plan.perMinute,
      sweep_reads_per_minute: plan.sweepReadsPerMinute,
      intervals_seconds: Object.fromEntries(Object.entries(plan.intervals).map(([k, ms]) => [k, ms / 1000])),
      notes: plan.notes,
    },
  };
}

/** The state directory's health (docs/http-api.md, "`GET /api/v1/status`"). */
export function stateStatus(s: StateView): Record<string, unknown> {
  return {
    writable: s.writable,
    failing_paths: s.failingPaths,
    write_failures: s.failures,
    last_error: s.lastError
      ? {
          path: s.lastError.area,
          file: s.lastError.path,
          reason: s.lastError.reason,
          message: s.lastError.message,
          at: iso(s.lastError.at),
        }
      : null,
    last_success_at: s.lastSuccessAt === undefined ? null : iso(s.lastSuccessAt),
    event_log: {
      highest_seq: s.eventLog.highestSeq,
      missing_events: s.eventLog.missingEvents,
      missing: s.eventLog.missing.map((m) => ({
        from_seq: m.from,
        to_seq: m.to,
        reason: m.reason,
        detected_at: iso(m.at),
      })),
    },
    lock: {
      held: s.lock.held,
      last_heartbeat_at: s.lock.lastHeartbeatAt === undefined ? null : iso(s.lock.lastHeartbeatAt),
      problem: s.lock.problem ?? null,
    },
  };
}

function orgStatus(view: OrgView, plan: Plan): Record<string, unknown> {
  // Detection bounds per kind of change: the channel list for channel-level changes, the
  // sweep for changes only a session list shows, the hot and detail intervals for live ones.
  const bounds = {
    channel_level: plan.intervals.channels / 1000,
    session_level: plan.sweepBoundMs / 1000,
    hot_channels: plan.intervals.live_sessions / 1000,
    live_detail: plan.intervals.live_detail / 1000,
  };
  const summary = summarize(view.snapshot);
  const fresh = freshness(view, summary);
  return {
    slug: view.slug,
    labels: view.labels,
    ready: view.ready,
    health: {
      state: view.health.state,
      stale: view.health.stale ?? [],
      last_success_at: isoOrNull(view.health.lastSuccessAt),
      last_error: view.health.lastError ?? null,
    },
    token_expires_at: isoOrNull(view.tokenExpiresAt),
    freshness: Object.fromEntries(RESOURCES.map((r) => [r, freshnessBody(fresh[r])])),
    sessions: {
      channels: summary.channels?.length ?? null,
      channels_unread: summary.channels ? summary.unreadChannels : null,
      oldest_read_at: isoOrNull(summary.oldestSessionsReadAt),
      live: summary.liveSessions.length,
      // The titles the metrics leave out (free text makes poor labels).
      live_sessions: summary.liveSessions.map((r) => ({
        id: r.id,
        channel_id: r.channelId,
        channel: r.channel,
        title: r.title,
      })),
      last_full_sweep: view.lastFullSweep
        ? {
            seconds: view.lastFullSweep.durationMs / 1000,
            completed_at: isoOrNull(view.lastFullSweep.completedAt),
          }
        : null,
    },
    drift: (view.drift ?? []).map((d) => ({
      endpoint: d.endpoint,
      field: d.field,
      reason: d.reason,
      problem: d.problem,
      fatal: d.fatal,
      count: d.count,
      first_at: iso(d.firstAt),
      last_at: iso(d.lastAt),
    })),
    degraded: (view.degraded ?? []).map((d) => ({
      endpoint: d.endpoint,
      field: d.field,
      problem: d.problem,
      lists: d.lists,
      since: iso(d.since),
    })),
    learned: view.learned ?? {},
    planner: {
      spent_last_minute: view.spend ?? {},
      bounds_seconds: bounds,
    },
    held_removals: (view.heldRemovals ?? []).map((h) => ({
      list: h.list,
      count: h.count,
      suspect: h.suspect,
      since: iso(h.since),
    })),
  };
}

function freshnessBody(f: ResourceFreshness): Record<string, unknown> {
  return {
    last_success_at: isoOrNull(f.lastSuccessAt),
    last_attempt_at: isoOrNull(f.lastAttemptAt),
    failing: f.failing,
    last_error: f.lastError
      ? { at: iso(f.lastError.at), state: f.lastError.state, reason: f.lastError.reason ?? null }
      : null,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isoOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : iso(ms);
}
