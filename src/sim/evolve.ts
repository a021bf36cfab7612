/**
 * The world's own evolution. Every pending change is a step in a time-ordered queue
 * (the next question of a live session, the next status flip of a channel …) at a time
 * on a fixed grid of simulated ticks. Catching up to a time runs the due steps in
 * (time, insertion) order, drawing from one seeded stream, so the world at a simulated
 * time depends on the seed and options only, never on when or how often anyone looks;
 * and a catch-up costs O(changes), not O(entities).
 */
import type { Dynamics } from './dynamics.js';
import { TimedHeap } from './heap.js';
import {
  PLAN_LIMITS,
  PLANS,
  REACTION_KINDS,
  type Role,
  type SimChannel,
  type SimOrg,
  type SimSession,
  type Visibility,
  VISIBILITIES,
} from './model.js';
import {
  announcementText,
  emailFor,
  listenerHandle,
  personName,
  questionText,
  sessionTitle,
} from './names.js';
import {
  CUT_BEFORE_END_MS,
  type IncidentKind,
  type IncidentPlan,
  incidentOf,
  planIncident,
  NO_SHOW_STAYS_MS,
  type SimIncident,
} from './incidents.js';
import { deriveSeed, Rng } from './rng.js';
import type { World } from './world.js';

/** Simulated milliseconds per tick. */
export const TICK_MS = 1000;

type SessionStepKind =
  | 'start'
  | 'end'
  | 'question'
  | 'reaction'
  | 'announcement'
  | 'speaker'
  | 'ai'
  | 'drop'
  | 'abandon';

type Step =
  | { kind: 'channel'; what: 'plan' | 'presence' | 'visibility'; channel: SimChannel }
  | {
      kind: 'session';
      what: SessionStepKind;
      session: SimSession;
      endAs?: 'ended' | 'failed';
      /** The incident an end is (its ground truth is kept when it happens). */
      incident?: IncidentKind;
      /** The end the server gives a show whose channel went off air under it. */
      afterDrop?: true;
    }
  | { kind: 'org'; what: 'members' | 'plan' | 'funding' | 'wallet'; org: SimOrg };

interface Pending {
  at: number;
  seq: number;
  step: Step;
}

/** Drives the world forward in simulated time. */
export class Evolver {
  private readonly rng: Rng;
  /** Draws incidents apart from the evolution's stream, so a world without them is unchanged. */
  private readonly incidentRng: Rng;
  private readonly queue = new TimedHeap<Pending>();
  private seq = 0;
  /** Every incident played so far, in the order they happened (the ground truth). */
  readonly incidents: SimIncident[] = [];
  /** Shows whose channel went off air under them, until the server ends them. */
  private readonly dropped = new Set<SimSession>();

  constructor(
    private readonly world: World,
    private readonly dyn: Dynamics,
    seed: number,
    /** A frozen world schedules nothing: only triggers change it. */
    private readonly frozen = false,
    /** Share of planned sessions that become an incident (incidents.ts). */
    private readonly incidentRate = 0,
  ) {
    this.rng = new Rng(deriveSeed(seed, 'evolve'));
    this.incidentRng = new Rng(deriveSeed(seed, 'incidents'));
  }

  /** Schedules the first step of everything in the generated world. */
  init(): void {
    for (const org of this.world.orgs.values()) {
      this.orgSteps(org);
      for (const ch of org.channels) {
        this.channelAdded(ch);
        for (const s of ch.sessions) {
          if (s.status === 'scheduled') this.sessionScheduled(s);
          else if (s.status === 'live') this.sessionStarted(s, s.startedAt ?? this.world.now);
        }
      }
    }
  }

  /** Number of pending steps (for diagnostics). */
  get pending(): number {
    return this.queue.size;
  }

  /** Runs every step due up to simulated time `target`. */
  advanceTo(target: number): void {
    const w = this.world;
    w.source = 'evolve';
    for (;;) {
      const next = this.queue.peek();
      if (next === undefined || next.at > target) break;
      this.queue.pop();
      w.now = next.at;
      this.run(next.step);
    }
    if (target > w.now) w.now = target;
  }

  // ── scheduling, also used by triggers so that what they create keeps evolving ──

  /** Starts the evolution of a new channel. */
  channelAdded(ch: SimChannel): void {
    this.after(this.rng.exp(this.dyn.planEvery), { kind: 'channel', what: 'plan', channel: ch });
    this.after(this.rng.exp(this.dyn.presenceEvery), { kind: 'channel', what: 'presence', channel: ch });
    this.after(this.rng.exp(this.dyn.visibilityEvery), { kind: 'channel', what: 'visibility', channel: ch });
  }

  /** A scheduled session will start (or be cancelled) around its scheduled time. */
  sessionScheduled(s: SimSession): void {
    const at = s.scheduledAt + this.rng.between(0, this.dyn.startJitter);
    this.after(at - this.world.now, { kind: 'session', what: 'start', session: s });
  }

  /** A live session will end (or fail), and gathers questions, reactions … until then. */
  sessionStarted(s: SimSession, startedAt: number, plan?: IncidentPlan): void {
    const d = this.dyn;
    const fail = this.rng.chance(d.failShare);
    // Routine: the session runs its planned length, so it ends about its planned end (late
    // by as much as it started late). The draw is kept so the stream stays as it was.
    this.rng.between(d.duration[0], d.duration[1]);
    const planned = Math.max(TICK_MS, s.scheduledEndAt - s.scheduledAt);
    let duration = planned;
    if (fail) duration *= this.rng.between(0.05, 0.6);
    let endAs: 'ended' | 'failed' = fail ? 'failed' : 'ended';
    let incident: IncidentKind | undefined = fail ? 'failure' : undefined;
    if (plan !== undefined && plan.kind !== 'no_show') {
      incident = plan.kind;
      endAs = plan.kind === 'failure' ? 'failed' : 'ended';
      duration = plan.kind === 'overrun' ? s.scheduledEndAt + plan.over - startedAt : planned * plan.runs;
      const cut = CUT_BEFORE_END_MS[plan.kind];
      if (cut !== undefined) {
        // A show cut after its planned end (it started late) ended on time as far as anyone
        // can tell: a drop or an early end is cut inside the planned time, or not played.
        const room = s.scheduledEndAt - cut - startedAt;
        if (room >= TICK_MS) duration = Math.min(duration, room);
        else [incident, endAs, duration] = [undefined, 'ended', planned];
      }
    }
    const endIn = Math.max(TICK_MS, startedAt + duration - this.world.now);
    if (incident === 'drop') {
      // The channel goes off air under the live session; the session ends a minute later.
      this.after(endIn, { kind: 'session', what: 'drop', session: s, incident });
      this.after(endIn + 60_000, { kind: 'session', what: 'end', session: s, endAs, afterDrop: true });
    } else {
      this.after(endIn, {
        kind: 'session',
        what: 'end',
        session: s,
        endAs,
        ...(incident ? { incident } : {}),
      });
    }
    for (const what of ['question', 'reaction', 'announcement', 'speaker'] as const) this.activity(s, what);
    if (s.aiEnabled && s.aiStatus === 'idle') this.ai(s, d.aiStartAfter);
  }

  private orgSteps(org: SimOrg): void {
    this.after(this.rng.exp(this.dyn.memberEvery), { kind: 'org', what: 'members', org });
    this.after(this.rng.exp(this.dyn.planChangeEvery), { kind: 'org', what: 'plan', org });
    this.after(this.rng.exp(this.dyn.fundingEvery), { kind: 'org', what: 'funding', org });
    this.after(this.dyn.walletTick, { kind: 'org', what: 'wallet', org });
  }

  private after(delay: number, step: Step): void {
    if (this.frozen) return;
    const w = this.world;
    // Round up onto the tick grid anchored at the start, and never into the past.
    const ticks = Math.ceil((w.now + Math.max(delay, 0) - w.start) / TICK_MS);
    const earliest = Math.floor((w.now - w.start) / TICK_MS) + 1;
    this.queue.push({ at: w.start + Math.max(ticks, earliest) * TICK_MS, seq: ++this.seq, step });
  }

  private activity(s: SimSession, what: 'question' | 'reaction' | 'announcement' | 'speaker'): void {
    const d = this.dyn;
    const mean =
      what === 'question'
        ? d.questionEvery
        : what === 'reaction'
          ? d.reactionEvery
          : what === 'announcement'
            ? d.announcementEvery
            : d.speakerEvery;
    if (mean === Number.POSITIVE_INFINITY) return;
    this.after(this.rng.exp(mean), { kind: 'session', what, session: s });
  }

  private ai(s: SimSession, range: [number, number]): void {
    this.after(this.rng.between(range[0], range[1]), { kind: 'session', what: 'ai', session: s });
  }

  // ── steps ───────────────────────────────────────────────────────────────────

  private run(step: Step): void {
    if (step.kind === 'channel') {
      if (!step.channel.removed) this.channelStep(step.what, step.channel);
    } else if (step.kind === 'session') {
      if (step.session.channel.removed) return;
      // A show whose channel went off air under it ends when the server ends it, a minute
      // later, not at its own end any more.
      if (step.what === 'end' && this.dropped.has(step.session) && !step.afterDrop) return;
      if (step.afterDrop) this.dropped.delete(step.session);
      this.sessionStep(step.what, step.session, step.endAs, step.incident);
    } else {
      this.orgStep(step.what, step.org);
    }
  }

  private channelStep(what: 'plan' | 'presence' | 'visibility', ch: SimChannel): void {
    const w = this.world;
    const d = this.dyn;
    const rng = this.rng;
    if (what === 'plan') {
      if (ch.scheduledCount < d.maxScheduled) {
        const s = w.addSession(ch, {
          title: sessionTitle(rng),
          scheduledAt: Math.round(w.now + rng.between(d.lead[0], d.lead[1])),
          aiEnabled: rng.chance(d.aiEnabledShare),
        });
        this.sessionScheduled(s);
      }
      this.after(rng.exp(d.planEvery), { kind: 'channel', what, channel: ch });
    } else if (what === 'presence') {
      if (ch.status === 'offline') w.setChannelStatus(ch, 'idle');
      else if (ch.status === 'idle' && rng.chance(d.offlineShare)) w.setChannelStatus(ch, 'offline');
      this.after(rng.exp(d.presenceEvery), { kind: 'channel', what, channel: ch });
    } else {
      const others = VISIBILITIES.filter((v) => v !== ch.visibility);
      w.setChannelVisibility(ch, rng.pick<Visibility>(others));
      this.after(rng.exp(d.visibilityEvery), { kind: 'channel', what, channel: ch });
    }
  }

  private sessionStep(
    what: SessionStepKind,
    s: SimSession,
    endAs?: 'ended' | 'failed',
    incident?: IncidentKind,
  ): void {
    const w = this.world;
    const rng = this.rng;
    if (what === 'start') {
      if (s.status !== 'scheduled') return;
      if (rng.chance(this.dyn.cancelShare)) {
        w.setSessionStatus(s, 'cancelled');
        return;
      }
      const plan = planIncident(this.incidentRng, this.incidentRate);
      // A show that does not start while its channel is on air with another is no no-show
      // (docs/alerts.md, "session_no_show"): it starts, and ends early instead.
      if (plan?.kind === 'no_show' && s.channel.liveCount > 0) plan.kind = 'early_end';
      if (plan?.kind === 'no_show') {
        // Never goes live: still scheduled through its slot (and at least NO_SHOW_STAYS_MS),
        // then taken off the schedule.
        this.incidents.push(incidentOf(s, 'no_show', s.scheduledAt));
        const until = Math.max(s.scheduledEndAt, s.scheduledAt + NO_SHOW_STAYS_MS);
        this.after(until - w.now, { kind: 'session', what: 'abandon', session: s });
        return;
      }
      w.setSessionStatus(s, 'live');
      this.sessionStarted(s, w.now, plan);
      return;
    }
    if (what === 'abandon') {
      if (s.status === 'scheduled') w.setSessionStatus(s, 'cancelled');
      return;
    }
    if (what === 'ai') {
      this.aiStep(s);
      return;
    }
    if (s.status !== 'live') return;
    if (what === 'drop') {
      // The channel goes off air: every session live on it drops with it, and the server
      // ends each a minute later, as it ends the one that dropped (sessionStarted). Left to
      // its own end, another show near its planned end ended seconds after its channel went
      // off air: an on-time end as far as any read could tell, yet counted as a drop.
      if (this.dropped.has(s)) return; // it went off air with another show already
      for (const other of s.channel.sessions) {
        if (other.status !== 'live' || this.dropped.has(other)) continue;
        this.incidents.push(incidentOf(other, 'drop', w.now));
        this.dropped.add(other);
        if (other !== s)
          this.after(60_000, {
            kind: 'session',
            what: 'end',
            session: other,
            endAs: 'ended',
            afterDrop: true,
          });
      }
      w.setChannelStatus(s.channel, 'offline');
      return;
    }
    if (what === 'end') {
      if (incident)
        this.incidents.push(incidentOf(s, incident, incident === 'overrun' ? s.scheduledEndAt : w.now));
      w.setSessionStatus(s, endAs ?? 'ended');
      if (s.aiStatus === 'transcribing') {
        w.setAiStatus(s, 'summarizing');
        this.ai(s, this.dyn.aiSummaryAfter);
      }
      return;
    }
    if (what === 'question') w.addQuestion(s, questionText(rng), listenerHandle(rng));
    else if (what === 'reaction')
      w.addReactions(s, rng.pick(REACTION_KINDS), rng.int(1, this.dyn.reactionBurst));
    else if (what === 'announcement') w.addAnnouncement(s, announcementText(rng));
    else this.speakerStep(s);
    this.activity(s, what);
  }

  private speakerStep(s: SimSession): void {
    const speakers = this.world.content(s).speakers;
    const join = speakers.length <= 1 || (speakers.length < this.dyn.maxSpeakers && this.rng.chance(0.55));
    if (join) this.world.addSpeaker(s, personName(this.rng));
    else this.world.removeSpeaker(s, this.rng.pick(speakers).id);
  }

  private aiStep(s: SimSession): void {
    const w = this.world;
    if (s.aiStatus === 'idle' && s.status === 'live') w.setAiStatus(s, 'transcribing');
    else if (s.aiStatus === 'summarizing') {
      w.setAiStatus(s, this.rng.chance(this.dyn.aiFailShare) ? 'failed' : 'done');
    }
  }

  private orgStep(what: 'members' | 'plan' | 'funding' | 'wallet', org: SimOrg): void {
    if (!this.world.orgs.has(org.slug)) return;
    const d = this.dyn;
    if (what === 'members') {
      this.memberStep(org);
      this.after(this.rng.exp(d.memberEvery), { kind: 'org', what, org });
    } else if (what === 'plan') {
      this.planStep(org);
      this.after(this.rng.exp(d.planChangeEvery), { kind: 'org', what, org });
    } else if (what === 'funding') {
      this.fundingStep(org);
      this.after(this.rng.exp(d.fundingEvery), { kind: 'org', what, org });
    } else {
      this.walletStep(org);
      this.after(d.walletTick, { kind: 'org', what, org });
    }
  }

  private memberStep(org: SimOrg): void {
    const w = this.world;
    const rng = this.rng;
    const others = org.members.filter((m) => m.role !== 'owner');
    const full = org.members.length >= (PLAN_LIMITS[org.plan].members ?? Number.POSITIVE_INFINITY);
    const weights = {
      join: full ? 0 : org.members.length < 4 ? 6 : 3,
      leave: others.length > 2 ? 2 : 0,
      role: others.length > 0 ? 3 : 0,
    };
    if (weights.join + weights.leave + weights.role === 0) return;
    const action = rng.weighted(weights);
    if (action === 'join') {
      const name = personName(rng);
      const role = rng.weighted({ member: 5, viewer: 3, admin: 1 });
      w.addMember(org, name, emailFor(name, org.slug, rng.int(1, 99_999)), role);
    } else if (action === 'leave') {
      w.removeMember(org, rng.pick(others));
    } else {
      const m = rng.pick(others);
      const roles: Role[] = (['admin', 'member', 'viewer'] as const).filter((r) => r !== m.role);
      w.setMemberRole(org, m, rng.pick(roles));
    }
  }

  private planStep(org: SimOrg): void {
    const rng = this.rng;
    const u = rng.next();
    if (u < 0.15) {
      if (rng.chance(0.5)) this.world.setOrgSetting(org, 'ai_enabled', !org.settings.ai_enabled);
      else
        this.world.setOrgSetting(
          org,
          'default_visibility',
          rng.pick(VISIBILITIES.filter((v) => v !== org.settings.default_visibility)),
        );
      return;
    }
    if (u < 0.3) {
      const next =
        org.subscriptionStatus === 'active' ? rng.pick(['past_due', 'trialing'] as const) : 'active';
      this.world.setSubscriptionStatus(org, next);
      return;
    }
    const i = PLANS.indexOf(org.plan);
    const up = i === 0 || (i < PLANS.length - 1 && rng.chance(0.6));
    this.world.setPlan(org, PLANS[up ? i + 1 : i - 1]!);
  }

  private fundingStep(org: SimOrg): void {
    const w = this.world;
    const f = org.funding;
    if (f.mode === 'byok' && this.rng.chance(0.35)) {
      w.setKeyStatus(org, f.keyStatus === 'valid' ? this.rng.pick(['invalid', 'expired'] as const) : 'valid');
      return;
    }
    w.setFunding(org, f.mode === 'wallet' ? 'byok' : 'wallet');
  }

  private walletStep(org: SimOrg): void {
    const d = this.dyn;
    const minutes = (org.liveAiSessions * d.walletTick) / 60_000;
    org.aiMinutesUsed += minutes;
    if (org.funding.mode !== 'wallet') return;
    if (minutes > 0 && org.funding.balance > 0) {
      this.world.setWalletBalance(org, Math.max(0, org.funding.balance - minutes * d.aiCostPerMinute));
    }
    // Someone tops the wallet up now and then once it runs low.
    if (org.funding.balance < d.topUpBelow && this.rng.chance(d.topUpChance)) {
      this.world.setWalletBalance(org, org.funding.balance + d.topUpAmount);
    }
  }
}
