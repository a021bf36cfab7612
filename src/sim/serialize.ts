/**
 * Entities in the canonical shape (snake case, ISO 8601 UTC times on the clock's time
 * line). Envelopes, paging and camel case are applied afterwards by render.ts.
 */
import { PLAN_LIMITS, type SimChannel, type SimMember, type SimOrg, type SimSession } from './model.js';
import type { World } from './world.js';

/** A JSON object as built here. */
export type Json = { [key: string]: unknown };

/** `GET /v1/{org}`. */
export function orgJson(w: World, org: SimOrg): Json {
  return {
    slug: org.slug,
    name: org.name,
    plan: org.plan,
    settings: { ...org.settings },
    created_at: w.iso(org.createdAt),
  };
}

/** One entry of `GET /v1/{org}/team`. */
export function memberJson(w: World, m: SimMember): Json {
  return { id: m.id, name: m.name, email: m.email, role: m.role, joined_at: w.iso(m.joinedAt) };
}

/** `GET /v1/{org}/subscription`. */
export function subscriptionJson(_w: World, org: SimOrg): Json {
  const f = org.funding;
  return {
    plan: org.plan,
    status: org.subscriptionStatus,
    limits: { ...PLAN_LIMITS[org.plan] },
    usage: {
      channels: org.channels.length,
      members: org.members.length,
      ai_minutes: Math.floor(org.aiMinutesUsed),
      concurrent_live: org.liveSessions,
    },
    ai_funding:
      f.mode === 'wallet'
        ? { mode: 'wallet', wallet: { balance: f.balance, currency: f.currency } }
        : { mode: 'byok', byok: { provider: f.provider, key_status: f.keyStatus } },
  };
}

/** One entry of `GET /v1/{org}/channels`. */
export function channelJson(w: World, ch: SimChannel, hints = false): Json {
  return {
    id: ch.id,
    name: ch.name,
    status: ch.status,
    visibility: ch.visibility,
    created_at: w.iso(ch.createdAt),
    ...(hints ? { sessions_updated_at: w.iso(ch.sessionsChangedAt) } : {}),
  };
}

/** One entry of `GET /v1/{org}/channels/{channel}/sessions`. */
export function sessionJson(w: World, s: SimSession): Json {
  return {
    id: s.id,
    channel_id: s.channel.id,
    title: s.title,
    status: s.status,
    scheduled_at: w.iso(s.scheduledAt),
    scheduled_end_at: w.iso(s.scheduledEndAt),
    started_at: s.startedAt === null ? null : w.iso(s.startedAt),
    ended_at: s.endedAt === null ? null : w.iso(s.endedAt),
  };
}

/** `GET /v1/{org}/sessions/{id}`: the session with its sub-resources embedded. */
export function sessionDetailJson(w: World, s: SimSession): Json {
  const c = w.content(s);
  return {
    ...sessionJson(w, s),
    questions: c.questions.map((q) => ({
      id: q.id,
      text: q.text,
      author: q.author,
      asked_at: w.iso(q.askedAt),
    })),
    announcements: c.announcements.map((a) => ({ id: a.id, text: a.text, posted_at: w.iso(a.postedAt) })),
    reactions: { total: c.reactionsTotal, by_kind: { ...c.reactions } },
    speakers: c.speakers.map((sp) => ({ id: sp.id, name: sp.name, joined_at: w.iso(sp.joinedAt) })),
    ai: { status: s.aiStatus, enabled: s.aiEnabled },
  };
}
