/**
 * What the metrics read out of one org snapshot, computed once per snapshot. Snapshots
 * are replaced, never changed in place, so a summary can be cached by the snapshot's
 * identity and shared by every collector of one scrape (and of the next scrapes, until
 * the poller commits a new snapshot).
 *
 * Only parts read completely count: a list whose paging broke half-way would report
 * fewer channels or sessions than exist.
 */
import {
  completeValue,
  type Member,
  type OrgSnapshot,
  type SessionDetail,
  type Subscription,
} from '../snapshot/model.js';
import { isLiveStatus } from '../snapshot/status.js';

/** One channel, with the sessions of its last complete session list. */
export interface ChannelRow {
  id: string;
  name: string;
  status: string;
  visibility: string;
  /** Sessions in the window by status; undefined when the list was never read completely. */
  sessionsByStatus: ReadonlyMap<string, number> | undefined;
}

/** A session that is live according to its channel's session list. */
export interface LiveSessionRow {
  id: string;
  channelId: string;
  channel: string;
  title: string;
  status: string;
  /** Its last complete detail, when one was read. */
  detail: SessionDetail | undefined;
}

/** Everything the domain and freshness collectors need from one snapshot. */
export interface SnapshotSummary {
  org: string;
  name: string | undefined;
  plan: string | undefined;
  membersByRole: ReadonlyMap<string, number> | undefined;
  subscription: Subscription | undefined;
  /** Channels of the last complete channel list, sorted by id; undefined before one. */
  channels: readonly ChannelRow[] | undefined;
  /** Sessions in the window by status, over every channel whose list was read completely. */
  sessionsByStatus: ReadonlyMap<string, number>;
  /** Live sessions, sorted by channel id then session id. */
  liveSessions: readonly LiveSessionRow[];
  /** Newest complete read per resource (ms), for `tally_last_success_timestamp_seconds`. */
  lastSuccess: Readonly<Record<Resource, number | undefined>>;
  /** Oldest complete session-list read among current channels (ms), undefined when none. */
  oldestSessionsReadAt: number | undefined;
  /** Current channels whose session list was never read completely. */
  unreadChannels: number;
}

/** The resources of a snapshot, as freshness metrics and the status API name them. */
export const RESOURCES = ['profile', 'team', 'subscription', 'channels', 'sessions', 'detail'] as const;
/** One of {@link RESOURCES}. */
export type Resource = (typeof RESOURCES)[number];

/** The label value used where the API left a field out. */
export const UNKNOWN = 'unknown';

/** Summarizes one snapshot for the collectors. */
export function summarize(s: OrgSnapshot): SnapshotSummary {
  const profile = completeValue(s.profile);
  const team = completeValue(s.team);
  const subscription = completeValue(s.subscription);
  const channelList = completeValue(s.channels);

  const channels: ChannelRow[] = [];
  const sessionsByStatus = new Map<string, number>();
  const liveSessions: LiveSessionRow[] = [];
  let lastSessions: number | undefined;
  let oldestSessions: number | undefined;
  let unreadChannels = 0;

  const sorted = channelList ? [...channelList].sort((a, b) => compare(a.id, b.id)) : [];
  for (const ch of sorted) {
    const part = s.sessions[ch.id];
    const sessions = part?.state === 'complete' ? part.value : undefined;
    let byStatus: Map<string, number> | undefined;
    if (part?.state === 'complete') {
      lastSessions = max(lastSessions, part.at);
      oldestSessions = min(oldestSessions, part.at);
    } else unreadChannels += 1;
    if (sessions) {
      byStatus = new Map();
      const ordered = [...sessions].sort((a, b) => compare(a.id, b.id));
      for (const session of ordered) {
        bump(byStatus, session.status);
        bump(sessionsByStatus, session.status);
        if (!isLiveStatus(session.status)) continue;
        liveSessions.push({
          id: session.id,
          channelId: ch.id,
          channel: ch.name ?? ch.id,
          title: session.title ?? '',
          status: session.status,
          detail: completeValue(s.details[session.id]),
        });
      }
    }
    channels.push({
      id: ch.id,
      name: ch.name ?? ch.id,
      status: ch.status,
      visibility: ch.visibility ?? UNKNOWN,
      sessionsByStatus: byStatus,
    });
  }

  let lastDetail: number | undefined;
  for (const part of Object.values(s.details)) {
    if (part.state === 'complete') lastDetail = max(lastDetail, part.at);
  }

  return {
    org: s.org,
    name: profile?.name,
    plan: profile?.plan ?? subscription?.plan,
    membersByRole: team ? countBy(team, (m: Member) => m.role ?? UNKNOWN) : undefined,
    subscription,
    channels: channelList ? channels : undefined,
    sessionsByStatus,
    liveSessions,
    lastSuccess: {
      profile: completeAt(s.profile),
      team: completeAt(s.team),
      subscription: completeAt(s.subscription),
      channels: completeAt(s.channels),
      sessions: lastSessions,
      detail: lastDetail,
    },
    oldestSessionsReadAt: oldestSessions,
    unreadChannels,
  };
}

/** Maps an attempt key (`profile`, `sessions:<id>`, `detail:<id>` …) to its resource. */
export function resourceOf(key: string): Resource | undefined {
  const base = key.includes(':') ? key.slice(0, key.indexOf(':')) : key;
  return (RESOURCES as readonly string[]).includes(base) ? (base as Resource) : undefined;
}

function completeAt(part: { state: string; at: number } | undefined): number | undefined {
  return part?.state === 'complete' ? part.at : undefined;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) bump(out, key(item));
  return out;
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function max(a: number | undefined, b: number): number {
  return a === undefined || b > a ? b : a;
}

function min(a: number | undefined, b: number): number {
  return a === undefined || b < a ? b : a;
}

/** Plain code-unit order: stable across locales, so series order never depends on the host. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
