/**
 * Removals are confirmed by a second read before they are reported. A list that a server
 * cuts short without saying so (one page, no totals, no next link) cannot be told from a
 * shorter list, and an eventually consistent server may leave an item out of one answer:
 * either would otherwise become a `*.removed` event, and an alert, for something that is
 * still there.
 *
 * The first read that misses a member, channel or session holds its removal back: the
 * item stays in the snapshot as it was, and its list is read again at once. If that read
 * misses it too, the removal is reported (its id is measured from the first read, so it
 * is stable); if the item is back, nothing is. Every other change of the same read is
 * reported at once.
 */
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot, Part } from '../snapshot/model.js';

/** Which part of a snapshot a read or a removal is about: `team`, `channels` or `sessions:<channel id>`. */
export type ListKey = 'team' | 'channels' | `sessions:${string}`;

/** What {@link RemovalCheck.review} decided for one read. */
export interface Reviewed {
  /** The events to report now. */
  events: ChangeEvent[];
  /** The snapshot to keep: `next`, with held-back items put back into their lists. */
  next: OrgSnapshot;
  /** Lists to read again at once, to confirm what was held back. */
  reread: ListKey[];
}

/** Holds each removal back until a second read of its list confirms it. */
export class RemovalCheck {
  /** Removals seen once (`kind\0id`), with the list that must miss the item again. */
  private readonly pending = new Map<string, ListKey>();

  /** Reviews the events of a read of `read` that turned `current` into `next`. */
  review(read: string, events: ChangeEvent[], current: OrgSnapshot, next: OrgSnapshot): Reviewed {
    const kept: ChangeEvent[] = [];
    const held: ChangeEvent[] = [];
    const heldKeys = new Set<string>();
    for (const e of events) {
      const list = listOf(e);
      if (list === undefined) {
        kept.push(e);
        continue;
      }
      const key = `${e.kind}\0${e.entity.id}`;
      if (this.pending.get(key) === list) {
        this.pending.delete(key);
        kept.push(e);
        continue;
      }
      this.pending.set(key, list);
      held.push(e);
      heldKeys.add(key);
    }
    // Removals held after an earlier read of this list that this read did not repeat: the
    // item is listed again.
    for (const [key, list] of this.pending) {
      if (list === read && !heldKeys.has(key)) this.pending.delete(key);
    }
    if (held.length === 0) return { events: kept, next, reread: [] };
    let patched = next;
    for (const e of held) patched = restore(e, current, patched);
    return { events: kept, next: patched, reread: [...new Set(held.map((e) => listOf(e)!))] };
  }

  /** How many removals wait for their second read. */
  get waiting(): number {
    return this.pending.size;
  }
}

/** The list a removal event is about, or undefined for any other event. */
function listOf(e: ChangeEvent): ListKey | undefined {
  if (e.kind === 'member.removed') return 'team';
  if (e.kind === 'channel.removed') return 'channels';
  if (e.kind === 'session.removed') {
    const channel = e.labels['channel_id'];
    return channel === undefined ? undefined : `sessions:${channel}`;
  }
  return undefined;
}

/** `next` with the item that `e` removed put back into its list, as `current` had it. */
function restore(e: ChangeEvent, current: OrgSnapshot, next: OrgSnapshot): OrgSnapshot {
  const id = e.entity.id;
  if (e.kind === 'member.removed') {
    const team = withItem(next.team, current.team, id);
    return team ? { ...next, team } : next;
  }
  if (e.kind === 'channel.removed') {
    const channels = withItem(next.channels, current.channels, id);
    return channels ? { ...next, channels } : next;
  }
  const channel = e.labels['channel_id']!;
  const part = next.sessions[channel];
  const list = withItem(part, current.sessions[channel], id);
  if (!list || !part) return next;
  return { ...next, sessions: { ...next.sessions, [channel]: { ...part, ...list } } };
}

/** A copy of the complete list `into` with the item `id` of `from` added, or undefined. */
function withItem<T extends { id: string }>(
  into: Part<T[]> | undefined,
  from: Part<T[]> | undefined,
  id: string,
): Part<T[]> | undefined {
  if (into?.state !== 'complete' || from?.state !== 'complete') return undefined;
  const item = from.value.find((x) => x.id === id);
  if (item === undefined || into.value.some((x) => x.id === id)) return undefined;
  return { ...into, value: [...into.value, item] };
}
