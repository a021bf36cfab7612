import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_JSON_PATH, DASHBOARD_UID, renderDashboardJson } from '../../deploy/grafana/dashboard.js';
import { dashboardPanels, dashboardVariables } from './dashboard-json.js';
import { documentedMetrics, familyOf, metricNamesIn } from './metric-names.js';

const committed = readFileSync(DASHBOARD_JSON_PATH, 'utf8');
const dashboard = JSON.parse(committed) as Record<string, unknown>;
const panels = dashboardPanels(dashboard);

describe('the Grafana dashboard', () => {
  it('is committed as the builder makes it (run `npm run dashboard`)', () => {
    expect(committed).toBe(renderDashboardJson());
  });

  it('has a stable uid and unique panel ids and titles', () => {
    expect(dashboard['uid']).toBe(DASHBOARD_UID);
    const all = (dashboard['panels'] as { id: number; title: string }[]) ?? [];
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    expect(new Set(panels.map((p) => p.title)).size).toBe(panels.length);
    expect(panels.length).toBeGreaterThan(25);
  });

  it('queries the dashboard data source with the dashboard variables only', () => {
    const variables = new Set(dashboardVariables(dashboard).map((v) => v.name));
    expect([...variables].sort()).toEqual(['datasource', 'instance', 'org']);
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const t of panel.targets) {
        const used = [...t.expr.matchAll(/\$(?!__)(\w+)/g)].map((m) => m[1]!);
        for (const name of used) expect(variables, `${panel.title}: $${name}`).toContain(name);
        // Every panel is scoped to the selected tally instances.
        expect(t.expr, panel.title).toContain('instance=~"$instance"');
      }
    }
  });

  it('covers what operators look at', () => {
    const text = panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const metric of [
      'tally_up',
      'tally_ready',
      'tally_budget_used_requests',
      'tally_budget_left_requests',
      'tally_budget_pauses_total',
      'tally_planner_sweep_bound_seconds',
      'tally_channels',
      'tally_live_sessions',
      'tally_channel_status',
      'tally_sessions',
      'tally_session_questions',
      'tally_team_members',
      'tally_subscription_usage_ratio',
      'tally_ai_wallet_balance',
      'tally_ai_funding_mode',
      'tally_changes_total',
      'tally_upstream_requests_total',
      'tally_upstream_request_duration_seconds_bucket',
      'tally_schema_drift_total',
      'tally_delivery_queue_depth',
      'tally_delivery_oldest_pending_age_seconds',
      'tally_notifications_sent_total',
      'tally_notification_attempts_failed_total',
      'tally_notifications_dropped_total',
    ])
      expect(text).toContain(metric);
  });

  it('uses only metrics docs/metrics.md documents', () => {
    const documented = documentedMetrics();
    const unknown = panels
      .flatMap((p) => p.targets.flatMap((t) => metricNamesIn(t.expr)))
      .map((n) => familyOf(n, documented))
      .filter((n) => !documented.has(n));
    expect([...new Set(unknown)]).toEqual([]);
  });
});
