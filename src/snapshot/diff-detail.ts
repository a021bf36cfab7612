/**
 * Diff of session details, group by group (detail-groups.ts): new questions and
 * announcements, reactions, speakers joining and leaving, and the AI status. A detail is
 * compared only when it was read completely in both snapshots; the first read of a
 * session's detail is its baseline, except for a session tally watched start
 * (`firstDetails`): what its first detail shows dated since tally's look before the start
 * is new, the rest (undated, or older) is the baseline.
 */
import { type GroupDiff, rowOf, SUB_RESOURCES } from './detail-groups.js';
import { type EventSink, type Labeler, own, type Stamp, sortedIds } from './diff-context.js';
import {
  type DetailGroups,
  type OrgSnapshot,
  type SessionDetail,
  type SubResource,
  subResourceRead,
} from './model.js';

export { goneItems, newItems } from './detail-groups.js';

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
  // Labels are looked up only for a detail that changed: finding a session's channel may
  // mean indexing every list, and most details read again have not changed.
  let known: Record<string, string> | undefined;
  const labels = () => {
    known ??= labelsOf();
    return known;
  };
  const d: GroupDiff = { entity: { kind: 'session', id }, labels, at, sink };
  // A sub-resource unread on either side is unknown there: no news from it, and the first
  // read of one unread before is its baseline (docs/upstream-shapes.md, "Session detail").
  for (const name of SUB_RESOURCES) {
    if (subResourceRead(a, name) && subResourceRead(b, name)) diffGroup(name, a, b, d);
  }
}

/** One group's diff: its row with the group's own values. */
function diffGroup<G extends SubResource>(name: G, a: DetailGroups, b: DetailGroups, d: GroupDiff): void {
  rowOf(name).diff(a[name], b[name], d);
}

/**
 * What `d` held before `since`: each group as its row has it before then (items dated
 * earlier or not dated at all, totals and states as they are). Built from every row, so a
 * group added to the table is never all news on a session's first detail.
 */
export function before(d: SessionDetail, since: number): SessionDetail {
  const out: SessionDetail = { ...d };
  for (const name of SUB_RESOURCES) setBefore(out, d, name, since);
  return out;
}

function setBefore<G extends SubResource>(out: DetailGroups, d: DetailGroups, name: G, since: number): void {
  out[name] = rowOf(name).before(d[name], since);
}
