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

import type { FetchOptions, OrgAuth, Priority } from '../upstream/client.js';

export type { FetchOptions, OrgAuth, Priority };

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
