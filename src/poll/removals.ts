/**
 * Removals need evidence before they are reported (docs/architecture.md, invariant 9). A
 * list that a server cuts short without saying so (one page, no totals, no next link)
 * cannot be told from a shorter list, an eventually consistent server may leave an item
 * out of one answer, and a broken server may answer an empty list or `null`: each would
 * otherwise become `*.removed` events, and alerts, for things that are still there.
 *
 * The first read that misses a member, channel or session holds its removal back: the
 * item stays in the snapshot as it was, and its list is read again at once. If that read
 * misses it too, the removal is reported (its id is measured from the first read, so it
 * is stable); if the item is back, nothing is. Every other change of the same read is
 * reported at once.
 *
 * A session's own detail outweighs its list: when a detail read after the first miss
 * still shows the session on that channel, neither over nor of a status tally does not
 * know (a list served by a lagging replica), the confirming read does not report the
 * removal but starts the wait afresh, with no read asked for at once; the list's own
 * schedule reads it again, and the removal is reported once a read misses it with no newer
 * such detail (one that answers `404` or says `deleted` does not count), and at the latest
 * {@link DETAIL_OUTWEIGHS_MS} after the first miss.
 *
 * A *suspect* read needs more: one that empties a list that held items, or that loses at
 * least `massShare` of a list and at least `massMin` items at once. Its removals are
 * reported only after `confirmReads` reads in a row miss the items, spread over at least
 * `confirmAfterMs`; a genuine mass deletion is then reported once, as usual.
 */
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot, Part } from '../snapshot/model.js';
import { statusClass } from '../snapshot/vocabulary.js';

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
  /** Of those, the sessions each session list held back for the first time. */
  heldSessions?: Map<ListKey, string[]>;
}

/** When a read that removes items is suspect, and what confirms its removals. */
export interface RemovalPolicy {
  /** A read that loses at least this share of a list's items at once is suspect. */
  massShare: number;
  /** ... and at least this many items. */
  massMin: number;
  /** Reads in a row that must miss the items of a suspect read. */
  confirmReads: number;
  /** The time those reads must span (ms). */
  confirmAfterMs: number;
}

/** The defaults (docs/configuration.md, "removals"; docs/events.md, "A removal is read twice"). */
export const DEFAULT_REMOVAL_POLICY: RemovalPolicy = {
  massShare: 0.5,
  massMin: 3,
  confirmReads: 3,
  confirmAfterMs: 120_000,
};

/** A removal waiting for evidence. */
interface Pending {
  list: ListKey;
  /** Reads so far that missed the item. */
  reads: number;
  /** When the first of them was taken (ms). */
  since: number;
  /** Whether it came from a suspect read (and needs the stronger confirmation). */
  suspect: boolean;
  /** When the first read that missed it was taken, kept when a detail starts the wait afresh. */
  firstMiss: number;
}

/** How long after the first miss a session's detail may still outweigh its list. */
export const DETAIL_OUTWEIGHS_MS = 10 * 60_000;

/** When a session's detail last showed it, and on which channel (undefined: the detail names none). */
interface Sighting {
  at: number;
  channelId: string | undefined;
}

/** Removals of one list waiting for evidence, for the status API and metrics. */
export interface HeldRemovals {
  list: ListKey;
  count: number;
  suspect: boolean;
  /** When the first read that missed them was taken (ms). */
  since: number;
}

/** Holds each removal back until further reads of its list confirm it. */
export class RemovalCheck {
  /** Removals waiting (`kind\0id`). */
  private readonly pending = new Map<string, Pending>();
  /** Details read to confirm a session's removal that showed the session (see {@link sawSession}). */
  private readonly sightings = new Map<string, Sighting>();

  constructor(private readonly policy: RemovalPolicy = DEFAULT_REMOVAL_POLICY) {}

  /** Reviews the events of a read of `read`, taken at `now`, that turned `current` into `next`. */
  review(read: string, events: ChangeEvent[], current: OrgSnapshot, next: OrgSnapshot, now = 0): Reviewed {
    const kept: ChangeEvent[] = [];
    const held: ChangeEvent[] = [];
    const heldKeys = new Set<string>();
    /** Removals whose confirming read a newer detail outweighed at this read. */
    const outweighed = new Set<string>();
    const suspectLists = this.suspectLists(events, current);
    for (const e of events) {
      const list = listOf(e);
      if (list === undefined) {
        kept.push(e);
        continue;
      }
      const key = `${e.kind}\0${e.entity.id}`;
      const p = this.pending.get(key);
      heldKeys.add(key);
      if (p?.list === list) {
        p.reads += 1;
        p.suspect ||= suspectLists.has(list);
        if (
          this.confirmed(p, now) &&
          now - p.firstMiss < DETAIL_OUTWEIGHS_MS &&
          this.seenSince(e, p.since, next)
        ) {
          // Its detail, read since the first miss, still shows it here: the list lags.
          p.reads = 1;
          p.since = now;
          held.push(e);
          outweighed.add(key);
          continue;
        }
        if (this.confirmed(p, now)) {
          this.pending.delete(key);
          heldKeys.delete(key);
          kept.push(e);
        } else held.push(e);
        continue;
      }
      this.pending.set(key, { list, reads: 1, since: now, suspect: suspectLists.has(list), firstMiss: now });
      held.push(e);
    }
    // Removals held after an earlier read of this list that this read did not repeat: the
    // item is listed again.
    for (const [key, p] of this.pending) {
      if (p.list === read && !heldKeys.has(key)) this.pending.delete(key);
    }
    for (const id of this.sightings.keys())
      if (!this.pending.has(`session.removed\0${id}`)) this.sightings.delete(id);
    if (held.length === 0) return { events: kept, next, reread: [] };
    let patched = next;
    for (const e of held) patched = restore(e, current, patched);
    // A first miss is read again at once; a suspect read waits for the list's own schedule,
    // since its confirmation needs time to pass anyway, and so does a removal a detail
    // outweighed (its wait began again at this read).
    const first = held.filter((e) => {
      const key = `${e.kind}\0${e.entity.id}`;
      return this.pending.get(key)?.reads === 1 && !outweighed.has(key);
    });
    const heldSessions = new Map<ListKey, string[]>();
    for (const e of first) {
      if (e.kind !== 'session.removed') continue;
      const list = listOf(e)!;
      heldSessions.set(list, [...(heldSessions.get(list) ?? []), e.entity.id]);
    }
    return { events: kept, next: patched, reread: [...new Set(first.map((e) => listOf(e)!))], heldSessions };
  }

  /** How many removals wait for evidence. */
  get waiting(): number {
    return this.pending.size;
  }

  /** The removals waiting, by list. */
  held(): HeldRemovals[] {
    const by = new Map<ListKey, HeldRemovals>();
    for (const p of this.pending.values()) {
      const h = by.get(p.list) ?? { list: p.list, count: 0, suspect: false, since: p.since };
      h.count += 1;
      h.suspect ||= p.suspect;
      h.since = Math.min(h.since, p.since);
      by.set(p.list, h);
    }
    return [...by.values()];
  }

  /**
   * Notes a detail read while confirming a removal that showed the session, on the
   * channel it names (undefined: none). A detail the snapshot holds counts as well.
   */
  sawSession(sessionId: string, at: number, channelId: string | undefined, status: string | undefined): void {
    if (!stillThere(status)) return;
    if (this.pending.has(`session.removed\0${sessionId}`)) this.sightings.set(sessionId, { at, channelId });
  }

  /**
   * Whether a detail read since `since` shows the session of removal `e` on its channel:
   * one read to confirm the removal (used once), or one the snapshot holds (a live
   * session's detail is read every `live_detail`).
   */
  private seenSince(e: ChangeEvent, since: number, next: OrgSnapshot): boolean {
    if (e.kind !== 'session.removed') return false;
    const id = e.entity.id;
    const channel = e.labels['channel_id'];
    const onChannel = (c: string | undefined) => c === undefined || c === channel;
    const sighting = this.sightings.get(id);
    if (sighting !== undefined && sighting.at >= since && onChannel(sighting.channelId)) {
      this.sightings.delete(id);
      return true;
    }
    const detail = Object.hasOwn(next.details, id) ? next.details[id] : undefined;
    return (
      detail?.state === 'complete' &&
      detail.at > since &&
      onChannel(detail.value.channelId) &&
      stillThere(detail.value.status)
    );
  }

  private confirmed(p: Pending, now: number): boolean {
    if (!p.suspect) return p.reads >= 2;
    return p.reads >= this.policy.confirmReads && now - p.since >= this.policy.confirmAfterMs;
  }

  /** Lists this read emptied, or lost a mass share of. */
  private suspectLists(events: readonly ChangeEvent[], current: OrgSnapshot): Set<ListKey> {
    const removed = new Map<ListKey, number>();
    for (const e of events) {
      const list = listOf(e);
      if (list !== undefined) removed.set(list, (removed.get(list) ?? 0) + 1);
    }
    const out = new Set<ListKey>();
    for (const [list, n] of removed) {
      const size = sizeOf(list, current);
      if (size === 0) continue;
      const emptied = n >= size;
      const mass = n >= this.policy.massMin && n / size >= this.policy.massShare;
      if (emptied || mass) out.add(list);
    }
    return out;
  }
}

/** How many items `list` held in `snap`. */
function sizeOf(list: ListKey, snap: OrgSnapshot): number {
  const part =
    list === 'team'
      ? snap.team
      : list === 'channels'
        ? snap.channels
        : snap.sessions[list.slice('sessions:'.length)];
  return part?.state === 'complete' ? part.value.length : 0;
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
  into: Part<Iterable<T>> | undefined,
  from: Part<Iterable<T>> | undefined,
  id: string,
): Part<T[]> | undefined {
  if (into?.state !== 'complete' || from?.state !== 'complete') return undefined;
  const item = find(from.value, id);
  if (item === undefined || find(into.value, id) !== undefined) return undefined;
  return { ...into, value: [...into.value, item] };
}

function find<T extends { id: string }>(items: Iterable<T>, id: string): T | undefined {
  for (const x of items) if (x.id === id) return x;
  return undefined;
}

/**
 * Whether a detail's status shows a session still there: live or not yet started (or no
 * status at all, which a detail may leave to the list). Over, called off, failed, or a word
 * tally does not know (`deleted`, `archived_by_admin`) is no evidence against its list.
 */
function stillThere(status: string | undefined): boolean {
  if (status === undefined) return true;
  const cls = statusClass(status);
  return cls === 'live' || cls === 'scheduled';
}
