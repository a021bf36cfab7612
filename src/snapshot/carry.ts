/**
 * Absent is not changed: a field a read leaves out is unknown, so the snapshot keeps its
 * last known value and the diff sees no change. A later read that brings the field back
 * is compared with what was known, so a real change in between is still reported.
 *
 * What counts as left out, per part:
 * - profile: `name` and `plan` when absent; `settings` when the whole object is absent
 *   or empty while it held keys before;
 * - subscription: `plan` when absent; `limits` and `usage` when a whole group is empty
 *   while it held figures before (a server that drops every limit at once is far more
 *   likely to have left the group out than to have made the plan unlimited); the funding
 *   when the read found no funding at all; a wallet's balance and currency when absent.
 * - channel list: a channel's `name` and `visibility` when absent, its status when the
 *   record has none (read as `unknown`) while it had one before;
 * - session list: a session's `title` and times when absent, its status when the record
 *   has none and its times tell none either (`unknown`);
 * - session detail: a sub-resource it could not read (`unread`) that was read before.
 * An explicit `null` reads as absent: tally never reports a change it cannot tell from a
 * field the server left out (docs/upstream-shapes.md). Items are matched by id within the
 * same list; a list with nothing to carry is returned as it is, so unchanged lists stay
 * shared between snapshots.
 */
import {
  type AiFunding,
  type Channel,
  type DetailGroups,
  inferredStatus,
  type Org,
  type Session,
  type SessionDetail,
  type SubResource,
  type Subscription,
  subResourceRead,
} from './model.js';
import { isEndedStatus, isScheduledStatus } from './status.js';

/** The status a channel or session record without one is read as (normalize-channel.ts, normalize-session.ts). */
const UNKNOWN = 'unknown';

const isEmpty = (o: Record<string, unknown>) => Object.keys(o).length === 0;

/** The profile `next`, with what it left out taken from `prev`. */
export function carryProfile(prev: Org, next: Org): Org {
  const out: Org = { ...next };
  if (out.name === undefined && prev.name !== undefined) out.name = prev.name;
  if (out.plan === undefined && prev.plan !== undefined) out.plan = prev.plan;
  if (isEmpty(out.settings) && !isEmpty(prev.settings)) out.settings = prev.settings;
  return out;
}

/** The subscription `next`, with what it left out taken from `prev`. */
export function carrySubscription(prev: Subscription, next: Subscription): Subscription {
  const out: Subscription = { ...next, funding: carryFunding(prev.funding, next.funding) };
  if (out.plan === undefined && prev.plan !== undefined) out.plan = prev.plan;
  if (isEmpty(out.limits) && !isEmpty(prev.limits)) out.limits = prev.limits;
  if (isEmpty(out.usage) && !isEmpty(prev.usage)) out.usage = prev.usage;
  return out;
}

/**
 * The session detail `next`, with each sub-resource it could not read (`unread`) taken
 * from `prev` where `prev` had read it: the last known value, so a later read reports
 * what changed in between. One never read stays unread (its first read is a baseline).
 */
export function carryDetail(prev: SessionDetail, next: SessionDetail): SessionDetail {
  if (next.unread === undefined) return next;
  const known = next.unread.filter((name) => subResourceRead(prev, name));
  if (known.length === 0) return next;
  const out: SessionDetail = { ...next };
  for (const name of known) setSub(out, prev, name);
  const unread = next.unread.filter((name) => !known.includes(name));
  if (unread.length > 0) out.unread = unread;
  else delete out.unread;
  return out;
}

function setSub<G extends SubResource>(out: DetailGroups, from: DetailGroups, name: G): void {
  out[name] = from[name];
}

function carryFunding(prev: AiFunding, next: AiFunding): AiFunding {
  if (next.mode === 'unknown' && next.raw === undefined) return prev;
  if (next.mode === 'wallet' && prev.mode === 'wallet') {
    const out = { ...next };
    if (out.balance === undefined && prev.balance !== undefined) out.balance = prev.balance;
    if (out.currency === undefined && prev.currency !== undefined) out.currency = prev.currency;
    return out;
  }
  return next;
}

/** The channel list `next`, with what each channel left out taken from `prev`. */
export function carryChannels(prev: readonly Channel[], next: Channel[]): Channel[] {
  return carryList(prev, next, (was, now) => {
    if (
      !(now.name === undefined && was.name !== undefined) &&
      !(now.visibility === undefined && was.visibility !== undefined) &&
      !(now.status === UNKNOWN && was.status !== UNKNOWN)
    )
      return now;
    const out: Channel = { ...now };
    if (out.name === undefined && was.name !== undefined) out.name = was.name;
    if (out.visibility === undefined && was.visibility !== undefined) out.visibility = was.visibility;
    if (out.status === UNKNOWN && was.status !== UNKNOWN) out.status = was.status;
    return out;
  });
}

const SESSION_FIELDS = ['title', 'scheduledAt', 'scheduledEndAt', 'startedAt', 'endedAt'] as const;

/** The session list `next` of a channel, with what each session left out taken from `prev`. */
export function carrySessions(prev: readonly Session[], next: Session[]): Session[] {
  return carryList(prev, next, (was, now) => {
    // A status the record did not give: unknown, or guessed from its times. A guess stands
    // only when a time the record did not have before implies it (an end: it ended).
    const newTime =
      (now.endedAt !== undefined && was.endedAt === undefined) ||
      (now.startedAt !== undefined && was.startedAt === undefined);
    const status =
      was.status !== UNKNOWN && (now.status === UNKNOWN || (inferredStatus.has(now) && !newTime));
    const word = status ? was.status : now.status;
    // A time the status rules out is no time left out: a session back to scheduled has no
    // start, one not over has no end.
    const missing = SESSION_FIELDS.filter(
      (f) =>
        now[f] === undefined &&
        was[f] !== undefined &&
        !(f === 'startedAt' && isScheduledStatus(word)) &&
        !(f === 'endedAt' && !isEndedStatus(word)),
    );
    if (missing.length === 0 && !status) return now;
    const out: Session = { ...now };
    for (const f of missing) (out as unknown as Record<string, unknown>)[f] = was[f];
    if (status) out.status = was.status;
    return out;
  });
}

/** `next` with `carry(was, now)` applied to each item that `prev` held; `next` itself when nothing changed. */
function carryList<T extends { id: string }>(
  prev: readonly T[],
  next: T[],
  carry: (was: T, now: T) => T,
): T[] {
  if (prev.length === 0) return next;
  let byId: Map<string, T> | undefined;
  let out: T[] | undefined;
  for (let i = 0; i < next.length; i++) {
    const now = next[i]!;
    // Lists usually keep their order: try the same place first.
    let was = prev[i]?.id === now.id ? prev[i] : undefined;
    if (was === undefined) {
      byId ??= new Map(prev.map((x) => [x.id, x]));
      was = byId.get(now.id);
    }
    if (was === undefined) continue;
    const carried = carry(was, now);
    if (carried === now) continue;
    out ??= next.slice();
    out[i] = carried;
  }
  return out ?? next;
}
