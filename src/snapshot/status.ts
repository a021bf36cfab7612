/**
 * Upstream status strings are kept verbatim (the API document does not list them); what
 * tally decides from them goes by their class (vocabulary.ts): a word of the live class is
 * live, whatever the server's spelling.
 */
import { statusClass } from './vocabulary.js';

/** Whether a status means "on air". */
export function isLiveStatus(status: string | undefined): boolean {
  return status !== undefined && statusClass(status) === 'live';
}

/** Whether a status means the session is over, for good or bad (ended, canceled, failed). */
export function isEndedStatus(status: string | undefined): boolean {
  if (status === undefined) return false;
  const cls = statusClass(status);
  return cls === 'ended' || cls === 'canceled' || cls === 'failed';
}

/** Whether a status means the session has not started yet. */
export function isScheduledStatus(status: string | undefined): boolean {
  return status !== undefined && statusClass(status) === 'scheduled';
}
