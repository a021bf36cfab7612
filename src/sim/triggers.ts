/**
 * Changes made on demand: one table of triggers, each with its control-surface route,
 * the schema of its JSON body and what it does. The HTTP surface (`POST /_sim/<route>`)
 * and the typed helpers (`sim.trigger.<name>(…)`) both go through it, and every change a
 * trigger makes lands in the ground-truth log with `source: "trigger"`.
 */
import { z } from 'zod';
import type { Engine } from './engine.js';
import { badRequest, notFound } from './errors.js';
import type { SimChannel, SimSession } from './model.js';
import {
  announcementText,
  channelName,
  emailFor,
  listenerHandle,
  personName,
  questionText,
  sessionTitle,
} from './names.js';
import { channelOf, conflict, memberOf, sessionOf, type TriggerContext } from './trigger-context.js';
import type { Change } from './types.js';

const CHANNEL_STATUS = z.enum(['live', 'idle', 'offline']);
const VISIBILITY = z.enum(['public', 'unlisted', 'private']);
const ROLE = z.enum(['owner', 'admin', 'member', 'viewer']);
const AI_STATUS = z.enum(['idle', 'transcribing', 'summarizing', 'done', 'failed']);
const PLAN = z.enum(['free', 'starter', 'pro', 'business', 'enterprise']);
const org = z.string().optional();
const text = z.string().min(1).max(2000);

/** What a trigger did: the id of what it made or touched, and the changes it recorded. */
export interface TriggerResult {
  id?: string;
  changes: Change[];
}

type Ctx = TriggerContext;

function def<S extends z.ZodObject>(
  route: string,
  schema: S,
  run: (ctx: Ctx, input: z.output<S>) => string | undefined,
) {
  return { route, schema, run };
}

/** Creates a session on the channel, scheduled now, and starts it. */
function createAndStart(ctx: Ctx, ch: SimChannel, title: string | undefined): SimSession {
  const { world, evolver, triggerRng } = ctx.engine;
  const s = world.addSession(ch, {
    title: title ?? sessionTitle(triggerRng),
    scheduledAt: world.now,
    aiEnabled: true,
  });
  world.setSessionStatus(s, 'live');
  evolver.sessionStarted(s, world.now);
  return s;
}

/** The session to end: the one named, else the channel's live one, else a new one started now. */
function endSession(
  ctx: Ctx,
  input: { session?: string | undefined; channel?: string | undefined; title?: string | undefined },
  as: 'ended' | 'failed',
): string {
  const w = ctx.engine.world;
  let s: SimSession;
  if (input.session !== undefined) {
    s = sessionOf(ctx.org, input.session);
    if (s.status === 'scheduled') {
      w.setSessionStatus(s, 'live');
    } else if (s.status !== 'live') {
      throw conflict(`session ${s.id} is ${s.status}, not live`);
    }
  } else {
    const ch = channelOf(ctx.org, input.channel);
    s = ch.sessions.find((x) => x.status === 'live') ?? createAndStart(ctx, ch, input.title);
  }
  w.setSessionStatus(s, as);
  if (s.aiStatus === 'transcribing') w.setAiStatus(s, 'summarizing');
  return s.id;
}

const endInput = z.strictObject({
  org,
  session: z.string().optional(),
  channel: z.string().optional(),
  title: text.optional(),
});

/** Every trigger by name. */
export const TRIGGERS = {
  channelStatus: def(
    'channel-status',
    z.strictObject({ org, channel: z.string(), status: CHANNEL_STATUS }),
    (ctx, i) => {
      const ch = channelOf(ctx.org, i.channel);
      ctx.engine.world.setChannelStatus(ch, i.status);
      return ch.id;
    },
  ),
  channelVisibility: def(
    'channel-visibility',
    z.strictObject({ org, channel: z.string(), visibility: VISIBILITY }),
    (ctx, i) => {
      const ch = channelOf(ctx.org, i.channel);
      ctx.engine.world.setChannelVisibility(ch, i.visibility);
      return ch.id;
    },
  ),
  addChannel: def(
    'add-channel',
    z.strictObject({
      org,
      name: text.optional(),
      status: CHANNEL_STATUS.optional(),
      visibility: VISIBILITY.optional(),
    }),
    (ctx, i) => {
      const { world, evolver, triggerRng } = ctx.engine;
      const ch = world.addChannel(
        ctx.org,
        i.name ?? channelName(triggerRng),
        i.status ?? 'idle',
        i.visibility ?? 'public',
      );
      evolver.channelAdded(ch);
      return ch.id;
    },
  ),
  removeChannel: def('remove-channel', z.strictObject({ org, channel: z.string() }), (ctx, i) => {
    const ch = channelOf(ctx.org, i.channel);
    ctx.engine.world.removeChannel(ch);
    return ch.id;
  }),
  scheduleSession: def(
    'schedule-session',
    z.strictObject({
      org,
      channel: z.string().optional(),
      title: text.optional(),
      at: z.iso.datetime({ offset: true }).optional(),
    }),
    (ctx, i) => {
      const { world, evolver, triggerRng } = ctx.engine;
      const ch = channelOf(ctx.org, i.channel);
      const at = i.at === undefined ? world.now + 60 * 60 * 1000 : world.toSim(Date.parse(i.at));
      const s = world.addSession(ch, {
        title: i.title ?? sessionTitle(triggerRng),
        scheduledAt: at,
        aiEnabled: true,
      });
      evolver.sessionScheduled(s);
      return s.id;
    },
  ),
  startSession: def(
    'start-session',
    z.strictObject({
      org,
      channel: z.string().optional(),
      session: z.string().optional(),
      title: text.optional(),
    }),
    (ctx, i) => {
      if (i.session === undefined) return createAndStart(ctx, channelOf(ctx.org, i.channel), i.title).id;
      const s = sessionOf(ctx.org, i.session);
      if (s.status !== 'scheduled') throw conflict(`session ${s.id} is ${s.status}, not scheduled`);
      ctx.engine.world.setSessionStatus(s, 'live');
      ctx.engine.evolver.sessionStarted(s, ctx.engine.world.now);
      return s.id;
    },
  ),
  endSession: def('end-session', endInput, (ctx, i) => endSession(ctx, i, 'ended')),
  failSession: def('fail-session', endInput, (ctx, i) => endSession(ctx, i, 'failed')),
  cancelSession: def('cancel-session', z.strictObject({ org, session: z.string() }), (ctx, i) => {
    const s = sessionOf(ctx.org, i.session);
    if (s.status !== 'scheduled') throw conflict(`session ${s.id} is ${s.status}, not scheduled`);
    ctx.engine.world.setSessionStatus(s, 'cancelled');
    return s.id;
  }),
  addQuestion: def(
    'add-question',
    z.strictObject({ org, session: z.string(), text: text.optional(), author: text.optional() }),
    (ctx, i) => {
      const rng = ctx.engine.triggerRng;
      const s = sessionOf(ctx.org, i.session);
      return ctx.engine.world.addQuestion(s, i.text ?? questionText(rng), i.author ?? listenerHandle(rng));
    },
  ),
  addAnnouncement: def(
    'add-announcement',
    z.strictObject({ org, session: z.string(), text: text.optional() }),
    (ctx, i) => {
      const s = sessionOf(ctx.org, i.session);
      return ctx.engine.world.addAnnouncement(s, i.text ?? announcementText(ctx.engine.triggerRng));
    },
  ),
  addReaction: def(
    'add-reaction',
    z.strictObject({
      org,
      session: z.string(),
      kind: z
        .string()
        .regex(/^[a-z_]{1,32}$/)
        .optional(),
      count: z.number().int().min(1).max(1_000_000).optional(),
    }),
    (ctx, i) => {
      const s = sessionOf(ctx.org, i.session);
      ctx.engine.world.addReactions(s, i.kind ?? 'clap', i.count ?? 1);
      return s.id;
    },
  ),
  addSpeaker: def(
    'add-speaker',
    z.strictObject({ org, session: z.string(), name: text.optional() }),
    (ctx, i) => {
      const s = sessionOf(ctx.org, i.session);
      return ctx.engine.world.addSpeaker(s, i.name ?? personName(ctx.engine.triggerRng));
    },
  ),
  removeSpeaker: def(
    'remove-speaker',
    z.strictObject({ org, session: z.string(), speaker: z.string() }),
    (ctx, i) => {
      const s = sessionOf(ctx.org, i.session);
      if (!ctx.engine.world.removeSpeaker(s, i.speaker))
        throw notFound(`speaker ${i.speaker} in session ${s.id}`);
      return i.speaker;
    },
  ),
  aiStatus: def('ai-status', z.strictObject({ org, session: z.string(), status: AI_STATUS }), (ctx, i) => {
    const s = sessionOf(ctx.org, i.session);
    ctx.engine.world.setAiStatus(s, i.status);
    return s.id;
  }),
  addMember: def(
    'add-member',
    z.strictObject({ org, name: text.optional(), email: z.email().optional(), role: ROLE.optional() }),
    (ctx, i) => {
      const { world, triggerRng } = ctx.engine;
      const name = i.name ?? personName(triggerRng);
      const email = i.email ?? emailFor(name, ctx.org.slug, triggerRng.int(1, 99_999));
      return world.addMember(ctx.org, name, email, i.role ?? 'member').id;
    },
  ),
  removeMember: def('remove-member', z.strictObject({ org, member: z.string() }), (ctx, i) => {
    ctx.engine.world.removeMember(ctx.org, memberOf(ctx.org, i.member));
    return i.member;
  }),
  memberRole: def('member-role', z.strictObject({ org, member: z.string(), role: ROLE }), (ctx, i) => {
    ctx.engine.world.setMemberRole(ctx.org, memberOf(ctx.org, i.member), i.role);
    return i.member;
  }),
  orgSettings: def(
    'org-settings',
    z.strictObject({
      org,
      name: text.optional(),
      defaultVisibility: VISIBILITY.optional(),
      aiEnabled: z.boolean().optional(),
      language: z
        .string()
        .regex(/^[a-z]{2}$/)
        .optional(),
    }),
    (ctx, i) => {
      const w = ctx.engine.world;
      if (i.name !== undefined) w.setOrgName(ctx.org, i.name);
      if (i.defaultVisibility !== undefined)
        w.setOrgSetting(ctx.org, 'default_visibility', i.defaultVisibility);
      if (i.aiEnabled !== undefined) w.setOrgSetting(ctx.org, 'ai_enabled', i.aiEnabled);
      if (i.language !== undefined) w.setOrgSetting(ctx.org, 'language', i.language);
      return ctx.org.slug;
    },
  ),
  plan: def('plan', z.strictObject({ org, plan: PLAN }), (ctx, i) => {
    ctx.engine.world.setPlan(ctx.org, i.plan);
    return ctx.org.slug;
  }),
  subscriptionStatus: def(
    'subscription-status',
    z.strictObject({ org, status: z.enum(['active', 'trialing', 'past_due']) }),
    (ctx, i) => {
      ctx.engine.world.setSubscriptionStatus(ctx.org, i.status);
      return ctx.org.slug;
    },
  ),
  walletBalance: def(
    'wallet-balance',
    z.strictObject({ org, balance: z.number().min(0).max(1e9) }),
    (ctx, i) => {
      ctx.engine.world.setWalletBalance(ctx.org, i.balance);
      return ctx.org.slug;
    },
  ),
  funding: def(
    'funding',
    z.strictObject({
      org,
      mode: z.enum(['wallet', 'byok']),
      provider: z
        .string()
        .regex(/^[a-z0-9_-]{1,40}$/)
        .optional(),
      keyStatus: z.enum(['valid', 'invalid', 'expired']).optional(),
    }),
    (ctx, i) => {
      const w = ctx.engine.world;
      w.setFunding(ctx.org, i.mode);
      if (i.provider !== undefined) w.setProvider(ctx.org, i.provider);
      if (i.keyStatus !== undefined) w.setKeyStatus(ctx.org, i.keyStatus);
      return ctx.org.slug;
    },
  ),
};

/** Name of a trigger, e.g. `channelStatus`. */
export type TriggerName = keyof typeof TRIGGERS;
/** Input of a trigger (its JSON body on the control surface). */
export type TriggerInput<K extends TriggerName> = z.input<(typeof TRIGGERS)[K]['schema']>;
/** The typed helpers: one function per trigger. */
export type Triggers = { [K in TriggerName]: (input: TriggerInput<K>) => TriggerResult };

/** Trigger names by route (`channel-status` → `channelStatus`). */
export const TRIGGER_ROUTES: ReadonlyMap<string, TriggerName> = new Map(
  (Object.keys(TRIGGERS) as TriggerName[]).map((name) => [TRIGGERS[name].route, name]),
);

/** Validates the input, resolves the org (default: the first one) and runs the trigger. */
export function runTrigger(engine: Engine, name: TriggerName, raw: unknown): TriggerResult {
  const t = TRIGGERS[name];
  const parsed = t.schema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw badRequest(`${t.route}: ${problems.join('; ')}`);
  }
  const input = parsed.data as { org?: string };
  const slug = input.org ?? engine.world.orgs.keys().next().value;
  const o = slug === undefined ? undefined : engine.world.org(slug);
  if (o === undefined) throw notFound(`org ${String(slug)}`);
  const { result, changes } = engine.asTrigger(() =>
    (t.run as (ctx: Ctx, input: unknown) => string | undefined)({ engine, org: o }, parsed.data),
  );
  return result === undefined ? { changes } : { id: result, changes };
}

/** The typed helpers over an engine. */
export function triggerHelpers(engine: Engine): Triggers {
  const out: Partial<Record<TriggerName, (input: unknown) => TriggerResult>> = {};
  for (const name of Object.keys(TRIGGERS) as TriggerName[])
    out[name] = (input) => runTrigger(engine, name, input);
  return out as Triggers;
}
