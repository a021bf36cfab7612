/**
 * Makes docs/images/dashboard-*.png: a real Prometheus scrapes a real tally polling the
 * simulator (the scenario of test/e2e/dashboard.test.ts, with faults so that every
 * photographed panel has lines) for a few minutes, then headless Chromium photographs
 * three of the Grafana dashboard's panel queries on Prometheus' own graph page over that
 * range. `npm run screenshots:dashboard` (TALLY_SHOTS_MINUTES, default 4; TALLY_SHOTS_DIR,
 * default docs/images).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { chromium } from 'playwright-core';
import { Registry } from 'prom-client';
import { DASHBOARD_JSON_PATH } from '../../deploy/grafana/dashboard.js';
import { App } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { startSimulator } from '../../src/sim/index.js';
import { dashboardPanels, fillVariables } from '../deploy/dashboard-json.js';
import { freePort, startPrometheus } from '../helpers/prometheus.js';
import { CHROMIUM } from './harness/tools.js';

/** Panels photographed, and the file each goes to. */
const SHOTS: Record<string, string> = {
  'Changes by kind': 'dashboard-changes-by-kind.png',
  'Requests by status class': 'dashboard-requests-by-status-class.png',
  'Failures and retries by reason': 'dashboard-failures-by-reason.png',
};

const minutes = Number(process.env['TALLY_SHOTS_MINUTES'] ?? '4');
const dir = process.env['TALLY_SHOTS_DIR'] ?? 'docs/images';
const panels = dashboardPanels(
  JSON.parse(readFileSync(DASHBOARD_JSON_PATH, 'utf8')) as Record<string, unknown>,
);

const sim = await startSimulator({
  orgs: [{ slug: 'acme', funding: 'wallet' }, 'beta'],
  channels: 8,
  sessionsPerChannel: 3,
  seed: 11,
  faults: [{ path: '/team$', errorRate: 0.3 }],
});
const stateDir = await mkdtemp(path.join(tmpdir(), 'tally-shots-'));
const loaded = await parseConfig(
  `
upstream:
  base_url: ${sim.url}
  window: { past: 3650d, future: 3650d }
orgs:
  - slug: acme
    token: acme-token
  - slug: beta
    token: not-the-token
intervals: { org: 5s, team: 5s, subscription: 5s, channels: 2s, live_sessions: 2s, live_detail: 2s, sweep: 5s }
state: { dir: ${JSON.stringify(stateDir)} }
server: { listen: 127.0.0.1:0 }
receivers:
  - name: mail
    email: { to: [ops@example.com], from: tally@example.com, smtp: { host: 127.0.0.1, port: ${await freePort()}, tls: none } }
route: { receiver: mail }
`,
  { source: 'shots.yaml', env: {}, baseDir: stateDir },
);
const app = App.create(loaded, {
  registry: new Registry(),
  clock: systemClock,
  logger: silentLogger(),
  console: new PassThrough().resume(),
});
await app.start();
const origin = new URL(app.url()!);
const prom = await startPrometheus({ targets: [{ job: 'tally', url: origin.origin }], intervalSeconds: 5 });
try {
  process.stdout.write(`collecting for ${minutes} min: tally ${origin.origin}, prometheus ${prom.url}\n`);
  await new Promise((r) => setTimeout(r, minutes * 60_000));
  await mkdir(dir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1250 } });
    const vars = { instance: origin.host.replace(/\./g, '\\\\.'), org: '(acme|beta)' };
    for (const [title, file] of Object.entries(SHOTS)) {
      const panel = panels.find((p) => p.title === title);
      if (!panel) throw new Error(`no panel "${title}" in the dashboard`);
      const expr = fillVariables(panel.targets[0]!.expr, vars);
      await page.goto(
        `${prom.url}/classic/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=0&g0.range_input=${Math.round(minutes * 60)}s`,
      );
      const deadline = Date.now() + 20_000;
      while (!/Total time series: [1-9]/.test(await page.innerText('body'))) {
        if (Date.now() > deadline) {
          await page.screenshot({ path: path.join(dir, `failed-${file}`) });
          throw new Error(`${title}: the graph drew no series (failed-${file})`);
        }
        await page.waitForTimeout(250);
      }
      await page.waitForTimeout(2_000);
      await page.screenshot({ path: path.join(dir, file) });
      process.stdout.write(`wrote ${path.join(dir, file)}\n`);
    }
  } finally {
    await browser.close();
  }
} finally {
  await prom.stop();
  await app.stop(5_000);
  await sim.close();
  await rm(stateDir, { recursive: true, force: true });
}
