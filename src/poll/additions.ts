/**
 * Mass additions are suspect too (docs/architecture.md, invariant 9; docs/events.md, "Mass
 * additions"): a read that adds a mass share of a list at once — a page of
 * 70 000 sessions on a channel that held 30 — is as likely a server gone wrong as news,
 * and taken at face value it is 70 000 events, as many alerts and follow-up reads.
 *
 * Such a read is held: the list stays as it was, none of the read's events about that list
 * is reported, and the list is read again at once. When that read adds the same items
 * again, they are taken in and reported as one summarised event for the list
 * (`session.added_bulk`, `channel.added_bulk`, `member.added_bulk`: the count, and a sample
 * of ids), with the other changes of the read; the items' own events (`*.added`, and the
 * `session.started` / `session.ended` of sessions new and live or over) are not reported
 * one by one. When it does not, the held read is forgotten: it never happened.
 */
import { createHash } from 'node:crypto';
import type { ChangeEvent, EntityKind, EventKind } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import { getOwn, setOwn } from '../core/own.js';
import type { ListKey } from './removals.js';

/** When a read that adds items is suspect. */
export interface AdditionPolicy {
  /** A read that adds at least this many items to a list at once ... */
  massMin: number;
  /** ... and at least this many times the items the list held, is suspect. */
  massFactor: number;
}

/** The defaults: 100 items, and at least as many as the list held. */
export const DEFAULT_ADDITION_POLICY: AdditionPolicy = { massMin: 100, massFactor: 1 };

/** Ids a summarised event names as its sample. */
export const BULK_SAMPLE = 10;
/** Ids of a held read kept to recognise it again. */
const KEPT_IDS = 1000;

/** A mass addition waiting for a later read to confirm it. */
interface Held {
  count: number;
  ids: Set<string>;
  since: number;
}

/** What {@link AdditionCheck.review} decided for one read. */
export interface ReviewedAdditions {
  events: ChangeEvent[];
  /** `next`, with a held list put back as `current` had it. */
  next: OrgSnapshot;
  /** The list to read again at once, when this read was held. */
  reread: ListKey[];
  /** Items of a list held back by this read (0 when none). */
  held: number;
}

/** A list waiting for confirmation of a mass addition, for logs and the status API. */
export interface HeldAdditions {
  list: ListKey;
  count: number;
  since: number;
}

/** Holds each mass addition back until a later read of its list shows it again. */
export class AdditionCheck {
  private readonly pending = new Map<ListKey, Held>();

  constructor(private readonly policy: AdditionPolicy = DEFAULT_ADDITION_POLICY) {}

  /** Reviews the events of a read of `read`, taken at `now`, that turned `current` into `next`. */
  review(
    read: string,
    events: ChangeEvent[],
    current: OrgSnapshot,
    next: OrgSnapshot,
    now: number,
  ): ReviewedAdditions {
    const list = asList(read);
    if (list === undefined) return { events, next, reread: [], held: 0 };
    const added = events.filter((e) => listOfAddition(e) === list).map((e) => e.entity.id);
    const size = sizeOf(list, current);
    const mass = added.length >= this.policy.massMin && added.length >= this.policy.massFactor * size;
    if (!mass) {
      this.pending.delete(list);
      return { events, next, reread: [], held: 0 };
    }
    const ids = new Set(added);
    const itemKind = ITEM_KIND[listKind(list)];
    const held = this.pending.get(list);
    if (held !== undefined && overlaps(held.ids, ids)) {
      this.pending.delete(list);
      const rest = events.filter((e) => !(e.entity.kind === itemKind && ids.has(e.entity.id)));
      return { events: [...rest, bulkEvent(list, added, events, now)], next, reread: [], held: 0 };
    }
    this.pending.set(list, { count: added.length, ids: new Set(added.slice(0, KEPT_IDS)), since: now });
    const rest = events.filter((e) => e.entity.kind !== itemKind);
    return { events: rest, next: putBack(list, current, next), reread: [list], held: added.length };
  }

  /** The mass additions waiting for confirmation. */
  held(): HeldAdditions[] {
    return [...this.pending].map(([list, h]) => ({ list, count: h.count, since: h.since }));
  }
}

type Kind = 'team' | 'channels' | 'sessions';

const ITEM_KIND: Record<Kind, EntityKind> = { team: 'member', channels: 'channel', sessions: 'session' };
const BULK_KIND: Record<Kind, EventKind> = {
  team: 'member.added_bulk',
  channels: 'channel.added_bulk',
  sessions: 'session.added_bulk',
};

function listKind(list: ListKey): Kind {
  return list === 'team' ? 'team' : list === 'channels' ? 'channels' : 'sessions';
}

function asList(read: string): ListKey | undefined {
  if (read === 'team' || read === 'channels' || read.startsWith('sessions:')) return read as ListKey;
  return undefined;
}

/** The list an addition event is about, or undefined for any other event. */
function listOfAddition(e: ChangeEvent): ListKey | undefined {
  if (e.kind === 'member.added') return 'team';
  if (e.kind === 'channel.added') return 'channels';
  if (e.kind === 'session.added') {
    const channel = e.labels['channel_id'];
    return channel === undefined ? undefined : `sessions:${channel}`;
  }
  return undefined;
}

/** Whether at least half the ids kept of a held read are among `ids`. */
function overlaps(kept: ReadonlySet<string>, ids: ReadonlySet<string>): boolean {
  let hits = 0;
  for (const id of kept) if (ids.has(id)) hits++;
  return hits * 2 >= kept.size;
}

function sizeOf(list: ListKey, snap: OrgSnapshot): number {
  const part =
    list === 'team'
      ? snap.team
      : list === 'channels'
        ? snap.channels
        : snap.sessions[list.slice('sessions:'.length)];
  if (part?.state !== 'complete') return 0;
  const value = part.value as { length?: number } & Iterable<unknown>;
  if (typeof value.length === 'number') return value.length;
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** `next` with the list as `current` had it. */
function putBack(list: ListKey, current: OrgSnapshot, next: OrgSnapshot): OrgSnapshot {
  const out = { ...next };
  if (list === 'team' || list === 'channels') {
    const was = current[list];
    if (was === undefined) delete out[list];
    else setOwn(out, list, was);
    return out;
  }
  const channel = list.slice('sessions:'.length);
  const sessions = { ...next.sessions };
  const was = getOwn(current.sessions, channel);
  if (was === undefined) delete sessions[channel];
  else setOwn(sessions, channel, was);
  return { ...out, sessions };
}

/**
 * The one event that reports a confirmed mass addition: `to` is the count, the `count` and
 * `sample` labels say it in text; for sessions, the channel is the entity. Its id is made
 * from the ids added, so a re-read after a crash keeps it (invariant 10).
 */
function bulkEvent(
  list: ListKey,
  ids: readonly string[],
  events: readonly ChangeEvent[],
  now: number,
): ChangeEvent {
  const kind = listKind(list);
  const first = events.find((e) => listOfAddition(e) === list);
  const org = first?.org ?? '';
  const h = createHash('sha256').update(list);
  for (const id of [...ids].sort()) h.update(`\0${id}`);
  const labels: Record<string, string> = {};
  if (kind === 'sessions') {
    const channel = list.slice('sessions:'.length);
    labels['channel_id'] = channel;
    if (first?.labels['channel'] !== undefined) labels['channel'] = first.labels['channel'];
  }
  labels['count'] = String(ids.length);
  labels['sample'] = ids.slice(0, BULK_SAMPLE).join(', ');
  return {
    id: `${org}:${BULK_KIND[kind]}:${h.digest('hex').slice(0, 24)}`,
    at: first?.at ?? now,
    org,
    kind: BULK_KIND[kind],
    entity:
      kind === 'sessions'
        ? { kind: 'channel', id: list.slice('sessions:'.length) }
        : { kind: 'org', id: org },
    to: ids.length,
    labels,
  };
}
