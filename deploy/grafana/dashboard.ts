/**
 * tally's Grafana dashboard, as code. `npm run dashboard` writes it to
 * deploy/grafana/tally-dashboard.json, which Grafana provisions; a unit test keeps the two
 * in sync and an e2e test runs every query against a real Prometheus scraping tally.
 */
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE } from './panels.js';
import { changes, channels, subscription } from './rows-content.js';
import { budget, health, overview } from './rows-fleet.js';
import { delivery, itself, upstream } from './rows-system.js';

/** Where the generated dashboard is committed. */
export const DASHBOARD_JSON_PATH = 'deploy/grafana/tally-dashboard.json';

/** The dashboard's uid: links and provisioning refer to it. */
export const DASHBOARD_UID = 'tally-overview';

function variables(b: dashboard.DashboardBuilder): void {
  b.withVariable(
    new dashboard.DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'),
  )
    .withVariable(
      new dashboard.QueryVariableBuilder('instance')
        .label('tally')
        .description('tally replicas (their scrape targets).')
        .datasource(DATASOURCE)
        .query('label_values(tally_build_info, instance)')
        .definition('label_values(tally_build_info, instance)')
        .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
        .sort(dashboard.VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    )
    .withVariable(
      new dashboard.QueryVariableBuilder('org')
        .label('Organization')
        .datasource(DATASOURCE)
        .query('label_values(tally_org_info{instance=~"$instance"}, org)')
        .definition('label_values(tally_org_info{instance=~"$instance"}, org)')
        .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
        .sort(dashboard.VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    );
}

/** Builds tally's dashboard. */
export function buildDashboard(): dashboard.Dashboard {
  const b = new dashboard.DashboardBuilder('tally')
    .uid(DASHBOARD_UID)
    .description('Organizations watched by tally: health, budget, channels, sessions, subscription, changes.')
    .tags(['tally'])
    .editable()
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .timezone('browser')
    // Grafana's own annotations and alerts; Grafana refuses an annotations object without a list.
    .annotation(
      new dashboard.AnnotationQueryBuilder()
        .name('Annotations & Alerts')
        .builtIn(1)
        .type('dashboard')
        .datasource({ type: 'grafana', uid: '-- Grafana --' })
        .enable(true)
        .hide(true)
        .iconColor('rgba(0, 211, 255, 1)'),
    );
  variables(b);
  for (const section of [
    overview,
    health,
    budget,
    channels,
    subscription,
    changes,
    upstream,
    delivery,
    itself,
  ])
    section(b);
  const built = b.build();
  // Grafana needs a unique id per panel; the builder leaves them unset.
  (built.panels ?? []).forEach((p, i) => {
    p.id = i + 1;
  });
  return built;
}

/** The dashboard as the committed JSON file holds it. */
export function renderDashboardJson(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}
