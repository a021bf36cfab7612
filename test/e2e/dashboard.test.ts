/**
 * Every query of the Grafana dashboard (deploy/grafana/tally-dashboard.json), run against a
 * real Prometheus scraping a real tally that polls the simulator, must return data. The
 * scenario makes the rarer panels have something to show: a second org whose token is
 * refused (auth failures), a flaky team endpoint (errors and retries), a field alias that
 * does not fit (schema drift), a wallet-funded org, a token with an expiry, a live session
 * with questions, reactions, speakers and announcements, and an e-mail receiver nobody
 * answers (failed attempts, then dropped notifications).
 *
 * It also photographs a few panels' queries on Prometheus' graph page with headless
 * Chromium: into a temporary directory, or into TALLY_SHOTS_DIR. (The pictures in
 * docs/operations.md need minutes of data: `npm run screenshots:dashboard`,
 * test/e2e/dashboard-shots.ts.)
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_JSON_PATH } from '../../deploy/grafana/dashboard.js';
import { CHROMIUM, hasChromium, needs } from './harness/tools.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { dashboardPanels, dashboardVariables, fillVariables } from '../deploy/dashboard-json.js';
import {
  eventually,
  freePort,
  type PrometheusHandle,
  type ScrapedTally,
  startScrapedTally,
} from '../helpers/prometheus.js';

const dashboard = JSON.parse(readFileSync(DASHBOARD_JSON_PATH, 'utf8')) as Record<string, unknown>;
const panels = dashboardPanels(dashboard);

let sim: Simulator;
let scraped: ScrapedTally;
let prom: PrometheusHandle;
let instance: string;

async function control(route: string, body: Record<string, unknown>): Promise<{ id?: string }> {
  const res = await fetch(`${sim.url}/_sim/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ org: 'acme', ...body }),
  });
  if (!res.ok) throw new Error(`POST /_sim/${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id?: string };
}

beforeAll(async () => {
  sim = await startSimulator({
    orgs: [{ slug: 'acme', funding: 'wallet' }, 'beta'],
    channels: 5,
    sessionsPerChannel: 3,
    seed: 11,
    frozen: true,
    faults: [{ path: '/team$', errorRate: 0.3 }],
  });
  // A live session with something in it, before tally's first look.
  const channel = (sim.view('acme').channels as unknown as { id: string }[])[0]!.id;
  const { id: session } = await control('start-session', { channel, title: 'Morning show' });
  await control('add-question', { session, text: 'Why?' });
  await control('add-reaction', { session, kind: 'clap', count: 3 });
  await control('add-speaker', { session, name: 'Ada' });
  await control('add-announcement', { session, text: 'Welcome' });

  const closedSmtpPort = await freePort();
  scraped = await startScrapedTally({
    prefix: 'dashboard',
    config: (stateDir) => `
upstream:
  base_url: ${sim.url}
  window: { past: 3650d, future: 3650d }
  shape:
    # No such field: scheduled sessions have no ended_at, so tally reports drift.
    fields: { 'session.endedAt': [title] }
orgs:
  - slug: acme
    token: acme-token
    token_expires_at: 2030-01-01
  - slug: beta
    token: not-the-token
intervals: { org: 2s, team: 2s, subscription: 2s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 3s, jitter: 0 }
state: { dir: ${JSON.stringify(stateDir)} }
server: { listen: 127.0.0.1:0 }
rules:
  - name: upstream_auth_failed
    for_each: org
    when: 'upstream.state == "auth_failed"'
    severity: critical
route:
  receiver: mail
  group_by: [org, alertname]
  group_wait: 1s
receivers:
  - name: mail
    email:
      to: [ops@example.com]
      from: tally@example.com
      smtp: { host: 127.0.0.1, port: ${closedSmtpPort}, tls: none }
delivery: { backoff: { base: 1s, max: 1s }, max_attempts: 2 }
`,
  });
  ({ prom, instance } = scraped);
});

afterAll(async () => {
  await scraped?.stop();
  await sim?.close();
});

/** What Grafana sends for the dashboard's variables: a single instance, both orgs selected. */
function variables(): Record<string, string> {
  return { instance: instance.replace(/\./g, '\\\\.'), org: '(acme|beta)' };
}

describe('the Grafana dashboard against a real Prometheus', () => {
  it('has variables that list the tally instance and both orgs', async () => {
    await eventually(async () => {
      const [target] = await prom.targets();
      if (target?.health !== 'up') throw new Error(`target not up yet: ${JSON.stringify(target)}`);
    });
    for (const v of dashboardVariables(dashboard).filter((v) => v.type === 'query')) {
      const m = /^label_values\((.+), (\w+)\)$/.exec(String(v.query));
      expect(m, String(v.query)).not.toBeNull();
      const selector = fillVariables(m![1]!, { instance: '.*' });
      const values = await eventually(async () => {
        const res = await fetch(
          `${prom.url}/api/v1/label/${m![2]}/values?match[]=${encodeURIComponent(selector)}`,
        );
        const body = (await res.json()) as { data: string[] };
        if (body.data.length === 0) throw new Error(`${v.name}: no values yet`);
        return body.data;
      });
      expect(values, v.name).toEqual(v.name === 'instance' ? [instance] : ['acme', 'beta']);
    }
  });

  it('returns data for every query of every panel', async () => {
    const queries = panels.flatMap((p) =>
      p.targets.map((t) => ({ panel: p.title, expr: fillVariables(t.expr, variables()) })),
    );
    expect(queries.length).toBeGreaterThan(40);
    const failures: string[] = [];
    await Promise.all(
      queries.map(async ({ panel, expr }) => {
        try {
          await eventually(
            async () => {
              const result = await prom.query(expr);
              if (result.length === 0) throw new Error('no data');
            },
            60_000,
            500,
          );
        } catch (err) {
          failures.push(`${panel}: ${expr}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  /** Panels whose queries are photographed, and the file each goes to. */
  const SHOTS: Record<string, string> = {
    'Changes by kind': 'dashboard-changes-by-kind.png',
    'Requests by status class': 'dashboard-requests-by-status-class.png',
    'Failures and retries by reason': 'dashboard-failures-by-reason.png',
  };
  it.skipIf(!needs(hasChromium(), `Chromium (${CHROMIUM})`, 'apt-get install chromium'))(
    "draws panels' data on Prometheus' graph page (screenshots)",
    async () => {
      const dir =
        process.env['TALLY_SHOTS_DIR'] ?? (await mkdtemp(path.join(tmpdir(), 'tally-dashboard-shots-')));
      await mkdir(dir, { recursive: true });
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
        for (const [title, file] of Object.entries(SHOTS)) {
          const panel = panels.find((p) => p.title === title);
          expect(panel, title).toBeDefined();
          const expr = fillVariables(panel!.targets[0]!.expr, variables());
          // Debian's Prometheus serves the classic UI; the graph page takes the query in its URL.
          await page.goto(
            `${prom.url}/classic/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=0&g0.range_input=2m`,
          );
          const series = await eventually(async () => {
            const m = /Total time series: (\d+)/.exec(await page.innerText('body'));
            if (!m) throw new Error(`${title}: the graph has not drawn yet`);
            return Number(m[1]);
          }, 20_000);
          expect(series, `${title}: series drawn`).toBeGreaterThan(0);
          // The legend and the count come before the plot is drawn.
          await page.waitForTimeout(1_000);
          const out = path.join(dir, file);
          await page.screenshot({ path: out });
          const png = await readFile(out);
          expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
          expect(png.readUInt32BE(16)).toBe(1200);
        }
      } finally {
        await browser.close();
        if (!process.env['TALLY_SHOTS_DIR']) await rm(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
