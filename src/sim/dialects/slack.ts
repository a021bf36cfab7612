/**
 * Slack Web API. Follows:
 * - https://api.slack.com/apis/pagination — `limit` and `cursor` in, the list under the
 *   method's key beside `response_metadata.next_cursor` out (an empty string at the end).
 * - https://api.slack.com/web#responses — every answer is HTTP 200 with `ok`; a failure is
 *   `{ok: false, error: "invalid_cursor"}` (also for bad auth and unknown objects), with
 *   `response_metadata.messages` naming what was wrong.
 * - https://api.slack.com/apis/rate-limits — HTTP 429 with Retry-After (seconds) and
 *   `{ok: false, error: "ratelimited"}`.
 * - https://api.slack.com/methods/conversations.history — `oldest` / `latest` bound a time
 *   range in epoch seconds; https://api.slack.com/methods/conversations.list — `types` a
 *   comma list, `is_*` booleans for a channel's state, `created` in epoch seconds.
 * - https://api.slack.com/methods/calls.info — `date_start` / `date_end` in epoch seconds;
 *   message-style `ts` strings ("1893574800.000000") beside them.
 * Ids in Slack's style (`C…`, `U…`, `R…`); sub-resources by their own method (path),
 * counts in the detail.
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
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const SESSION: Record<SessionStatus, string> = {
  scheduled: 'scheduled',
  live: 'active',
  ended: 'ended',
  failed: 'failed',
  cancelled: 'canceled',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const slackId = (letter: string, id: string) => `${letter}0${hexId(id, 'slack', 9).toUpperCase()}`;
const sec = (ms: number | null) => (ms === null ? null : fmt.epochS(ms));
const ts = (ms: number | null) =>
  ms === null ? null : `${fmt.epochS(ms)}.${String(ms % 1000).padStart(3, '0')}000`;

function failure(error: string, message?: string, param?: string): DialectError {
  return new DialectError(400, error, message ?? error, param);
}

function page<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const limit = intParam(req.query, 'limit', 100, 1000);
  let offset: number;
  try {
    offset = untoken('cursor', req.query.get('cursor'), req.pathname);
  } catch {
    throw failure('invalid_cursor', 'the cursor is not valid', 'cursor');
  }
  const more = offset + limit < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      ok: true,
      [key]: items.slice(offset, offset + limit).map(show),
      response_metadata: { next_cursor: more ? token(offset + limit, req.pathname) : '' },
    },
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    id: slackId('U', m.id),
    name: m.email.split('@')[0],
    real_name: m.name,
    profile: { email: m.email, real_name: m.name, display_name: m.name.split(' ')[0] },
    is_owner: m.role === 'owner',
    is_admin: m.role === 'owner' || m.role === 'admin',
    is_restricted: m.role === 'viewer',
    updated: sec(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    id: slackId('C', c.id),
    name: c.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    is_channel: true,
    is_private: c.visibility === 'private',
    is_shared: false,
    is_archived: c.status === 'offline',
    is_live: c.status === 'live',
    is_unlisted: c.visibility === 'unlisted',
    created: sec(real(req.world, c.createdAt)),
    purpose: { value: c.name },
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  return {
    id: slackId('R', s.id),
    channel: slackId('C', s.channel.id),
    title: s.title,
    status: SESSION[s.status],
    scheduled_ts: ts(t.scheduled),
    date_start: sec(t.started),
    date_end: sec(t.ended),
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (key: string, body: unknown): Rendered => ({
    status: 200,
    headers: {},
    body: { ok: true, [key]: body },
  });
  switch (req.kind) {
    case 'org':
      return one('organization', {
        id: slackId('T', org.slug),
        name: org.name,
        domain: org.slug,
        plan: org.plan,
        prefs: { ...org.settings },
        date_create: sec(real(world, org.createdAt)),
      });
    case 'team':
      return page(req, 'members', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one('subscription', {
        plan: org.plan,
        status: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_credits:
          f.mode === 'wallet'
            ? { type: 'wallet', balance: f.balance, currency: f.currency }
            : { type: 'byok', provider: f.provider, key_status: f.keyStatus },
      });
    }
    case 'channels':
      return page(req, 'channels', org.channels, (c) => channel(req, c));
    case 'sessions': {
      const q = req.query;
      const types = q.get('types');
      const oldest = q.get('oldest');
      const latest = q.get('latest');
      const time = (k: string, v: string | null) => {
        if (v === null || v === '') return null;
        if (!/^\d{1,11}(\.\d{1,6})?$/.test(v))
          throw failure('invalid_ts_' + k, `${k} must be a Unix timestamp`, k);
        return Math.floor(Number(v) * 1000);
      };
      let statuses: Set<SessionStatus> | null = null;
      if (types !== null && types !== '') {
        try {
          statuses = statusesFrom('types', types, SESSION);
        } catch {
          throw failure(
            'invalid_types',
            `types must be a comma list of ${Object.values(SESSION).join(', ')}`,
            'types',
          );
        }
      }
      const picked = filterSessions(world, req.channel!.sessions, {
        statuses,
        from: time('oldest', oldest),
        to: time('latest', latest),
      });
      return page(req, 'sessions', picked, (s) => session(req, s));
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one('session', {
        ...session(req, s),
        question_count: items.questions.length,
        announcement_count: items.announcements.length,
        speaker_count: items.speakers.length,
        reactions: items.reactions.map((r) => ({ name: r.kind, count: r.count })),
        ai: { status: s.aiStatus, enabled: s.aiEnabled },
      });
    }
    case 'more':
      return notServed();
    case 'sub': {
      const name = req.sub as (typeof SUBS)[number];
      return page(req, name, subList(world, req.session!, name), ({ id, at, ...rest }) => ({
        id,
        ...rest,
        ts: at === undefined ? null : ts(at),
      }));
    }
  }
}

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  const slack =
    status === 401
      ? 'invalid_auth'
      : status === 403
        ? 'not_allowed_token_type'
        : status === 404
          ? message.startsWith('channel')
            ? 'channel_not_found'
            : 'not_found'
          : status === 405
            ? 'method_not_supported'
            : code === 'invalid_request'
              ? 'invalid_arguments'
              : code;
  return {
    status: 200,
    headers: {},
    body: { ok: false, error: slack, response_metadata: { messages: [`[ERROR] ${message}`] } },
  };
}

/** Slack Web API, as https://api.slack.com/web documents it. */
export const slack: FaithfulDialect = {
  name: 'slack',
  description: 'Slack Web API: ok + list key + response_metadata.next_cursor, errors as HTTP 200 ok:false',
  docs: [
    'https://api.slack.com/apis/pagination',
    'https://api.slack.com/web#responses',
    'https://api.slack.com/apis/rate-limits',
    'https://api.slack.com/methods/conversations.history',
    'https://api.slack.com/methods/calls.info',
  ],
  facets: {
    envelope: '`{ok: true, channels: [...], response_metadata}`',
    paging: '`response_metadata.next_cursor` → `cursor`; `""` at the end; `limit` ≤ 1000',
    filters: '`types=active,scheduled`, `oldest=` / `latest=` (epoch seconds)',
    errors: 'HTTP 200 `{ok: false, error: "invalid_arguments"}` (auth and 404 too)',
    rateLimits: 'HTTP 429, Retry-After, `{ok: false, error: "ratelimited"}`',
    money: '`ai_credits: {balance: 12.34, currency}` (major)',
    times: 'epoch seconds (`created`, `date_start`, `date_end`), `scheduled_ts: "1893574800.000000"`',
    casing: 'snake_case; channel state as `is_live` / `is_archived` booleans',
    ids: 'Slack style (`C0…`, `U0…`, `R0…`)',
    subResources: 'counts in the detail (`question_count` …), items on their own paths',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => slackId('C', c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => slackId('R', s.id)),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { 'retry-after': String(r.resetSeconds) },
    body: { ok: false, error: 'ratelimited' },
  }),
  rateHeaders: () => ({}),
};
