/**
 * HubSpot CRM API v3. Follows:
 * - https://developers.hubspot.com/docs/api/crm/understanding-the-crm — objects
 *   `{id: "512", properties: {...}, createdAt, updatedAt, archived}` with every property
 *   value a string and property names in HubSpot's lower-case internal style; lists
 *   `{results, paging: {next: {after, link}}}`, `limit` ≤ 100, `after`; associations only
 *   when asked with `associations=`.
 * - https://developers.hubspot.com/docs/api/crm/meetings — a meeting's properties:
 *   `hs_timestamp` (when the meeting occurred; it defaults to, and should match,
 *   `hs_meeting_start_time`), `hs_meeting_start_time` and `hs_meeting_end_time` (when the
 *   meeting starts and ends: its calendar times), `hs_meeting_outcome` (scheduled,
 *   completed, rescheduled, no show, canceled: SCHEDULED, COMPLETED, RESCHEDULED, NO_SHOW,
 *   CANCELED), `hs_meeting_title`. A meeting has no outcome for "under way" and no
 *   property for when it actually began: a session on air is a SCHEDULED meeting, one
 *   that failed did not take place as planned (NO_SHOW), and its times are the planned ones.
 * - https://developers.hubspot.com/docs/api/crm/owners — owners `{id, email, firstName,
 *   lastName, userId, createdAt, archived}`.
 * - https://developers.hubspot.com/docs/api/error-handling and
 *   https://developers.hubspot.com/docs/api/usage-details — errors `{status: "error",
 *   message, correlationId, category}`; `X-HubSpot-RateLimit-*` headers; 429 with
 *   `errorType: "RATE_LIMIT"` and `policyName`, no Retry-After.
 * GET lists take no filter (filtering is the POST search API's), unknown parameters are
 * ignored; money as a decimal string `amount` beside `deal_currency_code`.
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
  decimal,
  fmt,
  idNumber,
  intParam,
  notServed,
  real,
  subItems,
  subList,
  type SubItem,
  times,
  token,
  untoken,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState, SubName } from './types.js';

const BASE = 51_000;
const CHANNEL = { live: 'broadcasting', idle: 'standby', offline: 'offline' } as const;
/** The documented outcomes only (https://developers.hubspot.com/docs/api/crm/meetings). */
const OUTCOME: Record<SessionStatus, string> = {
  scheduled: 'SCHEDULED',
  live: 'SCHEDULED',
  ended: 'COMPLETED',
  failed: 'NO_SHOW',
  cancelled: 'CANCELED',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const iso = (ms: number | null) => (ms === null ? null : fmt.iso(ms));
const hsId = (id: string) => String(BASE + idNumber(id));

function page<T>(req: DialectRequest, items: readonly T[], show: (t: T) => unknown): Rendered {
  const raw = req.query.get('limit');
  if (raw !== null && (!/^\d{1,9}$/.test(raw) || Number(raw) > 100 || Number(raw) < 1)) {
    throw new DialectError(400, 'VALIDATION_ERROR', `limit must be from 1 to 100, got ${raw}`, 'limit');
  }
  const limit = intParam(req.query, 'limit', 10, 100);
  let offset: number;
  try {
    offset = untoken('after', req.query.get('after'), req.pathname);
  } catch {
    throw new DialectError(400, 'VALIDATION_ERROR', 'after is not a valid paging cursor', 'after');
  }
  const more = offset + limit < items.length;
  const after = token(offset + limit, req.pathname);
  return {
    status: 200,
    headers: {},
    body: {
      results: items.slice(offset, offset + limit).map(show),
      ...(more
        ? { paging: { next: { after, link: `${req.origin}${req.pathname}?after=${after}&limit=${limit}` } } }
        : {}),
    },
  };
}

function object(
  id: string,
  created: number | null,
  properties: Record<string, string | null>,
  updated: number | null = created,
) {
  return { id, properties, createdAt: iso(created), updatedAt: iso(updated), archived: false };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  const owner = (m: SimMember) => {
    const [first, ...last] = m.name.split(' ');
    return {
      id: hsId(m.id),
      email: m.email,
      firstName: first,
      lastName: last.join(' '),
      userId: BASE * 10 + idNumber(m.id),
      teams: [{ id: m.role, name: m.role, primary: true }],
      createdAt: iso(real(world, m.joinedAt)),
      updatedAt: iso(real(world, m.joinedAt)),
      archived: false,
    };
  };
  const channel = (c: SimChannel) =>
    object(hsId(c.id), real(world, c.createdAt), {
      hs_object_id: hsId(c.id),
      name: c.name,
      hs_channel_status: CHANNEL[c.status],
      hs_visibility: c.visibility,
      createdate: iso(real(world, c.createdAt)),
    });
  // Logged with its channel (never in the future), last updated when its outcome was set
  // at its end; its times are the calendar's.
  const session = (s: SimSession) => {
    const t = times(world, s);
    const logged = real(world, s.channel.createdAt);
    return object(
      hsId(s.id),
      logged,
      {
        hs_object_id: hsId(s.id),
        hs_meeting_title: s.title,
        hs_channel_id: hsId(s.channel.id),
        hs_meeting_outcome: OUTCOME[s.status],
        hs_timestamp: iso(t.scheduled),
        hs_meeting_start_time: iso(t.scheduled),
        hs_meeting_end_time: iso(real(world, s.scheduledEndAt)),
      },
      t.ended ?? logged,
    );
  };
  const item = ({ id, at, ...rest }: SubItem) =>
    object(String(id), at ?? null, Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)])));
  switch (req.kind) {
    case 'org':
      return one({
        portalId: BASE,
        accountType: org.plan.toUpperCase(),
        companyName: org.name,
        timeZone: org.settings.timezone,
        uiDomain: `${org.slug}.example`,
        settings: { ...org.settings },
        createdAt: iso(real(world, org.createdAt)),
      });
    case 'team':
      return page(req, org.members, owner);
    case 'subscription': {
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      const str = (n: number | null) => (n === null ? null : String(n));
      return one(
        object(String(BASE), null, {
          hs_plan: org.plan,
          hs_status: org.subscriptionStatus,
          channel_limit: str(lim.channels),
          member_limit: str(lim.members),
          ai_minute_limit: str(lim.ai_minutes),
          concurrent_live_limit: str(lim.concurrent_live),
          channels_used: String(org.channels.length),
          members_used: String(org.members.length),
          ai_minutes_used: String(Math.floor(org.aiMinutesUsed)),
          ai_funding_type: f.mode,
          ...(f.mode === 'wallet'
            ? { amount: decimal(f.balance, f.currency), deal_currency_code: f.currency }
            : { ai_provider: f.provider, ai_key_status: f.keyStatus }),
        }),
      );
    }
    case 'channels':
      return page(req, org.channels, channel);
    case 'sessions':
      return page(req, req.channel!.sessions, session);
    case 'session': {
      const s = req.session!;
      const asked = (req.query.get('associations') ?? '').split(',').filter((x) => x !== '');
      const body: Record<string, unknown> = session(s);
      const items = subItems(world, s);
      (body['properties'] as Record<string, string>)['hs_reactions_total'] = String(items.reactionsTotal);
      (body['properties'] as Record<string, string>)['hs_ai_status'] = s.aiStatus;
      const assoc = asked.filter((a) => SUBS.includes(a as (typeof SUBS)[number]));
      if (assoc.length > 0) {
        body['associations'] = Object.fromEntries(
          assoc.map((a) => [
            a,
            {
              results: subList(world, s, a as SubName).map((x) => ({
                id: String(x.id),
                type: `session_to_${a.slice(0, -1)}`,
              })),
            },
          ]),
        );
      }
      return one(body);
    }
    case 'sub':
      return page(req, subList(world, req.session!, req.sub!), item);
    case 'more':
      return notServed();
  }
}

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  const category =
    status === 401
      ? 'INVALID_AUTHENTICATION'
      : status === 403
        ? 'MISSING_SCOPES'
        : status === 404
          ? 'OBJECT_NOT_FOUND'
          : status === 400
            ? 'VALIDATION_ERROR'
            : code;
  return {
    status,
    headers: {},
    body: { status: 'error', message, correlationId: 'b8b47229-4e0e-4c5b-9a9f-7b1d3c1a0f11', category },
  };
}

function rateHeaders(r: RateState): Record<string, string> {
  return {
    'x-hubspot-ratelimit-daily': '250000',
    'x-hubspot-ratelimit-daily-remaining': String(250_000 - (r.limit - r.remaining)),
    'x-hubspot-ratelimit-interval-milliseconds': '60000',
    'x-hubspot-ratelimit-max': String(r.limit),
    'x-hubspot-ratelimit-remaining': String(r.remaining),
  };
}

const byNumber = (prefix: string, pad: number) => (_org: unknown, seg: string) =>
  /^\d{5,12}$/.test(seg) ? `${prefix}_${String(Number(seg) - BASE).padStart(pad, '0')}` : seg;

/** HubSpot CRM v3, as https://developers.hubspot.com/docs/api documents it. */
export const hubspot: FaithfulDialect = {
  name: 'hubspot',
  description:
    'HubSpot CRM v3: results + paging.next.after, string properties, no GET filters, X-HubSpot-RateLimit-*',
  docs: [
    'https://developers.hubspot.com/docs/api/crm/understanding-the-crm',
    'https://developers.hubspot.com/docs/api/crm/meetings',
    'https://developers.hubspot.com/docs/api/crm/owners',
    'https://developers.hubspot.com/docs/api/error-handling',
    'https://developers.hubspot.com/docs/api/usage-details',
  ],
  facets: {
    envelope: '`{results: [{id, properties: {...}, createdAt, archived}], paging}`',
    paging: '`paging.next.after` → `after=`; `limit` ≤ 100 (400 above); no `paging` at the end',
    filters: 'none on GET lists (unknown parameters ignored; filtering is the POST search API)',
    errors: '`{status: "error", message, correlationId, category: "OBJECT_NOT_FOUND"}`',
    rateLimits: '`X-HubSpot-RateLimit-*`; 429 `errorType: "RATE_LIMIT"`, no Retry-After',
    money: '`properties.amount: "12.34"` beside `deal_currency_code` (decimal string)',
    times:
      'ISO 8601 strings inside `properties`: the calendar times `hs_meeting_start_time` (= `hs_timestamp`), `hs_meeting_end_time`; no actual start or end',
    casing:
      'lower-case internal property names (`hs_meeting_outcome`: SCHEDULED, COMPLETED, NO_SHOW, CANCELED; none for "under way"); camelCase envelope',
    ids: 'numeric strings (`"51006"`)',
    subResources: '`associations=questions` → `associations.questions.results[{id, type}]`; own paths',
  },
  channelId: byNumber('ch', 6),
  sessionId: byNumber('ses', 8),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: rateHeaders({ ...r, remaining: 0 }),
    body: {
      status: 'error',
      message: 'You have reached your secondly limit.',
      errorType: 'RATE_LIMIT',
      correlationId: 'c033cdaa-2c40-4a64-ae48-b4cec88dad24',
      policyName: 'SECONDLY',
    },
  }),
  rateHeaders,
};
