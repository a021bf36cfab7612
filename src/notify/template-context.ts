/**
 * The variables a message template sees (documented in docs/notifications.md). Times are
 * given both as RFC 3339 (`startsAt`) and as readable text (`startsAtText`).
 */
import type { Alert, Notification } from '../alerts/types.js';
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
  alertname: string;
  summary: string;
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
  externalURL: string | undefined;
  alerts: AlertView[];
  firing: AlertView[];
  resolved: AlertView[];
  createdAt: string | undefined;
  createdAtText: string;
}

function pairs(rec: Record<string, string>, skip: readonly string[] = []): Pair[] {
  return Object.entries(rec)
    .filter(([k]) => !skip.includes(k))
    .map(([name, value]) => ({ name, value }));
}

/** One alert's view. */
export function alertView(a: Alert): AlertView {
  const start = a.startsAt ?? a.activeAt;
  return {
    status: isResolved(a) ? 'resolved' : 'firing',
    fingerprint: a.fingerprint,
    labels: a.labels,
    annotations: a.annotations,
    labelList: pairs(a.labels, ['alertname']),
    alertname: a.labels['alertname'] ?? '',
    summary: alertLine(a),
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
  const alerts = n.alerts.map(alertView);
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
    externalURL: n.externalURL,
    alerts,
    firing: alerts.filter((a) => a.status === 'firing'),
    resolved: alerts.filter((a) => a.status === 'resolved'),
    createdAt: isoTime(n.createdAt),
    createdAtText: formatTime(n.createdAt),
  };
}
