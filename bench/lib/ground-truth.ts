/**
 * Matching the simulator's ground-truth change log against the events tally reported:
 * for every change, whether tally reported it and how late, or why not.
 *
 * A change is matched by the first event on the same entity that shows the same new
 * value at or after the change. A change without one is
 * - `superseded` when the value was replaced before tally reported it (a poller cannot
 *   see what came and went between two reads);
 * - `moot` when it ended where tally's view already was (nothing to report);
 * - `pending` when it happened less than the category's tail before the run ended;
 * - `missed` otherwise: tally still believes something else, long after the change.
 */
import type { Change } from '../../src/sim/index.js';
import type { Noticed } from './child.js';

/** What kind of change, for the tables. */
export type Category =
  | 'channel.live'
  | 'channel.status'
  | 'session.created'
  | 'session.started'
  | 'session.ended'
  | 'member';

/** How one change fared. */
export type Outcome =
  | { kind: 'matched'; detectMs: number; noticeMs: number; eventAt: number }
  | { kind: 'superseded' | 'moot' | 'pending' | 'missed' };

/** A change, its category and its outcome. */
export interface Judged {
  change: Change;
  category: Category;
  outcome: Outcome;
}

const SESSION_STATUS_KINDS = new Set([
  'session.status_changed',
  'session.started',
  'session.ended',
  'session.added',
]);

/** The category of a change, or undefined when the bench does not judge it. */
export function categoryOf(c: Change): Category | undefined {
  const k = c.entity.kind;
  if (k === 'channel' && c.field === 'status') return c.to === 'live' ? 'channel.live' : 'channel.status';
  if (k === 'session' && c.field === 'exists' && c.to === true) return 'session.created';
  if (k === 'session' && c.field === 'status') {
    if (c.to === 'live') return 'session.started';
    if (c.to === 'ended' || c.to === 'failed' || c.to === 'cancelled') return 'session.ended';
    return undefined;
  }
  if (k === 'member' && (c.field === 'exists' || c.field === 'role')) return 'member';
  return undefined;
}

/** The belief key an event or change is about, and the value it sets. */
function eventBelief(e: Noticed): { key: string; value: unknown } | undefined {
  const id = e.entity.id;
  if (e.kind === 'channel.status_changed') return { key: `channel:${id}:status`, value: e.to };
  if (SESSION_STATUS_KINDS.has(e.kind)) return { key: `session:${id}:status`, value: e.to };
  if (e.kind === 'member.added') return { key: `member:${id}:exists`, value: true };
  if (e.kind === 'member.removed') return { key: `member:${id}:exists`, value: false };
  if (e.kind === 'member.role_changed') return { key: `member:${id}:role`, value: e.to };
  return undefined;
}

function changeKey(c: Change): string {
  return `${c.entity.kind}:${c.entity.id}:${c.field}`;
}

/** Whether an event reports this change's new value. */
function shows(c: Change, e: Noticed): boolean {
  if (e.entity.id !== c.entity.id) return false;
  if (c.entity.kind === 'channel') return e.kind === 'channel.status_changed' && e.to === c.to;
  if (c.entity.kind === 'session' && c.field === 'exists') return e.kind === 'session.added';
  if (c.entity.kind === 'session') return SESSION_STATUS_KINDS.has(e.kind) && e.to === c.to;
  if (c.field === 'exists') return e.kind === (c.to === true ? 'member.added' : 'member.removed');
  return e.kind === 'member.role_changed' && e.to === c.to;
}

/**
 * Judges every change in `changes` (ordered by seq) against `events`; changes within
 * `tailMs(category)` of `endAt` are `pending` unless matched.
 */
export function judge(
  changes: readonly Change[],
  events: readonly Noticed[],
  endAt: number,
  tailMs: (c: Category) => number,
): Judged[] {
  const byEntity = new Map<string, Noticed[]>();
  const beliefs = new Map<string, { at: number; value: unknown }[]>();
  for (const e of [...events].sort((a, b) => a.at - b.at)) {
    const key = `${e.entity.kind}:${e.entity.id}`;
    let list = byEntity.get(key);
    if (!list) {
      list = [];
      byEntity.set(key, list);
    }
    list.push(e);
    const b = eventBelief(e);
    if (!b) continue;
    let bl = beliefs.get(b.key);
    if (!bl) {
      bl = [];
      beliefs.set(b.key, bl);
    }
    bl.push({ at: e.at, value: b.value });
  }
  const initial = new Map<string, unknown>();
  const nextAt = new Map<number, number>();
  const lastByKey = new Map<string, Change>();
  for (const c of changes) {
    const key = changeKey(c);
    if (!initial.has(key)) initial.set(key, c.from);
    const prev = lastByKey.get(key);
    if (prev) nextAt.set(prev.seq, c.at);
    lastByKey.set(key, c);
  }
  const beliefAt = (key: string, at: number): unknown => {
    let v = initial.get(key);
    for (const b of beliefs.get(key) ?? []) {
      if (b.at > at) break;
      v = b.value;
    }
    return v;
  };

  const out: Judged[] = [];
  for (const c of changes) {
    const category = categoryOf(c);
    if (category === undefined) continue;
    const until = nextAt.get(c.seq) ?? Number.POSITIVE_INFINITY;
    const candidates = byEntity.get(`${c.entity.kind}:${c.entity.id}`) ?? [];
    const hit = candidates.find((e) => e.at >= c.at && e.at <= until && shows(c, e));
    let outcome: Outcome;
    if (hit) {
      outcome = { kind: 'matched', detectMs: hit.at - c.at, noticeMs: hit.noticedAt - c.at, eventAt: hit.at };
    } else {
      const key = changeKey(c);
      const settled = Math.min(until, endAt);
      if (c.field !== 'exists' && beliefAt(key, settled) === c.to) outcome = { kind: 'moot' };
      else if (until !== Number.POSITIVE_INFINITY) outcome = { kind: 'superseded' };
      else if (c.at > endAt - tailMs(category)) outcome = { kind: 'pending' };
      else outcome = { kind: 'missed' };
    }
    out.push({ change: c, category, outcome });
  }
  return out;
}
