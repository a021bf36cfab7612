/**
 * Metrics about tally itself, read from the status source at scrape time: upstream
 * health per org, freshness per resource, the request budget, the planner's decision,
 * readiness and the build.
 */
import type { Registry } from 'prom-client';
import type { PlanIntervals } from '../poll/planner.js';
import type { OrgHealthView, OrgView, StatusSource } from '../poll/status.js';
import { collectedGauge, seconds } from './collected.js';
import type { ResourceFreshness } from './freshness.js';
import { RESOURCES, type Resource, type SnapshotSummary } from './snapshot-summary.js';

/** What the self collectors read. */
export interface SelfContext {
  registry: Registry;
  source: StatusSource;
  /** The org views of this scrape, sorted by slug, each with its summary and freshness. */
  orgs: () => readonly {
    view: OrgView;
    summary: SnapshotSummary;
    fresh: () => Record<Resource, ResourceFreshness>;
  }[];
  build: { version: string; node: string };
}

const HEALTH_STATES: readonly OrgHealthView['state'][] = [
  'unknown',
  'ok',
  'stale',
  'unreachable',
  'auth_failed',
];
const PURPOSES = ['fixed', 'hot', 'sweep', 'reserve'] as const;
const PRIORITIES = ['high', 'follow', 'normal', 'low'] as const;

/** Registers the self metrics that are read from the status source. */
export function registerSelfMetrics(ctx: SelfContext): void {
  const { registry, source } = ctx;
  const orgs = ctx.orgs;

  collectedGauge(
    registry,
    'tally_up',
    "1 when the org's upstream answered the last polls, else 0.",
    ['org'],
    (g) => {
      // A stale org's upstream answers: some of its lists were not read for too long.
      for (const { view } of orgs())
        g.set({ org: view.slug }, view.health.state === 'ok' || view.health.state === 'stale' ? 1 : 0);
    },
  );
  collectedGauge(
    registry,
    'tally_org_health',
    "Health of each org's upstream as a state set: 1 for the current state, 0 for the others.",
    ['org', 'state'],
    (g) => {
      for (const { view } of orgs()) {
        for (const state of HEALTH_STATES)
          g.set({ org: view.slug, state }, view.health.state === state ? 1 : 0);
      }
    },
  );
  collectedGauge(
    registry,
    'tally_ready',
    '1 once every org had a first complete read of its org-level parts.',
    [],
    (g) => g.set(source.ready() ? 1 : 0),
  );
  registerFreshness(ctx);
  registerBudget(registry, source);
  registerPlanner(registry, source);

  collectedGauge(
    registry,
    'tally_build_info',
    'Version of tally and of Node.js it runs on; always 1.',
    ['version', 'node'],
    (g) => g.set({ version: ctx.build.version, node: ctx.build.node }, 1),
  );
}

function registerFreshness(ctx: SelfContext): void {
  const { registry, orgs } = ctx;
  const perResource = (pick: (f: ResourceFreshness) => number | undefined) => {
    return (g: { set(labels: { org: string; resource: string }, v: number): void }) => {
      for (const { view, fresh } of orgs()) {
        const f = fresh();
        for (const resource of RESOURCES) {
          const v = pick(f[resource]);
          if (v !== undefined) g.set({ org: view.slug, resource }, v);
        }
      }
    };
  };
  collectedGauge(
    registry,
    'tally_last_success_timestamp_seconds',
    'When each resource was last read completely (Unix seconds); per-channel and per-session reads count their newest.',
    ['org', 'resource'],
    perResource((f) => (f.lastSuccessAt === undefined ? undefined : seconds(f.lastSuccessAt))),
  );
  collectedGauge(
    registry,
    'tally_last_attempt_timestamp_seconds',
    'When each resource was last tried, whatever the outcome (Unix seconds).',
    ['org', 'resource'],
    perResource((f) => (f.lastAttemptAt === undefined ? undefined : seconds(f.lastAttemptAt))),
  );
  collectedGauge(
    registry,
    'tally_parts_failing',
    'Parts of each resource whose last read failed or came back incomplete (session lists of current channels, details of live sessions).',
    ['org', 'resource'],
    perResource((f) => f.failing),
  );
  collectedGauge(
    registry,
    'tally_sessions_oldest_read_timestamp_seconds',
    "Oldest complete read among the current channels' session lists (Unix seconds): now minus this is how far behind the sweep is.",
    ['org'],
    (g) => {
      for (const { view, summary } of orgs()) {
        if (summary.oldestSessionsReadAt !== undefined)
          g.set({ org: view.slug }, seconds(summary.oldestSessionsReadAt));
      }
    },
  );
  collectedGauge(
    registry,
    'tally_sweep_stalest_age_seconds',
    'How long the channel whose sessions were read longest ago has waited: never more than tally_planner_sweep_bound_seconds (docs/polling.md).',
    ['org'],
    (g) => {
      for (const { view } of orgs()) {
        if (view.stalestSweepAgeMs !== undefined) g.set({ org: view.slug }, view.stalestSweepAgeMs / 1000);
      }
    },
  );
  collectedGauge(
    registry,
    'tally_sweep_last_duration_seconds',
    "How long the last full sweep took: from its start until every current channel's sessions had been read once (for any reason).",
    ['org'],
    (g) => {
      for (const { view } of orgs()) {
        if (view.lastFullSweep) g.set({ org: view.slug }, view.lastFullSweep.durationMs / 1000);
      }
    },
  );
  collectedGauge(
    registry,
    'tally_removals_held',
    'Removals held back until further reads confirm them, by list kind; suspect="true" for reads that emptied a list or lost a mass share of it (docs/polling.md).',
    ['org', 'list', 'suspect'],
    (g) => {
      for (const { view } of orgs()) {
        for (const list of ['team', 'channels', 'sessions'] as const) {
          for (const suspect of ['true', 'false'] as const) g.set({ org: view.slug, list, suspect }, 0);
        }
        for (const h of view.heldRemovals ?? []) {
          const list = h.list.startsWith('sessions:') ? 'sessions' : h.list;
          g.inc({ org: view.slug, list, suspect: String(h.suspect) }, h.count);
        }
      }
    },
  );
  collectedGauge(
    registry,
    'tally_sessions_unread_channels',
    'Current channels whose session list has not been read completely yet.',
    ['org'],
    (g) => {
      for (const { view, summary } of orgs()) {
        if (summary.channels) g.set({ org: view.slug }, summary.unreadChannels);
      }
    },
  );
}

function registerBudget(registry: Registry, source: StatusSource): void {
  const budgetGauge = (name: string, help: string, read: (b: ReturnType<StatusSource['budget']>) => number) =>
    collectedGauge(registry, name, help, [], (g) => g.set(read(source.budget())));
  budgetGauge(
    'tally_budget_configured_requests',
    'Requests per 60-second window the config allows (upstream.budget_per_minute).',
    (b) => b.configured,
  );
  budgetGauge(
    'tally_budget_effective_requests',
    'Requests per 60-second window allowed now; lower than configured for a while after a 429.',
    (b) => b.effective,
  );
  budgetGauge('tally_budget_used_requests', 'Requests sent in the last 60 seconds.', (b) => b.usedLastMinute);
  budgetGauge(
    'tally_budget_left_requests',
    'Requests that may still be sent in the current 60-second window.',
    (b) => b.left,
  );
  budgetGauge(
    'tally_budget_paused_until_timestamp_seconds',
    'Until when every request waits for a Retry-After (Unix seconds); 0 when not paused.',
    (b) => (b.pausedUntil > 0 ? seconds(b.pausedUntil) : 0),
  );
  // The limit the budget learned for the address (src/upstream/transport/learned-limit.ts).
  collectedGauge(
    registry,
    'tally_upstream_learned_limit_requests_per_minute',
    'Requests per minute tally allows itself for the address: the configured budget until 429s or the rate-limit fields show the limit is shared or lower; `from` says what taught it.',
    ['from'],
    (g) => {
      const learned = source.budget().learned;
      if (learned !== undefined) g.set({ from: learned.from }, learned.perMinute);
    },
  );
  // Only once the server said it (src/upstream/transport/rate-limit.ts): absent, not 0, before.
  collectedGauge(
    registry,
    'tally_upstream_server_remaining_requests',
    'Requests the API said were left in its rate-limit window, by its last answer that said; `limit` is the limit it said beside them.',
    ['limit'],
    (g) => {
      const server = source.budget().server;
      if (server !== undefined)
        g.set({ limit: server.limit === undefined ? '' : String(server.limit) }, server.remaining);
    },
  );
  collectedGauge(
    registry,
    'tally_budget_queued_requests',
    'Requests waiting for the budget, by priority.',
    ['priority'],
    (g) => {
      const queued = source.budget().queued;
      for (const priority of PRIORITIES) g.set({ priority }, queued[priority]);
    },
  );
}

function registerPlanner(registry: Registry, source: StatusSource): void {
  collectedGauge(
    registry,
    'tally_planner_sweep_bound_seconds',
    "Every channel's sessions are read at least once within this many seconds, by the current plan.",
    [],
    (g) => g.set(seconds(source.plan().sweepBoundMs)),
  );
  collectedGauge(
    registry,
    'tally_planner_stretch_ratio',
    'How much the planner stretched the fixed reads (profile, team, subscription, channel list) to fit the budget (1 = as configured).',
    [],
    (g) => g.set(source.plan().stretch),
  );
  collectedGauge(
    registry,
    'tally_planner_hot_stretch_ratio',
    'How much the planner stretched the hot reads (sessions of hot channels, live-session details) to fit the budget (1 = as configured).',
    [],
    (g) => g.set(source.plan().hotStretch),
  );
  collectedGauge(
    registry,
    'tally_planner_planned_requests',
    'Requests per 60-second budget window the plan gives each purpose (fixed reads, hot reads, sweep, reserve).',
    ['purpose'],
    (g) => {
      const per = source.plan().perMinute;
      for (const purpose of PURPOSES) g.set({ purpose }, per[purpose]);
    },
  );
  collectedGauge(
    registry,
    'tally_planner_spent_requests',
    'Requests sent in the last 60 seconds per org and purpose (channel_list, org_parts, hot, follow_up, sweep, recheck, detail).',
    ['org', 'purpose'],
    (g) => {
      for (const view of source.orgs()) {
        for (const [purpose, n] of Object.entries(view.spend ?? {})) g.set({ org: view.slug, purpose }, n);
      }
    },
  );
  collectedGauge(
    registry,
    'tally_planner_interval_seconds',
    'Interval of each kind of read in the current plan (the configured one, or stretched).',
    ['read'],
    (g) => {
      const iv: PlanIntervals = source.plan().intervals;
      for (const [read, ms] of Object.entries(iv)) g.set({ read }, seconds(ms));
    },
  );
}
