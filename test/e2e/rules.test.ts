/**
 * tally's Prometheus alerting rules (deploy/prometheus/tally-alerts.yml): promtool checks
 * and unit tests, which this tier requires, and the rules loaded into a real Prometheus that
 * scrapes a real tally. Their `for` is cut to 0 so that they fire within seconds; the
 * scenario (a refused token, a token that expires in 10 days, schema drift, a receiver that
 * never answers) must fire exactly the alerts it stands for, every rule must evaluate
 * without error against tally's real series, and every metric a rule reads must be one the
 * real tally exposes (a misspelt name would never fire).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  PROMETHEUS_CONFIG,
  promtool,
  promtoolAvailable,
  RULES_FILE,
  RULES_TEST_FILE,
} from '../deploy/promtool.js';
import { metricNamesIn } from '../deploy/metric-names.js';
import { eventually, freePort, type ScrapedTally, startScrapedTally } from '../helpers/prometheus.js';

interface Alert {
  labels: Record<string, string>;
  state: string;
}

let sim: Simulator;
let scraped: ScrapedTally;
let promUrl: string;

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

/** The rule file as {@link immediateRules} has it, written into `dir`. */
async function writeRules(dir: string): Promise<string[]> {
  const rules = path.join(dir, 'tally-alerts.yml');
  await writeFile(rules, await immediateRules());
  return [rules];
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
  const expires = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  const smtpPort = await freePort();
  scraped = await startScrapedTally({
    prefix: 'rules',
    config: (dir) => `
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
      smtp: { host: 127.0.0.1, port: ${smtpPort}, tls: none }
delivery: { backoff: { base: 1s, max: 1s }, max_attempts: 2 }
`,
    ruleFiles: writeRules,
  });
  promUrl = scraped.prom.url;
});

afterAll(async () => {
  await scraped?.stop();
  await sim?.close();
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
