/**
 * Metric names used by the deployment files (alert rules, dashboard), checked against
 * what docs/metrics.md documents.
 */
import { readFileSync } from 'node:fs';

/** Histogram and summary series suffixes, whose family is the name without them. */
const SERIES_SUFFIX = /_(bucket|sum|count)$/;

/** Every metric name docs/metrics.md writes in backticks. */
export function documentedMetrics(docsPath = 'docs/metrics.md'): Set<string> {
  const text = readFileSync(docsPath, 'utf8');
  return new Set([...text.matchAll(/`((?:tally|process|nodejs)_[a-z0-9_]+)`/g)].map((m) => m[1]!));
}

/** The metric names a PromQL expression reads (tally's, prom-client's process and Node.js ones). */
export function metricNamesIn(promql: string): string[] {
  // Label values and names inside {…} are not metric names.
  const withoutMatchers = promql.replace(/\{[^}]*\}/g, '{}');
  return [
    ...new Set([...withoutMatchers.matchAll(/\b(?:tally|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0])),
  ];
}

/** The family a series name belongs to: `x_bucket` → `x` when `x` is known. */
export function familyOf(name: string, known: ReadonlySet<string>): string {
  const base = name.replace(SERIES_SUFFIX, '');
  return base !== name && known.has(base) ? base : name;
}
