/**
 * Twitch Helix. Follows:
 * - https://dev.twitch.tv/docs/api/guide/#pagination — lists as `{data: [...],
 *   pagination: {cursor}}`; `first` (≤ 100, default 20) and `after` in the request; the
 *   last page's `pagination` is an empty object.
 * - https://dev.twitch.tv/docs/api/guide/#twitch-rate-limits — `Ratelimit-Limit`,
 *   `Ratelimit-Remaining` and `Ratelimit-Reset` (epoch seconds) on every answer; over the
 *   limit 429 with the same headers and no Retry-After.
 * - https://dev.twitch.tv/docs/api/reference/#get-streams — a live stream's `type:
 *   "live"` and `started_at` (RFC 3339); `type` filters (`all`, `live`).
 * - https://dev.twitch.tv/docs/api/reference/#get-channel-stream-schedule — schedule
 *   segments with `start_time`, `end_time`, `canceled_until`.
 * - https://dev.twitch.tv/docs/api/reference/#get-videos — an archived broadcast's
 *   `type: "archive"`, `created_at`, `duration` (`"1h2m3s"`); `period` (all, day, week,
 *   month) bounds a list by its time.
 * - https://dev.twitch.tv/docs/api/reference/#search-channels — a channel's `is_live` and
 *   `started_at` (an empty string when not live).
 * - https://dev.twitch.tv/docs/api/reference/#get-charity-campaign — money as `{value,
 *   decimal_places, currency}`, `value` in minor units.
 * - Errors as `{error: "Bad Request", status: 400, message}` (every reference page).
 * Every answer, single objects included, is a `data` array. Sessions are schedule
 * segments joined to their stream: `type: "live"` while on air, `"archive"` once over
 * (Helix has no word for a stream that failed: it leaves an archive like any other), none
 * while only planned; a cancelled segment carries `canceled_until`.
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
  exponent,
  filterSessions,
  fmt,
  idNumber,
  intParam,
  minor,
  notServed,
  real,
  subList,
  times,
  token,
  untoken,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState, SubName } from './types.js';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
const PERIOD: Readonly<Record<string, number | null>> = {
  all: null,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};
const TYPES: Readonly<Record<string, readonly SessionStatus[] | null>> = {
  all: null,
  live: ['live'],
  archive: ['ended', 'failed'],
};
const rfc = (ms: number | null) => (ms === null ? '' : fmt.isoSeconds(ms));
/** Twitch numeric ids as strings. */
const numeric = (id: string, base: number) => String(base + idNumber(id));
const userId = (id: string) => numeric(id, 141981764);
const broadcasterId = (id: string) => numeric(id, 570000000);
const streamId = (id: string) => numeric(id, 40000000000);

/** `1h2m3s`, as Helix writes a video's duration. */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s % 60}s`;
}

function bad(param: string, message: string): DialectError {
  return new DialectError(400, 'Bad Request', message, param);
}

function page<T>(req: DialectRequest, items: readonly T[], show: (t: T) => unknown): Rendered {
  const first = intParam(req.query, 'first', 20, 100);
  const tag = `${req.pathname}|${req.query.get('type') ?? ''}|${req.query.get('period') ?? ''}`;
  let offset: number;
  try {
    offset = untoken('after', req.query.get('after'), tag);
  } catch {
    throw bad('after', 'The parameter "after" was malformed: the cursor is not valid.');
  }
  const more = offset + first < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      data: items.slice(offset, offset + first).map(show),
      pagination: more ? { cursor: token(offset + first, tag) } : {},
    },
  };
}

function segment(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  const c = s.channel;
  return {
    id: Buffer.from(`{"segmentID":"${s.id}","isoYear":2030}`).toString('base64url'),
    broadcaster_id: broadcasterId(c.id),
    broadcaster_login: c.name.toLowerCase().replace(/[^a-z0-9_]+/g, '_'),
    broadcaster_name: c.name,
    title: s.title,
    start_time: rfc(t.scheduled),
    end_time: rfc(real(req.world, s.scheduledEndAt)),
    canceled_until: s.status === 'cancelled' ? rfc(real(req.world, s.scheduledEndAt)) : null,
    is_recurring: false,
    ...(t.started === null
      ? {}
      : {
          stream_id: streamId(s.id),
          type: s.status === 'live' ? 'live' : 'archive',
          started_at: rfc(t.started),
          ...(t.ended === null
            ? {}
            : { created_at: rfc(t.started), duration: duration(t.ended - t.started) }),
        }),
  };
}

function sessions(req: DialectRequest): Rendered {
  const type = req.query.get('type') ?? 'all';
  const keep = TYPES[type];
  if (keep === undefined)
    throw bad(
      'type',
      `The parameter "type" was malformed: the value must be one of ${Object.keys(TYPES).join(', ')}`,
    );
  const period = req.query.get('period') ?? 'all';
  const span = PERIOD[period];
  if (span === undefined)
    throw bad('period', 'The parameter "period" was malformed: the value must be all, day, week or month');
  const now = real(req.world, req.world.now);
  const picked = filterSessions(req.world, req.channel!.sessions, {
    statuses: keep === null ? null : new Set(keep),
    from: span === null ? null : now - span,
  });
  return page(req, picked, (s) => segment(req, s));
}

function channel(req: DialectRequest, c: SimChannel) {
  const live = c.sessions.find((s) => s.status === 'live');
  const started = live === undefined ? null : times(req.world, live).started;
  return {
    id: broadcasterId(c.id),
    broadcaster_login: c.name.toLowerCase().replace(/[^a-z0-9_]+/g, '_'),
    display_name: c.name,
    broadcaster_language: req.org.settings.language,
    title: live?.title ?? c.name,
    is_live: c.status === 'live',
    started_at: rfc(c.status === 'live' ? started : null),
    is_branded_content: false,
    content_classification_labels: [],
    // Helix has no visibility; a channel is public unless the broadcaster restricts it.
    visibility: c.visibility,
    created_at: rfc(real(req.world, c.createdAt)),
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    user_id: userId(m.id),
    user_login: m.email.split('@')[0],
    user_name: m.name,
    email: m.email,
    role: m.role,
    created_at: rfc(real(req.world, m.joinedAt)),
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body: { data: [body] } });
  switch (req.kind) {
    case 'org':
      return one({
        id: numeric(org.slug.length.toString(), 9000),
        login: org.slug,
        display_name: org.name,
        type: '',
        broadcaster_type: org.plan === 'free' ? 'affiliate' : 'partner',
        plan: org.plan,
        ...org.settings,
        created_at: rfc(real(world, org.createdAt)),
      });
    case 'team':
      return page(req, org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        broadcaster_id: numeric('0', 9000),
        tier: org.plan,
        status: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? {
                type: 'wallet',
                balance: {
                  value: minor(f.balance, f.currency),
                  decimal_places: exponent(f.currency),
                  currency: f.currency,
                },
              }
            : { type: 'byok', provider: f.provider, key_status: f.keyStatus },
      });
    }
    case 'channels':
      return page(req, org.channels, (c) => channel(req, c));
    case 'sessions':
      return sessions(req);
    case 'session':
      return one(segment(req, req.session!));
    case 'sub': {
      const s = req.session!;
      const rows = subList(world, s, req.sub as Exclude<SubName, 'reactions'>);
      return page(req, rows, ({ id, at, ...rest }) => ({
        id,
        broadcaster_id: broadcasterId(s.channel.id),
        ...rest,
        created_at: at === undefined ? '' : rfc(at),
      }));
    }
    case 'more':
      return notServed();
  }
}

function error(status: number, _code: string, message: string): ErrorAnswer {
  return { status, headers: {}, body: { error: STATUS_TEXT[status] ?? 'Error', status, message } };
}

function rateHeaders(r: RateState): Record<string, string> {
  return {
    'ratelimit-limit': String(r.limit),
    'ratelimit-remaining': String(r.remaining),
    'ratelimit-reset': String(Math.ceil(r.now / 1000) + r.resetSeconds),
  };
}

/** Twitch Helix, as https://dev.twitch.tv/docs/api documents it. */
export const twitch: FaithfulDialect = {
  name: 'twitch',
  description: 'Twitch Helix: data arrays + pagination.cursor/after/first, Ratelimit-* headers (epoch reset)',
  docs: [
    'https://dev.twitch.tv/docs/api/guide/#pagination',
    'https://dev.twitch.tv/docs/api/guide/#twitch-rate-limits',
    'https://dev.twitch.tv/docs/api/reference/#get-streams',
    'https://dev.twitch.tv/docs/api/reference/#get-channel-stream-schedule',
    'https://dev.twitch.tv/docs/api/reference/#get-videos',
    'https://dev.twitch.tv/docs/api/reference/#search-channels',
    'https://dev.twitch.tv/docs/api/reference/#get-charity-campaign',
  ],
  facets: {
    envelope: '`{data: [...], pagination: {cursor}}`; single objects as a one-item `data` array',
    paging: '`pagination.cursor` → `after=`; `first` ≤ 100 (default 20); `{}` at the end',
    filters: '`type=live|archive|all`, `period=day|week|month|all`',
    errors: '`{error: "Bad Request", status: 400, message}`',
    rateLimits: '`Ratelimit-Limit`, `-Remaining`, `-Reset` (epoch s) on every answer; 429, no Retry-After',
    money: '`{value: 1234, decimal_places: 2, currency: "EUR"}` (minor units)',
    times: 'RFC 3339 `…Z` (`start_time`, `end_time`, `started_at`); `""` when none; `duration: "1h2m3s"`',
    casing: 'snake_case; `type: "live"` / `"archive"`, `is_live`, `canceled_until`',
    ids: 'numeric strings (`"570000006"`); schedule segments base64',
    subResources: 'own paths (`…/sessions/{id}/questions`), `data` + `pagination`',
  },
  channelId: (org, seg) => org.channels.find((c) => broadcasterId(c.id) === seg)?.id ?? seg,
  sessionId: (org, seg) => {
    try {
      const m = /"segmentID":"([^"]+)"/.exec(Buffer.from(seg, 'base64').toString('utf8'));
      if (m !== null && org.sessionById.has(m[1]!)) return m[1]!;
    } catch {
      // not a segment id
    }
    return seg;
  },
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { ...rateHeaders(r), 'ratelimit-remaining': '0' },
    body: { error: 'Too Many Requests', status: 429, message: 'Rate limit exceeded' },
  }),
  rateHeaders,
};
