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

/** AI status words of work queued or under way (folded: lower case, spaces for separators). */
const AI_AT_WORK = new Set([
  'pending',
  'queued',
  'waiting',
  'processing',
  'running',
  'in progress',
  'started',
  'working',
]);

/**
 * Whether a session's AI is still at work: a word of work queued or under way (`queued`,
 * `processing`, `in_progress`) or of a step in progress (`transcribing`, `summarizing`,
 * any `…ing` that does not say it ended or failed), with the AI not switched off. Done,
 * failed, ready, idle, active or no status at all is not at work.
 */
export function isAiWorking(ai: { status?: string; enabled?: boolean }): boolean {
  if (ai.enabled === false || ai.status === undefined) return false;
  const word = ai.status
    .trim()
    .toLowerCase()
    .replace(/[_\-.\s]+/g, ' ');
  if (AI_AT_WORK.has(word)) return true;
  if (!/ing$/.test(word)) return false;
  const cls = statusClass(word);
  return cls !== 'ended' && cls !== 'canceled' && cls !== 'failed';
}
