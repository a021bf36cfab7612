/**
 * Grouping and notification timing, as in Alertmanager, on an injected time: firing
 * alerts join the groups of the routes they match; a new group is sent `group_wait` after
 * its first alert started firing, then looked at every `group_interval`, and sent when it has new firing
 * alerts, when alerts it reported resolved (and their rule sends resolutions), when all
 * of them cleared, or when `repeat_interval` passed since the last send. A storm of
 * alerts with the same group labels becomes one notification.
 *
 * Everything here is data and arithmetic; `flush(now)` returns what to send and an undo
 * for when the send could not be handed over.
 */
import { createHash } from 'node:crypto';
import { type CompiledRoute, groupKey, groupLabels, matchRoutes } from './route.js';
import { publicAlert, type TrackedAlert } from './tracker.js';
import type { Alert, Notification } from './types.js';
import { byCodeUnits } from '../core/order.js';

/** The last notification of a group: when, and which alerts it reported firing and resolved. */
export interface SentEntry {
  at: number;
  firing: string[];
  resolved: string[];
  /**
   * Alerts told as firing before and muted since (a silence, maintenance, inhibition):
   * left out of notifications, but still firing where they were told, so an
   * Alertmanager receiver keeps being re-sent them (see {@link Grouper.sentFiring}).
   */
  held?: string[];
}

/** A group as stored in the state file. */
export interface GroupState {
  receiver: string;
  routeId: string;
  key: string;
  labels: Record<string, string>;
  createdAt: number;
  alerts: string[];
  nextFlushAt: number;
  seq: number;
  lastSent?: SentEntry;
}

interface Group extends Omit<GroupState, 'alerts'> {
  alerts: Set<string>;
  route: CompiledRoute;
  /**
   * The alerts the last notification told as firing, as they were then (in memory only).
   * An alert resolved and then pending again under the same fingerprint before the group
   * flushed is no longer there as resolved: its resolve is sent from this copy.
   */
  reported?: Map<string, TrackedAlert>;
}

/** What a flush needs to know about alerts. */
export interface FlushContext {
  alert(fp: string): TrackedAlert | undefined;
  /** Silenced, in a maintenance window or inhibited: tracked, not sent. */
  muted(a: TrackedAlert): boolean;
  sendResolved(a: TrackedAlert): boolean;
  /**
   * Whether a receiver keeps what it was told firing until told it resolved (Alertmanager):
   * an alert held for it (told, then muted) that resolves is sent resolved, not left to expire.
   */
  keepsTold?(receiver: string): boolean;
  /** The rule's repeat interval override, if any. */
  repeatInterval(a: TrackedAlert): number | undefined;
  externalURL?: string | undefined;
}

/** A notification and how to take back the group state it advanced. */
export interface Flushed {
  notification: Notification;
  undo: () => void;
}

interface Placement {
  id: string;
  route: CompiledRoute;
  key: string;
  labels: Record<string, string>;
}

/** Groups alerts and decides when each group is sent. */
export class AlertGrouper {
  private readonly groups = new Map<string, Group>();
  private readonly placements = new Map<string, Placement[]>();
  private readonly routes = new Map<string, CompiledRoute>();

  constructor(private readonly root: CompiledRoute | undefined) {
    const walk = (r: CompiledRoute) => {
      this.routes.set(r.id, r);
      for (const c of r.routes) walk(c);
    };
    if (root) walk(root);
  }

  /** Where an alert goes: one placement per matching route (cached; labels never change). */
  placementsOf(a: TrackedAlert): Placement[] {
    let p = this.placements.get(a.fingerprint);
    if (p) return p;
    p = [];
    if (this.root) {
      for (const route of matchRoutes(this.root, a.labels)) {
        const labels = groupLabels(route, a.labels);
        const key = groupKey(route, labels);
        p.push({ id: `${route.receiver}\0${key}`, route, key, labels });
      }
    }
    this.placements.set(a.fingerprint, p);
    return p;
  }

  /** The receivers an alert goes to. */
  receiversOf(a: TrackedAlert): string[] {
    return [...new Set(this.placementsOf(a).map((p) => p.route.receiver))];
  }

  /** Puts firing alerts into their groups; a new group waits `group_wait`. */
  sync(alerts: Iterable<TrackedAlert>, now: number): void {
    for (const a of alerts) {
      if (a.state !== 'firing') continue;
      for (const p of this.placementsOf(a)) {
        let g = this.groups.get(p.id);
        if (!g) {
          // group_wait counts from when the first alert started firing, so an alert seen
          // late (or grouped on a later tick) is not held back longer than that.
          const due = Math.max(now, (a.startsAt ?? now) + p.route.groupWait);
          g = {
            receiver: p.route.receiver,
            routeId: p.route.id,
            route: p.route,
            key: p.key,
            labels: p.labels,
            createdAt: now,
            alerts: new Set(),
            nextFlushAt: due,
            seq: 0,
          };
          this.groups.set(p.id, g);
        }
        g.alerts.add(a.fingerprint);
      }
    }
  }

  /**
   * Sends what is due at `now`. Groups of one entity each (a route whose `group_by` names
   * `channel_id`, `session_id` or `member_id`) that are due together form a storm: they are
   * sent as one notification, and a storm's first send takes along the groups of its kind
   * that were never sent yet, so fifty no-shows at once are one message, while an incident
   * after the first was sent is its own (docs/alerts.md, "Routing and grouping").
   */
  flush(now: number, ctx: FlushContext): Flushed[] {
    const out: Flushed[] = [];
    const due = [...this.groups].filter(([, g]) => g.nextFlushAt <= now);
    const storms = new Set(due.filter(([, g]) => g.lastSent === undefined).map(([, g]) => stormKey(g)));
    storms.delete(undefined);
    if (storms.size > 0) {
      for (const entry of this.groups) {
        const g = entry[1];
        if (g.nextFlushAt > now && g.lastSent === undefined && storms.has(stormKey(g))) due.push(entry);
      }
    }
    const stormOf = new Map<Flushed, string | undefined>();
    for (const [id, g] of due) {
      const before = snapshot(g);
      const n = this.flushGroup(g, now, ctx);
      if (g.alerts.size === 0) this.groups.delete(id);
      if (n) {
        const f: Flushed = {
          notification: n,
          undo: () => {
            this.groups.set(id, { ...before, alerts: new Set(before.alerts) });
          },
        };
        out.push(f);
        stormOf.set(f, stormGroupKey(g));
      }
    }
    return foldStorms(out, stormOf);
  }

  private flushGroup(g: Group, now: number, ctx: FlushContext): Notification | undefined {
    const firing: TrackedAlert[] = [];
    const resolved: TrackedAlert[] = [];
    const last = g.lastSent;
    const lastFiring = new Set(last?.firing);
    const told = new Set([...lastFiring, ...(last?.held ?? [])]);
    const keepsTold = ctx.keepsTold?.(g.receiver) === true;
    const held: string[] = [];
    for (const fp of [...g.alerts]) {
      const a = ctx.alert(fp);
      if (!a || a.state === 'pending') {
        // Told as firing (held since, for a receiver that keeps it) and now gone or pending
        // again: it resolved in between, and the tracker no longer holds it as resolved.
        // Its receivers still hear of the resolve.
        const was = lastFiring.has(fp) || (keepsTold && told.has(fp)) ? g.reported?.get(fp) : undefined;
        if (was && ctx.sendResolved(was))
          resolved.push({ ...was, state: 'resolved', endsAt: a?.activeAt ?? now });
        if (!a) g.alerts.delete(fp);
      } else if (a.state === 'firing') {
        if (!ctx.muted(a)) firing.push(a);
        else if (told.has(fp)) held.push(fp);
      } else if (a.state === 'resolved') {
        const heldHere = told.has(fp) && keepsTold;
        if ((lastFiring.has(fp) || heldHere) && ctx.sendResolved(a)) resolved.push(a);
        g.alerts.delete(fp);
      }
    }
    g.nextFlushAt = now + g.route.groupInterval;
    let repeat = Number.POSITIVE_INFINITY;
    for (const a of firing) repeat = Math.min(repeat, ctx.repeatInterval(a) ?? g.route.repeatInterval);
    if (!needsUpdate(last, lastFiring, firing, resolved, now, repeat)) {
      if (last) setHeld(last, held);
      return undefined;
    }
    g.lastSent = {
      at: now,
      firing: firing.map((a) => a.fingerprint),
      resolved: resolved.map((a) => a.fingerprint),
    };
    setHeld(g.lastSent, held);
    // What each alert still told was last told as: the firing ones as now, the held ones as
    // they were told before the mute.
    const reported = new Map(firing.map((a) => [a.fingerprint, { ...a }]));
    for (const fp of held) {
      const was = g.reported?.get(fp);
      if (was) reported.set(fp, was);
    }
    g.reported = reported;
    if (firing.length === 0 && resolved.length === 0) return undefined;
    g.seq += 1;
    const byStart = (x: TrackedAlert, y: TrackedAlert) =>
      (x.startsAt ?? x.activeAt) - (y.startsAt ?? y.activeAt) || byCodeUnits(labelKey(x), labelKey(y));
    const alerts = [...firing.sort(byStart), ...resolved.sort(byStart)].map(publicAlert);
    const n: Notification = {
      id: `${groupHash(g)}-${g.seq}`,
      receiver: g.receiver,
      groupKey: g.key,
      status: firing.length > 0 ? 'firing' : 'resolved',
      alerts,
      groupLabels: { ...g.labels },
      commonLabels: common(alerts.map((a) => a.labels)),
      commonAnnotations: common(alerts.map((a) => a.annotations)),
      createdAt: now,
    };
    if (ctx.externalURL !== undefined) n.externalURL = ctx.externalURL;
    return n;
  }

  /** When the next group is due, if any. */
  nextFlushAt(): number | undefined {
    let next: number | undefined;
    for (const g of this.groups.values())
      if (next === undefined || g.nextFlushAt < next) next = g.nextFlushAt;
    return next;
  }

  /**
   * Moves every group's times by `ms`, the wall clock's step, so that group_wait,
   * group_interval and repeat_interval keep the time that really passed (docs/reliability.md,
   * "Clock steps").
   */
  shiftTimers(ms: number): void {
    for (const g of this.groups.values()) {
      g.createdAt += ms;
      g.nextFlushAt += ms;
      if (g.lastSent) g.lastSent = { ...g.lastSent, at: g.lastSent.at + ms };
    }
  }

  /** Whether a group still holds the alert (it must not be forgotten yet). */
  /** Fingerprints a group of `receiver` has sent as firing in its last notification. */
  sentFiring(receiver: string): Set<string> {
    const out = new Set<string>();
    for (const g of this.groups.values()) {
      if (g.receiver !== receiver) continue;
      for (const fp of g.lastSent?.firing ?? []) out.add(fp);
      for (const fp of g.lastSent?.held ?? []) out.add(fp);
    }
    return out;
  }

  holds(fp: string): boolean {
    for (const g of this.groups.values()) if (g.alerts.has(fp)) return true;
    return false;
  }

  /** Drops the cached placement of a forgotten alert. */
  forget(fp: string): void {
    this.placements.delete(fp);
  }

  /** Number of groups. */
  get size(): number {
    return this.groups.size;
  }

  /** The groups, for the state file. */
  toJSON(): GroupState[] {
    return [...this.groups.values()].map((g) => {
      const { route: _route, reported: _reported, ...rest } = g;
      return { ...rest, alerts: [...g.alerts], labels: { ...g.labels } };
    });
  }

  /** Restores groups from the state file; groups of routes no longer configured are dropped. */
  restore(states: readonly GroupState[]): number {
    let dropped = 0;
    for (const s of states) {
      const route = this.routes.get(s.routeId);
      if (!route || route.receiver !== s.receiver) {
        dropped++;
        continue;
      }
      this.groups.set(`${s.receiver}\0${s.key}`, { ...s, route, alerts: new Set(s.alerts) });
    }
    return dropped;
  }
}

function snapshot(g: Group): Group {
  const copy: Group = { ...g, alerts: new Set(g.alerts), labels: { ...g.labels } };
  if (g.lastSent) copy.lastSent = { ...g.lastSent };
  return copy;
}

/** Alertmanager's rule for whether a group needs a notification now. */
function needsUpdate(
  last: SentEntry | undefined,
  lastFiring: ReadonlySet<string>,
  firing: readonly TrackedAlert[],
  resolved: readonly TrackedAlert[],
  now: number,
  repeat: number,
): boolean {
  if (!last) return firing.length > 0;
  if (firing.some((a) => !lastFiring.has(a.fingerprint))) return true;
  // A later event updated a firing event alert (its details and its end): receivers hear
  // of it at the group's next flush, so no event is lost and Alertmanager gets the new endsAt.
  if (firing.some((a) => a.updatedAt !== undefined && a.updatedAt > last.at)) return true;
  // All cleared: say so once (when the receiver was told about any of them, or holds one
  // told firing and muted since that resolves now).
  if (firing.length === 0) return last.firing.length > 0 || resolved.length > 0;
  if (resolved.some((a) => !last.resolved.includes(a.fingerprint))) return true;
  return last.at + repeat <= now;
}

function labelKey(a: TrackedAlert): string {
  return Object.keys(a.labels)
    .sort()
    .map((k) => `${k}=${a.labels[k]}`)
    .join('\0');
}

function groupHash(g: Group): string {
  return createHash('sha256').update(`${g.receiver}\0${g.key}\0${g.createdAt}`).digest('hex').slice(0, 20);
}

function common(maps: readonly Alert['labels'][]): Record<string, string> {
  const first = maps[0];
  if (!first) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(first)) if (maps.every((m) => m[k] === v)) out[k] = v;
  return out;
}

/** Records the held alerts of a sent entry (none: no key, as entries were before). */
function setHeld(entry: SentEntry, held: string[]): void {
  if (held.length > 0) entry.held = held;
  else delete entry.held;
}

/** Labels that make a group one entity's. */
const ENTITY_LABELS = ['channel_id', 'session_id', 'member_id'];

/**
 * The storm a group belongs to: its receiver, route and group labels but the entity's,
 * for a route that groups by entity; undefined for any other group.
 */
function stormKey(g: Group): string | undefined {
  const key = stormGroupKey(g);
  return key === undefined ? undefined : `${g.receiver}\0${key}`;
}

/** The group key a storm's notification goes by: the group's, without the entity. */
function stormGroupKey(g: Group): string | undefined {
  const by = g.route.groupBy;
  if (by === 'all' || !by.some((l) => ENTITY_LABELS.includes(l))) return undefined;
  return groupKey(g.route, stormLabels(g.labels));
}

function stormLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (!ENTITY_LABELS.includes(k)) out[k] = v;
  return out;
}

/** The notifications of one flush, those of one storm folded into one. */
function foldStorms(flushed: Flushed[], stormOf: ReadonlyMap<Flushed, string | undefined>): Flushed[] {
  const byStorm = new Map<string, Flushed[]>();
  for (const f of flushed) {
    const groupKey = stormOf.get(f);
    if (groupKey === undefined) continue;
    const key = `${f.notification.receiver}\0${groupKey}`;
    const list = byStorm.get(key);
    if (list) list.push(f);
    else byStorm.set(key, [f]);
  }
  const folded = new Map<Flushed, Flushed | undefined>();
  for (const list of byStorm.values()) {
    if (list.length < 2) continue;
    const one = fold(list, stormOf.get(list[0]!)!);
    folded.set(list[0]!, one);
    for (const f of list.slice(1)) folded.set(f, undefined);
  }
  if (folded.size === 0) return flushed;
  const out: Flushed[] = [];
  for (const f of flushed) {
    if (!folded.has(f)) out.push(f);
    else {
      const one = folded.get(f);
      if (one) out.push(one);
    }
  }
  return out;
}

/** One notification for several groups of one storm: all their alerts, firing first. */
function fold(list: readonly Flushed[], groupKey: string): Flushed {
  const ns = list.map((f) => f.notification);
  const first = ns[0]!;
  const firing = ns.flatMap((n) => n.alerts.filter((a) => a.state !== 'resolved'));
  const resolved = ns.flatMap((n) => n.alerts.filter((a) => a.state === 'resolved'));
  const alerts = [...firing, ...resolved];
  const labels = stormLabels(first.groupLabels);
  // Stable for the same sends (a retry after an undo folds the same groups again).
  const ids = ns.map((n) => n.id).sort(byCodeUnits);
  const n: Notification = {
    id: `${createHash('sha256').update(ids.join('\0')).digest('hex').slice(0, 20)}-storm`,
    receiver: first.receiver,
    groupKey,
    status: firing.length > 0 ? 'firing' : 'resolved',
    alerts,
    groupLabels: labels,
    commonLabels: common(alerts.map((a) => a.labels)),
    // Says it is a storm: the subject and the common annotations of every receiver.
    commonAnnotations: {
      ...common(alerts.map((a) => a.annotations)),
      storm: `${alerts.length} alerts at once from ${list.length} groups`,
    },
    createdAt: first.createdAt,
  };
  if (first.externalURL !== undefined) n.externalURL = first.externalURL;
  return {
    notification: n,
    undo: () => {
      for (const f of list) f.undo();
    },
  };
}
