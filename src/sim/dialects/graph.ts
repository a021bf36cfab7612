/**
 * Microsoft Graph (OData v4). Follows:
 * - https://learn.microsoft.com/en-us/graph/paging — collections under `value`, the next
 *   page in `@odata.nextLink` (the request's URL with an opaque `$skiptoken`), `$top`.
 * - https://learn.microsoft.com/en-us/graph/filter-query-parameter — `$filter` expressions
 *   (`status eq 'inProgress'`, `status in (...)`, `endDateTime ge 2030-01-07T00:00:00Z`
 *   joined by `and`); `$count=true` adds `@odata.count`; `$expand` for navigation
 *   properties.
 * - https://learn.microsoft.com/en-us/graph/errors — `{error: {code, message, innerError:
 *   {date, request-id}}}`; 429 `TooManyRequests` with Retry-After
 *   (https://learn.microsoft.com/en-us/graph/throttling).
 * camelCase, GUID ids, DateTimeOffset times and `dateTimeTimeZone` objects, enum members
 * in camelCase, polymorphic objects with `@odata.type`, navigation properties (questions,
 * speakers …) left out of the detail unless `$expand`ed, and on their own paths.
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
  real,
  type SessionFilter,
  statusesFrom,
  subItems,
  times,
  token,
  untoken,
  withParams,
  notServed,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'broadcasting', idle: 'available', offline: 'offline' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'notStarted',
  live: 'inProgress',
  ended: 'completed',
  failed: 'failed',
  cancelled: 'canceled',
};
const SUBS: readonly SubName[] = ['questions', 'announcements', 'speakers'];

const guid = (id: string) => {
  const h = hexId(id, 'graph', 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const dto = (ms: number | null) => (ms === null ? null : fmt.isoSeconds(ms));
const dateTimeTimeZone = (ms: number) => ({
  dateTime: new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$10000'),
  timeZone: 'UTC',
});

function badRequest(message: string, param = '$filter'): DialectError {
  return new DialectError(400, 'BadRequest', message, param);
}

function collection<T>(
  req: DialectRequest,
  name: string,
  items: readonly T[],
  show: (t: T) => unknown,
): Rendered {
  for (const k of req.query.keys()) {
    if (k.startsWith('$') && !['$top', '$skiptoken', '$filter', '$count', '$expand', '$select'].includes(k)) {
      throw badRequest(`Query option '${k}' is not allowed.`, k);
    }
  }
  const top = intParam(req.query, '$top', 20, 999);
  const tag = `${req.pathname}|${req.query.get('$filter') ?? ''}`;
  const offset = untoken('$skiptoken', req.query.get('$skiptoken'), tag);
  const page = items.slice(offset, offset + top);
  const more = offset + top < items.length;
  return {
    status: 200,
    headers: { 'odata-version': '4.0' },
    body: {
      '@odata.context': `${req.origin}/v1/$metadata#${name}`,
      ...(req.query.get('$count') === 'true' ? { '@odata.count': items.length } : {}),
      value: page.map(show),
      ...(more
        ? {
            '@odata.nextLink': withParams(req, req.pathname, {
              $skiptoken: token(offset + top, tag),
              $top: String(top),
            }),
          }
        : {}),
    },
  };
}

/** `$filter` on sessions: `status eq '…'`, `status in ('…','…')`, `<time> ge|gt|le|lt <instant>`, joined by `and`. */
function sessionFilter(raw: string | null): SessionFilter {
  if (raw === null || raw.trim() === '') return {};
  const f: SessionFilter = {};
  for (const clause of raw.split(/\s+and\s+/i)) {
    const c = clause.trim().replace(/^\((.*)\)$/, '$1');
    const field = /^(\w+)\s/.exec(c)?.[1];
    if (
      field !== undefined &&
      !['status', 'startDateTime', 'endDateTime', 'createdDateTime'].includes(field)
    ) {
      throw badRequest(`Could not find a property named '${field}' on type 'microsoft.graph.session'.`);
    }
    let m = /^status\s+eq\s+'([^']*)'$/i.exec(c);
    if (m !== null) {
      f.statuses = statusesFrom('$filter', m[1]!, SESSION);
      continue;
    }
    m = /^status\s+in\s+\(([^)]*)\)$/i.exec(c);
    if (m !== null) {
      f.statuses = statusesFrom('$filter', m[1]!.replace(/'/g, ''), SESSION);
      continue;
    }
    m = /^(\w+)\s+(ge|gt|le|lt)\s+(\S+)$/i.exec(c);
    if (m !== null) {
      const ms = Date.parse(m[3]!.replace(/^'|'$/g, ''));
      if (!Number.isFinite(ms)) throw badRequest(`Invalid filter clause: '${m[3]}' is not a DateTimeOffset.`);
      if (m[2]!.toLowerCase().startsWith('g')) f.from = ms;
      else f.to = ms;
      continue;
    }
    throw badRequest(`Invalid filter clause: syntax error at '${c}'.`);
  }
  return f;
}

function member(req: DialectRequest, m: SimMember) {
  return {
    id: guid(m.id),
    displayName: m.name,
    mail: m.email,
    userPrincipalName: m.email,
    roles: [m.role],
    createdDateTime: dto(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    id: guid(c.id),
    displayName: c.name,
    status: CHANNEL[c.status],
    membershipType:
      c.visibility === 'private' ? 'private' : c.visibility === 'unlisted' ? 'shared' : 'standard',
    createdDateTime: dto(real(req.world, c.createdAt)),
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  return {
    id: guid(s.id),
    channelId: guid(s.channel.id),
    subject: s.title,
    status: SESSION[s.status],
    scheduledStart: dateTimeTimeZone(t.scheduled),
    startDateTime: dto(t.started),
    endDateTime: dto(t.ended),
  };
}

function subItem(x: Record<string, unknown>) {
  const { at, id, ...rest } = x as { at?: number; id: string };
  return { id: guid(id), ...rest, ...(at === undefined ? {} : { createdDateTime: dto(at) }) };
}

function detail(req: DialectRequest, s: SimSession) {
  const items = subItems(req.world, s);
  const expand = (req.query.get('$expand') ?? '').split(',').map((x) => x.trim());
  for (const e of expand) {
    if (e !== '' && !SUBS.includes(e as SubName)) {
      throw badRequest(
        `Could not find a property named '${e}' on type 'microsoft.graph.session'.`,
        '$expand',
      );
    }
  }
  const expanded = Object.fromEntries(
    SUBS.filter((n) => expand.includes(n)).map((n) => [n, items[n as 'questions'].map(subItem)]),
  );
  return {
    '@odata.context': `${req.origin}/v1/$metadata#sessions/$entity`,
    ...session(req, s),
    reactions: {
      total: items.reactionsTotal,
      byKind: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
    },
    ai: { status: s.aiStatus, isEnabled: s.aiEnabled },
    ...expanded,
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: { 'odata-version': '4.0' }, body });
  switch (req.kind) {
    case 'org':
      return one({
        '@odata.context': `${req.origin}/v1/$metadata#organization/$entity`,
        id: guid(org.slug),
        displayName: org.name,
        plan: org.plan,
        settings: {
          defaultVisibility: org.settings.default_visibility,
          aiEnabled: org.settings.ai_enabled,
          language: org.settings.language,
          timezone: org.settings.timezone,
        },
        createdDateTime: dto(real(world, org.createdAt)),
      });
    case 'team':
      return collection(req, 'members', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        '@odata.context': `${req.origin}/v1/$metadata#subscription/$entity`,
        skuPartNumber: org.plan,
        capabilityStatus:
          org.subscriptionStatus === 'active'
            ? 'Enabled'
            : org.subscriptionStatus === 'trialing'
              ? 'Trial'
              : 'Warning',
        limits: {
          channels: PLAN_LIMITS[org.plan].channels,
          members: PLAN_LIMITS[org.plan].members,
          aiMinutes: PLAN_LIMITS[org.plan].ai_minutes,
          concurrentLive: PLAN_LIMITS[org.plan].concurrent_live,
        },
        usage: {
          channels: org.channels.length,
          members: org.members.length,
          aiMinutes: Math.floor(org.aiMinutesUsed),
          concurrentLive: org.liveSessions,
        },
        aiFunding:
          f.mode === 'wallet'
            ? {
                '@odata.type': '#microsoft.graph.walletFunding',
                balance: f.balance,
                currencyCode: f.currency,
              }
            : {
                '@odata.type': '#microsoft.graph.providerKeyFunding',
                provider: f.provider,
                keyState: f.keyStatus,
              },
      });
    }
    case 'channels':
      return collection(req, 'channels', org.channels, (c) => channel(req, c));
    case 'sessions': {
      const picked = filterSessions(world, req.channel!.sessions, sessionFilter(req.query.get('$filter')));
      return collection(req, 'sessions', picked, (s) => session(req, s));
    }
    case 'session':
      return one(detail(req, req.session!));
    case 'more':
      return notServed();
    case 'sub':
      return collection(req, req.sub!, subItems(world, req.session!)[req.sub as 'questions'], subItem);
  }
}

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  const graphCode =
    status === 401
      ? 'InvalidAuthenticationToken'
      : status === 403
        ? 'Authorization_RequestDenied'
        : status === 404
          ? 'itemNotFound'
          : status === 400
            ? 'BadRequest'
            : code;
  return {
    status,
    headers: {},
    body: {
      error: {
        code: graphCode,
        message,
        innerError: { date: new Date().toISOString().replace(/\.\d{3}Z$/, ''), 'request-id': guid(message) },
      },
    },
  };
}

/** Microsoft Graph, as https://learn.microsoft.com/en-us/graph documents it. */
export const graph: FaithfulDialect = {
  name: 'graph',
  description: 'Microsoft Graph / OData v4: value + @odata.nextLink ($skiptoken), $filter, $top, $expand',
  docs: [
    'https://learn.microsoft.com/en-us/graph/paging',
    'https://learn.microsoft.com/en-us/graph/filter-query-parameter',
    'https://learn.microsoft.com/en-us/graph/errors',
    'https://learn.microsoft.com/en-us/graph/throttling',
  ],
  facets: {
    envelope: '`{@odata.context, value}`',
    paging: '`@odata.nextLink` carrying `$skiptoken`; `$top` ≤ 999',
    filters: "`$filter=status eq 'inProgress' and endDateTime ge …`; other `$` options 400",
    errors: '`{error: {code, message, innerError}}` (`BadRequest`, `itemNotFound`)',
    rateLimits: '429 `TooManyRequests` with Retry-After',
    money: '`aiFunding: {@odata.type: "#microsoft.graph.walletFunding", balance: 12.34, currencyCode}`',
    times: 'DateTimeOffset `…Z`; scheduled start as `{dateTime, timeZone}`',
    casing: 'camelCase; enum members camelCase (`notStarted`, `inProgress`)',
    ids: 'GUIDs',
    subResources: 'navigation properties: only with `$expand=questions,speakers`; own paths',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => guid(c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => guid(s.id)),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { 'retry-after': String(r.resetSeconds) },
    body: {
      error: {
        code: 'TooManyRequests',
        message: 'Too many requests. Retry after the number of seconds in Retry-After.',
      },
    },
  }),
  rateHeaders: () => ({}),
};
