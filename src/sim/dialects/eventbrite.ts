/**
 * Eventbrite API v3. Follows:
 * - https://www.eventbrite.com/developer/v3/api_overview/pagination/ — the list under a
 *   key named for its objects (`events`, `members`) beside `pagination: {object_count,
 *   page_number, page_size, page_count, continuation, has_more_items}`; the next page by
 *   `continuation=<token>` (or `page=`), `page_size` in the request.
 * - https://www.eventbrite.com/developer/v3/api_overview/errors/ — `{error: "NOT_FOUND",
 *   error_description, status_code}`; a bad argument as `ARGUMENTS_ERROR` with
 *   `error_detail`; `BAD_PAGE`; over the hourly limit 429 `HIT_RATE_LIMIT`, no header.
 * - https://www.eventbrite.com/platform/api#/reference/event/list/list-events-by-organization
 *   — `status=` (draft, live, started, ended, completed, canceled, all) and
 *   `time_filter=` (all, past, current_future); an event's `name: {text, html}`, `start` /
 *   `end` as `{timezone, local, utc}`, `created`, `changed`, `listed`, `shareable`,
 *   `invite_only`, `series_id`, `is_series_parent`.
 * - https://www.eventbrite.com/platform/api#/reference/ticket-class — money as cost
 *   objects `{currency, value, major_value, display}`, `value` in minor units.
 * Mapping: channels are event series (their parent events), sessions the series'
 * occurrences, members the organization's members, sub-resources on their own paths
 * under the event. Eventbrite's words do not mean tally's: `live` is a published event
 * on sale (not yet begun), `started` one under way, `ended` / `completed` one over, so a
 * scheduled session is `live` here and a live one `started`; an idle channel (its series
 * published, nothing on) is `live`, an offline one `draft`. Eventbrite keeps no actual
 * start or end: `start` / `end` are the planned times, and an event that failed ends
 * like any other (`ended`).
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
  idNumber,
  intParam,
  minor,
  notServed,
  real,
  statusesFrom,
  subList,
  times,
  token,
  untoken,
  usageOf,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'started', idle: 'live', offline: 'draft' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'live',
  live: 'started',
  ended: 'ended',
  failed: 'ended',
  cancelled: 'canceled',
};
const WORDS = ['draft', 'live', 'started', 'ended', 'completed', 'canceled', 'all'];
const ebId = (id: string, base: number) => String(base + idNumber(id));
const eventId = (id: string) => ebId(id, 700_000_000_000);
const seriesId = (id: string) => ebId(id, 600_000_000_000);
const userId = (id: string) => ebId(id, 180_000_000_000);
const utc = (ms: number) => fmt.isoSeconds(ms);

/** `2030-01-07T04:00:00`: the wall-clock time in `tz`, without an offset. */
function local(ms: number, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '00';
  return `${p('year')}-${p('month')}-${p('day')}T${p('hour')}:${p('minute')}:${p('second')}`;
}

const when = (ms: number, tz: string) => ({ timezone: tz, local: local(ms, tz), utc: utc(ms) });
const text = (s: string) => ({ text: s, html: `<p>${s.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>` });

function argumentsError(param: string, message: string): DialectError {
  return new DialectError(400, 'ARGUMENTS_ERROR', message, param);
}

function page<T>(req: DialectRequest, key: string, items: readonly T[], show: (t: T) => unknown): Rendered {
  const size = intParam(req.query, 'page_size', 50, 200);
  const tag = `${req.pathname}|${req.query.get('status') ?? ''}|${req.query.get('time_filter') ?? ''}`;
  let offset: number;
  try {
    offset = untoken('continuation', req.query.get('continuation'), tag);
  } catch {
    throw argumentsError('continuation', 'There are errors with your arguments: continuation - INVALID');
  }
  const asked = req.query.get('page');
  if (asked !== null && asked !== '' && req.query.get('continuation') === null) {
    if (!/^\d{1,6}$/.test(asked) || Number(asked) < 1 || (Number(asked) - 1) * size > items.length)
      throw new DialectError(400, 'BAD_PAGE', 'The page number you gave does not exist.', 'page');
    offset = (Number(asked) - 1) * size;
  }
  const more = offset + size < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      pagination: {
        object_count: items.length,
        page_number: Math.floor(offset / size) + 1,
        page_size: size,
        page_count: Math.max(1, Math.ceil(items.length / size)),
        ...(more ? { continuation: token(offset + size, tag) } : {}),
        has_more_items: more,
      },
      [key]: items.slice(offset, offset + size).map(show),
    },
  };
}

function event(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  const tz = req.org.settings.timezone;
  const end = t.ended ?? real(req.world, s.scheduledEndAt);
  const id = eventId(s.id);
  return {
    id,
    name: text(s.title),
    description: text(''),
    url: `https://www.eventbrite.com/e/${id}`,
    start: when(t.scheduled, tz),
    end: when(end, tz),
    organization_id: ebId('0', 90_000_000_000),
    created: utc(t.scheduled - 7 * 86_400_000),
    changed: utc(t.ended ?? t.started ?? t.scheduled),
    published: utc(t.scheduled - 6 * 86_400_000),
    status: SESSION[s.status],
    currency: req.org.funding.currency,
    online_event: true,
    listed: s.channel.visibility === 'public',
    shareable: s.channel.visibility !== 'private',
    invite_only: s.channel.visibility === 'private',
    is_series: true,
    is_series_parent: false,
    series_id: seriesId(s.channel.id),
    resource_uri: `${req.origin}/v1/${req.org.slug}/sessions/${id}/`,
  };
}

function series(req: DialectRequest, c: SimChannel) {
  const id = seriesId(c.id);
  const created = real(req.world, c.createdAt);
  return {
    id,
    name: text(c.name),
    url: `https://www.eventbrite.com/e/${id}`,
    created: utc(created),
    changed: utc(created),
    status: CHANNEL[c.status],
    listed: c.visibility === 'public',
    shareable: c.visibility !== 'private',
    invite_only: c.visibility === 'private',
    online_event: true,
    is_series: true,
    is_series_parent: true,
    resource_uri: `${req.origin}/v1/${req.org.slug}/channels/${id}/`,
  };
}

function member(req: DialectRequest, m: SimMember) {
  const [first, ...last] = m.name.split(' ');
  return {
    id: userId(m.id),
    name: m.name,
    first_name: first,
    last_name: last.join(' '),
    emails: [{ email: m.email, verified: true, primary: true }],
    role: m.role,
    created: utc(real(req.world, m.joinedAt)),
  };
}

function sessions(req: DialectRequest): Rendered {
  const raw = req.query.get('status');
  let statuses: Set<SessionStatus> | null = null;
  if (raw !== null && raw !== '' && raw !== 'all') {
    for (const w of raw.split(',')) {
      if (!WORDS.includes(w.trim()))
        throw argumentsError(
          'status',
          `There are errors with your arguments: status - ${JSON.stringify(w)} is not one of ${WORDS.join(', ')}`,
        );
    }
    // `completed` is an `ended` event whose payouts are done: the same sessions here.
    const words = raw.split(',').map((w) => (w.trim() === 'completed' ? 'ended' : w.trim()));
    statuses = statusesFrom('status', words.filter((w) => w !== 'draft').join(','), SESSION);
    if (words.includes('ended')) statuses.add('failed');
  }
  const tf = req.query.get('time_filter') ?? 'all';
  if (!['all', 'past', 'current_future'].includes(tf))
    throw argumentsError('time_filter', 'There are errors with your arguments: time_filter - INVALID');
  const now = real(req.world, req.world.now);
  const picked = filterSessions(req.world, req.channel!.sessions, {
    statuses,
    from: tf === 'current_future' ? now : null,
    to: tf === 'past' ? now : null,
  });
  return page(req, 'events', picked, (s) => event(req, s));
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  switch (req.kind) {
    case 'org':
      return one({
        id: ebId('0', 90_000_000_000),
        name: org.name,
        vertical: 'Default',
        parent_id: null,
        locale: org.settings.language,
        timezone: org.settings.timezone,
        plan: org.plan,
        default_visibility: org.settings.default_visibility,
        ai_enabled: org.settings.ai_enabled,
        created: utc(real(world, org.createdAt)),
        image_id: null,
      });
    case 'team':
      return page(req, 'members', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        id: ebId('1', 90_000_000_000),
        plan: org.plan,
        status: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_funding:
          f.mode === 'wallet'
            ? {
                type: 'wallet',
                balance: {
                  currency: f.currency,
                  value: minor(f.balance, f.currency),
                  major_value: decimal(f.balance, f.currency),
                  display: `${decimal(f.balance, f.currency)} ${f.currency}`,
                },
              }
            : { type: 'byok', provider: f.provider, key_status: f.keyStatus },
      });
    }
    case 'channels':
      return page(req, 'events', org.channels, (c) => series(req, c));
    case 'sessions':
      return sessions(req);
    case 'session':
      return one(event(req, req.session!));
    case 'sub': {
      const s = req.session!;
      const name = req.sub as Exclude<SubName, 'reactions'>;
      return page(req, name, subList(world, s, name), ({ id, at, ...rest }) => ({
        id,
        event_id: eventId(s.id),
        ...rest,
        created: at === undefined ? null : utc(at),
      }));
    }
    case 'more':
      return notServed();
  }
}

const CODE: Readonly<Record<number, string>> = {
  400: 'ARGUMENTS_ERROR',
  401: 'NO_AUTH',
  403: 'NOT_AUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  500: 'INTERNAL_ERROR',
};

function error(status: number, code: string, message: string, param?: string): ErrorAnswer {
  const name = status === 400 && /^[A-Z_]+$/.test(code) ? code : (CODE[status] ?? 'INTERNAL_ERROR');
  return {
    status,
    headers: {},
    body: {
      status_code: status,
      error_description: message,
      error: name,
      ...(name === 'ARGUMENTS_ERROR' && param !== undefined
        ? { error_detail: { ARGUMENTS_ERROR: { [param]: ['INVALID'] } } }
        : {}),
    },
  };
}

/** The Eventbrite API v3, as https://www.eventbrite.com/platform/api documents it. */
export const eventbrite: FaithfulDialect = {
  name: 'eventbrite',
  description:
    'Eventbrite v3: pagination {continuation, has_more_items}, {text, html} names, {timezone, local, utc} times',
  docs: [
    'https://www.eventbrite.com/developer/v3/api_overview/pagination/',
    'https://www.eventbrite.com/developer/v3/api_overview/errors/',
    'https://www.eventbrite.com/platform/api#/reference/event/list/list-events-by-organization',
    'https://www.eventbrite.com/platform/api#/reference/ticket-class',
  ],
  facets: {
    envelope: '`{pagination: {...}, events: [...]}` (key named for the objects)',
    paging: '`pagination.continuation` → `continuation=` while `has_more_items`; `page_size`',
    filters: '`status=live,started` (Eventbrite words), `time_filter=past|current_future`',
    errors: '`{error: "ARGUMENTS_ERROR", error_description, status_code, error_detail}`',
    rateLimits: '429 `HIT_RATE_LIMIT`, no header',
    money: '`{currency, value: 1234, major_value: "12.34", display}` (minor units beside major)',
    times: '`start` / `end` as `{timezone, local, utc}` (planned only); `created`, `changed` `…Z`',
    casing: 'snake_case; `live` = on sale, `started` = under way',
    ids: 'numeric strings (`"700000000006"`)',
    subResources: 'own paths (`…/sessions/{id}/questions`) in the same envelope',
  },
  channelId: (org, seg) => findId(org.channels, seg.replace(/\/$/, ''), (c) => seriesId(c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg.replace(/\/$/, ''), (s) => eventId(s.id)),
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: () => ({
    status: 429,
    headers: {},
    body: {
      status_code: 429,
      error_description:
        'Hourly rate limit has been reached for this token. Default rate limits are 2,000 calls per hour.',
      error: 'HIT_RATE_LIMIT',
    },
  }),
  rateHeaders: () => ({}),
};
