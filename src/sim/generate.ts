/**
 * The world at the start, drawn from the seed: orgs with members, funding, channels and a
 * history of sessions (ended ones in the past, some live now, one scheduled ahead).
 * Each org draws from its own stream, so its world does not depend on the other orgs.
 * Nothing here is a change: the log starts empty.
 */
import type { Dynamics } from './dynamics.js';
import {
  type ChannelStatus,
  PLAN_LIMITS,
  PLANS,
  type Role,
  type SimChannel,
  type SimOrg,
  type SimSession,
  type Visibility,
} from './model.js';
import { channelName, emailFor, orgNameFromSlug, personName, sessionTitle } from './names.js';
import type { ResolvedOrg } from './options.js';
import { deriveSeed, Rng } from './rng.js';
import type { Plan } from './types.js';
import { plannedLength, type World } from './world.js';

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;

/** Creates every configured org in the world. */
export function generateWorld(world: World, orgs: readonly ResolvedOrg[], seed: number, dyn: Dynamics): void {
  for (const spec of orgs) {
    const org = generateOrg(world, spec, seed, dyn);
    world.orgs.set(org.slug, org);
  }
}

function smallestPlanFor(channels: number, rng: Rng): Plan {
  const fitting = PLANS.filter((p) => {
    const limit = PLAN_LIMITS[p].channels;
    return limit === null || limit >= channels;
  });
  return rng.pick(fitting.slice(0, 3));
}

function generateOrg(world: World, spec: ResolvedOrg, seed: number, dyn: Dynamics): SimOrg {
  const rng = new Rng(deriveSeed(seed, 'org', spec.slug));
  const start = world.start;
  const historyStart = start - dyn.historyDays * DAY;
  const createdAt = Math.round(historyStart - rng.between(200, 900) * DAY);
  const org: SimOrg = {
    slug: spec.slug,
    name: spec.name ?? orgNameFromSlug(spec.slug),
    plan: spec.plan ?? smallestPlanFor(spec.channels, rng),
    settings: {
      default_visibility: rng.weighted({ public: 6, unlisted: 2, private: 2 }),
      ai_enabled: rng.chance(0.85),
      language: rng.pick(['en', 'de', 'fr', 'es', 'nl']),
      timezone: rng.pick(['Europe/Berlin', 'Europe/London', 'America/New_York', 'Asia/Tokyo']),
    },
    createdAt,
    subscriptionStatus: rng.chance(0.1) ? 'trialing' : 'active',
    funding: {
      mode: spec.funding ?? (rng.chance(0.7) ? 'wallet' : 'byok'),
      balance: Math.round(rng.between(20, 250) * 100) / 100,
      currency: 'EUR',
      provider: rng.pick(['openai', 'anthropic', 'mistral']),
      keyStatus: 'valid',
    },
    aiMinutesUsed: rng.int(0, 400),
    members: [],
    memberById: new Map(),
    channels: [],
    channelById: new Map(),
    sessionById: new Map(),
    liveSessions: 0,
    liveAiSessions: 0,
  };
  // A plan caps its members; only an explicit count may go past it.
  const memberCount = spec.members ?? Math.min(rng.int(3, 12), PLAN_LIMITS[org.plan].members ?? 12);
  const joined = sortedTimes(rng, memberCount, createdAt, start - DAY);
  for (let i = 0; i < memberCount; i++) {
    const ord = world.nextOrd();
    const name = personName(rng);
    const role: Role = i === 0 ? 'owner' : rng.weighted({ admin: 2, member: 5, viewer: 2 });
    const m = {
      ord,
      id: `mem_${String(ord).padStart(6, '0')}`,
      name,
      email: emailFor(name, org.slug, ord),
      role,
    };
    const member = { ...m, joinedAt: joined[i]! };
    org.members.push(member);
    org.memberById.set(member.id, member);
  }
  const channelTimes = sortedTimes(rng, spec.channels, createdAt, historyStart - DAY);
  for (let i = 0; i < spec.channels; i++) {
    generateChannel(world, org, rng, channelTimes[i]!, spec.sessionsPerChannel, dyn);
  }
  return org;
}

function sortedTimes(rng: Rng, n: number, from: number, to: number): number[] {
  return Array.from({ length: n }, () => Math.round(rng.between(from, Math.max(from + 1, to)))).sort(
    (a, b) => a - b,
  );
}

function generateChannel(
  world: World,
  org: SimOrg,
  rng: Rng,
  createdAt: number,
  sessions: number,
  dyn: Dynamics,
): void {
  const ord = world.nextOrd();
  const status: ChannelStatus = rng.chance(0.25) ? 'offline' : 'idle';
  const ch: SimChannel = {
    ord,
    id: `ch_${String(ord).padStart(6, '0')}`,
    org,
    name: channelName(rng),
    status,
    visibility: rng.weighted<Visibility>({ public: 6, unlisted: 2, private: 2 }),
    createdAt,
    sessions: [],
    liveCount: 0,
    scheduledCount: 0,
    removed: false,
    sessionsChangedAt: createdAt,
  };
  org.channels.push(ch);
  org.channelById.set(ch.id, ch);
  const future = sessions >= 2 ? 1 : 0;
  const live = sessions >= 3 && rng.chance(dyn.liveShare) ? 1 : 0;
  const past = sessions - future - live;
  const start = world.start;
  const span = dyn.historyDays * DAY;
  for (let k = 0; k < past; k++) {
    const scheduledAt = Math.round(start - span + (k + rng.next() * 0.8) * (span / past));
    addPastSession(world, ch, rng, scheduledAt, dyn);
  }
  if (live === 1) {
    const startedAt = Math.round(start - rng.between(MINUTE, dyn.duration[1] * 0.6));
    const s = newSession(world, ch, rng, Math.round(startedAt - rng.between(0, dyn.startJitter)), dyn);
    s.status = 'live';
    s.startedAt = startedAt;
    s.aiStatus = s.aiEnabled ? 'transcribing' : 'idle';
    s.seeded = true;
    ch.liveCount++;
    ch.status = 'live';
    org.liveSessions++;
    if (s.aiEnabled) org.liveAiSessions++;
  }
  if (future === 1) {
    const s = newSession(
      world,
      ch,
      rng,
      Math.round(start + rng.between(MINUTE, dyn.firstScheduledWithin)),
      dyn,
    );
    ch.scheduledCount++;
    s.status = 'scheduled';
  }
}

function newSession(world: World, ch: SimChannel, rng: Rng, scheduledAt: number, dyn: Dynamics): SimSession {
  const ord = world.nextOrd();
  const s: SimSession = {
    ord,
    id: `ses_${String(ord).padStart(8, '0')}`,
    channel: ch,
    title: sessionTitle(rng),
    status: 'scheduled',
    scheduledAt,
    scheduledEndAt: scheduledAt + plannedLength(ord, dyn.duration[0], dyn.duration[1]),
    startedAt: null,
    endedAt: null,
    aiEnabled: rng.chance(dyn.aiEnabledShare),
    aiStatus: 'idle',
    content: null,
    seeded: false,
  };
  ch.sessions.push(s);
  ch.org.sessionById.set(s.id, s);
  return s;
}

function addPastSession(world: World, ch: SimChannel, rng: Rng, scheduledAt: number, dyn: Dynamics) {
  const s = newSession(world, ch, rng, scheduledAt, dyn);
  const u = rng.next();
  const status = u < 0.91 ? 'ended' : u < 0.96 ? 'failed' : 'cancelled';
  s.status = status;
  if (status === 'cancelled') return;
  const startedAt = Math.round(scheduledAt + rng.between(0, dyn.startJitter));
  // A routine session runs its planned length (drawn all the same, so the stream is unchanged).
  rng.between(dyn.duration[0], dyn.duration[1]);
  let duration = s.scheduledEndAt - s.scheduledAt;
  if (status === 'failed') duration *= rng.between(0.05, 0.6);
  const endedAt = Math.min(Math.round(startedAt + duration), world.start - MINUTE);
  s.startedAt = Math.min(startedAt, endedAt - 1000);
  s.endedAt = endedAt;
  if (s.aiEnabled) s.aiStatus = status === 'failed' || rng.chance(dyn.aiFailShare) ? 'failed' : 'done';
  s.seeded = true;
}
