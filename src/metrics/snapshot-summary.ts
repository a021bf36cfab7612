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
  type Channel,
  completeValue,
  type Member,
  type OrgSnapshot,
  type Session,
  type SessionDetail,
  type SessionsPart,
  type Subscription,
} from '../snapshot/model.js';
import { statusAt, timelessAt } from '../snapshot/session-list.js';
import { isLiveStatus } from '../snapshot/status.js';

/**
 * Where a family keeps the exposition line it rendered for a row, so an unchanged row is
 * not rendered again at the next scrape (rows are shared between summaries, see
 * {@link SummaryMemo}). Only for families whose line is the same in both formats.
 */
export interface LineMemo {
  line?: string;
}

/** One channel, with the sessions of its last complete session list. */
export interface ChannelRow {
  id: string;
  name: string;
  status: string;
  visibility: string;
  /** Sessions in the window by status; undefined when the list was never read completely. */
  sessionsByStatus: ReadonlyMap<string, number> | undefined;
  /**
   * The channel's labels as its lines in each per-channel family begin (`org`,
   * `channel_id`, `channel`), rendered once for all of them.
   */
  readonly labelsLine: LineMemo;
  /** The rest of the rendered `tally_channel_status` line. */
  readonly statusLine: LineMemo;
  /** The rest of the rendered `tally_channel_sessions` lines, in the order of `sessionsByStatus`. */
  readonly sessionLines: LineMemo[];
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

/** How many distinct counts by status a memo shares at most; past it, it starts over. */
const COUNTS_KEPT = 4096;
/** The live sessions of every list that has none. */
const NONE_LIVE: readonly Session[] = Object.freeze([]);

/** What one complete session list contributes, computed once per list read. */
interface ListSummary {
  byStatus: ReadonlyMap<string, number>;
  /** Its live sessions, sorted by id. */
  live: readonly Session[];
}

/**
 * Parts of summaries kept between snapshots. A new snapshot shares every part it did not
 * re-read with the one before (model.ts), so a scrape after one poll re-counts one session
 * list, not 100 000 sessions, and keeps the rendered lines of every unchanged channel.
 * Keyed weakly by those parts: what no snapshot holds any more is collected with it.
 */
export class SummaryMemo {
  private readonly lists = new WeakMap<SessionsPart, ListSummary>();
  private readonly rows = new WeakMap<Channel, { part: SessionsPart | undefined; row: ChannelRow }>();
  private readonly sorted = new WeakMap<readonly Channel[], readonly Channel[]>();
  /** Counts by status shared between lists, by their text (bounded: {@link COUNTS_KEPT}). */
  private readonly counts = new Map<string, ReadonlyMap<string, number>>();
  /** Per org, the rows of its latest summary by channel id: as many as it has channels. */
  private readonly lastRows = new Map<
    string,
    Map<string, { part: SessionsPart | undefined; row: ChannelRow }>
  >();

  /** The channels of a list, sorted by id. */
  sortedChannels(list: readonly Channel[]): readonly Channel[] {
    let out = this.sorted.get(list);
    if (!out) {
      out = [...list].sort((a, b) => compare(a.id, b.id));
      this.sorted.set(list, out);
    }
    return out;
  }

  /**
   * One map for every list with the same counts: at 5000 channels most lists count alike
   * (some ended, some planned), and a map of two or three counts costs some 300 bytes.
   */
  private shared(counts: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
    const key = JSON.stringify([...counts]);
    const known = this.counts.get(key);
    if (known !== undefined) return known;
    if (this.counts.size >= COUNTS_KEPT) this.counts.clear();
    this.counts.set(key, counts);
    return counts;
  }

  /** Counts of one complete session list. */
  list(part: SessionsPart & { state: 'complete' }): ListSummary {
    let out = this.lists.get(part);
    if (!out) {
      const byStatus = new Map<string, number>();
      const live: Session[] = [];
      // Statuses first: a session object only for the live ones.
      const list = part.value;
      for (let i = 0; i < list.length; i++) {
        const status = statusAt(list, i);
        const isLive = isLiveStatus(status);
        // A session without any time is not known to lie in the window: not counted in it
        // (its list's blindness is drift, docs/upstream-shapes.md, "Blindness is loud").
        if (!isLive && timelessAt(list, i)) continue;
        bump(byStatus, status);
        if (isLive) live.push(list.at(i)!);
      }
      live.sort((a, b) => compare(a.id, b.id));
      out = { byStatus: this.shared(sortedMap(byStatus)), live: live.length === 0 ? NONE_LIVE : live };
      this.lists.set(part, out);
    }
    return out;
  }

  /** The row of a channel and its session list (`part` when it was read completely), with that part. */
  row(
    org: string,
    ch: Channel,
    part: SessionsPart | undefined,
  ): { part: SessionsPart | undefined; row: ChannelRow } {
    const kept = this.rows.get(ch);
    if (kept && kept.part === part) return kept;
    const name = ch.name ?? ch.id;
    const visibility = ch.visibility ?? UNKNOWN;
    // A channel list read again brings new objects for unchanged channels: the row of the
    // last summary is kept when nothing it shows changed.
    const last = this.lastRows.get(org)?.get(ch.id);
    if (
      last &&
      last.part === part &&
      last.row.name === name &&
      last.row.status === ch.status &&
      last.row.visibility === visibility
    ) {
      this.rows.set(ch, last);
      return last;
    }
    const row: ChannelRow = {
      id: ch.id,
      name,
      status: ch.status,
      visibility,
      sessionsByStatus: part?.state === 'complete' ? this.list(part).byStatus : undefined,
      labelsLine: {},
      statusLine: {},
      sessionLines: [],
    };
    const entry = { part, row };
    this.rows.set(ch, entry);
    return entry;
  }

  /** Remembers the rows of an org's latest summary (replacing the ones before). */
  remember(org: string, rows: Map<string, { part: SessionsPart | undefined; row: ChannelRow }>): void {
    this.lastRows.set(org, rows);
  }

  /** Forgets the rows of orgs no longer configured. */
  retain(orgs: ReadonlySet<string>): void {
    for (const org of this.lastRows.keys()) if (!orgs.has(org)) this.lastRows.delete(org);
  }
}

/** Summarizes one snapshot for the collectors (`memo`: what earlier summaries worked out). */
export function summarize(s: OrgSnapshot, memo: SummaryMemo = new SummaryMemo()): SnapshotSummary {
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
  const rows = new Map<string, { part: SessionsPart | undefined; row: ChannelRow }>();
  // One function for every channel: iterating a map's entries makes an array per entry.
  const addTo = (n: number, status: string) =>
    sessionsByStatus.set(status, (sessionsByStatus.get(status) ?? 0) + n);

  for (const ch of channelList ? memo.sortedChannels(channelList) : []) {
    const found = s.sessions[ch.id];
    const part = found?.state === 'complete' ? found : undefined;
    if (part) {
      lastSessions = max(lastSessions, part.at);
      oldestSessions = min(oldestSessions, part.at);
      const list = memo.list(part);
      list.byStatus.forEach(addTo);
      for (const session of list.live) {
        liveSessions.push({
          id: session.id,
          channelId: ch.id,
          channel: ch.name ?? ch.id,
          title: session.title ?? '',
          status: session.status,
          detail: completeValue(s.details[session.id]),
        });
      }
    } else unreadChannels += 1;
    const kept = memo.row(s.org, ch, part);
    rows.set(ch.id, kept);
    channels.push(kept.row);
  }
  if (channelList) memo.remember(s.org, rows);

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
  const colon = key.indexOf(':');
  for (const r of RESOURCES) {
    // Compared in place: a slice per key would be thousands of strings per scrape.
    if ((colon < 0 ? key.length : colon) === r.length && key.startsWith(r)) return r;
  }
  return undefined;
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

/** The same entries in key order, so series come out in a stable order. */
function sortedMap(map: Map<string, number>): Map<string, number> {
  return new Map([...map].sort(([a], [b]) => compare(a, b)));
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
