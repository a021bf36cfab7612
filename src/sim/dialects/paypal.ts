/**
 * PayPal REST APIs. Follows:
 * - https://developer.paypal.com/api/rest/responses/ — HATEOAS `links: [{href, rel,
 *   method}]` on lists and objects; the next page is the `rel: "next"` link.
 * - https://developer.paypal.com/docs/api/subscriptions/v1/ (list plans / subscriptions) —
 *   `page` (1-based), `page_size` (≤ 20), `total_items`, `total_pages` with
 *   `total_required=true`; lists under the resource's plural; statuses UPPER_SNAKE_CASE
 *   (APPROVAL_PENDING, ACTIVE, SUSPENDED, CANCELLED, EXPIRED).
 * - https://developer.paypal.com/docs/api/transaction-search/v1/ — `start_date` /
 *   `end_date` (ISO 8601) bound a list.
 * - https://developer.paypal.com/api/rest/reference/orders/v2/errors/ — errors
 *   `{name, message, debug_id, details: [{field, value, location, issue, description}],
 *   links}`; 429 `RATE_LIMIT_REACHED`.
 * - https://developer.paypal.com/api/rest/reference/currency-codes/ — money as
 *   `{currency_code, value: "12.34"}` (a decimal string).
 * Ids as opaque upper-case strings with a prefix; ISO 8601 times `…Z`; sub-records
 * behind `links` with their own `rel`.
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
  findId,
  fmt,
  hexId,
  intParam,
  notServed,
  real,
  statusesFrom,
  subItems,
  subList,
  times,
  usageOf,
  withParams,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'ACTIVE', idle: 'SUSPENDED', offline: 'INACTIVE' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'CREATED',
  live: 'ACTIVE',
  ended: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const ppId = (prefix: string, id: string) => `${prefix}-${hexId(id, 'paypal', 17).toUpperCase()}`;
const iso = (ms: number | null) => (ms === null ? undefined : fmt.isoSeconds(ms));
const link = (href: string, rel: string) => ({ href, rel, method: 'GET' });

function invalid(field: string, description: string): DialectError {
  return new DialectError(400, 'INVALID_REQUEST', description, field);
}

function list<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const raw = req.query.get('page_size');
  if (raw !== null && (!/^\d{1,9}$/.test(raw) || Number(raw) < 1 || Number(raw) > 20)) {
    throw invalid('page_size', 'page_size must be from 1 to 20.');
  }
  const size = intParam(req.query, 'page_size', 10, 20);
  const page = intParam(req.query, 'page', 1, 100_000);
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  const at = (n: number) => withParams(req, req.rawPathname, { page: String(n), page_size: String(size) });
  const links = [link(at(page), 'self')];
  if (page > 1) links.push(link(at(page - 1), 'prev'));
  if (page < totalPages) links.push(link(at(page + 1), 'next'));
  links.push(link(at(1), 'first'), link(at(totalPages), 'last'));
  const totals =
    req.query.get('total_required') === 'true' ? { total_items: items.length, total_pages: totalPages } : {};
  return {
    status: 200,
    headers: {},
    body: { [key]: items.slice((page - 1) * size, page * size).map(show), ...totals, links },
  };
}

/** `status=ACTIVE`, `start_date=` / `end_date=` (ISO 8601). */
function sessionsFiltered(req: DialectRequest): SimSession[] {
  const status = req.query.get('status');
  const time = (k: string) => {
    const v = req.query.get(k);
    if (v === null || v === '') return null;
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) throw invalid(k, `${k} must be an ISO 8601 date-time.`);
    return ms;
  };
  let statuses: Set<SessionStatus> | null = null;
  if (status !== null && status !== '') {
    try {
      statuses = statusesFrom('status', status, SESSION);
    } catch {
      throw invalid('status', `status must be one of ${Object.values(SESSION).join(', ')}.`);
    }
  }
  return filterSessions(req.world, req.channel!.sessions, {
    statuses,
    from: time('start_date'),
    to: time('end_date'),
  });
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const base = `${req.origin}/v1/${org.slug}`;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  const member = (m: SimMember) => {
    const [given, ...surname] = m.name.split(' ');
    return {
      id: ppId('U', m.id),
      name: { given_name: given, surname: surname.join(' ') },
      email_address: m.email,
      role: m.role.toUpperCase(),
      create_time: iso(real(world, m.joinedAt)),
    };
  };
  const channel = (c: SimChannel) => ({
    id: ppId('CH', c.id),
    name: c.name,
    status: CHANNEL[c.status],
    visibility: c.visibility.toUpperCase(),
    create_time: iso(real(world, c.createdAt)),
    links: [link(`${base}/channels/${ppId('CH', c.id)}/sessions`, 'sessions')],
  });
  const session = (s: SimSession, withSubs = false) => {
    const t = times(world, s);
    const self = `${base}/sessions/${ppId('S', s.id)}`;
    return {
      id: ppId('S', s.id),
      channel_id: ppId('CH', s.channel.id),
      name: s.title,
      status: SESSION[s.status],
      start_time: iso(t.scheduled),
      status_update_time: iso(t.ended ?? t.started ?? t.scheduled),
      run_time: { start_time: iso(t.started), end_time: iso(t.ended) },
      links: [link(self, 'self'), ...(withSubs ? SUBS.map((n) => link(`${self}/${n}`, n)) : [])],
    };
  };
  switch (req.kind) {
    case 'org':
      return one({
        id: ppId('O', org.slug),
        business_name: org.name,
        plan: org.plan.toUpperCase(),
        preferences: { ...org.settings },
        create_time: iso(real(world, org.createdAt)),
        links: [link(base, 'self'), link(`${base}/channels`, 'channels'), link(`${base}/team`, 'team')],
      });
    case 'team':
      return list(req, 'members', org.members, member);
    case 'subscription': {
      const f = org.funding;
      return one({
        id: ppId('I', org.slug),
        plan_id: ppId('P', org.plan),
        plan: org.plan.toUpperCase(),
        status: org.subscriptionStatus === 'past_due' ? 'SUSPENDED' : 'ACTIVE',
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? {
                funding_type: 'WALLET',
                balance: { currency_code: f.currency, value: decimal(f.balance, f.currency) },
              }
            : {
                funding_type: 'BYOK',
                provider: f.provider.toUpperCase(),
                key_status: f.keyStatus.toUpperCase(),
              },
        links: [link(`${base}/subscription`, 'self')],
      });
    }
    case 'channels':
      return list(req, 'channels', org.channels, channel);
    case 'sessions':
      return list(req, 'sessions', sessionsFiltered(req), (s) => session(s));
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one({
        ...session(s, true),
        reactions: items.reactions.map((r) => ({ type: r.kind.toUpperCase(), count: r.count })),
        ai: { status: s.aiStatus.toUpperCase(), enabled: s.aiEnabled },
      });
    }
    case 'sub':
      return list(req, req.sub!, subList(world, req.session!, req.sub!), ({ id, at, ...rest }) => ({
        id,
        ...rest,
        create_time: at === undefined ? undefined : iso(at),
      }));
    case 'more':
      return notServed();
  }
}

const NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST',
  401: 'AUTHENTICATION_FAILURE',
  403: 'NOT_AUTHORIZED',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  429: 'RATE_LIMIT_REACHED',
};

function error(status: number, _code: string, message: string, param?: string): ErrorAnswer {
  const name = NAMES[status] ?? 'INTERNAL_SERVER_ERROR';
  const details =
    param === undefined
      ? status === 404
        ? [{ issue: 'INVALID_RESOURCE_ID', description: message }]
        : []
      : [{ field: param, location: 'query', issue: 'INVALID_PARAMETER_VALUE', description: message }];
  return {
    status,
    headers: {},
    body: {
      name,
      message:
        status === 400
          ? 'Request is not well-formed, syntactically incorrect, or violates schema.'
          : status === 404
            ? 'The specified resource does not exist.'
            : message,
      debug_id: hexId(message, 'debug', 13),
      details,
      links: [
        {
          href: `https://developer.paypal.com/api/rest/reference/orders/v2/errors/#${name.toLowerCase()}`,
          rel: 'information_link',
        },
      ],
    },
  };
}

/** PayPal REST, as https://developer.paypal.com/api/rest documents it. */
export const paypal: FaithfulDialect = {
  name: 'paypal',
  description:
    'PayPal REST: HATEOAS links [{href, rel: "next"}], page/page_size, {currency_code, value} money',
  docs: [
    'https://developer.paypal.com/api/rest/responses/',
    'https://developer.paypal.com/docs/api/subscriptions/v1/',
    'https://developer.paypal.com/docs/api/transaction-search/v1/',
    'https://developer.paypal.com/api/rest/reference/orders/v2/errors/',
    'https://developer.paypal.com/api/rest/reference/currency-codes/',
  ],
  facets: {
    envelope: 'list under the plural beside `links: [{href, rel, method}]`',
    paging: '`links[rel=next].href`; `page` (1-based), `page_size` ≤ 20 (400 above)',
    filters: '`status=ACTIVE`, `start_date=` / `end_date=` (ISO 8601)',
    errors: '`{name: "INVALID_REQUEST", message, debug_id, details: [{field, issue}], links}`',
    rateLimits: '429 `RATE_LIMIT_REACHED`, no Retry-After',
    money: '`ai_funding.balance: {currency_code: "EUR", value: "12.34"}` (decimal string)',
    times: 'ISO 8601 `…Z` (`start_time`, `run_time.start_time`, `run_time.end_time`)',
    casing: 'snake_case; statuses UPPER_SNAKE (`ACTIVE`, `COMPLETED`)',
    ids: 'prefixed upper-case strings (`S-1A2B…`)',
    subResources: 'HATEOAS `links` with `rel: "questions"` …, on their own paths',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => ppId('CH', c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => ppId('S', s.id)),
  subPaths: SUBS,
  render,
  error,
  tooMany: () => ({
    status: 429,
    headers: {},
    body: {
      name: 'RATE_LIMIT_REACHED',
      message: 'Too many requests. Blocked due to rate limiting.',
      debug_id: '90957fca61718',
      links: [],
    },
  }),
  rateHeaders: () => ({}),
};
