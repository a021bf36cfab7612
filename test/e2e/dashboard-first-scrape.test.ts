/**
 * A calm tally (one org, an API that never fails, nothing sent yet) scraped by a real
 * Prometheus: every dashboard query over a counter or histogram must return data from the
 * first scrapes on, before any failure, retry, drop or alert happened, because tally
 * starts those series at 0. (test/e2e/dashboard.test.ts covers every panel with a busy
 * scenario.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_JSON_PATH } from '../../deploy/grafana/dashboard.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { dashboardPanels, fillVariables } from '../deploy/dashboard-json.js';
import {
  eventually,
  freePort,
  type PrometheusHandle,
  type ScrapedTally,
  startScrapedTally,
} from '../helpers/prometheus.js';

const dashboard = JSON.parse(readFileSync(DASHBOARD_JSON_PATH, 'utf8')) as Record<string, unknown>;
/** Queries over counters and histograms: the series that exist only if tally starts them at 0. */
const counterQueries = dashboardPanels(dashboard).flatMap((p) =>
  p.targets.filter((t) => /_(total|bucket)\{/.test(t.expr)).map((t) => ({ panel: p.title, expr: t.expr })),
);

let sim: Simulator;
let scraped: ScrapedTally;
let prom: PrometheusHandle;
let instance: string;

beforeAll(async () => {
  sim = await startSimulator({ orgs: ['acme'], channels: 3, sessionsPerChannel: 2, seed: 5, frozen: true });
  const closedPort = await freePort();
  scraped = await startScrapedTally({
    prefix: 'first-scrape',
    config: (dir) => `
upstream: { base_url: ${sim.url} }
orgs: [{ slug: acme, token: acme-token }]
state: { dir: ${JSON.stringify(dir)} }
server: { listen: 127.0.0.1:0 }
receivers:
  - name: hook
    webhook: { url: http://127.0.0.1:${closedPort}/hook }
`,
  });
  ({ prom, instance } = scraped);
});

afterAll(async () => {
  await scraped?.stop();
  await sim?.close();
});

describe('the dashboard on a calm tally', () => {
  it('has counter and histogram queries to check', () => {
    expect(counterQueries.length).toBeGreaterThan(10);
  });

  it('returns data for every counter and histogram query from the first scrapes on', async () => {
    // Two scrapes are what rate() and increase() need; nothing has failed by then.
    await eventually(async () => {
      const [target] = await prom.targets();
      if (target?.health !== 'up') throw new Error(`target not up yet: ${JSON.stringify(target)}`);
      const [sample] = await prom.query('count_over_time(up{job="tally"}[1m])');
      if ((sample?.value ?? 0) < 2) throw new Error('fewer than 2 scrapes yet');
    }, 60_000);
    const variables = { instance: instance.replace(/\./g, '\\\\.'), org: 'acme' };
    const empty: string[] = [];
    for (const { panel, expr } of counterQueries) {
      const result = await prom.query(fillVariables(expr, variables));
      if (result.length === 0) empty.push(`${panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
    // And nothing failed: the series are there because they start at 0.
    const [failures] = await prom.query(
      'sum(tally_upstream_request_errors_total) + sum(tally_notification_attempts_failed_total)',
    );
    expect(failures?.value).toBe(0);
  }, 90_000);
});
