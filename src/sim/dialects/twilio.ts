/**
 * Twilio REST (the 2010 API's conventions). Follows:
 * - https://www.twilio.com/docs/usage/twilios-response — JSON with `.json` paths; a list
 *   page `{first_page_uri, next_page_uri, previous_page_uri, uri, page, page_size, start,
 *   end, <resource>: [...]}`, `next_page_uri` relative and null on the last page;
 *   `PageSize` (≤ 1000), `Page`, `PageToken`; dates in RFC 2822; errors `{code, message,
 *   more_info, status}`.
 * - https://www.twilio.com/docs/voice/api/call-resource — PascalCase query parameters,
 *   `Status=in-progress`, `StartTime<` / `EndTime>` date bounds (YYYY-MM-DD), statuses
 *   queued, in-progress, completed, failed, canceled; `subresource_uris`.
 * - https://www.twilio.com/docs/conversations/api/conversation-resource — `state` active,
 *   inactive, closed; SIDs with a two-letter prefix and 32 hex digits.
 * - https://www.twilio.com/docs/usage/api/usage-record — money as decimal strings beside
 *   a currency (`price`, `price_unit`).
 * - https://www.twilio.com/docs/api/errors/20429 — 429 Too Many Requests, no Retry-After.
 * - https://www.twilio.com/docs/iam/api/account — an account: `sid`, `friendly_name`,
 *   `type` (its edition: Trial, Full), `status`, `date_created`.
 * A call has no planned time: `date_created` is when it was created (queued), `start_time`
 * is empty until it is placed and `end_time` until it completes. A session is written as a
 * call created at its planned time (a session planned ahead is listed all the same, where
 * Twilio lists a call only once created), so a call placed says when it began, never when
 * it was planned for.
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
  offsetParam,
  real,
  statusesFrom,
  subItems,
  subList,
  times,
  token,
  untoken,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'active', idle: 'inactive', offline: 'closed' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'queued',
  live: 'in-progress',
  ended: 'completed',
  failed: 'failed',
  cancelled: 'canceled',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const sid = (prefix: string, id: string) => `${prefix}${hexId(id, 'twilio', 32)}`;
const date = (ms: number | null) => (ms === null ? null : fmt.rfc2822(ms));

function invalid(param: string, message: string): DialectError {
  return new DialectError(400, '20001', message, param);
}

function page<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const size = intParam(req.query, 'PageSize', 50, 1000);
  const n = offsetParam(req.query, 'Page');
  const tag = `${req.pathname}|${req.query.get('Status') ?? ''}`;
  if (n > 0) {
    const at = untoken('PageToken', req.query.get('PageToken'), tag);
    if (at !== n * size) throw invalid('PageToken', 'Invalid PageToken');
  }
  const start = n * size;
  const rows = items.slice(start, start + size);
  const path = `${req.pathname}.json`;
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of req.query) if (!['Page', 'PageSize', 'PageToken'].includes(k)) p.set(k, v);
    p.set('PageSize', String(size));
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    return `${path}?${p.toString()}`;
  };
  const more = start + size < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      first_page_uri: q({ Page: '0' }),
      end: start + Math.max(0, rows.length - 1),
      previous_page_uri: n > 0 ? q({ Page: String(n - 1), PageToken: token((n - 1) * size, tag) }) : null,
      [key]: rows.map(show),
      uri: q({ Page: String(n) }),
      page_size: size,
      start,
      next_page_uri: more ? q({ Page: String(n + 1), PageToken: token(start + size, tag) }) : null,
      page: n,
    },
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    sid: sid('MB', m.id),
    account_sid: sid('AC', req.org.slug),
    identity: m.email,
    friendly_name: m.name,
    role_sid: sid('RL', m.role),
    role: m.role,
    date_created: date(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  const uri = `/v1/${req.org.slug}/channels/${sid('CH', c.id)}`;
  return {
    sid: sid('CH', c.id),
    account_sid: sid('AC', req.org.slug),
    friendly_name: c.name,
    state: CHANNEL[c.status],
    visibility: c.visibility,
    date_created: date(real(req.world, c.createdAt)),
    uri: `${uri}.json`,
    subresource_uris: { sessions: `${uri}/sessions.json` },
  };
}

function session(req: DialectRequest, s: SimSession, withSubs = false) {
  const t = times(req.world, s);
  const uri = `/v1/${req.org.slug}/sessions/${sid('CA', s.id)}`;
  return {
    sid: sid('CA', s.id),
    account_sid: sid('AC', req.org.slug),
    channel_sid: sid('CH', s.channel.id),
    friendly_name: s.title,
    status: SESSION[s.status],
    date_created: date(t.scheduled),
    start_time: date(t.started),
    end_time: date(t.ended),
    uri: `${uri}.json`,
    ...(withSubs ? { subresource_uris: Object.fromEntries(SUBS.map((n) => [n, `${uri}/${n}.json`])) } : {}),
  };
}

/** `StartTime<=2030-01-08`, `EndTime>=2030-01-06` … (dates, as Twilio's Calls list takes them). */
function bound(req: DialectRequest, names: readonly string[], endOfDay: boolean): number | null {
  for (const n of names) {
    const raw = req.query.get(n);
    if (raw === null || raw === '') continue;
    if (!/^\d{4}-\d\d-\d\d$/.test(raw)) throw invalid(n, `${n} must be a date in the form YYYY-MM-DD`);
    return Date.parse(`${raw}T00:00:00Z`) + (endOfDay ? 86_399_999 : 0);
  }
  return null;
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  switch (req.kind) {
    case 'org':
      return one({
        sid: sid('AC', org.slug),
        friendly_name: org.name,
        type: org.plan,
        settings: { ...org.settings },
        date_created: date(real(world, org.createdAt)),
        uri: `/v1/${org.slug}`,
      });
    case 'team':
      return page(req, 'members', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        account_sid: sid('AC', org.slug),
        plan: org.plan,
        status: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? { type: 'wallet', balance: decimal(f.balance, f.currency), currency: f.currency }
            : { type: 'byok', provider: f.provider, key_status: f.keyStatus },
        uri: `/v1/${org.slug}/subscription.json`,
      });
    }
    case 'channels':
      return page(req, 'channels', org.channels, (c) => channel(req, c));
    case 'sessions': {
      const status = req.query.get('Status');
      let statuses: Set<SessionStatus> | null = null;
      if (status !== null && status !== '') {
        try {
          statuses = statusesFrom('Status', status, SESSION);
        } catch {
          throw invalid('Status', `Status must be one of ${Object.values(SESSION).join(', ')}`);
        }
      }
      const picked = filterSessions(world, req.channel!.sessions, {
        statuses,
        from: bound(req, ['EndTime>', 'EndTime>='], false),
        to: bound(req, ['StartTime<', 'StartTime<='], true),
      });
      return page(req, 'sessions', picked, (s) => session(req, s));
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one({
        ...session(req, s, true),
        reactions: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
        ai: { status: s.aiStatus, enabled: s.aiEnabled },
      });
    }
    case 'more':
      return notServed();
    case 'sub': {
      const name = req.sub as (typeof SUBS)[number];
      return page(req, name, subList(world, req.session!, name), ({ id, at, ...rest }) => ({
        sid: sid('IM', `${req.session!.id}/${id}`),
        ...rest,
        date_created: at === undefined ? null : date(at),
      }));
    }
  }
}

const CODES: Readonly<Record<number, number>> = {
  401: 20003,
  403: 20403,
  404: 20404,
  405: 20004,
  429: 20429,
};

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  const n = CODES[status] ?? (/^\d+$/.test(code) ? Number(code) : 20001);
  return {
    status,
    headers: {},
    body: { code: n, message, more_info: `https://www.twilio.com/docs/errors/${n}`, status },
  };
}

/** Twilio REST, as https://www.twilio.com/docs/usage/twilios-response documents it. */
export const twilio: FaithfulDialect = {
  name: 'twilio',
  description:
    'Twilio REST: next_page_uri (.json, PageToken), PageSize, RFC 2822 dates, SIDs, PascalCase params',
  docs: [
    'https://www.twilio.com/docs/usage/twilios-response',
    'https://www.twilio.com/docs/voice/api/call-resource',
    'https://www.twilio.com/docs/conversations/api/conversation-resource',
    'https://www.twilio.com/docs/usage/api/usage-record',
    'https://www.twilio.com/docs/api/errors/20429',
    'https://www.twilio.com/docs/iam/api/account',
  ],
  facets: {
    envelope: '`{<resource>: [...], page, page_size, uri, first_page_uri, next_page_uri, …}`',
    paging: '`next_page_uri` (relative, `.json`, `Page` + `PageToken`); `PageSize` ≤ 1000',
    filters: '`Status=in-progress`, `EndTime>=YYYY-MM-DD`, `StartTime<=YYYY-MM-DD`',
    errors: '`{code: 20404, message, more_info, status}`',
    rateLimits: '429 code 20429, no Retry-After',
    money: '`ai_funding: {type, balance: "12.34", currency}` (decimal string)',
    times:
      'RFC 2822 (`Mon, 07 Jan 2030 09:00:00 +0000`): `date_created` (queued at the planned time), `start_time` (empty until placed), `end_time`; no planned time',
    casing: 'snake_case bodies, PascalCase query parameters',
    ids: 'SIDs (`CH` / `CA` / `MB` + 32 hex)',
    subResources: '`subresource_uris` (relative `.json` paths)',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => sid('CH', c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => sid('CA', s.id)),
  subPaths: SUBS,
  render,
  error,
  tooMany: () => ({
    status: 429,
    headers: {},
    body: {
      code: 20429,
      message: 'Too Many Requests',
      more_info: 'https://www.twilio.com/docs/errors/20429',
      status: 429,
    },
  }),
  rateHeaders: () => ({}),
};
