/**
 * Dashboard rows about the fleet as tally sees it: overview, upstream health and
 * freshness, budget and planner.
 */
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { INSTANCE, ORG, stat, stateTimeline, thresholds, timeSeries, valueText } from './panels.js';

const DAY = 86_400;

/** Overview: orgs up, readiness, live channels and sessions, budget left, token expiry. */
export function overview(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('Overview'))
    .withPanel(
      stat({
        title: 'Orgs up',
        description: 'Organizations whose upstream answered the last polls (tally_up), of all watched.',
        width: 4,
        height: 5,
        names: true,
        queries: [
          { expr: `sum(tally_up{${ORG}})`, legend: 'up' },
          { expr: `count(tally_up{${ORG}})`, legend: 'watched' },
        ],
      }),
    )
    .withPanel(
      stat({
        title: 'Ready',
        description: 'Every org had a first complete read of profile, team, subscription and channels.',
        width: 4,
        height: 5,
        mappings: valueText({ 0: ['not ready', 'red'], 1: ['ready', 'green'] }),
        queries: [{ expr: `max by (instance) (tally_ready{${INSTANCE}})`, legend: '{{instance}}' }],
      }),
    )
    .withPanel(
      stat({
        title: 'Live channels',
        description: 'Channels on air now.',
        width: 4,
        height: 5,
        queries: [{ expr: `sum(tally_live_channels{${ORG}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Live sessions',
        description: 'Sessions live now.',
        width: 4,
        height: 5,
        queries: [{ expr: `sum(tally_live_sessions{${ORG}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Budget left',
        description: 'Requests that may still be sent in the current 60 s window, per tally.',
        width: 4,
        height: 5,
        thresholds: thresholds('red', [
          [10, 'orange'],
          [30, 'green'],
        ]),
        queries: [{ expr: `tally_budget_left_requests{${INSTANCE}}`, legend: '{{instance}}' }],
      }),
    )
    .withPanel(
      stat({
        title: 'Token expires in',
        description: 'Time until each org’s API token expires (orgs[].token_expires_at).',
        width: 4,
        height: 5,
        unit: 's',
        names: true,
        thresholds: thresholds('red', [
          [7 * DAY, 'orange'],
          [14 * DAY, 'green'],
        ]),
        queries: [
          { expr: `min by (org) (tally_token_expiry_timestamp_seconds{${ORG}} - time())`, legend: '{{org}}' },
        ],
      }),
    );
}

/** Upstream health per org and freshness of every resource. */
export function health(b: dashboard.DashboardBuilder): void {
  const state = (s: string) => `max by (org) (tally_org_health{${ORG},state="${s}"})`;
  b.withRow(new dashboard.RowBuilder('Upstream health and freshness'))
    .withPanel(
      stateTimeline({
        title: 'Upstream health per org',
        description:
          'ok, unreachable (timeouts, 5xx, network) or auth failed (401/403), from tally_org_health.',
        width: 12,
        mappings: valueText({
          0: ['unknown', 'text'],
          1: ['ok', 'green'],
          2: ['unreachable', 'red'],
          3: ['auth failed', 'purple'],
        }),
        queries: [
          {
            expr: `${state('ok')} + 2 * ${state('unreachable')} + 3 * ${state('auth_failed')}`,
            legend: '{{org}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Data age by resource',
        description: 'Time since each resource was last read completely. Growing lines are stale data.',
        width: 12,
        unit: 's',
        legendTable: true,
        queries: [
          {
            expr: `max by (org, resource) (time() - tally_last_success_timestamp_seconds{${ORG}})`,
            legend: '{{org}} {{resource}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Session sweep: bound and lag',
        description:
          'The planner promises to read every channel’s sessions within the bound; the lag is how old the oldest read is.',
        width: 12,
        unit: 's',
        queries: [
          { expr: `tally_planner_sweep_bound_seconds{${INSTANCE}}`, legend: 'bound {{instance}}' },
          {
            expr: `max by (org) (time() - tally_sessions_oldest_read_timestamp_seconds{${ORG}})`,
            legend: 'lag {{org}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Parts failing',
        description: 'Parts whose last read failed or was incomplete, by resource.',
        width: 12,
        min: 0,
        queries: [
          { expr: `sum by (org, resource) (tally_parts_failing{${ORG}})`, legend: '{{org}} {{resource}}' },
        ],
      }),
    );
}

/** The request budget, 429 pauses and the planner. */
export function budget(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('Request budget and planner'))
    .withPanel(
      timeSeries({
        title: 'Request budget (per 60 s)',
        description:
          'All requests of one tally share this budget; effective drops below configured after a 429.',
        width: 12,
        min: 0,
        queries: [
          { expr: `sum(tally_budget_used_requests{${INSTANCE}})`, legend: 'used' },
          { expr: `sum(tally_budget_left_requests{${INSTANCE}})`, legend: 'left' },
          { expr: `sum(tally_budget_effective_requests{${INSTANCE}})`, legend: 'effective' },
          { expr: `sum(tally_budget_configured_requests{${INSTANCE}})`, legend: 'configured' },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: '429 pauses',
        description:
          'Pauses of every request after a 429, answers with status 429, and time left in a pause.',
        width: 6,
        min: 0,
        queries: [
          {
            expr: `sum(increase(tally_budget_pauses_total{${INSTANCE}}[$__rate_interval]))`,
            legend: 'pauses',
          },
          {
            expr: `sum(increase(tally_upstream_rate_limited_total{${INSTANCE}}[$__rate_interval]))`,
            legend: '429 answers',
          },
          {
            expr: `max(clamp_min(tally_budget_paused_until_timestamp_seconds{${INSTANCE}} - time(), 0))`,
            legend: 'pause left (s)',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Planner stretch',
        description:
          'How much the planner stretched intervals to fit the budget (1 = as configured): hot reads first, the channel list and other fixed reads only when they do not fit either.',
        width: 6,
        queries: [
          { expr: `tally_planner_stretch_ratio{${INSTANCE}}`, legend: 'fixed {{instance}}' },
          { expr: `tally_planner_hot_stretch_ratio{${INSTANCE}}`, legend: 'hot {{instance}}' },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Request rate: planned and actual',
        description: 'The rate the plan gives each purpose, against the requests actually sent.',
        width: 12,
        unit: 'reqps',
        stack: false,
        queries: [
          {
            // The plan is per 60-second budget window; the panel shows requests per second.
            expr: `sum by (purpose) (tally_planner_planned_requests{${INSTANCE}}) / 60`,
            legend: 'plan {{purpose}}',
          },
          { expr: `sum(rate(tally_upstream_requests_total{${INSTANCE}}[$__rate_interval]))`, legend: 'sent' },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Requests waiting for the budget',
        description: 'Queued requests by priority.',
        width: 12,
        min: 0,
        queries: [
          { expr: `sum by (priority) (tally_budget_queued_requests{${INSTANCE}})`, legend: '{{priority}}' },
        ],
      }),
    );
}
