/**
 * Upstream status strings are kept verbatim (the API document does not list them);
 * these families are what tally treats as "live" and "ended" wherever it must decide.
 */

const LIVE = new Set(['live', 'on_air', 'onair', 'streaming', 'broadcasting', 'active_live']);
const ENDED = new Set([
  'ended',
  'finished',
  'completed',
  'complete',
  'done',
  'failed',
  'cancelled',
  'canceled',
  'aborted',
  'error',
]);
const SCHEDULED = new Set(['scheduled', 'planned', 'upcoming', 'pending']);

/** Whether a (lower-cased) status means "on air". */
export function isLiveStatus(status: string | undefined): boolean {
  return status !== undefined && LIVE.has(status);
}

/** Whether a (lower-cased) status means the session is over, for good or bad. */
export function isEndedStatus(status: string | undefined): boolean {
  return status !== undefined && ENDED.has(status);
}

/** Whether a (lower-cased) status means the session has not started yet. */
export function isScheduledStatus(status: string | undefined): boolean {
  return status !== undefined && SCHEDULED.has(status);
}
