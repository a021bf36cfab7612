/**
 * Dashboard rows about what the orgs hold: channels, sessions, team, subscription,
 * changes.
 */
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { barGauge, ORG, stat, stateTimeline, table, thresholds, timeSeries, valueText } from './panels.js';

/** Channels and sessions: statuses, an on-air timeline, live sessions and their interactions. */
export function channels(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('Channels and sessions'))
    .withPanel(
      timeSeries({
        title: 'Channels by status',
        description: 'From the last complete channel list of each org.',
        width: 12,
        stack: true,
        min: 0,
        queries: [{ expr: `sum by (status) (tally_channels{${ORG}})`, legend: '{{status}}' }],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Sessions by status',
        description: 'Sessions in the window (upstream.window) by status.',
        width: 12,
        stack: true,
        min: 0,
        queries: [{ expr: `sum by (status) (tally_sessions{${ORG}})`, legend: '{{status}}' }],
      }),
    )
    .withPanel(
      stateTimeline({
        title: 'Channel on air',
        description:
          'Per channel: live or not, from tally_channel_status (one series per channel, its current status).',
        width: 24,
        height: 10,
        mappings: valueText({ 0: ['not live', 'transparent'], 1: ['live', 'green'] }),
        queries: [
          {
            // Only the current status is exported: a channel in any other status counts as 0.
            // `live` follows tally's live words (`on_air`, `streaming` …), not one spelling.
            expr: `max by (channel) (tally_channel_status{${ORG},live="true"} or tally_channel_status{${ORG}} * 0)`,
            legend: '{{channel}}',
          },
        ],
      }),
    )
    .withPanel(
      table({
        title: 'Channel status now',
        description: 'Every channel with its current status.',
        width: 12,
        height: 10,
        queries: [
          {
            expr: `max by (org, channel_id, channel, status) (tally_channel_status{${ORG}}) == 1`,
            table: true,
          },
        ],
      }),
    )
    .withPanel(
      table({
        title: 'Live sessions now',
        description: 'Sessions live now, with their channel (titles are in /api/v1/status).',
        width: 12,
        height: 10,
        queries: [
          {
            expr: `max by (org, channel, session_id) (tally_live_session_info{${ORG}})`,
            table: true,
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Interactions of live sessions',
        description:
          'Questions, reactions, speakers and announcements of each live session, as the API counts them.',
        width: 24,
        height: 10,
        legendTable: true,
        min: 0,
        queries: (['questions', 'reactions', 'speakers', 'announcements'] as const).map((kind) => ({
          expr: `tally_session_${kind}{${ORG}} * on (instance, org, session_id) group_left (channel) tally_live_session_info{${ORG}}`,
          legend: `${kind}: {{channel}} · {{session_id}}`,
        })),
      }),
    );
}

/** Team by role, subscription usage, AI wallet and funding mode. */
export function subscription(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('Team, subscription and AI funding'))
    .withPanel(
      barGauge({
        title: 'Team by role',
        description: 'Members by role, from the last team read.',
        width: 6,
        queries: [{ expr: `sum by (role) (tally_team_members{${ORG}})`, legend: '{{role}}' }],
      }),
    )
    .withPanel(
      barGauge({
        title: 'Subscription usage',
        description: 'Usage ÷ limit for each limit of the plan (1 = at the limit).',
        width: 6,
        unit: 'percentunit',
        min: 0,
        max: 1,
        thresholds: thresholds('green', [
          [0.8, 'orange'],
          [0.9, 'red'],
        ]),
        queries: [
          {
            expr: `max by (org, limit) (tally_subscription_usage_ratio{${ORG}})`,
            legend: '{{org}} {{limit}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'AI wallet balance',
        description: 'Balance of wallet-funded orgs.',
        width: 6,
        queries: [
          {
            expr: `max by (org, currency) (tally_ai_wallet_balance{${ORG}})`,
            legend: '{{org}} ({{currency}})',
          },
        ],
      }),
    )
    .withPanel(
      stat({
        title: 'AI funding mode',
        description: 'How each org pays for AI: wallet, byok (own key) or unknown.',
        width: 6,
        names: true,
        queries: [
          { expr: `max by (org, mode) (tally_ai_funding_mode{${ORG}}) == 1`, legend: '{{org}}: {{mode}}' },
        ],
      }),
    );
}

/** Change events by kind. */
export function changes(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('Changes')).withPanel(
    timeSeries({
      title: 'Changes by kind',
      description: 'Change events detected (docs/events.md), per kind.',
      width: 24,
      bars: true,
      stack: true,
      legendTable: true,
      queries: [
        {
          expr: `sum by (kind) (increase(tally_changes_total{${ORG}}[$__rate_interval]))`,
          legend: '{{kind}}',
        },
      ],
    }),
  );
}
