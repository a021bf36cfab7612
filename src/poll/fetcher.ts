/**
 * What the poller needs from the upstream client: one read per part, each returning a
 * Part that says how it went. The upstream client implements it; nothing else is assumed.
 */
import type {
  Channel,
  Member,
  Org,
  Part,
  SessionDetail,
  SessionsPart,
  Subscription,
  TimeWindow,
} from '../snapshot/model.js';

/** An org and the token that reads it. */
export interface OrgAuth {
  slug: string;
  token: string;
}

/** Priority class of a request in the shared budget. */
export type Priority = 'high' | 'normal' | 'low';

/** Per-read options. */
export interface FetchOptions {
  priority?: Priority;
  signal?: AbortSignal;
}

/** Reads of every part of an org's snapshot; they report failure in the Part, never by throwing. */
export interface Fetcher {
  fetchOrg(org: OrgAuth, o?: FetchOptions): Promise<Part<Org>>;
  fetchTeam(org: OrgAuth, o?: FetchOptions): Promise<Part<Member[]>>;
  fetchSubscription(org: OrgAuth, o?: FetchOptions): Promise<Part<Subscription>>;
  fetchChannels(org: OrgAuth, o?: FetchOptions): Promise<Part<Channel[]>>;
  fetchSessions(
    org: OrgAuth,
    channelId: string,
    o?: FetchOptions & { window?: TimeWindow; statuses?: string[] },
  ): Promise<SessionsPart>;
  fetchSessionDetail(org: OrgAuth, sessionId: string, o?: FetchOptions): Promise<Part<SessionDetail>>;
}
