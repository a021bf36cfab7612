/**
 * The simulated world's entities, as the simulator holds them. Times are simulated
 * milliseconds; serialize.ts maps them onto the clock and into the canonical shape.
 * Every entity has an `ord` (creation order), which orders lists and anchors cursors.
 */
import type { Plan } from './types.js';

/** Status of a channel. */
export type ChannelStatus = 'live' | 'idle' | 'offline';
/** Visibility of a channel. */
export type Visibility = 'public' | 'unlisted' | 'private';
/** Status of a session. */
export type SessionStatus = 'scheduled' | 'live' | 'ended' | 'failed' | 'cancelled';
/** Role of a member. */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
/** Status of a session's AI processing. */
export type AiStatus = 'idle' | 'transcribing' | 'summarizing' | 'done' | 'failed';
/** Status of a subscription. */
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due';
/** Status of a BYOK provider key. */
export type KeyStatus = 'valid' | 'invalid' | 'expired';

/** Allowed values, for validation. */
export const CHANNEL_STATUSES: readonly ChannelStatus[] = ['live', 'idle', 'offline'];
/** Allowed values, for validation. */
export const VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private'];
/** Allowed values, for validation. */
export const SESSION_STATUSES: readonly SessionStatus[] = [
  'scheduled',
  'live',
  'ended',
  'failed',
  'cancelled',
];
/** Allowed values, for validation. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];
/** Allowed values, for validation. */
export const AI_STATUSES: readonly AiStatus[] = ['idle', 'transcribing', 'summarizing', 'done', 'failed'];
/** Plans from smallest to largest. */
export const PLANS: readonly Plan[] = ['free', 'starter', 'pro', 'business', 'enterprise'];
/** Reaction kinds listeners use. */
export const REACTION_KINDS = ['clap', 'heart', 'laugh', 'fire', 'thumbs_up'] as const;

/** A member of an org. */
export interface SimMember {
  ord: number;
  id: string;
  name: string;
  email: string;
  role: Role;
  joinedAt: number;
}

/** Sub-resources of a session, built on first need (see detail.ts). */
export interface SessionContent {
  questions: { id: string; text: string; author: string; askedAt: number }[];
  announcements: { id: string; text: string; postedAt: number }[];
  reactions: Record<string, number>;
  reactionsTotal: number;
  speakers: { id: string; name: string; joinedAt: number }[];
  /** Counters for item ids, so ids stay unique after removals. */
  nextQuestion: number;
  nextAnnouncement: number;
  nextSpeaker: number;
}

/** A session (broadcast) of a channel. */
export interface SimSession {
  ord: number;
  id: string;
  channel: SimChannel;
  title: string;
  status: SessionStatus;
  scheduledAt: number;
  /** Planned end: the other end of the session's planned time range. */
  scheduledEndAt: number;
  startedAt: number | null;
  endedAt: number | null;
  aiEnabled: boolean;
  aiStatus: AiStatus;
  /** Null until first needed (see content.ts). */
  content: SessionContent | null;
  /** Generated at start: what it held before the start is drawn from the seed. */
  seeded: boolean;
}

/** A channel of an org. */
export interface SimChannel {
  ord: number;
  id: string;
  org: SimOrg;
  name: string;
  status: ChannelStatus;
  visibility: Visibility;
  createdAt: number;
  /** In creation order (ascending `ord`). */
  sessions: SimSession[];
  liveCount: number;
  scheduledCount: number;
  removed: boolean;
  /** When a session of the channel last changed in a way its session list shows (simulated ms). */
  sessionsChangedAt: number;
}

/** How an org pays for AI features. */
export interface SimFunding {
  mode: 'wallet' | 'byok';
  /** Kept while in BYOK mode, so switching back restores it. */
  balance: number;
  currency: string;
  provider: string;
  keyStatus: KeyStatus;
}

/** An organization. */
export interface SimOrg {
  slug: string;
  name: string;
  plan: Plan;
  settings: { default_visibility: Visibility; ai_enabled: boolean; language: string; timezone: string };
  createdAt: number;
  subscriptionStatus: SubscriptionStatus;
  funding: SimFunding;
  aiMinutesUsed: number;
  members: SimMember[];
  memberById: Map<string, SimMember>;
  /** In creation order (ascending `ord`). */
  channels: SimChannel[];
  channelById: Map<string, SimChannel>;
  sessionById: Map<string, SimSession>;
  liveSessions: number;
  liveAiSessions: number;
}

/** Plan limits; null means unlimited. */
export interface PlanLimits {
  channels: number | null;
  members: number | null;
  ai_minutes: number | null;
  concurrent_live: number | null;
}

/** The limits of each plan. */
export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: { channels: 3, members: 5, ai_minutes: 60, concurrent_live: 1 },
  starter: { channels: 10, members: 10, ai_minutes: 300, concurrent_live: 2 },
  pro: { channels: 50, members: 25, ai_minutes: 1000, concurrent_live: 5 },
  business: { channels: 500, members: 100, ai_minutes: 5000, concurrent_live: 25 },
  enterprise: { channels: null, members: null, ai_minutes: null, concurrent_live: null },
};

/** Binary search: index of the first item whose `ord` is greater than `ord`. */
export function indexAfterOrd(items: readonly { ord: number }[], ord: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.ord <= ord) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
