/**
 * The variables a message template sees (documented in docs/notifications.md). Times are
 * given both as RFC 3339 (`startsAt`) and as readable text (`startsAtText`).
 */
import { truncatedCount } from '../alerts/cap.js';
import type { Alert, Notification } from '../alerts/types.js';
import { formatDuration } from '../core/units.js';
import {
  alertLine,
  formatTime,
  isoTime,
  isResolved,
  notificationTitle,
  statusTag,
  subjectLine,
} from './summary.js';

/** A label or annotation as a name/value pair, for looping in templates. */
export interface Pair {
  name: string;
  value: string;
}

/** One alert as templates see it. */
export interface AlertView {
  status: 'firing' | 'resolved';
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Labels other than `alertname`, as pairs. */
  labelList: Pair[];
  /** Labels other than `alertname` that not every alert of the notification shares. */
  ownLabelList: Pair[];
  alertname: string;
  /** The firing summary (the `summary` annotation, else name and labels). */
  summary: string;
  /**
   * What a reader should see first: the summary while firing; once resolved, what
   * resolved — the `resolved_summary` annotation, else `<alertname> resolved` with the
   * labels that tell it apart — never the firing summary again.
   */
  headline: string;
  /** How long it fired, once resolved (`12m`), else empty. */
  durationText: string;
  description: string;
  startsAt: string | undefined;
  endsAt: string | undefined;
  startsAtText: string;
  endsAtText: string;
  generatorURL: string | undefined;
}

/** Everything a template can use. */
export interface TemplateContext {
  id: string;
  receiver: string;
  status: 'firing' | 'resolved';
  /** `[FIRING:3]` or `[RESOLVED]`. */
  statusTag: string;
  title: string;
  /** The default subject: `[TEST] ` when testing, status tag, title. */
  subject: string;
  test: boolean;
  groupKey: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  groupLabelList: Pair[];
  commonLabelList: Pair[];
  /** The common labels without `alertname`: shown once per message, not per alert. */
  sharedLabelList: Pair[];
  externalURL: string | undefined;
  alerts: AlertView[];
  firing: AlertView[];
  resolved: AlertView[];
  createdAt: string | undefined;
  createdAtText: string;
  /** Alerts of the group left out of `alerts` to bound the message (src/alerts/cap.ts). */
  truncatedAlerts: number;
}

function pairs(rec: Record<string, string>, skip: readonly string[] = []): Pair[] {
  return Object.entries(rec)
    .filter(([k]) => !skip.includes(k))
    .map(([name, value]) => ({ name, value }));
}

/** One alert's view; `common` are the labels every alert of its notification shares. */
export function alertView(a: Alert, common: Record<string, string> = {}): AlertView {
  const start = a.startsAt ?? a.activeAt;
  const resolved = isResolved(a);
  const alertname = a.labels['alertname'] ?? 'alert';
  const own = pairs(a.labels, ['alertname']).filter((p) => common[p.name] !== p.value);
  const tellApart = own.filter((p) => p.name !== 'severity');
  const headline = resolved
    ? (a.annotations['resolved_summary'] ??
      `${alertname} resolved${tellApart.length > 0 ? ` for ${tellApart.map((p) => `${p.name}=${p.value}`).join(', ')}` : ''}`)
    : alertLine(a);
  return {
    status: resolved ? 'resolved' : 'firing',
    fingerprint: a.fingerprint,
    labels: a.labels,
    annotations: a.annotations,
    labelList: pairs(a.labels, ['alertname']),
    ownLabelList: own,
    alertname: a.labels['alertname'] ?? '',
    summary: alertLine(a),
    headline,
    durationText: resolved && a.endsAt !== undefined ? formatDuration(Math.max(0, a.endsAt - start)) : '',
    description: a.annotations['description'] ?? '',
    startsAt: isoTime(start),
    endsAt: isoTime(a.endsAt),
    startsAtText: formatTime(start),
    endsAtText: formatTime(a.endsAt),
    generatorURL: a.generatorURL,
  };
}

/** The template variables of `n`. */
export function templateContext(n: Notification): TemplateContext {
  const alerts = n.alerts.map((a) => alertView(a, n.alerts.length > 1 ? n.commonLabels : {}));
  return {
    id: n.id,
    receiver: n.receiver,
    status: n.status,
    statusTag: statusTag(n),
    title: notificationTitle(n),
    subject: subjectLine(n),
    test: n.test === true,
    groupKey: n.groupKey,
    groupLabels: n.groupLabels,
    commonLabels: n.commonLabels,
    commonAnnotations: n.commonAnnotations,
    groupLabelList: pairs(n.groupLabels),
    commonLabelList: pairs(n.commonLabels),
    sharedLabelList: n.alerts.length > 1 ? pairs(n.commonLabels, ['alertname']) : [],
    externalURL: n.externalURL,
    alerts,
    firing: alerts.filter((a) => a.status === 'firing'),
    resolved: alerts.filter((a) => a.status === 'resolved'),
    createdAt: isoTime(n.createdAt),
    createdAtText: formatTime(n.createdAt),
    truncatedAlerts: truncatedCount(n),
  };
}
