/**
 * What the chat presets share: how many alerts a message lists before "and N more", and
 * the alerts in the order people read them (firing first).
 */
import type { Notification } from '../../../alerts/types.js';
import { type AlertView, alertView } from '../../template-context.js';

/** Alerts listed in one chat message; the rest are counted. Chat services cap message sizes. */
export const MAX_LISTED = 10;

/** Firing alerts first, then resolved, at most {@link MAX_LISTED}, and how many were left out. */
export function listedAlerts(n: Notification): { shown: AlertView[]; more: number } {
  const views = n.alerts.map((a) => alertView(a));
  const ordered = [
    ...views.filter((a) => a.status === 'firing'),
    ...views.filter((a) => a.status !== 'firing'),
  ];
  return { shown: ordered.slice(0, MAX_LISTED), more: Math.max(0, ordered.length - MAX_LISTED) };
}

/** `org=acme, channel=news` for an alert's labels other than `alertname`. */
export function labelText(a: AlertView): string {
  return a.labelList.map((l) => `${l.name}=${l.value}`).join(', ');
}
