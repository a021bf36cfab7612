/**
 * Blindness is loud (docs/upstream-shapes.md, "Blindness is loud"): a field a decision
 * depends on — a session's times (the window), a session's status, a channel's status —
 * that cannot be read on most records of a list makes that part degraded. Each watched
 * field of a non-empty list is either blind (unreadable on more than half of its records:
 * a drift issue, reason `blind`) or seen (readable on most: the degraded state clears).
 */
import { windowUnknown } from '../../snapshot/diff-window.js';
import { statusClass } from '../../snapshot/vocabulary.js';
import type { DriftIssue } from './drift.js';
import type { Endpoint } from './endpoints.js';
import { isRecord } from './json.js';

/** A watched field of a list and whether it could be read on a record. */
interface Watched {
  field: string;
  unreadable: (record: Record<string, unknown>) => boolean;
  consequence: string;
}

const WATCHED: Partial<Record<Endpoint, readonly Watched[]>> = {
  sessions: [
    {
      field: 'session.times',
      unreadable: (s) => windowUnknown(s as { status?: string }),
      consequence: 'those sessions are not counted in the window, nor reported added or removed',
    },
    {
      field: 'session.status',
      unreadable: (s) => s['status'] === 'unknown',
      consequence: 'their status is unknown',
    },
  ],
  channels: [
    {
      field: 'channel.status',
      unreadable: (c) => c['status'] === 'unknown',
      consequence: 'whether those channels are live is unknown',
    },
  ],
};

/** The problem text of a blind field; fixed (no counts), so that it is one drift problem. */
export function blindProblem(consequence: string): string {
  return `unreadable on most records of the list (more than half): ${consequence}`;
}

/** Whether a problem says a field is blind. */
export function isBlindProblem(problem: string): boolean {
  return problem.startsWith('unreadable on most records of the list');
}

/** How far ahead of its planned start a session read as on air says the word means something else. */
export const LIVE_AHEAD_MS = 60 * 60_000;

/**
 * Whether a status word read as on air means it (field `session.status.meaning`): when most
 * sessions of a list read live are planned to start more than {@link LIVE_AHEAD_MS} later,
 * the server's word says something else (Eventbrite's `live`: published, on sale), and
 * whether any of them is on air is unknown. Undefined when no session reads live.
 */
function liveMeaning(
  endpoint: Endpoint,
  records: readonly unknown[],
  now: number,
): DriftIssue | 'seen' | undefined {
  const live = records.filter(
    (r): r is Record<string, unknown> =>
      isRecord(r) && typeof r['status'] === 'string' && statusClass(r['status']) === 'live',
  );
  if (live.length === 0) return undefined;
  const ahead = live.filter(
    (r) => typeof r['scheduledAt'] === 'number' && r['scheduledAt'] - now > LIVE_AHEAD_MS,
  );
  if (ahead.length === 0 || ahead.length * 2 <= live.length) return 'seen';
  const consequence =
    'the word read as on air is given to sessions planned to start more than an hour later, so it may not mean on air; whether those sessions are live is unknown';
  return { endpoint, field: 'session.status.meaning', problem: blindProblem(consequence), fatal: false };
}

/** The watched fields of one list read at `now`: blind ones as drift, seen ones by name. */
export function blindSpots(
  endpoint: Endpoint,
  records: readonly unknown[],
  now?: number,
): { blind: DriftIssue[]; seen: string[] } {
  const watched = WATCHED[endpoint];
  if (watched === undefined || records.length === 0) return { blind: [], seen: [] };
  const blind: DriftIssue[] = [];
  const seen: string[] = [];
  const meaning =
    endpoint === 'sessions' && now !== undefined ? liveMeaning(endpoint, records, now) : undefined;
  if (meaning === 'seen') seen.push('session.status.meaning');
  else if (meaning !== undefined) blind.push(meaning);
  for (const w of watched) {
    const unreadable = records.filter((r) => isRecord(r) && w.unreadable(r)).length;
    if (unreadable * 2 > records.length)
      blind.push({ endpoint, field: w.field, problem: blindProblem(w.consequence), fatal: false });
    else seen.push(w.field);
  }
  return { blind, seen };
}
