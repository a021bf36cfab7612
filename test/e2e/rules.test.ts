/**
 * tally's Prometheus alerting rules (deploy/prometheus/tally-alerts.yml): promtool checks
 * and unit tests, which this tier requires, and the rules loaded into a real Prometheus that
 * scrapes a real tally. Their `for` is cut to 0 so that they fire within seconds; the
 * scenario (a refused token, a token that expires in 10 days, schema drift, a receiver that
 * never answers) must fire exactly the alerts it stands for, every rule must evaluate
 * without error against tally's real series, and every metric a rule reads must be one the
 * real tally exposes (a misspelt name would never fire).
 */
import { Registry } from 'prom-client';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { App } from '../../src/app/app.js';
import { systemClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  PROMETHEUS_CONFIG,
  promtool,
  promtoolAvailable,
  RULES_FILE,
  RULES_TEST_FILE,
} from '../deploy/promtool.js';
import { metricNamesIn } from '../deploy/metric-names.js';
import { eventually, freePort, prometheusBinary, prometheusConfig } from './harness/prometheus.js';

interface Alert {
  labels: Record<string, string>;
  state: string;
}

let sim: Simulator;
let app: App;
let dir: string;
let promUrl: string;
let prometheus: ChildProcess | undefined;
let promOutput = '';

/** The rules of the rule file, as written. */
async function ruleFile(): Promise<{ alert?: string; expr: string }[]> {
  const doc = parse(await readFile(RULES_FILE, 'utf8')) as {
    groups: { rules: { alert?: string; expr: string }[] }[];
  };
  return doc.groups.flatMap((g) => g.rules);
}

/** The rule file with every `for` cut to 0s, so that conditions fire at the next evaluation. */
async function immediateRules(): Promise<string> {
  const doc = parse(await readFile(RULES_FILE, 'utf8')) as { groups: { rules: { for?: string }[] }[] };
  for (const g of doc.groups) for (const r of g.rules) if (r.for) r.for = '0s';
  return stringify(doc);
}

async function startPrometheus(target: string): Promise<void> {
  const rules = path.join(dir, 'tally-alerts.yml');
  await writeFile(rules, await immediateRules());
  const config = prometheusConfig([{ job: 'tally', url: target }], 1).replace(
    'scrape_configs:',
    `  evaluation_interval: 1s\nrule_files: [${JSON.stringify(rules)}]\nscrape_configs:`,
  );
  await writeFile(path.join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    prometheusBinary(),
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout?.on('data', (d: Buffer) => (promOutput += d.toString()));
  prometheus.stderr?.on('data', (d: Buffer) => (promOutput += d.toString()));
  await eventually(async () => {
    if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${promOutput}`);
    const res = await fetch(`${promUrl}/-/ready`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`prometheus not ready: ${res.status}`);
  });
}

async function api<T>(route: string): Promise<T> {
  const res = await fetch(`${promUrl}/api/v1/${route}`);
  const body = (await res.json()) as { status: string; data: T };
  if (body.status !== 'success') throw new Error(`${route}: ${JSON.stringify(body)}`);
  return body.data;
}

async function firing(): Promise<Alert[]> {
  const { alerts } = await api<{ alerts: Alert[] }>('alerts');
  return alerts.filter((a) => a.state === 'firing');
}

beforeAll(async () => {
  if (!promtoolAvailable()) throw new Error('promtool is not on PATH (apt-get install prometheus)');
  sim = await startSimulator({
    orgs: ['acme', 'beta'],
    channels: 3,
    sessionsPerChannel: 2,
    seed: 5,
    frozen: true,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-e2e-rules-'));
  const expires = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  const loaded = await parseConfig(
    `
upstream:
  base_url: ${sim.url}
  shape:
    fields: { 'session.endedAt': [title] }
orgs:
  - slug: acme
    token: acme-token
    token_expires_at: ${expires}
  - slug: beta
    token: not-the-token
intervals: { org: 2s, team: 2s, subscription: 2s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 3s, jitter: 0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
server: { listen: 127.0.0.1:0 }
rules:
  - name: upstream_auth_failed
    for_each: org
    when: 'upstream.state == "auth_failed"'
route: { receiver: mail, group_wait: 1s }
receivers:
  - name: mail
    email:
      to: [ops@example.com]
      from: tally@example.com
      smtp: { host: 127.0.0.1, port: ${await freePort()}, tls: none }
delivery: { backoff: { base: 1s, max: 1s }, max_attempts: 2 }
`,
    { source: 'e2e.yaml', env: {}, baseDir: dir },
  );
  app = App.create(loaded, {
    registry: new Registry(),
    clock: systemClock,
    logger: silentLogger(),
    console: new PassThrough().resume(),
  });
  await app.start();
  await startPrometheus(new URL(app.url()!).origin);
});

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await app?.stop(5_000);
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('promtool on deploy/prometheus', () => {
  it.each([
    ['check rules', ['check', 'rules', RULES_FILE]],
    ['test rules', ['test', 'rules', RULES_TEST_FILE]],
    ['check config', ['check', 'config', PROMETHEUS_CONFIG]],
  ])('%s passes', async (_, args) => {
    const { code, output } = await promtool(args);
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });
});

describe('the rules in a real Prometheus scraping tally', () => {
  it('fire for what the scenario breaks, and only for that', async () => {
    const want = [
      'TallyOrgAuthFailed beta',
      'TallyTokenExpiring acme warning',
      'TallySchemaDrift',
      'TallyNotificationsDropped mail',
    ];
    const label = (a: Alert) =>
      [a.labels['alertname'], a.labels['org'], a.labels['receiver'], a.labels['severity']]
        .filter(Boolean)
        .join(' ');
    const alerts = await eventually(
      async () => {
        const now = await firing();
        const seen = now.map(label);
        const missing = want.filter((w) => !seen.some((s) => s.startsWith(w)));
        if (missing.length > 0)
          throw new Error(`not firing yet: ${missing.join(', ')}; firing: ${seen.join(', ')}`);
        return now;
      },
      60_000,
      500,
    );
    const names = new Set(alerts.map((a) => a.labels['alertname']));
    for (const quiet of [
      'TallyDown',
      'TallyAbsent',
      'TallyOrgUnreachable',
      'TallyConfigReloadFailed',
      'TallyStateWriteFailing',
    ])
      expect(names, quiet).not.toContain(quiet);
    // Only the refused org is reported, and its token does not expire within 3 days.
    expect(
      alerts.filter((a) => a.labels['alertname'] === 'TallyOrgAuthFailed').map((a) => a.labels['org']),
    ).toEqual(['beta']);
    expect(
      alerts.some(
        (a) => a.labels['alertname'] === 'TallyTokenExpiring' && a.labels['severity'] === 'critical',
      ),
    ).toBe(false);
    // The drift is the alias that does not fit.
    expect(alerts.find((a) => a.labels['alertname'] === 'TallySchemaDrift')?.labels).toMatchObject({
      endpoint: 'sessions',
      field: 'session.endedAt',
    });
  });

  it('evaluate every rule without error against tally’s series', async () => {
    const { groups } = await api<{
      groups: { rules: { name: string; health: string; lastError?: string }[] }[];
    }>('rules');
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.length).toBe((await ruleFile()).length);
    expect(
      rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`),
    ).toEqual([]);
  });

  it('read only metric families the real tally exposes', async () => {
    // Prometheus keeps the metadata (# HELP, # TYPE) of every family it scraped, also of
    // labelled counters that have no series yet. tally answers Prometheus in OpenMetrics,
    // where a family is named without its series suffix (`_total`, `_info`, `_bucket` …).
    const families = await eventually(async () => {
      const names = new Set(Object.keys(await api<Record<string, unknown[]>>('metadata')));
      if (!names.has('tally_build')) throw new Error(`no metadata from tally yet: ${[...names].join(' ')}`);
      return names;
    });
    const familyOf = (series: string) => {
      const base = series.replace(/_(total|info|bucket|sum|count|created)$/, '');
      return families.has(series) ? series : base;
    };
    const read = [...new Set((await ruleFile()).flatMap((r) => metricNamesIn(r.expr)))];
    expect(read.length).toBeGreaterThan(10);
    expect(read.filter((n) => !families.has(familyOf(n)))).toEqual([]);
  });
});
