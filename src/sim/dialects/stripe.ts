/**
 * Stripe. Follows:
 * - https://docs.stripe.com/api/pagination — list objects `{object: "list", url, has_more,
 *   data}`, `limit` 1..100 (default 10), keyset paging by `starting_after=<last id>`; no
 *   cursor token, no next link.
 * - https://docs.stripe.com/api/errors — `{error: {type, code, message, param}}`, unknown
 *   parameters refused with `parameter_unknown`, 404 `resource_missing`, 429 `rate_limit`
 *   (no Retry-After: clients back off).
 * - https://docs.stripe.com/api/expanding_objects — sub-lists embedded as list objects
 *   with their own `url`; `created[gte]` / `created[lte]` range filters.
 * Money as integer minor units beside a lowercase ISO currency; times as epoch seconds;
 * polymorphic hashes `{type: "wallet", wallet: {...}}`.
 */
import {
  PLAN_LIMITS,
  type SessionStatus,
  type SimChannel,
  type SimMember,
  type SimSession,
} from '../model.js';
import type { Rendered } from '../render.js';
import {
  filterSessions,
  fmt,
  intParam,
  invalid,
  keyset,
  minor,
  notServed,
  parseTimeParam,
  real,
  statusesFrom,
  subItems,
  times,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'on_air', idle: 'ready', offline: 'inactive' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'scheduled',
  live: 'in_progress',
  ended: 'complete',
  failed: 'failed',
  cancelled: 'canceled',
};

const LIST_PARAMS = ['limit', 'starting_after', 'ending_before'];
const SESSION_PARAMS = [
  ...LIST_PARAMS,
  'status',
  'created[gte]',
  'created[gt]',
  'created[lte]',
  'created[lt]',
];

function refuseUnknown(q: URLSearchParams, known: readonly string[]): void {
  for (const k of q.keys()) {
    if (!known.includes(k)) throw invalid(k, `Received unknown parameter: ${k}`, 'parameter_unknown');
  }
}

function list<T extends { id: string }>(
  req: DialectRequest,
  items: readonly T[],
  show: (t: T) => unknown,
  extra: readonly string[] = [],
): Rendered {
  refuseUnknown(req.query, [...LIST_PARAMS, ...extra]);
  const limit = intParam(req.query, 'limit', 10, 100);
  const { page, hasMore } = keyset(
    items,
    (t) => t.id,
    req.query.get('starting_after'),
    limit,
    'starting_after',
  );
  return {
    status: 200,
    headers: {},
    body: { object: 'list', url: req.pathname, has_more: hasMore, data: page.map(show) },
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    id: m.id,
    object: 'member',
    name: m.name,
    email: m.email,
    role: m.role,
    created: fmt.epochS(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    id: c.id,
    object: 'channel',
    name: c.name,
    status: CHANNEL[c.status],
    visibility: c.visibility,
    created: fmt.epochS(real(req.world, c.createdAt)),
    livemode: true,
    metadata: {},
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  const sec = (ms: number | null) => (ms === null ? null : fmt.epochS(ms));
  return {
    id: s.id,
    object: 'session',
    channel: s.channel.id,
    title: s.title,
    status: SESSION[s.status],
    scheduled_for: sec(t.scheduled),
    started_at: sec(t.started),
    ended_at: s.status === 'cancelled' ? null : sec(t.ended),
    canceled_at: s.status === 'cancelled' ? sec(t.ended ?? t.scheduled) : null,
    livemode: true,
    metadata: {},
  };
}

function subObject(sub: SubName, item: Record<string, unknown>) {
  const { at, ...rest } = item as { at?: number };
  return { ...rest, object: sub.slice(0, -1), ...(at === undefined ? {} : { created: fmt.epochS(at) }) };
}

function detail(req: DialectRequest, s: SimSession) {
  const items = subItems(req.world, s);
  const sub = (name: 'questions' | 'announcements' | 'speakers') => ({
    object: 'list',
    url: `${req.pathname}/${name}`,
    has_more: items[name].length > 10,
    total_count: items[name].length,
    data: items[name].slice(0, 10).map((x) => subObject(name, x)),
  });
  return {
    ...session(req, s),
    questions: sub('questions'),
    announcements: sub('announcements'),
    speakers: sub('speakers'),
    reactions: {
      total: items.reactionsTotal,
      by_kind: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
    },
    ai: { status: s.aiStatus, enabled: s.aiEnabled },
  };
}

function sessions(req: DialectRequest, all: readonly SimSession[]): Rendered {
  refuseUnknown(req.query, SESSION_PARAMS);
  const q = req.query;
  const raw = q.get('status');
  const time = (k: string, shift: number) => {
    const v = q.get(k);
    return v === null ? null : parseTimeParam(k, v) + shift;
  };
  const from = time('created[gte]', 0) ?? time('created[gt]', 1);
  const to = time('created[lte]', 0) ?? time('created[lt]', -1);
  const picked = filterSessions(req.world, all, {
    statuses: raw === null ? null : statusesFrom('status', raw, SESSION),
    from,
    to,
  });
  return list(req, picked, (s) => session(req, s), SESSION_PARAMS);
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => {
    refuseUnknown(req.query, []);
    return { status: 200, headers: {}, body };
  };
  switch (req.kind) {
    case 'org':
      return one({
        id: org.slug,
        object: 'organization',
        name: org.name,
        plan: org.plan,
        settings: { ...org.settings },
        created: fmt.epochS(real(world, org.createdAt)),
      });
    case 'team':
      return list(req, org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        id: `sub_${org.slug}`,
        object: 'subscription',
        status: org.subscriptionStatus,
        plan: { id: org.plan, object: 'plan', nickname: org.plan },
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? {
                type: 'wallet',
                wallet: { balance: minor(f.balance, f.currency), currency: f.currency.toLowerCase() },
              }
            : { type: 'byok', byok: { provider: f.provider, key_status: f.keyStatus } },
      });
    }
    case 'channels':
      return list(req, org.channels, (c) => channel(req, c));
    case 'sessions':
      return sessions(req, req.channel!.sessions);
    case 'session':
      return one(detail(req, req.session!));
    case 'more':
      return notServed();
    case 'sub': {
      const all = subItems(world, req.session!)[req.sub as 'questions'];
      return list(req, all, (x) => subObject(req.sub!, x));
    }
  }
}

function error(status: number, code: string, message: string, param?: string): ErrorAnswer {
  if (status === 401) {
    return {
      status,
      headers: {},
      body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } },
    };
  }
  const stripeCode =
    status === 404 ? 'resource_missing' : code === 'invalid_request' ? 'parameter_invalid' : code;
  return {
    status,
    headers: {},
    body: {
      error: {
        type: status >= 500 ? 'api_error' : 'invalid_request_error',
        code: stripeCode,
        message,
        ...(param === undefined ? {} : { param }),
      },
    },
  };
}

/** Stripe, as https://docs.stripe.com/api documents it. */
export const stripe: FaithfulDialect = {
  name: 'stripe',
  description: 'Stripe: list objects, has_more + starting_after=<last id>, minor units, epoch seconds',
  docs: [
    'https://docs.stripe.com/api/pagination',
    'https://docs.stripe.com/api/errors',
    'https://docs.stripe.com/api/expanding_objects',
  ],
  facets: {
    envelope: '`{object: "list", url, has_more, data}`',
    paging: '`has_more` + `starting_after=<last id>` (keyset), `limit` ≤ 100',
    filters: '`status=`, `created[gte]=` / `created[lte]=` (epoch s or ISO); unknown params 400',
    errors: '`{error: {type, code, message, param}}`; `parameter_unknown`, `resource_missing`',
    rateLimits: '429 `rate_limit`, no Retry-After',
    money: '`{type: "wallet", wallet: {balance: 1234, currency: "eur"}}` (minor units)',
    times: 'epoch seconds (`created`, `scheduled_for`, `started_at`, `ended_at`, `canceled_at`)',
    casing: 'snake_case',
    ids: 'prefixed strings (`ch_000006`)',
    subResources: 'embedded list objects (first 10, `has_more`, `url`) + own paths',
  },
  channelId: (_org, seg) => seg,
  sessionId: (_org, seg) => seg,
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: () => ({
    status: 429,
    headers: {},
    body: {
      error: {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Too many requests hit the API too quickly.',
      },
    },
  }),
  rateHeaders: () => ({}),
};
