/**
 * The upstream client's contract, as its callers see it: who reads (an org and its
 * token), per-read options, and one read per part of a snapshot. The client implements
 * {@link Fetcher}; the poller and `readOrg` depend on this file only.
 */
import type {
  Channel,
  Member,
  Org,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  Subscription,
  TimeWindow,
} from '../snapshot/model.js';
import type { Priority, Urgency } from './transport/budget.js';

export type { Priority, Urgency };

/** An org and the token that reads it. */
export interface OrgAuth {
  slug: string;
  token: string;
}

/** Per-read options. */
export interface FetchOptions {
  priority?: Priority;
  /** The read's priority when it may rise while the read waits (it then decides over `priority`). */
  urgency?: Urgency | undefined;
  signal?: AbortSignal;
}

/** The priority a read's options ask for now (`normal` when they name none). */
export function priorityOf(o: FetchOptions | undefined): Priority {
  return o?.urgency?.priority ?? o?.priority ?? 'normal';
}

/** Options of a session-list read. */
export type SessionsOptions = FetchOptions & { window?: TimeWindow; statuses?: string[] };

/** Reads of every part of an org's snapshot; they report failure in the Part, never by throwing. */
export interface Fetcher {
  fetchOrg(org: OrgAuth, o?: FetchOptions): Promise<Part<Org>>;
  fetchTeam(org: OrgAuth, o?: FetchOptions): Promise<Part<Member[]>>;
  fetchSubscription(org: OrgAuth, o?: FetchOptions): Promise<Part<Subscription>>;
  fetchChannels(org: OrgAuth, o?: FetchOptions): Promise<Part<Channel[]>>;
  fetchSessions(org: OrgAuth, channelId: string, o?: SessionsOptions): Promise<SessionsPart<Session[]>>;
  fetchSessionDetail(org: OrgAuth, sessionId: string, o?: FetchOptions): Promise<Part<SessionDetail>>;
}
