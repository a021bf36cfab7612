import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { READ_FAILING_REASONS } from '../../src/upstream/shape/drift.js';
import { documentedMetrics, familyOf, metricNamesIn } from './metric-names.js';
import { PROMETHEUS_CONFIG, promtool, promtoolAvailable, RULES_FILE, RULES_TEST_FILE } from './promtool.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const groups = (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: Rule[] }[] })
  .groups;
const rules = groups.flatMap((g) => g.rules);
const tests = parse(readFileSync(RULES_TEST_FILE, 'utf8')) as {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
};

const hasPromtool = promtoolAvailable();
if (!hasPromtool)
  console.warn(
    'promtool is not installed (apt-get install prometheus): skipping promtool check/test rules here; the e2e tier runs them',
  );

describe('tally-alerts.yml', () => {
  it('alerts on what an operator of tally must know', () => {
    expect(new Set(rules.map((r) => r.alert))).toEqual(
      new Set([
        'TallyDown',
        'TallyAbsent',
        'TallyNotReady',
        'TallyConfigReloadFailed',
        'TallyStateWriteFailing',
        'TallySeriesDropped',
        'TallyOrgUnreachable',
        'TallyOrgAuthFailed',
        'TallyTokenExpiring',
        'TallyDataStale',
        'TallySweepBehind',
        'TallySchemaDrift',
        'TallyBudgetExhausted',
        'TallyBudgetPaused',
        'TallyRateLimited',
        'TallyOutboxBacklog',
        'TallyNotificationDelayed',
        'TallyNotificationsDropped',
      ]),
    );
  });

  it.each(rules.map((r) => [r.alert!, r] as const))(
    '%s has a severity, a summary and a description',
    (_, rule) => {
      expect(['critical', 'warning', 'info']).toContain(rule.labels?.['severity']);
      expect(rule.annotations?.['summary']).toBeTruthy();
      expect(rule.annotations?.['description']).toBeTruthy();
    },
  );

  it('reads only metrics docs/metrics.md documents, by their exact names', () => {
    const documented = documentedMetrics();
    const unknown = rules
      .flatMap((r) => metricNamesIn(r.expr))
      .map((n) => familyOf(n, documented))
      .filter((n) => !documented.has(n));
    expect(unknown).toEqual([]);
  });

  it("leaves exactly the drift that fails a read to tally's own rule upstream_unreadable", () => {
    const expr = rules.find((r) => r.alert === 'TallySchemaDrift')!.expr;
    const excluded = /reason!~"([^"]+)"/.exec(expr)?.[1]?.split('|');
    expect(new Set(excluded)).toEqual(new Set(READ_FAILING_REASONS));
  });

  it('has a promtool unit test for every alert', () => {
    const tested = new Set(
      tests.tests.flatMap((t) =>
        (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    );
    expect(rules.map((r) => r.alert).filter((a) => !tested.has(a!))).toEqual([]);
  });
});

describe.skipIf(!hasPromtool)('promtool', () => {
  it('checks the rules', async () => {
    const { code, output } = await promtool(['check', 'rules', RULES_FILE]);
    expect(output).toContain('SUCCESS');
    expect(code, output).toBe(0);
  });

  it('passes the rules’ unit tests', async () => {
    const { code, output } = await promtool(['test', 'rules', RULES_TEST_FILE]);
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it('checks the Prometheus config with the rule file', async () => {
    const { code, output } = await promtool(['check', 'config', PROMETHEUS_CONFIG]);
    expect(code, output).toBe(0);
    expect(output).toContain('1 rule files found');
  });
});
