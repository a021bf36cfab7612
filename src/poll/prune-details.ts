/** Which session details an org poller keeps: those of sessions that may still change. */
import { getOwn, setOwn } from '../core/own.js';
import type { OrgSnapshot, Part, SessionDetail } from '../snapshot/model.js';
import { idAt, indexOfId, statusAt, wantedIn } from '../snapshot/session-list.js';
import { isEndedStatus } from '../snapshot/status.js';

/**
 * Drops details of sessions that are neither live in a list nor due a final read; returns
 * `details` itself when none goes. A detail is looked for in its own channel's list first:
 * only one not found live there (gone, ended, moved, or of no known channel) has every
 * list searched, so the common commit walks a few lists, not 100 000 sessions.
 */
export function pruneDetails(
  details: OrgSnapshot['details'],
  sessions: OrgSnapshot['sessions'],
  keep: ReadonlySet<string>,
): OrgSnapshot['details'] {
  let search: Set<string> | undefined;
  for (const id of Object.keys(details)) {
    if (keep.has(id)) continue;
    const part = details[id]!;
    const channel = part.state === 'failed' ? undefined : part.value.channelId;
    const list = channel === undefined ? undefined : getOwn(sessions, channel);
    if (list !== undefined && liveIn(list, id)) continue;
    search ??= new Set();
    search.add(id);
  }
  if (search === undefined) return details;
  const live = new Set<string>();
  for (const channel in sessions) {
    const part = sessions[channel]!;
    if (part.state === 'failed') continue;
    const list = part.value;
    for (const i of wantedIn(list, search)) if (!isEndedStatus(statusAt(list, i))) live.add(idAt(list, i));
  }
  if (live.size === search.size) return details;
  const out: OrgSnapshot['details'] = {};
  for (const id of Object.keys(details)) {
    if (!search.has(id) || live.has(id)) setOwn(out, id, details[id]!);
  }
  return out;
}

/** Whether `list` holds session `id` not ended. */
function liveIn(list: OrgSnapshot['sessions'][string], id: string): boolean {
  if (list.state === 'failed') return false;
  const i = indexOfId(list.value, id);
  return i >= 0 && !isEndedStatus(statusAt(list.value, i));
}

/**
 * Sessions whose list says they ended and whose detail the snapshot still holds: pruning
 * keeps exactly those while their final read is due, so a resumed poller takes them as due.
 * That includes a watched start whose first detail read was put off or failed (it carries
 * `firstSince`): its first read is still due, and its first questions news.
 */
export function endedWithDetail(snap: OrgSnapshot): string[] {
  const out: string[] = [];
  /** Watched starts whose first read is still to be made (put off, or failed): of no known channel. */
  let unread: Set<string> | undefined;
  for (const id of Object.keys(snap.details)) {
    const detail = snap.details[id]!;
    if (detail.state === 'failed') {
      if (firstSinceOf(detail) !== undefined) {
        unread ??= new Set();
        unread.add(id);
      }
      continue;
    }
    const list = getOwn(snap.sessions, detail.value.channelId ?? '');
    if (list === undefined || list.state === 'failed') continue;
    const i = indexOfId(list.value, id);
    if (i >= 0 && isEndedStatus(statusAt(list.value, i))) out.push(id);
  }
  if (unread === undefined) return out;
  for (const channel in snap.sessions) {
    const list = snap.sessions[channel]!;
    if (list.state === 'failed') continue;
    for (const i of wantedIn(list.value, unread))
      if (isEndedStatus(statusAt(list.value, i))) out.push(idAt(list.value, i));
  }
  return out;
}

/**
 * The time from which the first detail of a watched start is news, kept with a first read
 * not made yet or failed (org-poller.ts), so that a restart before a whole read keeps it.
 */
export function firstSinceOf(part: Part<SessionDetail>): number | undefined {
  const since = (part as { firstSince?: unknown }).firstSince;
  return part.state === 'failed' && typeof since === 'number' ? since : undefined;
}

/** A detail read put off for the first baseline, as stored: a read not made yet. */
export function deferredDetail(at: number, firstSince: number): Part<SessionDetail> {
  return {
    state: 'failed',
    at,
    error: { reason: 'deferred', message: 'read once the first baseline is done' },
    firstSince,
  } as Part<SessionDetail>;
}

/** Watched starts whose first detail read was put off or failed at least `waitedMs` before `now`. */
export function waitedDetails(details: OrgSnapshot['details'], now: number, waitedMs: number): string[] {
  const out: string[] = [];
  for (const [id, part] of Object.entries(details)) {
    if (firstSinceOf(part) !== undefined && now - part.at >= waitedMs) out.push(id);
  }
  return out;
}

/**
 * Drops the read attempts of details `details` no longer holds (sessions no longer live,
 * their final read made, so not in `keep`): without this every session whose detail was
 * ever read kept an entry for the life of the process, and every scrape walks them
 * (metrics/freshness.ts). The latest detail attempt stays, so the resource's last attempt
 * time never goes back.
 */
export function forgetDetailAttempts(
  attempts: Map<string, { at: number }>,
  details: OrgSnapshot['details'],
  keep: ReadonlySet<string>,
): void {
  let latest: string | undefined;
  let latestAt = -Infinity;
  const gone: string[] = [];
  for (const [key, attempt] of attempts) {
    if (!key.startsWith('detail:')) continue;
    if (attempt.at >= latestAt) {
      latest = key;
      latestAt = attempt.at;
    }
    const id = key.slice('detail:'.length);
    if (!Object.hasOwn(details, id) && !keep.has(id)) gone.push(key);
  }
  for (const key of gone) if (key !== latest) attempts.delete(key);
}
