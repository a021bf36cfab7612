/**
 * Diff of session details: new questions and announcements, reactions, speakers joining
 * and leaving, and the AI status. A detail is compared only when it was read completely
 * in both snapshots; the first read of a session's detail is its baseline, except for a
 * session tally watched start (`firstDetails`): what its first detail shows dated since
 * tally's look before the start is new, the rest (undated, or older) is the baseline.
 */
import {
  byId,
  type EventSink,
  type Stamp,
  type Labeler,
  orNull,
  own,
  same,
  sortedIds,
} from './diff-context.js';
import {
  type DetailItem,
  type OrgSnapshot,
  type SessionDetail,
  type SubResource,
  subResourceRead,
} from './model.js';

type ItemGroup = { count: number; items: DetailItem[] };

/** Every session detail present in both snapshots, in session-id order. */
export function diffDetails(
  prev: OrgSnapshot,
  next: OrgSnapshot,
  labeler: Labeler,
  sink: EventSink,
  firstDetails?: ReadonlyMap<string, number>,
): void {
  for (const id of sortedIds(Object.keys(next.details))) {
    const a = own(prev.details, id);
    const b = own(next.details, id);
    // No complete detail before (none read yet, or the reads so far failed).
    const since = a?.state !== 'complete' ? firstDetails?.get(id) : undefined;
    if (since !== undefined && b?.state === 'complete') {
      const base = before(b.value, since);
      diffDetail(base, b.value, { at: b.at, since }, () => labeler.sessionById(id), id, sink);
      continue;
    }
    if (a === b || a?.state !== 'complete' || b?.state !== 'complete') continue;
    diffDetail(a.value, b.value, { at: b.at, since: a.at }, () => labeler.sessionById(id), id, sink);
  }
}

function diffDetail(
  a: SessionDetail,
  b: SessionDetail,
  at: Stamp,
  labelsOf: () => Record<string, string>,
  id: string,
  sink: EventSink,
): void {
  const entity = { kind: 'session' as const, id };
  // Labels are looked up only for a detail that changed: finding a session's channel may
  // mean indexing every list, and most details read again have not changed.
  let known: Record<string, string> | undefined;
  const labelsFor = () => {
    known ??= labelsOf();
    return known;
  };
  // A sub-resource unread on either side is unknown there: no news from it, and the first
  // read of one unread before is its baseline (docs/upstream-shapes.md, "Session detail").
  const both = (name: SubResource) => subResourceRead(a, name) && subResourceRead(b, name);
  if (both('questions')) questionsAdded(a, b, entity, labelsFor, at, sink);
  if (both('announcements')) announcementsAdded(a, b, entity, labelsFor, at, sink);
  if (both('reactions') && !same(a.reactions.count, b.reactions.count)) {
    const delta = b.reactions.count - a.reactions.count;
    const draft = { kind: 'session.reactions_changed' as const, entity, field: 'reactions' };
    const withDelta = { ...labelsFor(), delta: delta > 0 ? `+${delta}` : String(delta) };
    sink.emit({ ...draft, from: a.reactions.count, to: b.reactions.count, labels: withDelta }, at);
  }
  if (both('speakers')) speakersMoved(a, b, entity, labelsFor, at, sink);
  if (both('ai')) aiChanged(a, b, entity, labelsFor, at, sink);
}

type Entity = { kind: 'session'; id: string };

function questionsAdded(
  a: SessionDetail,
  b: SessionDetail,
  entity: Entity,
  labelsFor: () => Record<string, string>,
  at: Stamp,
  sink: EventSink,
): void {
  for (const item of newItems(a.questions, b.questions)) {
    const draft = { kind: 'session.question_added' as const, entity, field: 'questions', key: item.id };
    sink.emit({ ...draft, to: orNull(item.text), labels: { ...labelsFor(), question_id: item.id } }, at);
  }
}

function announcementsAdded(
  a: SessionDetail,
  b: SessionDetail,
  entity: Entity,
  labelsFor: () => Record<string, string>,
  at: Stamp,
  sink: EventSink,
): void {
  for (const item of newItems(a.announcements, b.announcements)) {
    const draft = {
      kind: 'session.announcement_added' as const,
      entity,
      field: 'announcements',
      key: item.id,
    };
    sink.emit({ ...draft, to: orNull(item.text), labels: { ...labelsFor(), announcement_id: item.id } }, at);
  }
}

function speakersMoved(
  a: SessionDetail,
  b: SessionDetail,
  entity: Entity,
  labelsFor: () => Record<string, string>,
  at: Stamp,
  sink: EventSink,
): void {
  for (const item of newItems(a.speakers, b.speakers)) {
    const name = item.text ?? item.id;
    const draft = {
      kind: 'session.speaker_joined' as const,
      entity,
      field: 'speakers',
      key: item.id,
      to: name,
    };
    sink.emit({ ...draft, labels: { ...labelsFor(), speaker: name, speaker_id: item.id } }, at);
  }
  for (const item of goneItems(a.speakers, b.speakers)) {
    const name = item.text ?? item.id;
    const draft = {
      kind: 'session.speaker_left' as const,
      entity,
      field: 'speakers',
      key: item.id,
      from: name,
    };
    sink.emit({ ...draft, labels: { ...labelsFor(), speaker: name, speaker_id: item.id } }, at);
  }
}

function aiChanged(
  a: SessionDetail,
  b: SessionDetail,
  entity: Entity,
  labelsFor: () => Record<string, string>,
  at: Stamp,
  sink: EventSink,
): void {
  const ai = { kind: 'session.ai_status_changed' as const, entity };
  if (!same(a.ai.status, b.ai.status)) {
    sink.emit(
      { ...ai, labels: labelsFor(), field: 'ai.status', from: orNull(a.ai.status), to: orNull(b.ai.status) },
      at,
    );
  }
  if (!same(a.ai.enabled, b.ai.enabled)) {
    sink.emit(
      {
        ...ai,
        labels: labelsFor(),
        field: 'ai.enabled',
        from: orNull(a.ai.enabled),
        to: orNull(b.ai.enabled),
      },
      at,
    );
  }
}

/**
 * What `d` held before `since`: its items dated earlier or not dated at all (tally cannot
 * tell when those came), with its reactions and AI status as they are (totals and states
 * are not news without a value before them).
 */
function before(d: SessionDetail, since: number): SessionDetail {
  const older = (g: ItemGroup): ItemGroup => {
    const items = g.items.filter((i) => i.at === undefined || i.at < since);
    return { count: items.length, items };
  };
  return {
    ...d,
    questions: older(d.questions),
    announcements: older(d.announcements),
    speakers: older(d.speakers),
  };
}

/** Whether a group shows only part of its items (the API embedded one page). */
function partial(g: ItemGroup): boolean {
  return g.count > g.items.length;
}

/**
 * Items of `b` that `a` did not show, in `b`'s order. When `a` showed only a page, an
 * unseen item may simply have been off that page: then items known to be older than the
 * newest one `a` showed are skipped, and no more are reported than the count grew by.
 */
export function newItems(a: ItemGroup, b: ItemGroup): DetailItem[] {
  const seen = byId(a.items);
  const unseen = [...byId(b.items).values()].filter((item) => !seen.has(item.id));
  if (!partial(a)) return unseen;
  const newest = a.items.reduce((m, item) => (item.at !== undefined && item.at > m ? item.at : m), -Infinity);
  const fresh = unseen.filter((item) => item.at === undefined || newest === -Infinity || item.at > newest);
  return fresh.slice(0, Math.max(0, b.count - a.count));
}

/** Items of `a` that `b` no longer shows, in `a`'s order; none when `b` shows only a page. */
export function goneItems(a: ItemGroup, b: ItemGroup): DetailItem[] {
  if (partial(b)) return [];
  const still = byId(b.items);
  return [...byId(a.items).values()].filter((item) => !still.has(item.id));
}
