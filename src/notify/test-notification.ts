/**
 * The notification `tally notify-test` sends: clearly marked as a test (`test: true`,
 * subject `[TEST] …`, label `test="true"`) so nobody acts on it.
 */
import type { Notification } from '../alerts/types.js';

/** A test notification for `receiver`, created at `now`. */
export function testNotification(receiver: string, now: number, externalURL?: string): Notification {
  const labels = { alertname: 'TallyTest', severity: 'info', test: 'true' };
  const annotations = {
    summary: 'Test notification from tally',
    description: `Sent by "tally notify-test" to check the receiver ${receiver}. No alert is firing; nothing needs doing.`,
  };
  return {
    id: `test-${now}`,
    receiver,
    groupKey: '{}:{alertname="TallyTest"}',
    status: 'firing',
    alerts: [
      { fingerprint: 'tally-test', labels, annotations, state: 'firing', activeAt: now, startsAt: now },
    ],
    groupLabels: { alertname: 'TallyTest' },
    commonLabels: labels,
    commonAnnotations: annotations,
    createdAt: now,
    ...(externalURL !== undefined ? { externalURL } : {}),
    test: true,
  };
}
