/**
 * Dashboard rows about the machinery: upstream requests, notification delivery and
 * tally itself.
 */
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { INSTANCE, ORG, stat, table, timeSeries, valueText } from './panels.js';

/** Upstream requests: status classes, latency, poll duration, failures, auth failures, drift. */
export function upstream(b: dashboard.DashboardBuilder): void {
  const quantile = (q: number) =>
    `histogram_quantile(${q}, sum by (endpoint, le) (rate(tally_upstream_request_duration_seconds_bucket{${INSTANCE}}[$__rate_interval])))`;
  b.withRow(new dashboard.RowBuilder('Upstream requests'))
    .withPanel(
      timeSeries({
        title: 'Requests by status class',
        description: '`error` means no response came back (timeout, reset, refused).',
        width: 8,
        unit: 'reqps',
        stack: true,
        queries: [
          {
            expr: `sum by (status_class) (rate(tally_upstream_requests_total{${INSTANCE}}[$__rate_interval]))`,
            legend: '{{status_class}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Request latency',
        description: 'From sending a request to the end of its body, per endpoint.',
        width: 8,
        unit: 's',
        queries: [
          { expr: quantile(0.5), legend: 'p50 {{endpoint}}' },
          { expr: quantile(0.95), legend: 'p95 {{endpoint}}' },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Poll duration',
        description: 'p95 of one poll of a resource, paging and retries included.',
        width: 8,
        unit: 's',
        queries: [
          {
            expr: `histogram_quantile(0.95, sum by (resource, le) (rate(tally_poll_duration_seconds_bucket{${ORG}}[$__rate_interval])))`,
            legend: 'p95 {{resource}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Failures and retries by reason',
        description:
          'Failed requests and retries, by reason (timeout, network, http_5xx, rate_limited, auth …).',
        width: 12,
        unit: 'reqps',
        queries: [
          {
            expr: `sum by (reason) (rate(tally_upstream_request_errors_total{${INSTANCE}}[$__rate_interval]))`,
            legend: 'failed {{reason}}',
          },
          {
            expr: `sum by (reason) (rate(tally_upstream_retries_total{${INSTANCE}}[$__rate_interval]))`,
            legend: 'retried {{reason}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Auth failures',
        description: '401/403 answers to an org’s token: the token expired or was revoked.',
        width: 6,
        min: 0,
        queries: [
          {
            expr: `sum by (org) (increase(tally_upstream_auth_failures_total{${ORG}}[$__rate_interval]))`,
            legend: '{{org}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Schema drift',
        description:
          'Responses whose shape differed from what tally reads, by org, endpoint and field (docs/upstream-shapes.md).',
        width: 6,
        min: 0,
        queries: [
          {
            // Only what drifted in the interval (the read-failing series of every org sit at
            // 0 from the start), else 0 per instance: a flat line rather than "no data".
            expr: `sum by (org, endpoint, field) (increase(tally_schema_drift_total{${ORG}}[$__rate_interval]) > 0) or sum by (instance) (tally_build_info{${INSTANCE}}) * 0`,
            legend: '{{org}} {{endpoint}} {{field}}',
          },
        ],
      }),
    );
}

/** Notification delivery: outbox, sent/failed/dropped, attempt duration. */
export function delivery(b: dashboard.DashboardBuilder): void {
  const byReceiver = (metric: string, extra = '') =>
    `sum by (receiver${extra}) (increase(${metric}{${INSTANCE}}[$__rate_interval]))`;
  b.withRow(new dashboard.RowBuilder('Notification delivery'))
    .withPanel(
      timeSeries({
        title: 'Outbox depth',
        description: 'Notifications waiting in the durable outbox, per receiver.',
        width: 6,
        min: 0,
        queries: [
          { expr: `sum by (receiver) (tally_delivery_queue_depth{${INSTANCE}})`, legend: '{{receiver}}' },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Oldest pending notification',
        description: 'Age of each receiver’s oldest undelivered notification (0 when none waits).',
        width: 6,
        unit: 's',
        min: 0,
        queries: [
          {
            expr: `max by (receiver) (tally_delivery_oldest_pending_age_seconds{${INSTANCE}})`,
            legend: '{{receiver}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Notifications sent, failed, dropped',
        description:
          'Acknowledged by the receiver; attempts that failed (and are retried); given up on for good, by reason.',
        width: 6,
        min: 0,
        queries: [
          { expr: byReceiver('tally_notifications_sent_total'), legend: 'sent {{receiver}}' },
          {
            expr: byReceiver('tally_notification_attempts_failed_total', ', reason'),
            legend: 'failed {{receiver}} {{reason}}',
          },
          {
            expr: byReceiver('tally_notifications_dropped_total', ', reason'),
            legend: 'dropped {{receiver}} {{reason}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Delivery attempt duration',
        description: 'p95 of one delivery attempt, successful or not, per receiver.',
        width: 6,
        unit: 's',
        queries: [
          {
            expr: `histogram_quantile(0.95, sum by (receiver, le) (rate(tally_notification_attempt_duration_seconds_bucket{${INSTANCE}}[$__rate_interval])))`,
            legend: 'p95 {{receiver}}',
          },
        ],
      }),
    );
}

/** tally itself: config reload, state writes, dropped series, memory, build. */
export function itself(b: dashboard.DashboardBuilder): void {
  b.withRow(new dashboard.RowBuilder('tally itself'))
    .withPanel(
      stat({
        title: 'Config reload',
        description: 'Whether the last config (re)load succeeded; a failed reload keeps the running config.',
        width: 6,
        mappings: valueText({ 0: ['failed', 'red'], 1: ['ok', 'green'] }),
        queries: [{ expr: `tally_config_last_reload_successful{${INSTANCE}}`, legend: '{{instance}}' }],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'State and series',
        description: 'Failed writes to the state directory, and series left out by the cardinality caps.',
        width: 6,
        min: 0,
        queries: [
          {
            // 0 per instance while nothing failed, so a flat line rather than "no data".
            expr: `sum by (instance) (increase(tally_state_write_failures_total{${INSTANCE}}[$__rate_interval])) or sum by (instance) (tally_build_info{${INSTANCE}}) * 0`,
            legend: 'write failures {{instance}}',
          },
          {
            expr: `sum by (family) (increase(tally_series_dropped_total{${INSTANCE}}[$__rate_interval]))`,
            legend: 'dropped {{family}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeries({
        title: 'Process memory',
        description: 'Resident memory and used heap of each tally process.',
        width: 6,
        unit: 'bytes',
        queries: [
          { expr: `process_resident_memory_bytes{${INSTANCE}}`, legend: 'rss {{instance}}' },
          { expr: `nodejs_heap_size_used_bytes{${INSTANCE}}`, legend: 'heap {{instance}}' },
        ],
      }),
    )
    .withPanel(
      table({
        title: 'Build',
        description: 'tally version and Node.js version per instance.',
        width: 6,
        queries: [{ expr: `tally_build_info{${INSTANCE}}`, table: true }],
      }),
    );
}
