/**
 * Step 3 of a commit (org-poller.ts, `OrgPoller.commit`): the consequences of each event
 * of a read. Channels that change are read again, or marked to be; sessions that start
 * have their detail read, or marked due; sessions that end are owed a final detail read.
 */
import { getOwn, setOwn } from '../core/own.js';
import { NOT_NEWS_BEFORE_MS } from '../snapshot/diff-sessions.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot, SessionsPart, TimeWindow } from '../snapshot/model.js';
import { isLiveStatus } from '../snapshot/status.js';
import type { DetailLedger } from './detail-ledger.js';
import type { Priority } from './fetcher.js';
import { deferredDetail } from './prune-details.js';
import type { SweepLedger } from './sweep-ledger.js';

/** A read a commit asks for, run at the priority given. */
export type FollowUp = (priority: Priority) => Promise<void>;

/** What following events needs of the org's poller. */
export interface FollowContext {
  /** What the sweep knows of each channel (sweep-ledger.ts). */
  readonly sweep: SweepLedger;
  /** The final and first detail reads owed (detail-ledger.ts). */
  readonly detailsOwed: DetailLedger;
  /** Whether the first baseline is under way and due to end soon enough that a change may wait for it. */
  firstReadsFirst: () => boolean;
  /** Whether a channel's sessions were never read (OrgPoller.inBaseline). */
  neverRead: (channelId: string) => boolean;
  /** Drops a channel no longer watched from `sessions` and `details`, and its bookkeeping. */
  forgetChannel: (
    channelId: string,
    sessions: Record<string, SessionsPart>,
    details: OrgSnapshot['details'],
  ) => void;
  /** The window session lists are read for, as of now. */
  window: () => TimeWindow;
  /** Reads a channel's sessions afresh. */
  readSessions: (channelId: string) => FollowUp;
  /** Reads a session's detail afresh. */
  readDetail: (sessionId: string) => FollowUp;
}

/**
 * The consequences of `events`, read into `prev` to make `next`: reads to run go into
 * `follow`. Returns the session lists and details, copied from `next`'s where a mark
 * changed them (`parts` are already copies when the events reshape them).
 */
export function followEvents(
  ctx: FollowContext,
  events: readonly ChangeEvent[],
  prev: OrgSnapshot,
  parts: Pick<OrgSnapshot, 'sessions' | 'details'>,
  next: OrgSnapshot,
  follow: FollowUp[],
  now: number,
): Pick<OrgSnapshot, 'sessions' | 'details'> {
  let { sessions, details } = parts;
  // When the first baseline is due to end within minutes, the first reads come first
  // (docs/polling.md, "Readiness and the first baseline"): a session that starts gets its
  // detail read with the other live details once the baseline is done (poller.ts), and a
  // channel already read that changes is read again by the sweep right after the last
  // first read, or once it has waited 5 minutes (sweep-ledger.ts and planner.ts: a change
  // since the last read ranks with a moved hint, and above first reads once it waited
  // CHANGE_WAITS_AT_MOST_MS). At 1000 channels these follow-ups took a tenth of the budget
  // the first reads needed. The change is kept on the channel's stored list, so that a
  // restart meanwhile does not lose its place.
  const waits = events.length > 0 && ctx.firstReadsFirst();
  for (const e of events) {
    const chId = e.entity.id;
    if (e.kind === 'channel.added') {
      // A channel that appears after the baseline starts from an empty list, so its
      // existing sessions are reported as added rather than silently taken in.
      setOwn(sessions, chId, { state: 'complete', at: e.at, value: [], window: ctx.window() });
    }
    if (e.kind === 'channel.removed') ctx.forgetChannel(chId, sessions, details);
    if (e.kind === 'channel.added' || e.kind === 'channel.status_changed') {
      ctx.sweep.changed(chId, now);
      // A channel listed (again) starts from an empty list, which no read made: its
      // read is due at once, as a channel never read.
      const part = getOwn(sessions, chId);
      if (!waits || e.kind === 'channel.added' || ctx.neverRead(chId) || part === undefined) {
        follow.push(ctx.readSessions(chId));
      } else {
        if (sessions === next.sessions) sessions = { ...sessions };
        // The earliest change the read still owes: a later one does not restart its wait.
        ctx.sweep.waiting(chId, now);
        setOwn(sessions, chId, { ...part, changedAt: ctx.sweep.unseenSince(chId) ?? now });
      }
    }
    if (e.kind === 'session.started' || (e.kind === 'session.added' && isLiveStatus(String(e.to ?? '')))) {
      if (!waits) follow.push(ctx.readDetail(e.entity.id));
      // Watched start: what its first detail shows since tally's look before is news.
      const lookedAt = getOwn(prev.sessions, e.labels['channel_id'] ?? '')?.at;
      if (lookedAt !== undefined && getOwn(prev.details, e.entity.id) === undefined) {
        const since = lookedAt - NOT_NEWS_BEFORE_MS;
        ctx.detailsOwed.watched(e.entity.id, since);
        // Put off: stored as a read not made yet, with that time, as a failed first read
        // is, so that a restart before the read does not lose it (OrgPoller's constructor).
        if (waits) {
          if (details === next.details) details = { ...details };
          setOwn(details, e.entity.id, deferredDetail(now, since));
        }
      }
    }
    if (e.kind === 'session.ended') ctx.detailsOwed.ended(e.entity.id, now);
  }
  return { sessions, details };
}
