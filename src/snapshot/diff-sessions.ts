/**
 * Diff of the session lists, channel by channel: sessions added, removed, renamed,
 * rescheduled, changing status, and the derived `session.started` / `session.ended`.
 *
 * A session is matched by id across all lists, so one that moved to another channel is
 * compared, not removed and re-added. Additions and removals obey the window rule
 * (see `diff-window.ts` and docs/events.md).
 */
import {
  byCodeUnits,
  sameInstant,
  byId,
  type EventDraft,
  type EventSink,
  type Labeler,
  orNull,
  own,
  same,
  sortedIds,
} from './diff-context.js';
import { inWindow } from './diff-window.js';
import type { OrgSnapshot, Session, SessionsPart } from './model.js';
import { idAt, sessionArray, type Sessions, wantedIn } from './session-list.js';
import { isEndedStatus, isLiveStatus } from './status.js';

/** Where a session is listed in one snapshot. */
interface Placement {
  session: Session;
  channelId: string;
  part: SessionsPart;
}

/** All session lists of both snapshots, channel by channel in id order. */
export function diffSessions(
  prev: OrgSnapshot,
  next: OrgSnapshot,
  labeler: Labeler,
  sink: EventSink,
  candidates?: readonly string[],
): void {
  if (prev.sessions === next.sessions) return;
  // The poller shares an unchanged part between snapshots, and the very same part cannot
  // differ: only the channels whose part changed are compared (in channel-id order, so the
  // events come out in the same order as from a walk over every channel).
  const changedChannels: string[] = [];
  if (candidates) {
    for (const channelId of candidates) {
      if (own(prev.sessions, channelId) !== own(next.sessions, channelId)) changedChannels.push(channelId);
    }
  } else {
    for (const channelId of Object.keys(next.sessions)) {
      if (own(prev.sessions, channelId) !== next.sessions[channelId]) changedChannels.push(channelId);
    }
    for (const channelId of Object.keys(prev.sessions)) {
      if (!Object.hasOwn(next.sessions, channelId)) changedChannels.push(channelId);
    }
  }
  // First pass: each changed channel's lists, and the sessions missing on one side of
  // their channel, which may have moved to or from another channel.
  const work: ChannelLists[] = [];
  const wantedBefore = new Set<string>();
  const wantedAfter = new Set<string>();
  for (const channelId of sortedIds(changedChannels)) {
    const a = own(prev.sessions, channelId);
    const b = own(next.sessions, channelId);
    if (a?.state === 'complete' && b?.state === 'complete' && aligned(a.value, b.value)) {
      // The same sessions in the same order (a list read again): only changes are
      // possible, and only the sessions that differ need ordering.
      const av = sessionArray(a.value);
      const bv = sessionArray(b.value);
      const differing = [];
      for (let i = 0; i < bv.length; i++) {
        const was = av[i]!;
        const is = bv[i]!;
        if (was !== is && !unchanged(was, is) && firstOf(bv, i)) differing.push(i);
      }
      differing.sort((x, y) => byCodeUnits(bv[x]!.id, bv[y]!.id));
      const pairs = differing.map((i): [Session, Session] => [av[i]!, bv[i]!]);
      work.push({ channelId, a, b, pairs, since: a.at, part: b });
      continue;
    }
    const listedA = listed(a);
    const listedB = listed(b);
    if (b?.state === 'complete') for (const id of listedB.keys()) if (!listedA.has(id)) wantedBefore.add(id);
    if (a !== undefined) for (const id of listedA.keys()) if (!listedB.has(id)) wantedAfter.add(id);
    work.push({ channelId, a, b, listedA, listedB });
  }
  // Where else those are listed, in one walk over each snapshot's lists: the common read,
  // where each session stays in its list, never pays for it.
  const before = locate(prev, wantedBefore);
  const after = locate(next, wantedAfter);
  for (const item of work) {
    const { channelId, a, b } = item;
    if ('pairs' in item) {
      for (const [was, is] of item.pairs) {
        changed(was, { session: is, channelId, part: item.part }, item.since, labeler, sink);
      }
      continue;
    }
    const { listedA, listedB } = item;
    for (const id of sortedIds([...listedA.keys(), ...listedB.keys()])) {
      const was = listedA.get(id);
      const is = listedB.get(id);
      if (is !== undefined) {
        if (b?.state !== 'complete') continue;
        const here = { session: is, channelId, part: b };
        if (was !== undefined) {
          if (a?.state === 'complete') changed(was, here, a.at, labeler, sink);
          continue;
        }
        // Not in this channel's older list: new, or moved here from another channel. Between
        // a list read with the window and one without (SessionsPart.unwindowed), a session
        // may be new only to tally: what the server got wrong of the window hid it.
        const elsewhere = before.get(id);
        if (elsewhere === undefined) {
          if ((a?.unwindowed === true) === (b.unwindowed === true)) added(here, a, labeler, sink);
        } else if (elsewhere.part.state === 'complete') {
          changed(elsewhere.session, here, elsewhere.part.at, labeler, sink);
        }
        continue;
      }
      // Listed before, not now: removed, unless it is listed elsewhere now (it moved).
      if (was === undefined || a === undefined || after.get(id) !== undefined) continue;
      if (removed({ session: was, channelId, part: a }, b)) {
        const labels = labeler.session(id, channelId, was.title);
        sink.emit(
          { kind: 'session.removed', entity: sessionEntity(id), from: was.status, labels },
          { at: b!.at, since: a.at },
        );
      }
    }
  }
}

/**
 * One changed channel's two lists; or, when both list the same sessions in the same order,
 * just the pairs that differ, in id order.
 */
type ChannelLists = {
  channelId: string;
  a: SessionsPart | undefined;
  b: SessionsPart | undefined;
} & (
  | { listedA: Map<string, Session>; listedB: Map<string, Session> }
  | { pairs: Array<[Session, Session]>; since: number; part: SessionsPart }
);

/** Whether two lists hold sessions of the same ids in the same order. */
function aligned(a: Sessions, b: Sessions): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (idAt(a, i) !== idAt(b, i)) return false;
  return true;
}

/** Whether `list[i]` is the first session of its id in the list (a repeated id counts once, as in byId). */
function firstOf(list: readonly Session[], i: number): boolean {
  const id = list[i]!.id;
  for (let j = 0; j < i; j++) if (list[j]!.id === id) return false;
  return true;
}

/**
 * Where each of `wanted` is listed in `snap`: its first place in channel-id order (lists
 * that failed list nothing). One walk over the lists, stopping once all are found.
 */
function locate(snap: OrgSnapshot, wanted: ReadonlySet<string>): Map<string, Placement> {
  const out = new Map<string, Placement>();
  if (wanted.size === 0) return out;
  for (const channelId of sortedIds(Object.keys(snap.sessions))) {
    const part = own(snap.sessions, channelId);
    if (part === undefined || part.state === 'failed') continue;
    // Ids only: a session object is made for the few found, not for every session listed.
    const list = part.value;
    for (const i of wantedIn(list, wanted)) {
      const id = idAt(list, i);
      if (!out.has(id)) out.set(id, { session: list.at(i)!, channelId, part });
    }
    if (out.size === wanted.size) break;
  }
  return out;
}

function listed(part: SessionsPart | undefined): Map<string, Session> {
  return part === undefined || part.state === 'failed' ? new Map() : byId(sessionArray(part.value));
}

/**
 * A session listed now and nowhere before is new only when the older list was complete
 * and its window already covered the session: otherwise it merely entered the window.
 */
function added(here: Placement, before: SessionsPart | undefined, labeler: Labeler, sink: EventSink): void {
  if (before?.state !== 'complete' || !inWindow(here.session, before.window)) return;
  const s = here.session;
  const labels = labeler.session(s.id, here.channelId, s.title);
  const at = { at: here.part.at, since: before.at };
  sink.emit({ kind: 'session.added', entity: sessionEntity(s.id), to: s.status, labels }, at);
  for (const draft of lifecycle(undefined, s, labels)) {
    // A start or an end dated well before the older list was read happened before tally
    // looked (the first list of a channel added after the baseline holds sessions long
    // over). The margin is for the server's clock, which tally's need not match.
    const when =
      draft.kind === 'session.started' ? s.startedAt : draft.kind === 'session.ended' ? s.endedAt : undefined;
    if (when !== undefined && when < before.at - NOT_NEWS_BEFORE_MS) continue;
    sink.emit(draft, at);
  }
}

/** How long before tally's previous look a start or end must be dated to be old news. */
export const NOT_NEWS_BEFORE_MS = 15 * 60_000;

/**
 * A session listed before and in no list now is removed only when the newer list is
 * complete and both windows cover it. (Whether its own detail still shows it is weighed
 * by the poller before a removal is confirmed, src/poll/removals.ts: a diff that dropped
 * the event would drop the session from the snapshot too, with no removal ever reported.)
 */
function removed(gone: Placement, after: SessionsPart | undefined): boolean {
  if (gone.part.state !== 'complete' || after?.state !== 'complete') return false;
  return inWindow(gone.session, gone.part.window) && inWindow(gone.session, after.window);
}

function changed(a: Session, here: Placement, since: number, labeler: Labeler, sink: EventSink): void {
  const b = here.session;
  if (unchanged(a, b)) return;
  const at = { at: here.part.at, since };
  const entity = sessionEntity(b.id);
  const labels = labeler.session(b.id, here.channelId, b.title ?? a.title);
  if (!same(a.status, b.status)) {
    sink.emit(
      { kind: 'session.status_changed', entity, field: 'status', from: a.status, to: b.status, labels },
      at,
    );
  }
  for (const draft of lifecycle(a, b, labels)) sink.emit(draft, at);
  if (!same(a.title, b.title)) {
    sink.emit(
      { kind: 'session.renamed', entity, field: 'title', from: orNull(a.title), to: orNull(b.title), labels },
      at,
    );
  }
  if (!sameInstant(a.scheduledAt, b.scheduledAt)) {
    const draft = { kind: 'session.rescheduled' as const, entity, field: 'scheduled_at', labels };
    sink.emit({ ...draft, from: orNull(a.scheduledAt), to: orNull(b.scheduledAt) }, at);
  }
  // The other end of the planned time range: its own event, told apart by its field.
  if (!sameInstant(a.scheduledEndAt, b.scheduledEndAt)) {
    const draft = { kind: 'session.rescheduled' as const, entity, field: 'scheduled_end_at', labels };
    sink.emit({ ...draft, from: orNull(a.scheduledEndAt), to: orNull(b.scheduledEndAt) }, at);
  }
}

/** Whether nothing the diff looks at differs (the common case, checked before any labels are built). */
function unchanged(a: Session, b: Session): boolean {
  return (
    same(a.status, b.status) &&
    same(a.title, b.title) &&
    sameInstant(a.scheduledAt, b.scheduledAt) &&
    sameInstant(a.scheduledEndAt, b.scheduledEndAt) &&
    sameInstant(a.startedAt, b.startedAt) &&
    sameInstant(a.endedAt, b.endedAt)
  );
}

/**
 * `session.started` when the status turned live, or a start time appeared on a session
 * that was neither live nor over; `session.ended` when the status turned to the ended
 * family, or an end time appeared on a session that was not over. `prev` is undefined for
 * a new session, which then starts and ends from nothing.
 */
export function lifecycle(
  prev: Session | undefined,
  next: Session,
  labels: Record<string, string>,
): EventDraft[] {
  const out: EventDraft[] = [];
  const entity = sessionEntity(next.id);
  const wasLive = isLiveStatus(prev?.status);
  const wasOver = prev !== undefined && isOver(prev);
  const startAppeared = prev?.startedAt === undefined && next.startedAt !== undefined;
  if (!wasLive && (isLiveStatus(next.status) || (!wasOver && startAppeared))) {
    out.push({
      kind: 'session.started',
      entity,
      field: 'status',
      from: orNull(prev?.status),
      to: next.status,
      labels,
    });
  }
  if (!wasOver && isOver(next)) {
    out.push({
      kind: 'session.ended',
      entity,
      field: 'status',
      from: orNull(prev?.status),
      to: next.status,
      labels,
    });
  }
  return out;
}

/** Over: an ended-family status, or an end time on a session that does not say it is live. */
function isOver(s: Session): boolean {
  return isEndedStatus(s.status) || (s.endedAt !== undefined && !isLiveStatus(s.status));
}

function sessionEntity(id: string) {
  return { kind: 'session' as const, id };
}
