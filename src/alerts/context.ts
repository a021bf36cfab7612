/**
 * What condition rules see of an org: plain values built once per org and pass from its
 * view (last complete value of each part), then per entity. A part never read is absent,
 * and a rule that reads an absent variable is skipped for that entity (its alerts keep
 * their state) rather than evaluated as false.
 */
import type { ChangeEvent } from '../snapshot/events.js';
import {
  type Channel,
  completeValue,
  type Session,
  type SessionDetail,
  type SessionsPart,
  type Subscription,
} from '../snapshot/model.js';
import { detailCelValues } from '../snapshot/detail-groups.js';
import { isEndedStatus, isLiveStatus } from '../snapshot/status.js';
import type { OrgView } from '../poll/status.js';
import type { Plain } from './cel-types.js';
import type { WalletHistory } from './wallet.js';
import { setOwn } from '../core/own.js';

/** One entity of a `for_each` kind: its key, labels and variables. */
export interface Entity {
  /** Stable within the org: channel id, session id, member id, or the org slug. */
  key: string;
  /** Labels that identify the entity (`channel_id` …); they go into the fingerprint. */
  idLabels: Readonly<Record<string, string>>;
  /** Readable labels (`channel` name …), frozen when the alert is created. */
  nameLabels: Record<string, string>;
  /** Entity variables (`channel`, `session`, `detail`, `member`). */
  vars: Record<string, Plain | undefined>;
  /**
   * A session's: the kept plain values of its channel's session list (made once per list
   * read). The sessions of one list are next to each other in the scope's entities.
   */
  list?: readonly Plain[];
}

/**
 * The org-level variables and the entities of each kind (undefined when the part was never
 * read). The entity lists are built on first use: an org of 5000 channels has some 100k
 * sessions, and most rule sets never iterate them.
 */
export interface OrgScope {
  slug: string;
  vars: Record<string, Plain | Plain[] | undefined>;
  entities: {
    org: Entity[];
    channel: Entity[] | undefined;
    session: Entity[] | undefined;
    member: Entity[] | undefined;
  };
  /** Channels known to exist (when the channel list was read), for telling "gone" from "unknown". */
  channelIds: ReadonlySet<string> | undefined;
  /** Channels whose session list was read (made on first call). */
  sessionListed: () => ReadonlySet<string>;
}

function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o)) if ((o as Record<string, unknown>)[k] === undefined) delete (o as Plain)[k];
  return o;
}

/** The org's upstream health as rules see it; undefined while not yet known. */
function upstreamPlain(view: OrgView): Plain | undefined {
  // Health not yet known (right after a start) is not "ok": rules reading it wait.
  if (view.health.state === 'unknown') return undefined;
  return defined({
    state: view.health.state,
    last_success_at: view.health.lastSuccessAt,
    last_error: view.health.lastError?.message,
    reason: view.health.lastError?.reason,
  });
}

/** The org's subscription as rules see it: usage as a share of each limit, and its funding. */
function subscriptionPlain(sub: Subscription, slug: string, wallet: WalletHistory): Plain {
  const usagePct: Record<string, number> = {};
  for (const [k, limit] of Object.entries(sub.limits)) {
    const used = sub.usage[k];
    if (used !== undefined && limit > 0) setOwn(usagePct, k, (used / limit) * 100);
  }
  const f = sub.funding;
  const funding: Plain =
    f.mode === 'wallet'
      ? defined({
          mode: 'wallet',
          balance: f.balance,
          currency: f.currency,
          burn_per_day: wallet.burnPerDay(slug),
          days_left: f.balance === undefined ? undefined : wallet.daysLeft(slug, f.balance),
        })
      : f.mode === 'byok'
        ? defined({ mode: 'byok', provider: f.provider, key_status: f.keyStatus })
        : defined({ mode: f.raw ?? 'unknown' });
  return defined({
    plan: sub.plan,
    limits: { ...sub.limits },
    usage: { ...sub.usage },
    usage_pct: usagePct,
    funding,
  });
}

/** Builds the scope of one org from its view. */
export function orgScope(view: OrgView, wallet: WalletHistory): OrgScope {
  const snap = view.snapshot;
  const profile = completeValue(snap.profile);
  const org: Plain = defined({
    slug: view.slug,
    name: profile?.name,
    plan: profile?.plan,
    settings: { ...(profile?.settings ?? {}) },
    labels: { ...view.labels },
    token_expires_at: view.tokenExpiresAt,
  });
  const upstream = upstreamPlain(view);
  const sub = completeValue(snap.subscription);
  const subscription = sub && subscriptionPlain(sub, view.slug, wallet);
  const team = completeValue(snap.team)?.map((m) => defined({ ...m }) as Plain);
  const channelList = completeValue(snap.channels);
  const channels = channelList && channelPlains(channelList, snap.channels!.at);
  const slug = view.slug;

  const memberEntities = () =>
    team?.map((m) => ({
      key: m['id'] as string,
      idLabels: { member_id: m['id'] as string },
      nameLabels: { member: (m['name'] as string | undefined) ?? (m['id'] as string) },
      vars: { member: m },
    }));
  const channelEntities = () =>
    channels?.map((c) => {
      const id = c['id'] as string;
      const vars: Entity['vars'] = { channel: c };
      // The channel's sessions, made when a rule reads them: undefined (so the rule waits)
      // while its list was never read completely.
      Object.defineProperty(vars, 'sessions', {
        enumerable: true,
        get: () => sessionPlainsOf(id),
      });
      return {
        key: id,
        idLabels: keptLabels(c, () => ({ channel_id: id })),
        nameLabels: { channel: (c['name'] as string | undefined) ?? id },
        vars,
      };
    });

  const sessionPlainsOf = (channelId: string): Plain[] | undefined => {
    const part = snap.sessions[channelId];
    if (part?.state !== 'complete' || !Object.hasOwn(snap.sessions, channelId)) return undefined;
    return sessionPlainsOfPart(part, slug, channelId);
  };

  let listed: Set<string> | undefined;
  const sessionListed = (): ReadonlySet<string> => {
    if (listed) return listed;
    listed = new Set<string>();
    for (const channelId in snap.sessions) {
      if (snap.sessions[channelId]!.state === 'complete') listed.add(channelId);
    }
    return listed;
  };
  const sessionEntities = (): Entity[] | undefined => {
    if (sessionListed().size === 0) return undefined;
    const channelById = channels && channelsById(channels);
    const out: Entity[] = [];
    for (const channelId of sessionListed()) {
      const channel = channelById?.get(channelId);
      const plains = sessionPlainsOf(channelId) ?? [];
      for (const session of plains) {
        const detail = completeValue(snap.details[session['id'] as string]);
        out.push(sessionEntity(session, plains, channelId, channel, detail));
      }
    }
    return out;
  };

  return {
    slug,
    vars: { org, upstream, subscription, team, channels },
    entities: lazily({
      org: () => [{ key: slug, idLabels: {}, nameLabels: {}, vars: {} }],
      channel: channelEntities,
      session: sessionEntities,
      member: memberEntities,
    }),
    channelIds: channelList && channelIdsOf(channelList),
    sessionListed,
  };
}

/**
 * What rules see of a channel list, and its ids, made once per list read: condition rules
 * run about once a second, and at 5000 channels the list is read every half minute.
 */
const plainsByList = new WeakMap<readonly Channel[], Plain[]>();
const idsByList = new WeakMap<readonly Channel[], ReadonlySet<string>>();
/** The plain values kept between passes (a list's channels, and the list): worth converting once. */
const kept = new WeakSet<object>();

/** Whether `v` is a plain value the scope keeps between passes (never changed once made). */
export function isKeptPlain(v: object): boolean {
  return kept.has(v);
}

/**
 * What rules see of a channel's sessions, made once per list read: the poller shares an
 * unchanged part between snapshots and never changes one (src/snapshot/diff-sessions.ts),
 * so a list not read again since the last pass is neither rebuilt nor converted again.
 */
const plainsByPart = new WeakMap<SessionsPart, Plain[]>();

function sessionPlainsOfPart(
  part: SessionsPart & { state: 'complete' },
  slug: string,
  channelId: string,
): Plain[] {
  let plains = plainsByPart.get(part);
  if (plains === undefined) {
    plains = [];
    for (const s of part.value) plains.push(sessionPlain(s, part.at));
    plainsByPart.set(part, plains);
    kept.add(plains);
    for (const p of plains) kept.add(p);
    carryLabels(plains, slug, channelId);
  }
  return plains;
}

/**
 * The id labels of each channel's sessions as its last list read gave them, by session
 * id: a list read again gives its sessions the same label objects, so their fingerprints
 * are not hashed again at every read of a live channel.
 */
const lastLabels = new Map<string, ReadonlyMap<string, Record<string, string>>>();
const LAST_LABELS_MAX = 100_000;

function carryLabels(plains: readonly Plain[], slug: string, channelId: string): void {
  const key = `${slug}\0${channelId}`;
  const before = lastLabels.get(key);
  const now = new Map<string, Record<string, string>>();
  for (const p of plains) {
    const id = p['id'] as string;
    const labels = now.get(id) ?? before?.get(id) ?? { session_id: id, channel_id: channelId };
    now.set(id, labels);
    labelsByPlain.set(p, labels);
  }
  // Channels gone from every org only cost their last list's labels; a bound keeps that small.
  if (before === undefined && lastLabels.size >= LAST_LABELS_MAX) lastLabels.clear();
  lastLabels.set(key, now);
}

/**
 * The id labels of the entity a kept plain value stands for, made once with it: the
 * same object from pass to pass, so what is derived from them (the fingerprint) is too.
 */
const labelsByPlain = new WeakMap<Plain, Record<string, string>>();

function keptLabels(p: Plain, make: () => Record<string, string>): Record<string, string> {
  if (!kept.has(p)) return make();
  let labels = labelsByPlain.get(p);
  if (labels === undefined) {
    labels = make();
    labelsByPlain.set(p, labels);
  }
  return labels;
}

/** A channel list's channels by id, made once per list read. */
const byIdOfList = new WeakMap<readonly Plain[], ReadonlyMap<string, Plain>>();

function channelsById(plains: readonly Plain[]): ReadonlyMap<string, Plain> {
  let byId = byIdOfList.get(plains);
  if (byId === undefined) {
    byId = new Map(plains.map((c) => [c['id'] as string, c]));
    byIdOfList.set(plains, byId);
  }
  return byId;
}

/**
 * A session's entity, made again only when its list, its channel's list read or its
 * detail changed: at a pass a second, most sessions are as they were.
 */
const entityOfSession = new WeakMap<
  Plain,
  { channel: Plain | undefined; detail: SessionDetail | undefined; entity: Entity }
>();

function sessionEntity(
  session: Plain,
  list: readonly Plain[],
  channelId: string,
  channel: Plain | undefined,
  detail: SessionDetail | undefined,
): Entity {
  const hit = entityOfSession.get(session);
  if (hit !== undefined && hit.channel === channel && hit.detail === detail) return hit.entity;
  const id = session['id'] as string;
  const entity: Entity = {
    key: id,
    idLabels: keptLabels(session, () => ({ session_id: id, channel_id: channelId })),
    nameLabels: {
      session: (session['title'] as string | undefined) ?? id,
      channel: (channel?.['name'] as string | undefined) ?? channelId,
    },
    vars: { session, channel, detail: detail ? detailPlain(detail) : undefined },
    list,
  };
  if (kept.has(session)) entityOfSession.set(session, { channel, detail, entity });
  return entity;
}

/**
 * What rules see of a session: its fields, its classes, and `read_at`, when tally read the
 * list that shows it (tally's clock): the evidence a rule about the schedule needs, so
 * that a list read before a planned start is never taken for one read after it
 * (docs/alerts.md, "No alert from blindness").
 */
function sessionPlain(s: Session, readAt: number): Plain {
  return defined({
    id: s.id,
    channel_id: s.channelId,
    title: s.title,
    status: s.status,
    live: isLiveStatus(s.status),
    ended: isEndedStatus(s.status),
    scheduled_at: s.scheduledAt,
    scheduled_end_at: s.scheduledEndAt,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    read_at: readAt,
  }) as Plain;
}

function channelPlains(list: readonly Channel[], readAt: number): Plain[] {
  let plains = plainsByList.get(list);
  if (plains === undefined || plains[0]?.['read_at'] !== readAt) {
    plains = list.map(
      (c) =>
        defined({
          id: c.id,
          name: c.name,
          status: c.status,
          visibility: c.visibility,
          live: isLiveStatus(c.status),
          read_at: readAt,
        }) as Plain,
    );
    plainsByList.set(list, plains);
    kept.add(plains);
    for (const p of plains) kept.add(p);
  }
  return plains;
}

function channelIdsOf(list: readonly Channel[]): ReadonlySet<string> {
  let ids = idsByList.get(list);
  if (ids === undefined) {
    ids = new Set(list.map((c) => c.id));
    idsByList.set(list, ids);
  }
  return ids;
}

/** An object whose properties are computed by `make` on first read, then kept. */
function lazily<T extends object>(make: { [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const key of Object.keys(make) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = make[key]();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return out;
}

function detailPlain(d: SessionDetail): Plain {
  return defined({
    title: d.title,
    status: d.status,
    // A sub-resource the detail could not read is absent (`has()` is false), never 0.
    ...detailCelValues(d),
  });
}

/** The plain `event` variable of an event rule. */
export function eventPlain(e: ChangeEvent): Plain {
  return defined({
    id: e.id,
    at: e.at,
    org: e.org,
    kind: e.kind,
    entity_kind: e.entity.kind,
    entity_id: e.entity.id,
    field: e.field,
    from: e.from ?? undefined,
    to: e.to ?? undefined,
    labels: { ...e.labels },
  });
}
