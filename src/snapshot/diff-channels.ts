/**
 * Diff of the channel list: channels added and removed, and changes of status, visibility
 * and name. Compared only when the list was read completely (every page) both times.
 */
import { bothComplete, byId, type EventSink, type Labeler, orNull, same, sortedIds } from './diff-context.js';
import type { OrgSnapshot } from './model.js';

/** `channel.added`/`removed` carry the status in `to`/`from`; the others carry the changed field. */
export function diffChannels(prev: OrgSnapshot, next: OrgSnapshot, labeler: Labeler, sink: EventSink): void {
  if (prev.channels === next.channels) return; // the same part read once: nothing changed
  const pair = bothComplete(prev.channels, next.channels);
  if (!pair) return;
  const before = byId(pair.prev);
  const after = byId(pair.next);
  for (const id of sortedIds([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    const entity = { kind: 'channel' as const, id };
    const labels = labeler.channel(id);
    if (a === undefined && b !== undefined) {
      sink.emit({ kind: 'channel.added', entity, to: b.status, labels }, pair.at);
      continue;
    }
    if (a !== undefined && b === undefined) {
      sink.emit({ kind: 'channel.removed', entity, from: a.status, labels }, pair.at);
      continue;
    }
    if (a === undefined || b === undefined) continue;
    if (!same(a.status, b.status)) {
      sink.emit(
        { kind: 'channel.status_changed', entity, field: 'status', from: a.status, to: b.status, labels },
        pair.at,
      );
    }
    if (!same(a.visibility, b.visibility)) {
      const draft = { kind: 'channel.visibility_changed' as const, entity, field: 'visibility', labels };
      sink.emit({ ...draft, from: orNull(a.visibility), to: orNull(b.visibility) }, pair.at);
    }
    if (!same(a.name, b.name)) {
      const draft = { kind: 'channel.renamed' as const, entity, field: 'name', labels };
      sink.emit({ ...draft, from: orNull(a.name), to: orNull(b.name) }, pair.at);
    }
  }
}
