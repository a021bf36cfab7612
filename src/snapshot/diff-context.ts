/**
 * What the part-by-part diffs share: the event sink that stamps ids and the lookups that
 * turn ids into readable labels. Everything here is pure and deterministic.
 */
import type { ChangeEvent, EntityKind, EventKind, JsonValue } from './events.js';
import { eventId } from './event-id.js';
import type { Channel, OrgSnapshot, Part, Scalar } from './model.js';
import { indexOfId, type Sessions } from './session-list.js';

/** One change before it gets its org, time and id. */
export interface EventDraft {
  kind: EventKind;
  entity: { kind: EntityKind; id: string };
  field?: string;
  /** Extra identity for the id when one entity yields several events of one kind (an item id). */
  key?: string;
  from?: JsonValue;
  to?: JsonValue;
  labels: Record<string, string>;
}

/** When a change was seen (`at`, the newer part's fetch time) and since when (`since`, the older part's). */
export interface Stamp {
  at: number;
  since: number;
}

/** Collects events in the order they are emitted and gives each its id. */
export class EventSink {
  readonly events: ChangeEvent[] = [];

  constructor(
    private readonly org: string,
    private readonly newId: (() => string) | undefined,
  ) {}

  /** Adds one event seen at `stamp.at`, measured against the older part read at `stamp.since`. */
  emit(draft: EventDraft, stamp: Stamp): void {
    const at = stamp.at;
    const id = this.newId ? this.newId() : eventId({ org: this.org, since: stamp.since, ...draft });
    const event: ChangeEvent = {
      id,
      at,
      org: this.org,
      kind: draft.kind,
      entity: draft.entity,
      labels: draft.labels,
    };
    if (draft.field !== undefined) event.field = draft.field;
    if (draft.from !== undefined) event.from = draft.from;
    if (draft.to !== undefined) event.to = draft.to;
    this.events.push(event);
  }
}

/** The values of two parts when both were fetched completely, with the newer part's time. */
export function bothComplete<T>(
  prev: Part<T> | undefined,
  next: Part<T> | undefined,
): { prev: T; next: T; at: Stamp } | undefined {
  if (prev?.state !== 'complete' || next?.state !== 'complete') return undefined;
  return { prev: prev.value, next: next.value, at: { at: next.at, since: prev.at } };
}

/** A record's own value for a key (never an inherited one such as `constructor`). */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Entities by id; when an id repeats, the first one wins (both sides then pick the same). */
export function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items) if (!out.has(item.id)) out.set(item.id, item);
  return out;
}

/** Compares strings in code-unit order, independent of the runtime's locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ids in code-unit order, without repeats. */
export function sortedIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort(byCodeUnits);
}

/** Whether two verbatim values are the same (NaN equals NaN, so a value never differs from itself). */
export function same(a: Scalar | undefined, b: Scalar | undefined): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * Whether two times (epoch ms) name the same instant as a server may write it: equal, or
 * less than a second apart where one of them is a whole second. A server that writes one
 * time with milliseconds in one answer and in epoch seconds in the next (replicas,
 * caches) has not moved it (docs/architecture.md, invariant 18).
 */
export function sameInstant(a: number | undefined, b: number | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return Math.abs(a - b) < 1000 && (a % 1000 === 0 || b % 1000 === 0);
}

/** A possibly absent value as carried in `from`/`to`: absent becomes `null`. */
export function orNull(value: Scalar | undefined): JsonValue {
  return value === undefined ? null : value;
}

/** Where a session was last listed: session `index` of `list`, of channel `channelId`. */
interface Listed {
  list: Sessions;
  index: number;
  channelId: string;
}

/** Readable names for ids, from the newer snapshot first and the older one second. */
export class Labeler {
  /** Channel ids of each snapshot's lists in id order, newer snapshot first. */
  private order: [string[], string[]] | undefined;
  private names: [Map<string, string> | undefined, Map<string, string> | undefined] | undefined;

  constructor(
    private readonly prev: OrgSnapshot,
    private readonly next: OrgSnapshot,
  ) {}

  /** `channel` (name, or the id) and `channel_id`. */
  channel(channelId: string): Record<string, string> {
    this.names ??= [channelNames(this.next), channelNames(this.prev)];
    const [newer, older] = this.names;
    return { channel: newer?.get(channelId) ?? older?.get(channelId) ?? channelId, channel_id: channelId };
  }

  /** Channel labels plus `session` (title, or the id) and `session_id`. */
  session(
    sessionId: string,
    channelId: string | undefined,
    title: string | undefined,
  ): Record<string, string> {
    const base = channelId === undefined ? {} : this.channel(channelId);
    return { ...base, session: title ?? sessionId, session_id: sessionId };
  }

  /** Labels of a session known only by id (detail events): looked up in the lists, then in the details. */
  sessionById(sessionId: string): Record<string, string> {
    const listed = this.listedAt(sessionId);
    const detail = detailValue(this.next, sessionId) ?? detailValue(this.prev, sessionId);
    const title = listed?.list.at(listed.index)?.title ?? detail?.title;
    const channelId = listed?.channelId ?? detail?.channelId;
    return this.session(sessionId, channelId, title);
  }

  /**
   * Where `sessionId` is first listed: in the newer snapshot first, so its titles win, and
   * channels in id order, so repeats resolve the same way. Ids are compared in place, so a
   * lookup makes no string per session listed.
   */
  private listedAt(sessionId: string): Listed | undefined {
    this.order ??= [sortedIds(Object.keys(this.next.sessions)), sortedIds(Object.keys(this.prev.sessions))];
    const snaps = [this.next, this.prev];
    for (let k = 0; k < 2; k++) {
      for (const channelId of this.order[k]!) {
        const part = own(snaps[k]!.sessions, channelId);
        if (part === undefined || part.state === 'failed') continue;
        const index = indexOfId(part.value, sessionId);
        if (index >= 0) return { list: part.value, index, channelId };
      }
    }
    return undefined;
  }
}

/**
 * Channel names by id in one channel list, made once per list read: every diff of a
 * session list labels its events with them, and at 5000 channels the list is long.
 */
const namesByList = new WeakMap<readonly Channel[], Map<string, string>>();

/** Names of the channels `snap`'s channel list names (undefined without a list). */
function channelNames(snap: OrgSnapshot): Map<string, string> | undefined {
  const part = snap.channels;
  if (part === undefined || part.state === 'failed') return undefined;
  let names = namesByList.get(part.value);
  if (names === undefined) {
    names = new Map();
    for (const c of part.value) if (c.name !== undefined) names.set(c.id, c.name);
    namesByList.set(part.value, names);
  }
  return names;
}

function detailValue(snap: OrgSnapshot, sessionId: string) {
  const part = own(snap.details, sessionId);
  return part === undefined || part.state === 'failed' ? undefined : part.value;
}
