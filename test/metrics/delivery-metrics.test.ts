import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PromDeliveryMetrics } from '../../src/metrics/delivery-metrics.js';
import { DELIVERY_REASONS } from '../../src/notify/notifier.js';

describe('PromDeliveryMetrics', () => {
  it('counts deliveries and reports the backlog, refreshed at scrape time', async () => {
    const registry = new Registry();
    const m = new PromDeliveryMetrics(registry);
    m.declareReceivers([{ name: 'ops', type: 'email' }]);
    let refreshed = 0;
    m.refresh = () => {
      refreshed++;
      m.setQueueDepth('ops', 3);
      m.setOldestPendingAge('ops', 42);
    };
    m.sent('ops', 'email');
    m.failed('ops', 'email', 'smtp_4xx');
    m.dropped('ops', 'email', 'expired');
    m.observeLatency('ops', 'email', 0.3);
    const text = await registry.metrics();
    expect(refreshed).toBe(1);
    expect(text).toContain('tally_notifications_sent_total{receiver="ops",sink="email"} 1');
    expect(text).toContain(
      'tally_notification_attempts_failed_total{receiver="ops",sink="email",reason="smtp_4xx"} 1',
    );
    expect(text).toContain(
      'tally_notifications_dropped_total{receiver="ops",sink="email",reason="expired"} 1',
    );
    expect(text).toContain('tally_delivery_queue_depth{receiver="ops"} 3');
    expect(text).toContain('tally_delivery_oldest_pending_age_seconds{receiver="ops"} 42');
    expect(text).toContain(
      'tally_notification_attempt_duration_seconds_count{receiver="ops",sink="email"} 1',
    );
  });

  it('starts every declared receiver at 0 for every reason, before anything is sent', async () => {
    const registry = new Registry();
    const m = new PromDeliveryMetrics(registry);
    m.declareReceivers([{ name: 'hook', type: 'webhook' }]);
    m.observeLatency('hook', 'webhook', 0.2);
    // A reload declares the receivers again: what was observed stays.
    m.declareReceivers([{ name: 'hook', type: 'webhook' }]);
    const text = await registry.metrics();
    expect(text).toContain('tally_notifications_sent_total{receiver="hook",sink="webhook"} 0');
    for (const reason of DELIVERY_REASONS) {
      expect(text).toContain(
        `tally_notification_attempts_failed_total{receiver="hook",sink="webhook",reason="${reason}"} 0`,
      );
      expect(text).toContain(
        `tally_notifications_dropped_total{receiver="hook",sink="webhook",reason="${reason}"} 0`,
      );
    }
    for (const reason of ['expired', 'max_attempts'])
      expect(text).toContain(
        `tally_notifications_dropped_total{receiver="hook",sink="webhook",reason="${reason}"} 0`,
      );
    expect(text).not.toContain('reason="unknown_receiver"');
    expect(text).toContain(
      'tally_notification_attempt_duration_seconds_count{receiver="hook",sink="webhook"} 1',
    );
  });
});
