/**
 * The simulated world and the only way to change it. Every mutation records its change in
 * the ground-truth log, whether the evolution or a control-surface trigger makes it, so
 * the log is complete by construction.
 *
 * Time: the world lives in simulated time. Simulated time runs `speed` times as fast as
 * the clock from the start; before the start (generated history) the two are the same.
 * Everything shown outside (API bodies, the change log's `at`) is mapped back onto the
 * clock, so a client sees a world that is consistent with its own clock, only busier.
 */
import type { ChangeLog } from './changes.js';
import { type ContentSource, contentOf } from './content.js';
import type { Dynamics } from './dynamics.js';
import type {
  AiStatus,
  ChannelStatus,
  KeyStatus,
  Role,
  SessionContent,
  SessionStatus,
  SimChannel,
  SimMember,
  SimOrg,
  SimSession,
  SubscriptionStatus,
  Visibility,
} from './model.js';
import type { Change, ChangeEntityKind, ChangeValue, Plan } from './types.js';

const MAX_DATE_MS = 8.64e15;

/** Who is changing the world right now. */
export type ChangeSource = Change['source'];

/** Fields of a new session. */
export interface NewSession {
  title: string;
  scheduledAt: number;
  /** Planned end; by default the planned start plus a planned length drawn from the session's number. */
  scheduledEndAt?: number;
  aiEnabled: boolean;
}

/** The world: orgs and their entities, simulated time, and the mutations that log changes. */
/** Session fields a session list shows (the rest are details: questions, speakers …). */
const LIST_FIELDS: ReadonlySet<string> = new Set([
  'exists',
  'status',
  'title',
  'scheduled_at',
  'scheduled_end_at',
  'started_at',
  'ended_at',
]);

export class World {
  /** Orgs by slug, in configuration order. */
  readonly orgs = new Map<string, SimOrg>();
  /** Current simulated time (ms). */
  now: number;
  /** Stamped on every change recorded. */
  source: ChangeSource = 'evolve';
  private ords = 0;

  private readonly contentSource: ContentSource;

  constructor(
    /** Clock time (= simulated time) of the start. */
    readonly start: number,
    readonly speed: number,
    readonly changes: ChangeLog,
    seed: number,
    dyn: Dynamics,
  ) {
    this.now = start;
    this.contentSource = { seed, start, dyn };
  }

  /**
   * A session's planned length, from its number rather than the random stream (so planning
   * draws nothing and the world's evolution stays what it was): within the scenario's
   * range of durations.
   */
  plannedLength(ord: number): number {
    const [min, max] = this.contentSource.dyn.duration;
    return plannedLength(ord, min, max);
  }

  /** A session's sub-resources (drawn on first need). */
  content(s: SimSession): SessionContent {
    return contentOf(s, this.contentSource);
  }

  /** Simulated time → clock time. */
  toReal(sim: number): number {
    return sim <= this.start ? sim : this.start + (sim - this.start) / this.speed;
  }

  /** Clock time → simulated time. */
  toSim(real: number): number {
    return real <= this.start ? real : this.start + (real - this.start) * this.speed;
  }

  /** A simulated time as the API shows it: ISO 8601 UTC on the clock's time line. */
  iso(sim: number): string {
    // A very slow world maps far-future times beyond what a Date holds; clamp them.
    return new Date(Math.min(MAX_DATE_MS, Math.round(this.toReal(sim)))).toISOString();
  }

  /** The next creation ordinal (shared by all entity kinds, so ids never repeat). */
  nextOrd(): number {
    return ++this.ords;
  }

  /** Looks up an org. */
  org(slug: string): SimOrg | undefined {
    return this.orgs.get(slug);
  }

  private record(
    org: SimOrg,
    kind: ChangeEntityKind,
    id: string,
    field: string,
    from: ChangeValue,
    to: ChangeValue,
    item?: Change['item'],
  ): void {
    // The channel-list hint (`sessions_updated_at`): what a session list shows changed.
    if (kind === 'session' && LIST_FIELDS.has(field)) {
      const ch = org.sessionById.get(id)?.channel;
      if (ch) ch.sessionsChangedAt = this.now;
    }
    this.changes.append({
      at: Math.round(this.toReal(this.now)),
      simAt: this.now,
      org: org.slug,
      entity: { kind, id },
      field,
      from,
      to,
      ...(item === undefined ? {} : { item }),
      source: this.source,
    });
  }

  // ── channels ────────────────────────────────────────────────────────────────

  /** Sets a channel's status; false when it already had it. */
  setChannelStatus(ch: SimChannel, status: ChannelStatus): boolean {
    if (ch.status === status) return false;
    this.record(ch.org, 'channel', ch.id, 'status', ch.status, status);
    ch.status = status;
    return true;
  }

  /** Sets a channel's visibility; false when it already had it. */
  setChannelVisibility(ch: SimChannel, visibility: Visibility): boolean {
    if (ch.visibility === visibility) return false;
    this.record(ch.org, 'channel', ch.id, 'visibility', ch.visibility, visibility);
    ch.visibility = visibility;
    return true;
  }

  /** Creates a channel at the end of the org's list. */
  addChannel(org: SimOrg, name: string, status: ChannelStatus, visibility: Visibility): SimChannel {
    const ord = this.nextOrd();
    const ch: SimChannel = {
      ord,
      id: `ch_${String(ord).padStart(6, '0')}`,
      org,
      name,
      status,
      visibility,
      createdAt: this.now,
      sessions: [],
      liveCount: 0,
      scheduledCount: 0,
      removed: false,
      sessionsChangedAt: this.now,
    };
    org.channels.push(ch);
    org.channelById.set(ch.id, ch);
    this.record(org, 'channel', ch.id, 'exists', false, true, { id: ch.id, text: name });
    return ch;
  }

  /** Removes a channel and, with it, its sessions (which get no entries of their own). */
  removeChannel(ch: SimChannel): void {
    const org = ch.org;
    ch.removed = true;
    org.channels.splice(org.channels.indexOf(ch), 1);
    org.channelById.delete(ch.id);
    for (const s of ch.sessions) {
      org.sessionById.delete(s.id);
      if (s.status === 'live') {
        org.liveSessions--;
        if (s.aiEnabled) org.liveAiSessions--;
      }
    }
    this.record(org, 'channel', ch.id, 'exists', true, false, { id: ch.id, text: ch.name });
  }

  // ── sessions ────────────────────────────────────────────────────────────────

  /** Creates a scheduled session at the end of its channel's list. */
  addSession(ch: SimChannel, spec: NewSession): SimSession {
    const ord = this.nextOrd();
    const s: SimSession = {
      ord,
      id: `ses_${String(ord).padStart(8, '0')}`,
      channel: ch,
      title: spec.title,
      status: 'scheduled',
      scheduledAt: spec.scheduledAt,
      scheduledEndAt: spec.scheduledEndAt ?? spec.scheduledAt + this.plannedLength(ord),
      startedAt: null,
      endedAt: null,
      aiEnabled: spec.aiEnabled,
      aiStatus: 'idle',
      content: null,
      seeded: false,
    };
    ch.sessions.push(s);
    ch.scheduledCount++;
    ch.org.sessionById.set(s.id, s);
    this.record(ch.org, 'session', s.id, 'exists', false, true, { id: s.id, text: s.title });
    return s;
  }

  /**
   * Moves a session to a status, keeping the counters and the channel's status in step:
   * a channel is live while it has a live session and goes idle when its last one ends.
   */
  setSessionStatus(s: SimSession, status: SessionStatus): boolean {
    const from = s.status;
    if (from === status) return false;
    const ch = s.channel;
    const org = ch.org;
    this.record(org, 'session', s.id, 'status', from, status);
    s.status = status;
    if (from === 'scheduled') ch.scheduledCount--;
    if (status === 'scheduled') ch.scheduledCount++;
    if (from === 'live') {
      ch.liveCount--;
      org.liveSessions--;
      if (s.aiEnabled) org.liveAiSessions--;
    }
    if (status === 'live') {
      s.startedAt = this.now;
      s.endedAt = null;
      ch.liveCount++;
      org.liveSessions++;
      if (s.aiEnabled) org.liveAiSessions++;
      this.setChannelStatus(ch, 'live');
    } else if (status === 'ended' || status === 'failed') {
      s.endedAt = this.now;
    }
    if (from === 'live' && ch.liveCount === 0 && ch.status === 'live') this.setChannelStatus(ch, 'idle');
    return true;
  }

  /** Adds a listener's question. */
  addQuestion(s: SimSession, text: string, author: string): string {
    const c = this.content(s);
    const id = `${s.id}-q${c.nextQuestion++}`;
    c.questions.push({ id, text, author, askedAt: this.now });
    this.record(s.channel.org, 'session', s.id, 'questions', c.questions.length - 1, c.questions.length, {
      id,
      text,
    });
    return id;
  }

  /** Posts an announcement. */
  addAnnouncement(s: SimSession, text: string): string {
    const c = this.content(s);
    const id = `${s.id}-a${c.nextAnnouncement++}`;
    c.announcements.push({ id, text, postedAt: this.now });
    const n = c.announcements.length;
    this.record(s.channel.org, 'session', s.id, 'announcements', n - 1, n, { id, text });
    return id;
  }

  /** Adds `count` reactions of one kind. */
  addReactions(s: SimSession, kind: string, count: number): void {
    const c = this.content(s);
    c.reactions[kind] = (c.reactions[kind] ?? 0) + count;
    const from = c.reactionsTotal;
    c.reactionsTotal += count;
    this.record(s.channel.org, 'session', s.id, 'reactions', from, c.reactionsTotal, { id: kind });
  }

  /** A speaker joins the stage. */
  addSpeaker(s: SimSession, name: string): string {
    const c = this.content(s);
    const id = `${s.id}-spk${c.nextSpeaker++}`;
    c.speakers.push({ id, name, joinedAt: this.now });
    const n = c.speakers.length;
    this.record(s.channel.org, 'session', s.id, 'speakers', n - 1, n, { id, text: name });
    return id;
  }

  /** A speaker leaves the stage; false when no such speaker. */
  removeSpeaker(s: SimSession, speakerId: string): boolean {
    const c = this.content(s);
    const i = c.speakers.findIndex((sp) => sp.id === speakerId);
    if (i < 0) return false;
    const [gone] = c.speakers.splice(i, 1);
    const n = c.speakers.length;
    this.record(s.channel.org, 'session', s.id, 'speakers', n + 1, n, { id: speakerId, text: gone!.name });
    return true;
  }

  /** Moves the session's AI processing. */
  setAiStatus(s: SimSession, status: AiStatus): boolean {
    if (s.aiStatus === status) return false;
    this.record(s.channel.org, 'session', s.id, 'ai.status', s.aiStatus, status);
    s.aiStatus = status;
    return true;
  }

  // ── members ─────────────────────────────────────────────────────────────────

  /** A member joins. */
  addMember(org: SimOrg, name: string, email: string, role: Role): SimMember {
    const ord = this.nextOrd();
    const m: SimMember = {
      ord,
      id: `mem_${String(ord).padStart(6, '0')}`,
      name,
      email,
      role,
      joinedAt: this.now,
    };
    org.members.push(m);
    org.memberById.set(m.id, m);
    this.record(org, 'member', m.id, 'exists', false, true, { id: m.id, text: name });
    return m;
  }

  /** A member leaves. */
  removeMember(org: SimOrg, m: SimMember): void {
    org.members.splice(org.members.indexOf(m), 1);
    org.memberById.delete(m.id);
    this.record(org, 'member', m.id, 'exists', true, false, { id: m.id, text: m.name });
  }

  /** Changes a member's role. */
  setMemberRole(org: SimOrg, m: SimMember, role: Role): boolean {
    if (m.role === role) return false;
    this.record(org, 'member', m.id, 'role', m.role, role);
    m.role = role;
    return true;
  }

  // ── org ─────────────────────────────────────────────────────────────────────

  /** Renames the org. */
  setOrgName(org: SimOrg, name: string): boolean {
    if (org.name === name) return false;
    this.record(org, 'org', org.slug, 'name', org.name, name);
    org.name = name;
    return true;
  }

  /** Changes one setting (`settings.<key>` in the log). */
  setOrgSetting<K extends keyof SimOrg['settings']>(
    org: SimOrg,
    key: K,
    value: SimOrg['settings'][K],
  ): boolean {
    if (org.settings[key] === value) return false;
    this.record(org, 'org', org.slug, `settings.${key}`, org.settings[key], value);
    org.settings[key] = value;
    return true;
  }

  // ── subscription ────────────────────────────────────────────────────────────

  /** Changes the plan (limits follow from it). */
  setPlan(org: SimOrg, plan: Plan): boolean {
    if (org.plan === plan) return false;
    this.record(org, 'subscription', org.slug, 'plan', org.plan, plan);
    org.plan = plan;
    return true;
  }

  /** Changes the subscription's status. */
  setSubscriptionStatus(org: SimOrg, status: SubscriptionStatus): boolean {
    if (org.subscriptionStatus === status) return false;
    this.record(org, 'subscription', org.slug, 'status', org.subscriptionStatus, status);
    org.subscriptionStatus = status;
    return true;
  }

  /** Sets the AI wallet's balance (rounded to cents). */
  setWalletBalance(org: SimOrg, balance: number): boolean {
    const to = Math.round(balance * 100) / 100;
    if (org.funding.balance === to) return false;
    this.record(org, 'subscription', org.slug, 'wallet.balance', org.funding.balance, to);
    org.funding.balance = to;
    return true;
  }

  /** Switches how AI is funded. */
  setFunding(org: SimOrg, mode: 'wallet' | 'byok'): boolean {
    if (org.funding.mode === mode) return false;
    this.record(org, 'subscription', org.slug, 'funding', org.funding.mode, mode);
    org.funding.mode = mode;
    return true;
  }

  /** Sets the BYOK provider. */
  setProvider(org: SimOrg, provider: string): boolean {
    if (org.funding.provider === provider) return false;
    this.record(org, 'subscription', org.slug, 'byok.provider', org.funding.provider, provider);
    org.funding.provider = provider;
    return true;
  }

  /** Sets the status of the BYOK key. */
  setKeyStatus(org: SimOrg, status: KeyStatus): boolean {
    if (org.funding.keyStatus === status) return false;
    this.record(org, 'subscription', org.slug, 'byok.key_status', org.funding.keyStatus, status);
    org.funding.keyStatus = status;
    return true;
  }
}

/** A length in `[min, max]` (whole seconds) spread by `ord`, the same for the same number. */
export function plannedLength(ord: number, min: number, max: number): number {
  // Knuth's multiplicative hash: neighbouring numbers land far apart in [0, 1).
  const u = ((Math.imul(ord, 2654435761) >>> 0) % 10_000) / 10_000;
  return Math.round((min + u * (max - min)) / 1000) * 1000;
}
