/**
 * Zendesk Support API. Follows:
 * - https://developer.zendesk.com/api-reference/introduction/pagination/ — two methods:
 *   offset pagination by default (`page`, `per_page` ≤ 100, `next_page` / `previous_page`
 *   absolute URLs, `count`), and cursor pagination when `page[size]` is given
 *   (`meta: {has_more, after_cursor, before_cursor}`, `links: {next, prev}`,
 *   `page[after]`).
 * - https://developer.zendesk.com/api-reference/introduction/rate-limits/ — 429 with
 *   Retry-After; `X-Rate-Limit` / `X-Rate-Limit-Remaining` and the `ratelimit-limit`,
 *   `ratelimit-remaining`, `ratelimit-reset` fields on answers.
 * - https://developer.zendesk.com/api-reference/ticketing/ticket-management/search/ — one
 *   `query` of `keyword:value` and `keyword>value` terms.
 * - https://developer.zendesk.com/api-reference/introduction/requests/ — errors
 *   `{error, description}` (`RecordNotFound`, `InvalidValue`); objects under their
 *   singular name with an `url`; integer ids; ISO 8601 times; sub-records (as ticket
 *   comments) on their own paths.
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
  intParam,
  notServed,
  real,
  type SessionFilter,
  statusesFrom,
  subItems,
  subList,
  times,
  token,
  untoken,
  usageOf,
  withParams,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState, SubName } from './types.js';

const CHANNEL = { live: 'online', idle: 'away', offline: 'offline' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'scheduled',
  live: 'open',
  ended: 'closed',
  failed: 'failed',
  cancelled: 'canceled',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const at = (ms: number | null) => (ms === null ? null : fmt.isoSeconds(ms));

function invalid(param: string, description: string): DialectError {
  return new DialectError(400, 'InvalidValue', description, param);
}

function list<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const q = req.query;
  if (q.has('page[size]')) {
    const size = Number(q.get('page[size]'));
    if (!Number.isInteger(size) || size < 1 || size > 100) {
      throw new DialectError(
        400,
        'InvalidPaginationParameter',
        'page[size] must be from 1 to 100',
        'page[size]',
      );
    }
    const tag = `${req.pathname}|${q.get('query') ?? ''}`;
    const offset = untoken('page[after]', q.get('page[after]'), tag);
    const more = offset + size < items.length;
    const after = more ? token(offset + size, tag) : null;
    return {
      status: 200,
      headers: {},
      body: {
        [key]: items.slice(offset, offset + size).map(show),
        meta: {
          has_more: more,
          after_cursor: after,
          before_cursor: offset > 0 ? token(Math.max(0, offset - size), tag) : null,
        },
        links: {
          next: after === null ? null : withParams(req, req.rawPathname, { 'page[after]': after }),
          prev: null,
        },
      },
    };
  }
  const perPage = intParam(q, 'per_page', 100, 100);
  const page = intParam(q, 'page', 1, 1_000_000);
  const more = page * perPage < items.length;
  const url = (n: number) => withParams(req, req.rawPathname, { page: String(n), per_page: String(perPage) });
  return {
    status: 200,
    headers: {},
    body: {
      [key]: items.slice((page - 1) * perPage, page * perPage).map(show),
      next_page: more ? url(page + 1) : null,
      previous_page: page > 1 ? url(page - 1) : null,
      count: items.length,
    },
  };
}

/** `status:open status:scheduled ended>2030-01-06T00:00:00Z started<…` (terms joined by spaces). */
function search(raw: string | null): SessionFilter {
  if (raw === null || raw.trim() === '') return {};
  const f: SessionFilter = {};
  const statuses: string[] = [];
  for (const term of raw.trim().split(/\s+/)) {
    const m = /^(\w+)([:<>])(.+)$/.exec(term);
    if (m === null) throw invalid('query', `"${term}" is not a search term`);
    const [, key, op, value] = m;
    if (key === 'status' && op === ':') statuses.push(value!);
    else if ((key === 'ended' && op === '>') || (key === 'started' && op === '<')) {
      const ms = Date.parse(value!);
      if (!Number.isFinite(ms)) throw invalid('query', `"${value}" is not a date`);
      if (op === '>') f.from = ms;
      else f.to = ms;
    } else throw invalid('query', `"${key}${op}" is not a supported search keyword`);
  }
  if (statuses.length > 0) f.statuses = statusesFrom('query', statuses.join(','), SESSION);
  return f;
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const base = `${req.origin}/v1/${org.slug}`;
  const one = (key: string, body: unknown): Rendered => ({ status: 200, headers: {}, body: { [key]: body } });
  const member = (m: SimMember) => ({
    id: idNumber(m.id),
    url: `${base}/team/${idNumber(m.id)}.json`,
    name: m.name,
    email: m.email,
    role: m.role === 'owner' || m.role === 'admin' ? 'admin' : m.role === 'viewer' ? 'end-user' : 'agent',
    custom_role: m.role,
    active: true,
    created_at: at(real(world, m.joinedAt)),
  });
  const channel = (c: SimChannel) => ({
    id: idNumber(c.id),
    url: `${base}/channels/${idNumber(c.id)}.json`,
    name: c.name,
    status: CHANNEL[c.status],
    visibility: c.visibility,
    created_at: at(real(world, c.createdAt)),
  });
  const session = (s: SimSession) => {
    const t = times(world, s);
    return {
      id: idNumber(s.id),
      url: `${base}/sessions/${idNumber(s.id)}.json`,
      channel_id: idNumber(s.channel.id),
      subject: s.title,
      status: SESSION[s.status],
      due_at: at(t.scheduled),
      started_at: at(t.started),
      ended_at: at(t.ended),
    };
  };
  switch (req.kind) {
    case 'org':
      return one('organization', {
        id: 1,
        url: `${base}.json`,
        name: org.name,
        subdomain: org.slug,
        plan: org.plan,
        organization_fields: { ...org.settings },
        created_at: at(real(world, org.createdAt)),
      });
    case 'team':
      return list(req, 'users', org.members, member);
    case 'subscription': {
      const f = org.funding;
      return one('subscription', {
        plan_type: org.plan,
        state: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? { type: 'wallet', balance: f.balance, currency: f.currency }
            : { type: 'byok', provider: f.provider, key_status: f.keyStatus },
      });
    }
    case 'channels':
      return list(req, 'channels', org.channels, channel);
    case 'sessions': {
      const picked = filterSessions(world, req.channel!.sessions, search(req.query.get('query')));
      return list(req, 'sessions', picked, session);
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one('session', {
        ...session(s),
        reactions: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
        ai: { status: s.aiStatus, enabled: s.aiEnabled },
      });
    }
    case 'sub': {
      const name = req.sub as (typeof SUBS)[number];
      return list(req, name, subList(world, req.session!, name), ({ id, at: when, ...rest }) => ({
        id,
        ...rest,
        created_at: when === undefined ? null : at(when),
      }));
    }
    case 'more':
      return notServed();
  }
}

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  if (status === 404)
    return { status, headers: {}, body: { error: 'RecordNotFound', description: 'Not found' } };
  if (status === 401) return { status, headers: {}, body: { error: "Couldn't authenticate you" } };
  return {
    status,
    headers: {},
    body: { error: /^[A-Z]/.test(code) ? code : 'InvalidValue', description: message },
  };
}

function rateHeaders(r: RateState): Record<string, string> {
  return {
    'x-rate-limit': String(r.limit),
    'x-rate-limit-remaining': String(r.remaining),
    'ratelimit-limit': String(r.limit),
    'ratelimit-remaining': String(r.remaining),
    'ratelimit-reset': String(r.resetSeconds),
  };
}

const byNumber = (prefix: string, pad: number) => (_org: unknown, seg: string) =>
  /^\d{1,12}$/.test(seg) ? `${prefix}_${seg.padStart(pad, '0')}` : seg;

/** Zendesk, as https://developer.zendesk.com/api-reference documents it. */
export const zendesk: FaithfulDialect = {
  name: 'zendesk',
  description: 'Zendesk: offset next_page URLs by default, cursor meta.has_more/links.next with page[size]',
  docs: [
    'https://developer.zendesk.com/api-reference/introduction/pagination/',
    'https://developer.zendesk.com/api-reference/introduction/rate-limits/',
    'https://developer.zendesk.com/api-reference/ticketing/ticket-management/search/',
    'https://developer.zendesk.com/api-reference/introduction/requests/',
  ],
  facets: {
    envelope: 'lists under the plural (`{users: [...]}`), objects under the singular',
    paging:
      'offset `next_page` URL (`page`, `per_page` ≤ 100, `count`); with `page[size]`: `meta.has_more` + `links.next`',
    filters: '`query=status:open ended>2030-01-06T00:00:00Z started<…`',
    errors: '`{error: "RecordNotFound", description}`',
    rateLimits: '`X-Rate-Limit-*` and IETF `ratelimit-*` on answers; 429 with Retry-After',
    money: '`ai_funding: {type, balance: 12.34, currency}` (major)',
    times: 'ISO 8601 `…Z` (`due_at`, `started_at`, `ended_at`)',
    casing: 'snake_case',
    ids: 'integers, with `url`',
    subResources: 'own paths only (`…/sessions/{id}/questions`), as ticket comments',
  },
  channelId: byNumber('ch', 6),
  sessionId: byNumber('ses', 8),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { 'retry-after': String(r.resetSeconds), ...rateHeaders({ ...r, remaining: 0 }) },
    body: {
      error: 'APIRateLimitExceeded',
      description: 'Number of allowed API requests per minute exceeded',
    },
  }),
  rateHeaders,
};
