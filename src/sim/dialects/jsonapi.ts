/**
 * JSON:API. Follows:
 * - https://jsonapi.org/format/ — `application/vnd.api+json`; primary data under `data` as
 *   resource objects `{type, id, attributes, relationships, links}`; related resources
 *   behind `relationships.*.links.related`, or in `included` when asked with `include=`;
 *   errors as `{errors: [{status, code, title, detail, source: {parameter}}]}`; a query
 *   parameter of only a–z letters that the server does not know answered with 400.
 * - https://jsonapi.org/profiles/ethanresnick/cursor-pagination/ — `page[size]` and
 *   `page[after]`, `links.next` null on the last page, `max-size-exceeded` past the cap.
 * - https://jsonapi.org/recommendations/ — `filter[...]` for filtering; member names
 *   dasherized as the 1.0 recommendations wrote them.
 * Ids are strings of digits; times ISO 8601 with milliseconds; money as decimal strings.
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
  DialectError,
  filterSessions,
  fmt,
  idNumber,
  parseTimeParam,
  real,
  statusesFrom,
  subItems,
  subList,
  times,
  token,
  untoken,
  withParams,
  notServed,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const TYPE = 'application/vnd.api+json';
const CHANNEL = { live: 'on-air', idle: 'standby', offline: 'off-air' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'scheduled',
  live: 'on-air',
  ended: 'finished',
  failed: 'failed',
  cancelled: 'cancelled',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const iso = (ms: number | null) => (ms === null ? null : fmt.iso(ms));
const num = (id: string) => String(idNumber(id));

function bad(param: string, detail: string, code = 'invalid-parameter'): DialectError {
  return new DialectError(400, code, detail, param);
}

/** Parameters of only a–z letters must be known (the spec's rule for implementation-specific names). */
function refuseUnknown(q: URLSearchParams, known: readonly string[]): void {
  for (const k of q.keys()) {
    const family = k.replace(/\[.*$/, '');
    if (known.includes(k) || ['page', 'filter', 'include', 'fields', 'sort'].includes(family)) continue;
    if (/^[a-z]+$/.test(k))
      throw bad(k, `The query parameter "${k}" is not supported.`, 'unsupported-parameter');
  }
}

function doc(req: DialectRequest, data: unknown, extra: Record<string, unknown> = {}): Rendered {
  return {
    status: 200,
    headers: { 'content-type': TYPE },
    body: {
      jsonapi: { version: '1.1' },
      data,
      ...extra,
      links: { self: `${req.origin}${req.rawPathname}`, ...(extra['links'] as object) },
    },
  };
}

function collection<T>(req: DialectRequest, items: readonly T[], show: (t: T) => unknown): Rendered {
  refuseUnknown(req.query, []);
  const size = Number(req.query.get('page[size]') ?? '20');
  if (!Number.isInteger(size) || size < 1) throw bad('page[size]', 'page[size] must be a positive integer');
  if (size > 100) throw bad('page[size]', 'page[size] must be at most 100', 'max-size-exceeded');
  const tag = `${req.pathname}|${[...req.query.entries()].filter(([k]) => k.startsWith('filter')).join('&')}`;
  const offset = untoken('page[after]', req.query.get('page[after]'), tag);
  const more = offset + size < items.length;
  return doc(req, items.slice(offset, offset + size).map(show), {
    links: {
      next: more ? withParams(req, req.rawPathname, { 'page[after]': token(offset + size, tag) }) : null,
    },
  });
}

function resource(
  type: string,
  id: string,
  attributes: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return { type, id, attributes, ...extra };
}

function member(req: DialectRequest, m: SimMember) {
  return resource('members', num(m.id), {
    name: m.name,
    email: m.email,
    role: m.role,
    'joined-at': iso(real(req.world, m.joinedAt)),
  });
}

function channel(req: DialectRequest, c: SimChannel) {
  return resource(
    'channels',
    num(c.id),
    {
      name: c.name,
      status: CHANNEL[c.status],
      visibility: c.visibility,
      'created-at': iso(real(req.world, c.createdAt)),
    },
    {
      relationships: {
        sessions: { links: { related: `${req.origin}/v1/${req.org.slug}/channels/${num(c.id)}/sessions` } },
      },
      links: { self: `${req.origin}/v1/${req.org.slug}/channels/${num(c.id)}` },
    },
  );
}

function session(req: DialectRequest, s: SimSession, withSubs = false, include: readonly string[] = []) {
  const t = times(req.world, s);
  const base = `${req.origin}/v1/${req.org.slug}/sessions/${num(s.id)}`;
  const items = withSubs ? subItems(req.world, s) : null;
  const relationships: Record<string, unknown> = {
    channel: { data: { type: 'channels', id: num(s.channel.id) } },
  };
  if (items !== null) {
    for (const n of SUBS) {
      relationships[n] = {
        links: { related: `${base}/${n}` },
        meta: { count: items[n].length },
        ...(include.includes(n) ? { data: items[n].map((x) => ({ type: n, id: x.id })) } : {}),
      };
    }
  }
  return resource(
    'sessions',
    num(s.id),
    {
      title: s.title,
      status: SESSION[s.status],
      'scheduled-for': iso(t.scheduled),
      'started-at': iso(t.started),
      'ended-at': iso(t.ended),
      ...(items === null
        ? {}
        : {
            reactions: {
              total: items.reactionsTotal,
              'by-kind': Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
            },
            ai: { status: s.aiStatus, enabled: s.aiEnabled },
          }),
    },
    { relationships, links: { self: base } },
  );
}

function subResource(type: string, x: Record<string, unknown>) {
  const { id, at, ...rest } = x as { id: string; at: number };
  return resource(type, id, { ...rest, 'created-at': iso(at) });
}

function sessions(req: DialectRequest, all: readonly SimSession[]): Rendered {
  const q = req.query;
  for (const k of q.keys()) {
    if (
      k.startsWith('filter[') &&
      !['filter[status]', 'filter[ends-after]', 'filter[starts-before]'].includes(k)
    ) {
      throw bad(
        k,
        `${k} is not a supported filter; use filter[status], filter[ends-after] or filter[starts-before]`,
        'invalid-filter',
      );
    }
  }
  const status = q.get('filter[status]');
  const after = q.get('filter[ends-after]');
  const before = q.get('filter[starts-before]');
  const picked = filterSessions(req.world, all, {
    statuses: status === null ? null : statusesFrom('filter[status]', status, SESSION),
    from: after === null ? null : parseTimeParam('filter[ends-after]', after),
    to: before === null ? null : parseTimeParam('filter[starts-before]', before),
  });
  return collection(req, picked, (s) => session(req, s));
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  switch (req.kind) {
    case 'org':
      refuseUnknown(req.query, []);
      return doc(
        req,
        resource('organizations', org.slug, {
          name: org.name,
          plan: org.plan,
          settings: {
            'default-visibility': org.settings.default_visibility,
            'ai-enabled': org.settings.ai_enabled,
            language: org.settings.language,
            timezone: org.settings.timezone,
          },
          'created-at': iso(real(world, org.createdAt)),
        }),
      );
    case 'team':
      return collection(req, org.members, (m) => member(req, m));
    case 'subscription': {
      refuseUnknown(req.query, []);
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      return doc(
        req,
        resource('subscriptions', org.slug, {
          plan: org.plan,
          status: org.subscriptionStatus.replace('_', '-'),
          limits: {
            channels: lim.channels,
            members: lim.members,
            'ai-minutes': lim.ai_minutes,
            'concurrent-live': lim.concurrent_live,
          },
          usage: {
            channels: org.channels.length,
            members: org.members.length,
            'ai-minutes': Math.floor(org.aiMinutesUsed),
            'concurrent-live': org.liveSessions,
          },
          'ai-funding':
            f.mode === 'wallet'
              ? { mode: 'wallet', balance: f.balance.toFixed(2), currency: f.currency }
              : { mode: 'byok', provider: f.provider, 'key-status': f.keyStatus },
        }),
      );
    }
    case 'channels':
      return collection(req, org.channels, (c) => channel(req, c));
    case 'sessions':
      return sessions(req, req.channel!.sessions);
    case 'session': {
      refuseUnknown(req.query, []);
      const include = (req.query.get('include') ?? '').split(',').filter((x) => x !== '');
      for (const i of include) {
        if (!SUBS.includes(i as (typeof SUBS)[number])) {
          throw bad('include', `"${i}" is not a relationship of sessions`, 'invalid-include');
        }
      }
      const items = subItems(world, req.session!);
      const included = include.flatMap((n) =>
        items[n as (typeof SUBS)[number]].map((x) => subResource(n, x as Record<string, unknown>)),
      );
      return doc(req, session(req, req.session!, true, include), include.length > 0 ? { included } : {});
    }
    case 'more':
      return notServed();
    case 'sub': {
      const n = req.sub as (typeof SUBS)[number];
      return collection(req, subList(world, req.session!, n), (x) => subResource(n, x));
    }
  }
}

const TITLE: Readonly<Record<number, string>> = {
  400: 'Invalid Query Parameter',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
};

function error(status: number, code: string, message: string, param?: string): ErrorAnswer {
  return {
    status,
    headers: { 'content-type': TYPE },
    body: {
      jsonapi: { version: '1.1' },
      errors: [
        {
          status: String(status),
          code: code.replace(/_/g, '-'),
          title: TITLE[status] ?? 'Error',
          detail: message,
          ...(param === undefined ? {} : { source: { parameter: param } }),
        },
      ],
    },
  };
}

/** JSON:API, as https://jsonapi.org/format/ specifies it. */
export const jsonapi: FaithfulDialect = {
  name: 'jsonapi',
  description:
    'JSON:API: data resource objects, links.next with page[after], filter[...], included, errors[]',
  docs: [
    'https://jsonapi.org/format/',
    'https://jsonapi.org/profiles/ethanresnick/cursor-pagination/',
    'https://jsonapi.org/recommendations/',
  ],
  facets: {
    envelope: '`{jsonapi, data: [{type, id, attributes, relationships}], links}`',
    paging: '`links.next` (absolute) with `page[after]`, `page[size]` ≤ 100; null at the end',
    filters: '`filter[status]=on-air`, `filter[ends-after]=`, `filter[starts-before]=`; `from`/`to` 400',
    errors: '`{errors: [{status, code, title, detail, source: {parameter}}]}`',
    rateLimits: '429 `errors[]` with Retry-After',
    money: '`ai-funding: {mode, balance: "12.34", currency}` (decimal string)',
    times: 'ISO 8601 with milliseconds (`scheduled-for`, `started-at`, `ended-at`)',
    casing: 'kebab-case attributes',
    ids: 'strings of digits (`"6"`), with `type`',
    subResources: '`relationships.*.links.related` with `meta.count`; `include=` → `included`',
  },
  channelId: (_org, seg) => (/^\d{1,12}$/.test(seg) ? `ch_${seg.padStart(6, '0')}` : seg),
  sessionId: (_org, seg) => (/^\d{1,12}$/.test(seg) ? `ses_${seg.padStart(8, '0')}` : seg),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    ...error(429, 'too_many_requests', 'The rate limit is exceeded.'),
    headers: { 'content-type': TYPE, 'retry-after': String(r.resetSeconds) },
  }),
  rateHeaders: () => ({}),
};
