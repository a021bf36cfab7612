import type { Alert, Notification } from '../../../src/alerts/types.js';
import type { DeliveryMetrics } from '../../../src/notify/metrics.js';

const T0 = Date.parse('2025-03-01T14:05:09Z');

/** A firing alert for channel `ch`. */
export function firingAlert(ch: string, at = T0): Alert {
  return {
    fingerprint: `fp-${ch}`,
    labels: { alertname: 'ChannelOffline', org: 'acme', channel: ch, severity: 'critical' },
    annotations: {
      summary: `Channel ${ch} went offline`,
      description: `The channel ${ch} of acme stopped streaming while a session was scheduled.`,
    },
    state: 'firing',
    activeAt: at - 60_000,
    startsAt: at,
    generatorURL: `https://tally.example.com/orgs/acme/channels/${ch}`,
  };
}

/** A grouped firing notification with `count` alerts. */
export function firingNotification(over: Partial<Notification> = {}, count = 3): Notification {
  const alerts = Array.from({ length: count }, (_, i) => firingAlert(`news-${i + 1}`, T0 + i * 1000));
  return {
    id: 'grp-acme-offline:1',
    receiver: 'ops',
    groupKey: '{}:{alertname="ChannelOffline", org="acme"}',
    status: 'firing',
    alerts,
    groupLabels: { alertname: 'ChannelOffline', org: 'acme' },
    commonLabels: { alertname: 'ChannelOffline', org: 'acme', severity: 'critical' },
    commonAnnotations: {},
    createdAt: T0 + 5000,
    externalURL: 'https://tally.example.com',
    ...over,
  };
}

/** The resolved counterpart of {@link firingNotification}. */
export function resolvedNotification(over: Partial<Notification> = {}, count = 2): Notification {
  const n = firingNotification({}, count);
  return {
    ...n,
    id: 'grp-acme-offline:2',
    status: 'resolved',
    alerts: n.alerts.map((a) => ({
      ...a,
      state: 'resolved' as const,
      endsAt: (a.startsAt ?? 0) + 15 * 60_000,
    })),
    createdAt: T0 + 16 * 60_000,
    ...over,
  };
}

/** A metrics recorder that keeps every call, for assertions. */
export interface RecordedMetrics extends DeliveryMetrics {
  calls: { method: string; args: unknown[] }[];
  count(method: string, ...args: unknown[]): number;
}

export function recordingMetrics(): RecordedMetrics {
  const calls: { method: string; args: unknown[] }[] = [];
  const rec =
    (method: string) =>
    (...args: unknown[]) => {
      calls.push({ method, args });
    };
  return {
    calls,
    sent: rec('sent'),
    failed: rec('failed'),
    dropped: rec('dropped'),
    observeLatency: rec('observeLatency'),
    setQueueDepth: rec('setQueueDepth'),
    setOldestPendingAge: rec('setOldestPendingAge'),
    count: (method, ...args) =>
      calls.filter((c) => c.method === method && args.every((a, i) => c.args[i] === a)).length,
  };
}
