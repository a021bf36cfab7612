/**
 * Writes deploy/kubernetes/prometheusrule.yaml, the Prometheus Operator's PrometheusRule
 * carrying exactly the groups of deploy/prometheus/tally-alerts.yml, so that both ways of
 * running Prometheus get the same alerts (`npm run kube:rules`; a unit test keeps the two
 * in sync).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';

/** The rule file the PrometheusRule is made from. */
export const RULES_PATH = 'deploy/prometheus/tally-alerts.yml';
/** Where the PrometheusRule is committed. */
export const PROMETHEUS_RULE_PATH = 'deploy/kubernetes/prometheusrule.yaml';

/** The PrometheusRule manifest for the rule file's text. */
export function renderPrometheusRule(rulesText: string): string {
  const rules = parse(rulesText) as { groups: unknown[] };
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'tally', namespace: 'tally' },
    spec: { groups: rules.groups },
  };
  return [
    `# Generated from ${RULES_PATH} by \`npm run kube:rules\`: edit the rule file, not this.`,
    '# For the Prometheus Operator; its ruleSelector must match this object (labels).',
    stringify(manifest, { lineWidth: 0 }),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(PROMETHEUS_RULE_PATH, renderPrometheusRule(readFileSync(RULES_PATH, 'utf8')));
  console.log(`wrote ${PROMETHEUS_RULE_PATH}`);
}
