/**
 * The webhook's JSON bodies. `tally` (version "1") is tally's own, documented in
 * docs/notifications.md; fields are only ever added within a version. `alertmanager`
 * is the Alertmanager webhook shape (version "4"), so receivers written for Alertmanager
 * take tally's notifications unchanged.
 */
import { truncatedCount } from '../../alerts/cap.js';
import type { Notification } from '../../alerts/types.js';
import { isoTime, isResolved, subjectLine } from '../summary.js';

/** One alert in tally's payload. */
export interface TallyAlertV1 {
  fingerprint: string;
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  activeAt: string | null;
  startsAt: string | null;
  endsAt: string | null;
  generatorURL: string | null;
}

/** tally's own webhook payload, version 1. */
export interface TallyPayloadV1 {
  version: '1';
  id: string;
  receiver: string;
  status: 'firing' | 'resolved';
  groupKey: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string | null;
  createdAt: string | null;
  test: boolean;
  /** Alerts of the group, by state, those left out included. */
  counts: { firing: number; resolved: number };
  /** Alerts left out of `alerts` to bound the body (src/alerts/cap.ts); 0 when none. */
  truncatedAlerts: number;
  /** The subject line every sink shows: status tag and what happened (summary.ts). */
  summary: string;
  alerts: TallyAlertV1[];
}

/** Builds tally's payload of `n`. */
export function tallyPayload(n: Notification): TallyPayloadV1 {
  const alerts = n.alerts.map(
    (a): TallyAlertV1 => ({
      fingerprint: a.fingerprint,
      status: isResolved(a) ? 'resolved' : 'firing',
      labels: a.labels,
      annotations: a.annotations,
      activeAt: isoTime(a.activeAt) ?? null,
      startsAt: isoTime(a.startsAt ?? a.activeAt) ?? null,
      endsAt: isoTime(a.endsAt) ?? null,
      generatorURL: a.generatorURL ?? null,
    }),
  );
  const resolved = alerts.filter((a) => a.status === 'resolved').length;
  return {
    version: '1',
    id: n.id,
    receiver: n.receiver,
    status: n.status,
    groupKey: n.groupKey,
    groupLabels: n.groupLabels,
    commonLabels: n.commonLabels,
    commonAnnotations: n.commonAnnotations,
    externalURL: n.externalURL ?? null,
    createdAt: isoTime(n.createdAt) ?? null,
    test: n.test === true,
    counts: {
      firing: alerts.length - resolved + (n.truncated?.firing ?? 0),
      resolved: resolved + (n.truncated?.resolved ?? 0),
    },
    truncatedAlerts: truncatedCount(n),
    summary: subjectLine(n),
    alerts,
  };
}

/** Alertmanager's "zero time", which its webhook sends as `endsAt` of a firing alert. */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** The Alertmanager webhook payload (version 4). */
export interface AlertmanagerWebhookV4 {
  version: '4';
  groupKey: string;
  truncatedAlerts: number;
  status: 'firing' | 'resolved';
  receiver: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string;
  alerts: {
    status: 'firing' | 'resolved';
    labels: Record<string, string>;
    annotations: Record<string, string>;
    startsAt: string;
    endsAt: string;
    generatorURL: string;
    fingerprint: string;
  }[];
}

/** Builds the Alertmanager-compatible payload of `n`. */
export function alertmanagerWebhookPayload(n: Notification): AlertmanagerWebhookV4 {
  return {
    version: '4',
    groupKey: n.groupKey,
    truncatedAlerts: truncatedCount(n),
    status: n.status,
    receiver: n.receiver,
    groupLabels: n.groupLabels,
    commonLabels: n.commonLabels,
    commonAnnotations: n.commonAnnotations,
    externalURL: n.externalURL ?? '',
    alerts: n.alerts.map((a) => ({
      status: isResolved(a) ? 'resolved' : 'firing',
      labels: a.labels,
      annotations: a.annotations,
      startsAt: isoTime(a.startsAt ?? a.activeAt) ?? GO_ZERO_TIME,
      endsAt: isResolved(a) ? (isoTime(a.endsAt) ?? GO_ZERO_TIME) : GO_ZERO_TIME,
      generatorURL: a.generatorURL ?? '',
      fingerprint: a.fingerprint,
    })),
  };
}
