/**
 * tally's own normalized model of one organization, whatever shape the upstream API
 * answers in. The upstream client produces it, the poller assembles snapshots of it,
 * `diff` compares two of them, metrics and the JSON API read it.
 *
 * Every part of a snapshot carries its own fetch outcome and time (docs/architecture.md,
 * invariant 1): a failed or incomplete fetch is never mistaken for an empty list.
 * Times are milliseconds since the Unix epoch; absent values are omitted, never `null`.
 */
import type { Sessions } from './session-list.js';

/** A scalar as it came from the API, kept verbatim for settings and limits. */
export type Scalar = string | number | boolean;

/** Why a part is not complete: a short stable reason and a credential-free message. */
export interface PartError {
  /** Short stable cause, e.g. `timeout`, `http_5xx`, `auth`, `paging`, `schema`. */
  reason: string;
  /** What failed and where (endpoint, page, field); never contains a credential. */
  message: string;
}

/**
 * The outcome of fetching one part of a snapshot.
 * - `complete`: every page was read and understood.
 * - `incomplete`: some data was read, but not all of it (paging broke, a page was refused);
 *   `value` holds what was read and must not be used to infer removals.
 * - `failed`: nothing usable was read.
 */
export type Part<T> =
  | { state: 'complete'; at: number; value: T }
  | { state: 'incomplete'; at: number; value: T; error: PartError }
  | { state: 'failed'; at: number; error: PartError };

/** Profile, settings and plan of an organization (`GET /v1/{org}`). */
export interface Org {
  slug: string;
  name?: string;
  plan?: string;
  /** Flat settings, nested keys joined with dots (`notifications.email`). */
  settings: Record<string, Scalar>;
}

/** A member of the organization (`GET /v1/{org}/team`). */
export interface Member {
  id: string;
  name?: string;
  email?: string;
  role?: string;
}

/** How AI features are funded. Unknown modes are kept verbatim in `mode: 'unknown'`. */
export type AiFunding =
  | { mode: 'wallet'; balance?: number; currency?: string }
  | { mode: 'byok'; provider?: string; keyStatus?: string }
  | { mode: 'unknown'; raw?: string };

/** Plan, limits, usage and AI funding (`GET /v1/{org}/subscription`). */
export interface Subscription {
  plan?: string;
  /** Numeric limits by name (`channels`, `members`, `ai_minutes` …); unlimited ones are omitted. */
  limits: Record<string, number>;
  /** Current usage by the same names as `limits`, where the API reports it. */
  usage: Record<string, number>;
  funding: AiFunding;
}

/** A channel (`GET /v1/{org}/channels`). Status and visibility are kept verbatim. */
export interface Channel {
  id: string;
  name?: string;
  /** Verbatim upstream status, lower-cased (e.g. `live`, `offline`, or anything unknown). */
  status: string;
  visibility?: string;
  /**
   * A hint of session activity the channel list may carry (a sessions-updated or
   * last-session time, ms): when it moves, the planner reads the channel's sessions first
   * (docs/polling.md). Never a source of events.
   */
  activityAt?: number;
  /** A session count the channel list may carry; a hint like `activityAt`. */
  sessionCount?: number;
}

/** A session (broadcast) of a channel (`GET /v1/{org}/channels/{channel}/sessions`). */
export interface Session {
  id: string;
  channelId: string;
  title?: string;
  /** Verbatim upstream status, lower-cased (e.g. `scheduled`, `live`, `ended`). */
  status: string;
  /** Planned start. */
  scheduledAt?: number;
  /** Planned end, when the server gives one (the other end of the session's time range). */
  scheduledEndAt?: number;
  startedAt?: number;
  endedAt?: number;
}

/** One question, announcement or speaker inside a session detail. */
export interface DetailItem {
  id: string;
  /** Question text, announcement text or speaker name. */
  text?: string;
  at?: number;
}

/** A group of items: the count as reported by the API (may exceed `items.length` when only a page is embedded). */
export interface ItemGroup {
  count: number;
  items: DetailItem[];
}

/**
 * The sub-resources of a session detail, by name. Each has its row in the detail-group
 * table (`DETAIL_GROUPS`, src/snapshot/detail-groups.ts), which the compiler asks for
 * once the name is here (docs/architecture.md, "Add a session detail group").
 */
export interface DetailGroups {
  questions: ItemGroup;
  announcements: ItemGroup;
  reactions: { count: number; byKind: Record<string, number> };
  speakers: ItemGroup;
  ai: { status?: string; enabled?: boolean };
}

/** Detail of one session with its sub-resources (`GET /v1/{org}/sessions/{id}`). */
export interface SessionDetail extends DetailGroups {
  id: string;
  channelId?: string;
  title?: string;
  status?: string;
  /**
   * Sub-resources that could not be read (in the detail, behind its links, on request or
   * on their own paths): their values above are placeholders, unknown rather than 0, so
   * no event, metric or rule takes them for counts (docs/upstream-shapes.md, "Session
   * detail"). Absent when every sub-resource was read.
   */
  unread?: SubResource[];
}

/** The sub-resources of a session detail (in the order tally reads them: `SUB_RESOURCES`, detail-groups.ts). */
export type SubResource = keyof DetailGroups;

/** Whether sub-resource `name` of `d` was read (not `unread`). */
export function subResourceRead(d: SessionDetail, name: SubResource): boolean {
  return d.unread === undefined || !d.unread.includes(name);
}

/** The time range a session list was read for; sessions outside it are not "removed". */
export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * A session list part also says which window it covered, and the channel list's activity
 * hint of the channel when it was read (when the server gives one): a later hint that
 * differs means the list is worth reading again, across restarts too. A read gives the
 * sessions as an array; a snapshot holds them compactly once taken in (session-list.ts).
 */
export type SessionsPart<L extends Sessions = Sessions> = Part<L> & {
  window: TimeWindow;
  hint?: string;
  /**
   * The list was read without the window (`from`/`to`), which the server misread
   * (upstream/query/adapt.ts, `windowMisread`): tally kept what lies in the window itself. A list
   * read with the misread window and one read without it differ by what the server got
   * wrong, so no session is `added` between them (diff-sessions.ts); removals and changes
   * still are.
   */
  unwindowed?: true;
  /**
   * When the channel changed in the channel list (went live or offline) after this list
   * was read, while its read again waited for the first baseline (poll/org-poller.ts): the
   * sweep ranks the channel ahead, across a restart too. A list read again has none.
   */
  changedAt?: number;
};

/**
 * The version of this model. Bumped on a change an older stored snapshot cannot be read
 * as (a field renamed or retyped), with the step that upgrades the older one in
 * src/snapshot/upgrade.ts. A detail group added later needs no bump: a stored detail
 * without it is upgraded to have it unread (docs/state.md, "Model versions").
 */
export const MODEL_VERSION = 1;

/** Everything tally knows about one organization at one moment, part by part. */
export interface OrgSnapshot {
  /**
   * The model version this snapshot was written in ({@link MODEL_VERSION}); a stored one
   * of an older version is upgraded as it is loaded (src/snapshot/upgrade.ts).
   */
  version: typeof MODEL_VERSION;
  org: string;
  /** When this snapshot was assembled. Each part has its own fetch time. */
  takenAt: number;
  profile?: Part<Org>;
  team?: Part<Member[]>;
  subscription?: Part<Subscription>;
  channels?: Part<Channel[]>;
  /** Session lists by channel id; a channel not yet swept has no entry. */
  sessions: Record<string, SessionsPart>;
  /** Session details by session id; only sessions whose detail was read have an entry. */
  details: Record<string, Part<SessionDetail>>;
}

/** Creates an empty snapshot of an organization: nothing fetched yet. */
export function emptySnapshot(org: string, takenAt: number): OrgSnapshot {
  return { version: MODEL_VERSION, org, takenAt, sessions: {}, details: {} };
}

/** Returns the value of a part only when it was fetched completely. */
export function completeValue<T>(part: Part<T> | undefined): T | undefined {
  return part?.state === 'complete' ? part.value : undefined;
}

/**
 * Sessions whose status a read did not give but tally inferred from their times
 * (normalize-session.ts): carry.ts keeps the last known status over such a guess unless a
 * time new to the record implies it. A mark on the object, not a field: it costs nothing
 * per session and never reaches a stored snapshot.
 */
export const inferredStatus = new WeakSet<Session>();
