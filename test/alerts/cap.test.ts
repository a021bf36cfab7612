/**
 * A notification carries at most 100 alerts, firing ones first, and counts the others in
 * its payloads and a metric (docs/alerts.md, "Bounds").
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { capAlerts, MAX_ALERTS_PER_NOTIFICATION } from '../../src/alerts/cap.js';
import type { Alert } from '../../src/alerts/types.js';
import { silentLogger } from '../../src/core/log.js';
import { PromDeliveryMetrics } from '../../src/metrics/delivery-metrics.js';
import { DeliveryWorker } from '../../src/notify/delivery.js';
import type { Notifier } from '../../src/notify/notifier.js';
import type { DeliveryItem } from '../../src/notify/outbox.js';
import { templateContext } from '../../src/notify/template-context.js';
import { alertmanagerWebhookPayload, tallyPayload } from '../../src/notify/webhook/payload.js';
import { ManualClock } from '../helpers/clock.js';
import { firingAlert, firingNotification } from '../notify/helpers/fixtures.js';
import { MemoryOutbox } from '../notify/helpers/memory-outbox.js';
import { parseSamples, value } from '../metrics/parse.js';
import { engine, event, HOUR, MIN, tickFor } from './helpers.js';

function storm(firing: number, resolved: number) {
  const alerts: Alert[] = [];
  for (let i = 0; i < resolved; i++) alerts.push({ ...firingAlert(`r${i}`), state: 'resolved', endsAt: 1 });
  for (let i = 0; i < firing; i++) alerts.push(firingAlert(`f${i}`));
  return firingNotification({ alerts });
}

describe('capAlerts', () => {
  it('leaves a notification within the bound as it is', () => {
    const n = storm(60, 40);
    expect(capAlerts(n)).toBe(n);
  });

  it('keeps the first 100, firing first, and counts the others by state', () => {
    const n = capAlerts(storm(70_000, 2));
    expect(n.alerts).toHaveLength(MAX_ALERTS_PER_NOTIFICATION);
    expect(n.alerts.every((a) => a.state === 'firing')).toBe(true);
    expect(n.truncated).toEqual({ firing: 69_900, resolved: 2 });
    expect(JSON.stringify(tallyPayload(n)).length).toBeLessThan(100_000);
  });

  it('says what it left out in both webhook payloads and the template context', () => {
    const n = capAlerts(storm(150, 20));
    const tally = tallyPayload(n);
    expect(tally.alerts).toHaveLength(100);
    expect(tally.counts).toEqual({ firing: 150, resolved: 20 });
    expect(tally.truncatedAlerts).toBe(70);
    expect(alertmanagerWebhookPayload(n).truncatedAlerts).toBe(70);
    expect(templateContext(n).truncatedAlerts).toBe(70);
    const whole = storm(3, 1);
    expect(tallyPayload(whole).truncatedAlerts).toBe(0);
    expect(alertmanagerWebhookPayload(whole).truncatedAlerts).toBe(0);
  });

  it('counts what was left out, by receiver, when the notification is queued', async () => {
    const registry = new Registry();
    const metrics = new PromDeliveryMetrics(registry);
    metrics.declareReceivers([{ name: 'ops', type: 'webhook' }]);
    const sent: number[] = [];
    const notifier: Notifier = {
      name: 'ops',
      type: 'webhook',
      async send(n) {
        sent.push(n.alerts.length);
      },
    };
    const clock = new ManualClock();
    const w = new DeliveryWorker({
      notifiers: [notifier],
      outbox: new MemoryOutbox<DeliveryItem>(() => clock.now()),
      clock,
      logger: silentLogger(),
      metrics,
      options: {
        timeoutMs: 1000,
        concurrency: 1,
        maxAgeMs: 60_000,
        maxAttempts: 0,
        backoff: { baseMs: 10, maxMs: 100 },
        deadLetterLimit: 1,
      },
    });
    await w.start();
    await w.enqueue(capAlerts(storm(250, 0)));
    await w.whenIdle();
    await w.stop(10);
    expect(sent).toEqual([100]);
    const samples = parseSamples(await registry.metrics());
    expect(value(samples, 'tally_notification_alerts_truncated_total', { receiver: 'ops' })).toBe(150);
  });
});

describe('alerts kept per rule', () => {
  const config = `
rules:
  - name: added
    on: session.added
    resolve_after: 1h
  - name: live
    on: session.started
route:
  receiver: ops
  group_wait: 0s
`;

  it('keeps at most the bound per rule, counts the rest, and lets other rules be', () => {
    const capped: string[] = [];
    const { engine: e } = engine(config, { maxAlertsPerRule: 50, onCapped: (r) => capped.push(r) });
    e.onEvents(
      Array.from({ length: 120 }, (_, i) =>
        event('session.added', { entity: `s${i}`, labels: { session_id: `s${i}` } }),
      ),
    );
    e.onEvents([event('session.started', { entity: 'x' })]);
    const alerts = e.alerts();
    expect(alerts.filter((a) => a.rule === 'added')).toHaveLength(50);
    expect(alerts.filter((a) => a.rule === 'live')).toHaveLength(1);
    expect(capped).toHaveLength(70);
    expect(new Set(capped)).toEqual(new Set(['added']));
  });

  it('makes room again once alerts of the rule are gone', () => {
    const { engine: e, clock } = engine(config, { maxAlertsPerRule: 10 });
    const burst = (from: number) =>
      Array.from({ length: 10 }, (_, i) =>
        event('session.added', { entity: `s${from + i}`, labels: { session_id: `s${from + i}` } }),
      );
    e.onEvents(burst(0));
    e.onEvents(burst(10));
    expect(e.alerts().filter((a) => a.state === 'firing')).toHaveLength(10);
    // Resolved after an hour, forgotten 15 minutes later: room for the next ten.
    tickFor(e, clock, 2 * HOUR, MIN);
    e.onEvents(burst(20));
    expect(e.alerts().filter((a) => a.state === 'firing')).toHaveLength(10);
  });
});
