/**
 * Alerts and the notifications that carry them: what the alert engine produces and the
 * delivery layer sends. Shapes follow Alertmanager's, so the Alertmanager sink and the
 * webhook's Alertmanager-compatible payload map one to one.
 */

/** Severity of an alert; free text in labels, these are the usual ones. */
export type Severity = 'critical' | 'warning' | 'info' | (string & {});

/** Where an alert is in its life. */
export type AlertState = 'pending' | 'firing' | 'resolved';

/** One alert instance: a rule applied to one entity (or one event). */
export interface Alert {
  /** Stable hash of the rule name and labels. */
  fingerprint: string;
  /** Identifying labels: `alertname`, `org`, `severity`, entity labels, rule labels. */
  labels: Record<string, string>;
  /** Rendered annotations: `summary`, `description`, links… */
  annotations: Record<string, string>;
  state: AlertState;
  /** When the condition first held (ms). */
  activeAt: number;
  /** When it started firing (ms), once it did. */
  startsAt?: number;
  /** When it resolved (ms), once it did. */
  endsAt?: number;
  /** Link back to tally (or Grafana) for this alert, when configured. */
  generatorURL?: string;
  /** When a firing event alert resolves by itself unless another event extends it (ms). */
  expiresAt?: number;
}

/** A grouped notification for one receiver: what a sink sends in one message. */
export interface Notification {
  /** Stable id (idempotency key): group key + sequence of this group's sends. */
  id: string;
  /** The receiver's name from config. */
  receiver: string;
  /** Identifies the group within the route (`{}:{org="acme", rule="channel_offline"}`). */
  groupKey: string;
  /** `firing` when any alert in it fires, else `resolved`. */
  status: 'firing' | 'resolved';
  alerts: Alert[];
  /** Labels the group's alerts share (the `group_by` labels at least). */
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  /** When the notification was created (ms). */
  createdAt: number;
  /** URL of tally's UI/API or Grafana for links, when configured. */
  externalURL?: string;
  /** Marks a `tally notify-test` message. */
  test?: boolean;
  /**
   * Alerts of the group left out of this notification to bound its size, by state
   * (src/alerts/cap.ts); absent when it carries them all.
   */
  truncated?: { firing: number; resolved: number };
}
