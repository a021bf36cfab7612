/**
 * Square API. Follows:
 * - https://developer.squareup.com/docs/build-basics/common-api-patterns/pagination — the
 *   list under the resource's plural, a `cursor` in the body while there is more (absent
 *   on the last page), `limit` and `cursor` in the request.
 * - https://developer.squareup.com/docs/build-basics/working-with-monetary-amounts — Money
 *   objects `{amount, currency}`, `amount` an integer in the currency's smallest unit.
 * - https://developer.squareup.com/docs/build-basics/handling-errors — errors as
 *   `{errors: [{category, code, detail, field}]}` (`INVALID_REQUEST_ERROR` /
 *   `INVALID_ENUM_VALUE`, `NOT_FOUND`, 429 `RATE_LIMIT_ERROR` / `RATE_LIMITED`).
 * - https://developer.squareup.com/reference/square/payments-api/list-payments —
 *   `begin_time` / `end_time` (RFC 3339) bound a list; statuses UPPER_SNAKE_CASE.
 * - https://developer.squareup.com/reference/square/team-api — `team_members` with
 *   `given_name`, `family_name`, `email_address`, `status`.
 * Ids as opaque upper-case strings; sub-records embedded in the detail, as order line
 * items are.
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
  findId,
  fmt,
  hexId,
  intParam,
  minor,
  notServed,
  real,
  statusesFrom,
  subItems,
  subList,
  times,
  token,
  untoken,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect } from './types.js';

const CHANNEL = { live: 'ON_AIR', idle: 'STANDBY', offline: 'INACTIVE' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'PENDING',
  live: 'IN_PROGRESS',
  ended: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELED',
};
const sqId = (id: string) =>
  Buffer.from(hexId(id, 'square', 16), 'hex')
    .toString('base64')
    .replace(/[^A-Z0-9]/gi, '')
    .toUpperCase()
    .slice(0, 13);
const rfc = (ms: number | null) => (ms === null ? undefined : fmt.iso(ms));

function err(field: string, code: string, detail: string): DialectError {
  return new DialectError(400, code, detail, field);
}

function list<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const limit = intParam(req.query, 'limit', 100, 200);
  const tag = `${req.pathname}|${req.query.get('status') ?? ''}`;
  let offset: number;
  try {
    offset = untoken('cursor', req.query.get('cursor'), tag);
  } catch {
    throw err('cursor', 'INVALID_CURSOR', 'The pagination cursor is not valid.');
  }
  const more = offset + limit < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      [key]: items.slice(offset, offset + limit).map(show),
      ...(more ? { cursor: token(offset + limit, tag) } : {}),
    },
  };
}

function time(name: string, raw: string | null): number | null {
  if (raw === null || raw === '') return null;
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw err(name, 'INVALID_TIME', `Invalid RFC 3339 timestamp for \`${name}\`.`);
  return ms;
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (key: string, body: unknown): Rendered => ({ status: 200, headers: {}, body: { [key]: body } });
  const member = (m: SimMember) => {
    const [given, ...family] = m.name.split(' ');
    return {
      id: sqId(m.id),
      is_owner: m.role === 'owner',
      status: 'ACTIVE',
      given_name: given,
      family_name: family.join(' '),
      email_address: m.email,
      assigned_role: m.role.toUpperCase(),
      created_at: rfc(real(world, m.joinedAt)),
    };
  };
  const channel = (c: SimChannel) => ({
    id: sqId(c.id),
    name: c.name,
    status: CHANNEL[c.status],
    visibility: c.visibility.toUpperCase(),
    created_at: rfc(real(world, c.createdAt)),
  });
  const session = (s: SimSession) => {
    const t = times(world, s);
    return {
      id: sqId(s.id),
      channel_id: sqId(s.channel.id),
      title: s.title,
      status: SESSION[s.status],
      start_at: rfc(t.scheduled),
      started_at: rfc(t.started),
      ended_at: rfc(t.ended),
    };
  };
  switch (req.kind) {
    case 'org':
      return one('organization', {
        id: sqId(org.slug),
        business_name: org.name,
        plan: org.plan.toUpperCase(),
        language_code: org.settings.language,
        timezone: org.settings.timezone,
        default_visibility: org.settings.default_visibility.toUpperCase(),
        ai_enabled: org.settings.ai_enabled,
        created_at: rfc(real(world, org.createdAt)),
      });
    case 'team':
      return list(req, 'team_members', org.members, member);
    case 'subscription': {
      const f = org.funding;
      return one('subscription', {
        id: sqId(`sub/${org.slug}`),
        plan: org.plan.toUpperCase(),
        status: org.subscriptionStatus.toUpperCase(),
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? {
                type: 'WALLET',
                balance_money: { amount: minor(f.balance, f.currency), currency: f.currency },
              }
            : { type: 'BYOK', provider: f.provider.toUpperCase(), key_status: f.keyStatus.toUpperCase() },
      });
    }
    case 'channels':
      return list(req, 'channels', org.channels, channel);
    case 'sessions': {
      const status = req.query.get('status');
      let statuses: Set<SessionStatus> | null = null;
      if (status !== null && status !== '') {
        try {
          statuses = statusesFrom('status', status, SESSION);
        } catch {
          throw err(
            'status',
            'INVALID_ENUM_VALUE',
            `Expected \`status\` to be one of ${Object.values(SESSION).join(', ')}.`,
          );
        }
      }
      const picked = filterSessions(world, req.channel!.sessions, {
        statuses,
        from: time('begin_time', req.query.get('begin_time')),
        to: time('end_time', req.query.get('end_time')),
      });
      return list(req, 'sessions', picked, session);
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      const rows = (n: 'questions' | 'announcements' | 'speakers') =>
        subList(world, s, n).map(({ id, at, ...rest }) => ({
          uid: id,
          ...rest,
          created_at: at === undefined ? undefined : rfc(at),
        }));
      return one('session', {
        ...session(s),
        questions: rows('questions'),
        announcements: rows('announcements'),
        speakers: rows('speakers'),
        reactions: items.reactions.map((r) => ({ kind: r.kind.toUpperCase(), quantity: String(r.count) })),
        ai: { status: s.aiStatus.toUpperCase(), enabled: s.aiEnabled },
      });
    }
    case 'sub':
    case 'more':
      return notServed();
  }
}

function error(status: number, code: string, message: string, param?: string): ErrorAnswer {
  const [category, sq] =
    status === 401
      ? ['AUTHENTICATION_ERROR', 'UNAUTHORIZED']
      : status === 403
        ? ['AUTHENTICATION_ERROR', 'FORBIDDEN']
        : status === 404
          ? ['INVALID_REQUEST_ERROR', 'NOT_FOUND']
          : ['INVALID_REQUEST_ERROR', /^[A-Z_]+$/.test(code) ? code : 'BAD_REQUEST'];
  return {
    status,
    headers: {},
    body: {
      errors: [{ category, code: sq, detail: message, ...(param === undefined ? {} : { field: param }) }],
    },
  };
}

/** Square, as https://developer.squareup.com/docs documents it. */
export const square: FaithfulDialect = {
  name: 'square',
  description:
    'Square: plural list keys + cursor, Money {amount, currency} in minor units, errors[] with category',
  docs: [
    'https://developer.squareup.com/docs/build-basics/common-api-patterns/pagination',
    'https://developer.squareup.com/docs/build-basics/working-with-monetary-amounts',
    'https://developer.squareup.com/docs/build-basics/handling-errors',
    'https://developer.squareup.com/reference/square/payments-api/list-payments',
    'https://developer.squareup.com/reference/square/team-api',
  ],
  facets: {
    envelope: 'lists under the plural (`{team_members: [...]}`), objects under the singular',
    paging: '`cursor` in the body (absent at the end) → `cursor=`; `limit` ≤ 200',
    filters: '`status=IN_PROGRESS`, `begin_time=` / `end_time=` (RFC 3339)',
    errors: '`{errors: [{category, code: "INVALID_ENUM_VALUE", detail, field}]}`',
    rateLimits: '429 `RATE_LIMIT_ERROR` / `RATE_LIMITED`, no Retry-After',
    money: '`balance_money: {amount: 1234, currency: "EUR"}` (minor units)',
    times: 'RFC 3339 with milliseconds (`start_at`, `started_at`, `ended_at`)',
    casing: 'snake_case; enums UPPER_SNAKE (`IN_PROGRESS`, `ON_AIR`)',
    ids: 'opaque upper-case strings (`L88917AVBK2S5`)',
    subResources: 'embedded arrays in the detail (`questions`, `speakers` …)',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => sqId(c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => sqId(s.id)),
  subPaths: [],
  render,
  error,
  tooMany: () => ({
    status: 429,
    headers: {},
    body: { errors: [{ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED', detail: 'Too many requests.' }] },
  }),
  rateHeaders: () => ({}),
};
