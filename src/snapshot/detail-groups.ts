/**
 * The session detail groups, one row each: the sub-resources of a session detail
 * (questions, announcements, reactions, speakers, ai) and everything tally does with
 * each of them. The model names a group (`DetailGroups`, model.ts); its row here says
 * what it is when unread, what of it counts as there before a watched start, which events
 * its diff emits and how they read, its per-session gauge and its fields of the rule
 * language's `Detail`. The diff (diff-detail.ts), the event kinds (events.ts), the event
 * lines (describe.ts), the normalizer's placeholders (upstream/shape/normalize-detail.ts),
 * the domain metrics, the capped families and the rule types and context all follow from
 * this table; a group named in the model without its row does not compile
 * (docs/architecture.md, "Add a session detail group").
 */
import type { ChangeEvent, EventKind } from './events.js';
import { byId, type EventSink, orNull, same, type Stamp } from './diff-context.js';
import {
  type DetailGroups,
  type DetailItem,
  type ItemGroup,
  type SessionDetail,
  type SubResource,
  subResourceRead,
} from './model.js';
import { show } from './show.js';

/** What a group's diff is handed besides the two values. */
export interface GroupDiff {
  entity: { kind: 'session'; id: string };
  /** The session's labels, looked up on the first event only. */
  labels: () => Record<string, string>;
  at: Stamp;
  sink: EventSink;
}

/** The types a group's fields of the rule language's `Detail` may have (alerts/cel-types.ts). */
export type DetailCelType = 'int' | 'map<string,int>' | 'string' | 'bool';

/** An event kind of a detail group: about a session. */
export type SessionEventKind = `session.${string}`;

/** One row of {@link DETAIL_GROUPS}: a group of values `V` whose diff emits kinds `K`. */
export interface DetailGroupRow<V, K extends SessionEventKind = SessionEventKind> {
  /** Its placeholder in a detail that could not read it: unknown, never a count of 0. */
  empty: () => V;
  /**
   * What of it a session tally watched start showed before `since` (diff-detail.ts): items
   * dated earlier or not dated; totals and states as they are (not news without a value
   * before them). A group left out here would report all it holds as news.
   */
  before: (v: V, since: number) => V;
  /** The event kinds its diff emits; events.ts lists them among every kind, in this order. */
  kinds: readonly K[];
  /** Emits what changed from `a` to `b`, both read. */
  diff: (a: V, b: V, d: GroupDiff) => void;
  /** One readable line per kind (describe.ts); `name` is the session's readable name. */
  describe: Readonly<Record<K, (e: ChangeEvent, name: string) => string>>;
  /** Its gauge per live session (metrics/domain-collector.ts, capped like every per-session family), if any. */
  metric: { name: string; what: string; count: (v: V) => number } | null;
  /** Its fields of the rule language's `Detail`; absent while the group is unread. */
  cel: Readonly<Record<string, { type: DetailCelType; read: (v: V) => unknown }>>;
}

/** The line of an event that is a field going from one value to another. */
export function changeLine(e: ChangeEvent, name: string): string {
  return `${e.entity.kind} ${name}: ${e.field ? `${e.field} ` : ''}${show(e.from)} → ${show(e.to)}`;
}

const noItems = (): ItemGroup => ({ count: 0, items: [] });

/** The items of `g` dated before `since` or not dated (tally cannot tell when those came). */
function olderItems(g: ItemGroup, since: number): ItemGroup {
  const items = g.items.filter((i) => i.at === undefined || i.at < since);
  return { count: items.length, items };
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

/** A group of items whose news is each item added (questions, announcements). */
function addedItems<K extends SessionEventKind>(
  field: SubResource,
  kind: K,
  idLabel: string,
  line: (e: ChangeEvent, name: string) => string,
  what: string,
): DetailGroupRow<ItemGroup, K> {
  return {
    empty: noItems,
    before: olderItems,
    kinds: [kind],
    diff: (a, b, { entity, labels, at, sink }) => {
      for (const item of newItems(a, b)) {
        // `kind` is one of EVENT_KINDS: events.ts lists every row's kinds.
        const draft = { kind: kind as EventKind & K, entity, field, key: item.id };
        sink.emit({ ...draft, to: orNull(item.text), labels: { ...labels(), [idLabel]: item.id } }, at);
      }
    },
    describe: { [kind]: line } as Record<K, typeof line>,
    metric: { name: `tally_session_${field}`, what, count: (g) => g.count },
    cel: { [field]: { type: 'int', read: (g: ItemGroup) => g.count } },
  };
}

type Reactions = DetailGroups['reactions'];
type Ai = DetailGroups['ai'];

/** A total or a state: as it is before a watched start too. */
const asItIs = <V>(v: V): V => v;

const reactions: DetailGroupRow<Reactions, 'session.reactions_changed'> = {
  empty: () => ({ count: 0, byKind: {} }),
  before: asItIs,
  kinds: ['session.reactions_changed'],
  diff: (a, b, { entity, labels, at, sink }) => {
    if (same(a.count, b.count)) return;
    const delta = b.count - a.count;
    const draft = { kind: 'session.reactions_changed' as const, entity, field: 'reactions' };
    const withDelta = { ...labels(), delta: delta > 0 ? `+${delta}` : String(delta) };
    sink.emit({ ...draft, from: a.count, to: b.count, labels: withDelta }, at);
  },
  describe: { 'session.reactions_changed': changeLine },
  metric: { name: 'tally_session_reactions', what: 'Reactions', count: (r) => r.count },
  cel: {
    reactions: { type: 'int', read: (r) => r.count },
    reactions_by_kind: { type: 'map<string,int>', read: (r) => ({ ...r.byKind }) },
  },
};

const speakers: DetailGroupRow<ItemGroup, 'session.speaker_joined' | 'session.speaker_left'> = {
  empty: noItems,
  before: olderItems,
  kinds: ['session.speaker_joined', 'session.speaker_left'],
  diff: (a, b, { entity, labels, at, sink }) => {
    const base = { entity, field: 'speakers' };
    for (const item of newItems(a, b)) {
      const name = item.text ?? item.id;
      const draft = { kind: 'session.speaker_joined' as const, ...base, key: item.id, to: name };
      sink.emit({ ...draft, labels: { ...labels(), speaker: name, speaker_id: item.id } }, at);
    }
    for (const item of goneItems(a, b)) {
      const name = item.text ?? item.id;
      const draft = { kind: 'session.speaker_left' as const, ...base, key: item.id, from: name };
      sink.emit({ ...draft, labels: { ...labels(), speaker: name, speaker_id: item.id } }, at);
    }
  },
  describe: {
    'session.speaker_joined': (e, name) => `speaker ${show(e.to)} joined ${name}`,
    'session.speaker_left': (e, name) => `speaker ${show(e.from)} left ${name}`,
  },
  metric: { name: 'tally_session_speakers', what: 'Speakers', count: (g) => g.count },
  cel: { speakers: { type: 'int', read: (g) => g.count } },
};

const ai: DetailGroupRow<Ai, 'session.ai_status_changed'> = {
  empty: () => ({}),
  before: asItIs,
  kinds: ['session.ai_status_changed'],
  diff: (a, b, { entity, labels, at, sink }) => {
    const kind = 'session.ai_status_changed' as const;
    if (!same(a.status, b.status)) {
      const change = { field: 'ai.status', from: orNull(a.status), to: orNull(b.status) };
      sink.emit({ kind, entity, labels: labels(), ...change }, at);
    }
    if (!same(a.enabled, b.enabled)) {
      const change = { field: 'ai.enabled', from: orNull(a.enabled), to: orNull(b.enabled) };
      sink.emit({ kind, entity, labels: labels(), ...change }, at);
    }
  },
  describe: { 'session.ai_status_changed': changeLine },
  metric: null,
  cel: {
    ai_status: { type: 'string', read: (v) => v.status },
    ai_enabled: { type: 'bool', read: (v) => v.enabled },
  },
};

/**
 * The detail groups, in the order tally reads and diffs them. Typed by the model's
 * `DetailGroups`: a group named there without its row here, or a row whose values are
 * not the group's, does not compile (test/snapshot/detail-groups.test.ts).
 */
export const DETAIL_GROUPS = {
  questions: addedItems(
    'questions',
    'session.question_added',
    'question_id',
    (e, name) => `question in ${name}: ${show(e.to)}`,
    'Questions',
  ),
  announcements: addedItems(
    'announcements',
    'session.announcement_added',
    'announcement_id',
    (e, name) => `announcement in ${name}: ${show(e.to)}`,
    'Announcements',
  ),
  reactions,
  speakers,
  ai,
} as const satisfies { readonly [G in SubResource]: DetailGroupRow<DetailGroups[G]> };

/** Each group's row over its own values, for code generic over the group (`rowOf`). */
export type GroupRows = { readonly [G in SubResource]: DetailGroupRow<DetailGroups[G]> };

const ROWS: GroupRows = DETAIL_GROUPS;

/** The row of group `name`, typed by the group's values. */
export function rowOf<G extends SubResource>(name: G): GroupRows[G] {
  return ROWS[name];
}

/** Every {@link SubResource}, in the order tally reads them. */
export const SUB_RESOURCES = Object.keys(DETAIL_GROUPS) as readonly SubResource[];

/** An event kind a detail group emits. */
export type DetailEventKind = (typeof DETAIL_GROUPS)[SubResource]['kinds'][number];

/** Every detail group's event kinds, in table order (events.ts). */
export const DETAIL_EVENT_KINDS: readonly DetailEventKind[] = Object.values(DETAIL_GROUPS).flatMap(
  (row): readonly DetailEventKind[] => row.kinds,
);

/** A group's gauge per live session, read from a detail (metrics/domain-collector.ts). */
export interface DetailGauge {
  /** The family name (`tally_session_questions`). */
  name: string;
  /** What it counts, for its help text (`Questions`). */
  what: string;
  /** Its value for detail `d`; none for a group `d` could not read (unknown is not 0). */
  read: (d: SessionDetail) => number | undefined;
}

/** The gauge of each group that has one, in table order. */
export const DETAIL_GAUGES: readonly DetailGauge[] = SUB_RESOURCES.flatMap((name) => gaugeOf(name));

function gaugeOf<G extends SubResource>(name: G): DetailGauge[] {
  const metric = rowOf(name).metric;
  if (metric === null) return [];
  const read = (d: SessionDetail) => (subResourceRead(d, name) ? metric.count(d[name]) : undefined);
  return [{ name: metric.name, what: metric.what, read }];
}

/** The groups' fields of the rule language's `Detail` with their types (alerts/cel-types.ts). */
export const DETAIL_CEL_FIELDS: Readonly<Record<string, DetailCelType>> = Object.fromEntries(
  SUB_RESOURCES.flatMap((name) => Object.entries(rowOf(name).cel).map(([field, f]) => [field, f.type])),
);

/** The groups' fields of `Detail` for detail `d`: a group `d` could not read gives none (`has()` is false). */
export function detailCelValues(d: SessionDetail): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SUB_RESOURCES) if (subResourceRead(d, name)) celOf(d, name, out);
  return out;
}

function celOf<G extends SubResource>(d: DetailGroups, name: G, out: Record<string, unknown>): void {
  for (const [field, f] of Object.entries(rowOf(name).cel)) out[field] = f.read(d[name]);
}
