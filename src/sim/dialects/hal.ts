/**
 * HAL as Spring Data REST serves it. Follows:
 * - https://docs.spring.io/spring-data/rest/reference/paging-and-sorting.html — 0-based
 *   `page`, `size` (default 20, larger sizes cut to the maximum without a word),
 *   `_links.next/prev/first/last`, a `page` object `{size, totalElements, totalPages,
 *   number}`.
 * - https://datatracker.ietf.org/doc/html/draft-kelly-json-hal — `_embedded` holds the list
 *   under the relation's name, `_links.*.href` the links; `application/hal+json`.
 * - https://docs.spring.io/spring-data/rest/reference/repository-resources.html — an item
 *   carries no id (only `_links.self.href`); associations are links, not embedded.
 * - https://docs.spring.io/spring-boot/reference/web/servlet.html#web.servlet.spring-mvc.error-handling
 *   — errors `{timestamp, status, error, message, path}`.
 * Java enum names (`ON_AIR`, `IN_PROGRESS`), Instant times, money as
 * `{amount, currency}` (jackson-datatype-money); plain query parameters bind to fields and
 * unknown ones are ignored; bucket4j-style `X-Rate-Limit-*` headers.
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
  offsetParam,
  real,
  subItems,
  subList,
  type SubItem,
  times,
  wordBack,
  withParams,
  notServed,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState, SubName } from './types.js';

const TYPE = 'application/hal+json';
const CHANNEL = { live: 'ON_AIR', idle: 'STANDBY', offline: 'OFF_AIR' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'SCHEDULED',
  live: 'IN_PROGRESS',
  ended: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const instant = (ms: number | null) => (ms === null ? null : fmt.isoSeconds(ms));
const href = (u: string) => ({ href: u });

function paged<T>(req: DialectRequest, rel: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const rawSize = req.query.get('size');
  const size =
    rawSize === null || !/^\d{1,9}$/.test(rawSize) || Number(rawSize) < 1
      ? 20
      : Math.min(Number(rawSize), 2000);
  const number = offsetParam(req.query, 'page');
  const totalPages = Math.ceil(items.length / size);
  const at = (n: number) => href(withParams(req, req.pathname, { page: String(n), size: String(size) }));
  const links: Record<string, unknown> = {};
  if (totalPages > 0) links['first'] = at(0);
  if (number > 0) links['prev'] = at(number - 1);
  links['self'] = href(`${req.origin}${req.pathname}`);
  if (number + 1 < totalPages) links['next'] = at(number + 1);
  if (totalPages > 0) links['last'] = at(totalPages - 1);
  links['profile'] = href(`${req.origin}/v1/profile/${rel}`);
  return {
    status: 200,
    headers: { 'content-type': TYPE },
    body: {
      _embedded: { [rel]: items.slice(number * size, (number + 1) * size).map(show) },
      _links: links,
      page: { size, totalElements: items.length, totalPages, number },
    },
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    fullName: m.name,
    email: m.email,
    role: m.role.toUpperCase(),
    joinedAt: instant(real(req.world, m.joinedAt)),
    _links: { self: href(`${req.origin}/v1/${req.org.slug}/team/${idNumber(m.id)}`) },
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  const self = `${req.origin}/v1/${req.org.slug}/channels/${idNumber(c.id)}`;
  return {
    title: c.name,
    status: CHANNEL[c.status],
    visibility: c.visibility.toUpperCase(),
    createdAt: instant(real(req.world, c.createdAt)),
    _links: { self: href(self), channel: href(self), sessions: href(`${self}/sessions`) },
  };
}

function session(req: DialectRequest, s: SimSession, withSubs = false) {
  const t = times(req.world, s);
  const self = `${req.origin}/v1/${req.org.slug}/sessions/${idNumber(s.id)}`;
  const links: Record<string, unknown> = {
    self: href(self),
    session: href(self),
    channel: href(`${req.origin}/v1/${req.org.slug}/channels/${idNumber(s.channel.id)}`),
  };
  if (withSubs) for (const n of SUBS) links[n] = href(`${self}/${n}`);
  return {
    title: s.title,
    status: SESSION[s.status],
    plannedStart: instant(t.scheduled),
    actualStart: instant(t.started),
    actualEnd: instant(t.ended),
    _links: links,
  };
}

function subItem(x: SubItem) {
  const { id: _id, at, ...rest } = x;
  return { ...rest, createdAt: at === undefined ? null : instant(at) };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: { 'content-type': TYPE }, body });
  switch (req.kind) {
    case 'org':
      return one({
        displayName: org.name,
        plan: org.plan.toUpperCase(),
        settings: {
          defaultVisibility: org.settings.default_visibility.toUpperCase(),
          aiEnabled: org.settings.ai_enabled,
          language: org.settings.language,
          timezone: org.settings.timezone,
        },
        createdAt: instant(real(world, org.createdAt)),
        _links: {
          self: href(`${req.origin}/v1/${org.slug}`),
          team: href(`${req.origin}/v1/${org.slug}/team`),
          channels: href(`${req.origin}/v1/${org.slug}/channels`),
          subscription: href(`${req.origin}/v1/${org.slug}/subscription`),
        },
      });
    case 'team':
      return paged(req, 'members', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      return one({
        plan: org.plan.toUpperCase(),
        status: org.subscriptionStatus.toUpperCase(),
        limits: {
          channels: lim.channels,
          members: lim.members,
          aiMinutes: lim.ai_minutes,
          concurrentLive: lim.concurrent_live,
        },
        usage: {
          channels: org.channels.length,
          members: org.members.length,
          aiMinutes: Math.floor(org.aiMinutesUsed),
          concurrentLive: org.liveSessions,
        },
        aiFunding:
          f.mode === 'wallet'
            ? { mode: 'WALLET', wallet: { amount: f.balance, currency: f.currency } }
            : { mode: 'BYOK', byok: { provider: f.provider, keyStatus: f.keyStatus.toUpperCase() } },
        _links: { self: href(`${req.origin}/v1/${org.slug}/subscription`) },
      });
    }
    case 'channels':
      return paged(req, 'channels', org.channels, (c) => channel(req, c));
    case 'sessions': {
      const raw = req.query.get('status');
      let statuses: Set<SessionStatus> | null = null;
      if (raw !== null && raw !== '') {
        const s = wordBack(SESSION, raw);
        if (s === undefined || SESSION[s] !== raw) {
          throw new DialectError(
            400,
            'Bad Request',
            `Failed to convert value of type 'java.lang.String' to required type 'SessionStatus'; No enum constant SessionStatus.${raw}`,
            'status',
          );
        }
        statuses = new Set([s]);
      }
      const picked = filterSessions(world, req.channel!.sessions, { statuses });
      return paged(req, 'sessions', picked, (s) => session(req, s));
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one({
        ...session(req, s, true),
        reactions: {
          total: items.reactionsTotal,
          byKind: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
        },
        ai: { status: s.aiStatus.toUpperCase(), enabled: s.aiEnabled },
      });
    }
    case 'more':
      return notServed();
    case 'sub':
      return paged(req, req.sub!, subList(world, req.session!, req.sub!), subItem);
  }
}

const REASON: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
};

function springError(status: number, message: string, path = ''): ErrorAnswer {
  return {
    status,
    headers: {},
    body: { timestamp: new Date().toISOString(), status, error: REASON[status] ?? 'Error', message, path },
  };
}

function rateHeaders(r: RateState): Record<string, string> {
  return { 'x-rate-limit-remaining': String(r.remaining) };
}

const byNumber = (prefix: string, pad: number) => (_org: unknown, seg: string) =>
  /^\d{1,12}$/.test(seg) ? `${prefix}_${seg.padStart(pad, '0')}` : seg;

/** HAL / Spring Data REST, as https://docs.spring.io/spring-data/rest/reference documents it. */
export const hal: FaithfulDialect = {
  name: 'hal',
  description: 'HAL / Spring Data REST: _embedded, _links.next, 0-based page object, no ids in items',
  docs: [
    'https://docs.spring.io/spring-data/rest/reference/paging-and-sorting.html',
    'https://datatracker.ietf.org/doc/html/draft-kelly-json-hal',
    'https://docs.spring.io/spring-data/rest/reference/repository-resources.html',
    'https://docs.spring.io/spring-boot/reference/web/servlet.html#web.servlet.spring-mvc.error-handling',
  ],
  facets: {
    envelope: '`{_embedded: {channels: [...]}, _links, page}`',
    paging: '`_links.next.href`; 0-based `page`, `size` (cut to 2000 silently)',
    filters: '`status=IN_PROGRESS` bound to the field; other parameters ignored',
    errors: 'Spring Boot `{timestamp, status, error, message, path}`',
    rateLimits: '`X-Rate-Limit-Remaining`; 429 with `X-Rate-Limit-Retry-After-Seconds`',
    money: '`aiFunding.wallet: {amount: 12.34, currency: "EUR"}`',
    times: 'Instant `…Z` (`plannedStart`, `actualStart`, `actualEnd`)',
    casing: 'camelCase; enum names UPPER_SNAKE (`ON_AIR`, `IN_PROGRESS`)',
    ids: 'none in the body: only `_links.self.href` (…/channels/6)',
    subResources: 'associations as `_links.questions.href` …, on their own paths',
  },
  channelId: byNumber('ch', 6),
  sessionId: byNumber('ses', 8),
  subPaths: SUBS,
  render,
  error: (status, _code, message) => springError(status, message),
  tooMany: (r) => ({
    ...springError(429, 'Too many requests'),
    headers: { 'x-rate-limit-remaining': '0', 'x-rate-limit-retry-after-seconds': String(r.resetSeconds) },
  }),
  rateHeaders,
};
