/**
 * Shopify REST Admin API. Follows:
 * - https://shopify.dev/docs/api/admin-rest/usage/pagination — lists under the resource's
 *   plural, `limit` (default 50, max 250), the next page in a `Link` header whose URL
 *   carries only `page_info` and `limit`; a request with `page_info` may carry no other
 *   parameter but `limit` and `fields`.
 * - https://shopify.dev/docs/api/usage/rate-limits — `X-Shopify-Shop-Api-Call-Limit: n/40`
 *   on every answer; 429 with `Retry-After: 2.0` and `{errors: "Exceeded 2 calls per
 *   second …"}`.
 * - https://shopify.dev/docs/api/usage/response-codes — errors as `{errors: "…"}` or
 *   `{errors: {field: ["…"]}}`.
 * - https://shopify.dev/docs/api/admin-rest/latest/resources/order — single objects under
 *   their singular name, `*_at_min` / `*_at_max` and `status` filters, prices as decimal
 *   strings with `*_set` money bags, times in the shop's offset, big integer ids beside
 *   `admin_graphql_api_id`, sub-records embedded as arrays (as `line_items`).
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
  decimal,
  DialectError,
  filterSessions,
  fmt,
  idNumber,
  intParam,
  linkHeader,
  notServed,
  parseTimeParam,
  real,
  type SessionFilter,
  statusesFrom,
  subItems,
  times,
  token,
  untoken,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState } from './types.js';

/** The shop's offset from UTC, in minutes (a shop in New York in winter). */
const OFFSET = -300;
const BASE = 7_000_000_000;
const CHANNEL = { live: 'live', idle: 'paused', offline: 'archived' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'scheduled',
  live: 'open',
  ended: 'closed',
  failed: 'failed',
  cancelled: 'cancelled',
};
const local = (ms: number | null) => (ms === null ? null : fmt.isoAt(ms, OFFSET));
const bigId = (id: string) => BASE + idNumber(id);
const gid = (kind: string, id: string) => `gid://tally/${kind}/${bigId(id)}`;

function fieldError(field: string, message: string): DialectError {
  return new DialectError(400, 'invalid', message, field);
}

/** A page: `page_info` carries the offset and the filters, so the next URL needs nothing else. */
function page<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const q = req.query;
  const limit = intParam(q, 'limit', 50, 250);
  let offset = 0;
  const info = q.get('page_info');
  if (info !== null) {
    const other = [...q.keys()].filter((k) => !['page_info', 'limit', 'fields'].includes(k));
    if (other.length > 0) {
      throw fieldError('page_info', `page_info cannot be used with other parameters: ${other.join(', ')}`);
    }
    offset = untoken('page_info', info, req.pathname);
  }
  const more = offset + limit < items.length;
  const url = (o: number) =>
    `${req.origin}${req.rawPathname}?limit=${limit}&page_info=${token(o, req.pathname)}`;
  const links: [string, string][] = [];
  if (offset > 0) links.push([url(Math.max(0, offset - limit)), 'previous']);
  if (more) links.push([url(offset + limit), 'next']);
  return {
    status: 200,
    headers: links.length > 0 ? { link: linkHeader(links) } : {},
    body: { [key]: items.slice(offset, offset + limit).map(show) },
  };
}

/** The filters of the first request, or those a `page_info` carried. */
function sessionFilter(req: DialectRequest): SessionFilter {
  const q = req.query;
  const status = q.get('status');
  const min = q.get('ended_at_min');
  const max = q.get('started_at_max');
  return {
    statuses: status === null || status === 'any' ? null : statusesFrom('status', status, SESSION),
    from: min === null ? null : parseTimeParam('ended_at_min', min),
    to: max === null ? null : parseTimeParam('started_at_max', max),
  };
}

function member(req: DialectRequest, m: SimMember) {
  const [first, ...rest] = m.name.split(' ');
  return {
    id: bigId(m.id),
    first_name: first,
    last_name: rest.join(' '),
    email: m.email,
    account_owner: m.role === 'owner',
    permissions: [m.role],
    created_at: local(real(req.world, m.joinedAt)),
    admin_graphql_api_id: gid('StaffMember', m.id),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    id: bigId(c.id),
    title: c.name,
    status: CHANNEL[c.status],
    published_scope: c.visibility === 'public' ? 'global' : c.visibility === 'unlisted' ? 'web' : 'none',
    created_at: local(real(req.world, c.createdAt)),
    admin_graphql_api_id: gid('Channel', c.id),
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  return {
    id: bigId(s.id),
    channel_id: bigId(s.channel.id),
    name: s.title,
    status: SESSION[s.status],
    scheduled_at: local(t.scheduled),
    started_at: local(t.started),
    closed_at: s.status === 'cancelled' ? null : local(t.ended),
    cancelled_at: s.status === 'cancelled' ? local(t.ended ?? t.scheduled) : null,
    admin_graphql_api_id: gid('Session', s.id),
  };
}

function detail(req: DialectRequest, s: SimSession) {
  const items = subItems(req.world, s);
  const rows = (list: { id: string; at: number }[]) =>
    list.map(({ id, at, ...rest }) => ({ id: BASE + idNumber(id), ...rest, created_at: local(at) }));
  return {
    ...session(req, s),
    questions: rows(items.questions),
    announcements: rows(items.announcements),
    speakers: rows(items.speakers),
    reactions: items.reactions.map((r) => ({ kind: r.kind, count: r.count })),
    ai: { status: s.aiStatus, enabled: s.aiEnabled },
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (key: string, body: unknown): Rendered => ({ status: 200, headers: {}, body: { [key]: body } });
  switch (req.kind) {
    case 'org':
      return one('organization', {
        id: BASE,
        name: org.name,
        myshopify_domain: `${org.slug}.example`,
        plan_name: org.plan,
        iana_timezone: org.settings.timezone,
        primary_locale: org.settings.language,
        default_visibility: org.settings.default_visibility,
        ai_enabled: org.settings.ai_enabled,
        created_at: local(real(world, org.createdAt)),
      });
    case 'team':
      return page(req, 'users', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      const money = (n: number) => ({ amount: decimal(n, f.currency), currency_code: f.currency });
      return one('subscription', {
        plan_name: org.plan,
        status: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding_source: f.mode,
        ...(f.mode === 'wallet'
          ? {
              ai_balance: decimal(f.balance, f.currency),
              currency: f.currency,
              ai_balance_set: { shop_money: money(f.balance), presentment_money: money(f.balance) },
            }
          : { ai_provider: f.provider, ai_key_status: f.keyStatus }),
      });
    }
    case 'channels':
      return page(req, 'channels', org.channels, (c) => channel(req, c));
    case 'sessions':
      return pageFiltered(req);
    case 'session':
      return one('session', detail(req, req.session!));
    case 'more':
      return notServed();
    case 'sub':
      throw new DialectError(404, 'not_found', 'Not Found');
  }
}

/** Session pages: the first request's filters ride in `page_info`, before the offset token. */
function pageFiltered(req: DialectRequest): Rendered {
  const q = req.query;
  const limit = intParam(q, 'limit', 50, 250);
  const info = q.get('page_info');
  let head: string;
  let filter: SessionFilter;
  let offset = 0;
  if (info === null) {
    filter = sessionFilter(req);
    const key = ['status', 'ended_at_min', 'started_at_max'].map((k) => q.get(k) ?? '').join('|');
    head = Buffer.from(JSON.stringify({ f: key })).toString('base64url');
  } else {
    const other = [...q.keys()].filter((k) => !['page_info', 'limit', 'fields'].includes(k));
    if (other.length > 0) {
      throw fieldError('page_info', `page_info cannot be used with other parameters: ${other.join(', ')}`);
    }
    const [h, tok] = info.split('.');
    let f: string;
    try {
      f = (JSON.parse(Buffer.from(h ?? '', 'base64url').toString('utf8')) as { f: string }).f;
    } catch {
      throw fieldError('page_info', 'page_info is invalid');
    }
    const [status, min, max] = f.split('|');
    filter = {
      statuses: status === '' || status === 'any' ? null : statusesFrom('status', status!, SESSION),
      from: min === '' ? null : parseTimeParam('ended_at_min', min!),
      to: max === '' ? null : parseTimeParam('started_at_max', max!),
    };
    head = h!;
    offset = untoken('page_info', tok ?? '', 's');
  }
  const all = filterSessions(req.world, req.channel!.sessions, filter);
  const more = offset + limit < all.length;
  const url = (o: number) =>
    `${req.origin}${req.rawPathname}?limit=${limit}&page_info=${head}.${token(o, 's')}`;
  const links: [string, string][] = [];
  if (offset > 0) links.push([url(Math.max(0, offset - limit)), 'previous']);
  if (more) links.push([url(offset + limit), 'next']);
  return {
    status: 200,
    headers: links.length > 0 ? { link: linkHeader(links) } : {},
    body: { sessions: all.slice(offset, offset + limit).map((s) => session(req, s)) },
  };
}

function error(status: number, _code: string, message: string, param?: string): ErrorAnswer {
  if (status === 401) {
    return {
      status,
      headers: {},
      body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' },
    };
  }
  if (status === 404) return { status, headers: {}, body: { errors: 'Not Found' } };
  if (param !== undefined) return { status, headers: {}, body: { errors: { [param]: [message] } } };
  return { status, headers: {}, body: { errors: message } };
}

function rateHeaders(r: RateState): Record<string, string> {
  return { 'x-shopify-shop-api-call-limit': `${r.limit - r.remaining}/${r.limit}` };
}

const byBig = (prefix: string, pad: number) => (_org: unknown, seg: string) =>
  /^\d{1,15}$/.test(seg) && Number(seg) > BASE
    ? `${prefix}_${String(Number(seg) - BASE).padStart(pad, '0')}`
    : seg;

/** Shopify REST Admin, as https://shopify.dev/docs/api/admin-rest documents it. */
export const shopify: FaithfulDialect = {
  name: 'shopify',
  description:
    'Shopify REST Admin: plural keys, Link rel=next with page_info, call-limit header, shop-local times',
  docs: [
    'https://shopify.dev/docs/api/admin-rest/usage/pagination',
    'https://shopify.dev/docs/api/usage/rate-limits',
    'https://shopify.dev/docs/api/usage/response-codes',
    'https://shopify.dev/docs/api/admin-rest/latest/resources/order',
  ],
  facets: {
    envelope: 'lists under the plural (`{channels: [...]}`), objects under the singular',
    paging: '`Link: <…?limit=3&page_info=…>; rel="next"`; `limit` ≤ 250; page_info forbids other params',
    filters: '`status=open`, `ended_at_min=`, `started_at_max=`',
    errors: '`{errors: "Not Found"}` / `{errors: {status: ["…"]}}`',
    rateLimits: '`X-Shopify-Shop-Api-Call-Limit: n/40`; 429 with `Retry-After: 2.0`',
    money: '`ai_balance: "12.34"` + `currency`, `ai_balance_set.shop_money {amount, currency_code}`',
    times: 'ISO 8601 in the shop offset (`2030-01-07T04:00:00-05:00`)',
    casing: 'snake_case',
    ids: 'big integers (`7000000006`) + `admin_graphql_api_id`',
    subResources: 'embedded arrays in the detail (`questions`, `speakers` …)',
  },
  channelId: byBig('ch', 6),
  sessionId: byBig('ses', 8),
  subPaths: [],
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { 'retry-after': `${Math.max(1, r.resetSeconds)}.0`, ...rateHeaders({ ...r, remaining: 0 }) },
    body: {
      errors:
        'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.',
    },
  }),
  rateHeaders,
};
