/**
 * Every metric family tally registers is documented in docs/metrics.md by its exact name
 * (docs/architecture.md, "Add a metric"), and the docs name no family tally does not make.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PromDeliveryMetrics } from '../../src/metrics/delivery-metrics.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { StateMetrics } from '../../src/metrics/state-metrics.js';
import { documentedMetrics } from '../deploy/metric-names.js';
import { FakeSource } from './fixtures.js';

/** Every family the daemon registers, built as src/app/app.ts builds them. */
function registeredFamilies(): string[] {
  const registry = new Registry();
  new TallyMetrics({ registry, source: new FakeSource([]) });
  new PromDeliveryMetrics(registry);
  new StateMetrics(registry, { writable: () => true, missing: () => 0 });
  return registry.getMetricsAsArray().map((m) => m.name);
}

describe('docs/metrics.md', () => {
  it('documents every family tally registers', () => {
    const families = registeredFamilies().filter((n) => n.startsWith('tally_'));
    expect(families.length).toBeGreaterThan(40);
    const documented = documentedMetrics();
    expect(families.filter((n) => !documented.has(n))).toEqual([]);
  });

  it('names no family of tally that tally does not register', () => {
    const families = new Set(registeredFamilies());
    const stray = [...documentedMetrics()].filter(
      (n) =>
        n.startsWith('tally_') && !families.has(n.replace(/_(bucket|sum|count)$/, '')) && !families.has(n),
    );
    expect(stray).toEqual([]);
  });
});
