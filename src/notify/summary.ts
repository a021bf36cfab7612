/**
 * Short words about a notification that every sink shows the same way: the status tag
 * (`[FIRING:3]`, `[RESOLVED]`), a title, one line per alert, times in UTC. Pure.
 */
import type { Alert, Notification } from '../alerts/types.js';

/** Whether an alert counts as firing (pending alerts are not sent; treat them as firing). */
export function isResolved(a: Alert): boolean {
  return a.state === 'resolved';
}

/** `[FIRING:3]` for a firing notification (3 alerts firing), `[RESOLVED]` when all resolved. */
export function statusTag(n: Notification): string {
  if (n.status === 'resolved') return '[RESOLVED]';
  return `[FIRING:${n.alerts.filter((a) => !isResolved(a)).length}]`;
}

/** The group's name: its `alertname`, then the other group labels, e.g. `ChannelOffline (org=acme)`. */
export function notificationTitle(n: Notification): string {
  const labels = { ...n.commonLabels, ...n.groupLabels };
  const name = labels['alertname'] ?? n.commonAnnotations['summary'] ?? 'tally alert';
  const rest = Object.entries(n.groupLabels)
    .filter(([k]) => k !== 'alertname')
    .map(([k, v]) => `${k}=${v}`);
  const title = rest.length > 0 ? `${name} (${rest.join(', ')})` : name;
  // A storm folded into one notification (alerts/grouper.ts) says so.
  const storm = n.commonAnnotations['storm'];
  return storm === undefined ? title : `${title}: ${storm}`;
}

/**
 * The subject line: `[TEST] ` when testing, the status tag, and what happened: the one
 * alert's own words when the notification holds one (`summary`, or how it ended,
 * `resolved_summary`, once resolved), else the group's title.
 */
export function subjectLine(n: Notification): string {
  return `${n.test ? '[TEST] ' : ''}${statusTag(n)} ${soleHeadline(n) ?? notificationTitle(n)}`;
}

/** The words of the one alert of a notification that holds one, when its rule gave some. */
export function soleHeadline(n: Notification): string | undefined {
  if (n.alerts.length !== 1) return undefined;
  const a = n.alerts[0]!;
  const words = isResolved(a)
    ? (a.annotations['resolved_summary'] ?? a.annotations['summary'])
    : a.annotations['summary'];
  return words === undefined || words.trim() === '' ? undefined : words;
}

/** One line for an alert: its summary, else its name and labels. */
export function alertLine(a: Alert): string {
  const summary = a.annotations['summary'];
  if (summary) return summary;
  const labels = Object.entries(a.labels)
    .filter(([k]) => k !== 'alertname')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return `${a.labels['alertname'] ?? 'alert'}${labels ? ` (${labels})` : ''}`;
}

/** A time as people read it in a message: `2025-03-01 14:05:09 UTC`. */
export function formatTime(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A time as machines read it: RFC 3339 in UTC. */
export function isoTime(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

/** Cuts `text` to `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
