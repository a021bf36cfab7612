/**
 * Bounds on what alerting holds and sends (docs/alerts.md, "Bounds"), so that a storm of
 * alerts — 70 000 sessions added at once, with a rule on them — cannot make a webhook
 * body of tens of megabytes at every flush: a notification carries at most
 * {@link MAX_ALERTS_PER_NOTIFICATION} alerts, firing ones first, and says how many it left
 * out, by state. The group still counts them as told, so they are not sent again later.
 */
import type { Alert, Notification } from './types.js';

/** Alerts one notification carries at most; the rest are counted in `truncated`. */
export const MAX_ALERTS_PER_NOTIFICATION = 100;

/** Alerts one rule keeps at most (pending, firing and recently resolved); more are counted, not kept. */
export const MAX_ALERTS_PER_RULE = 5000;

/** `n` with at most `max` alerts, firing ones first, and the count of the others by state. */
export function capAlerts(n: Notification, max = MAX_ALERTS_PER_NOTIFICATION): Notification {
  if (n.alerts.length <= max) return n;
  const resolved = (a: Alert) => a.state === 'resolved';
  const ordered = [...n.alerts.filter((a) => !resolved(a)), ...n.alerts.filter(resolved)];
  const kept = ordered.slice(0, max);
  const left = ordered.slice(max);
  const leftResolved = left.filter(resolved).length;
  return {
    ...n,
    alerts: kept,
    truncated: { firing: left.length - leftResolved, resolved: leftResolved },
  };
}

/** How many alerts a notification left out (0 when it carries them all). */
export function truncatedCount(n: Notification): number {
  return n.truncated === undefined ? 0 : n.truncated.firing + n.truncated.resolved;
}
