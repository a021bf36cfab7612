/**
 * Salesforce REST API. Follows:
 * - https://developer.salesforce.com/docs/platform/api-rest/guide/dome-query.html and
 *   resources-query.md — a query result `{totalSize, done, records, nextRecordsUrl}`, the
 *   rest of the records at `nextRecordsUrl` (a query locator path, no parameters) while
 *   `done` is false; records carry `attributes: {type, url}`; the batch size set by
 *   `Sforce-Query-Options: batchSize=N` (this server does not enforce the minimum of 200,
 *   so small lists can be paged too), 200 by default.
 * - https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/ — the
 *   filter as a SOQL statement in `q` (`… WHERE Status__c = 'Live' AND Actual_End__c >=
 *   2030-01-06T00:00:00Z`), relationship sub-queries giving child records as
 *   `Questions__r: {totalSize, done, records}` (null when there are none).
 * - https://developer.salesforce.com/docs/platform/api-rest/guide/errorcodes.html —
 *   errors as an array `[{message, errorCode, fields}]`; over the API request limit 403
 *   `REQUEST_LIMIT_EXCEEDED`; `Sforce-Limit-Info: api-usage=n/m` on answers.
 * Custom fields in PascalCase with `__c`, 18-character ids, currency fields as numbers in
 * major units beside `CurrencyIsoCode`, times `2030-01-07T09:00:00.000+0000`.
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
  notServed,
  real,
  type SessionFilter,
  subItems,
  subList,
  type SubItem,
  times,
  wordBack,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState } from './types.js';

const V = '/services/data/v60.0/sobjects';
const CHANNEL = { live: 'Broadcasting', idle: 'Idle', offline: 'Offline' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'Scheduled',
  live: 'Live',
  ended: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
};
const SESSION_FIELDS = [
  'Id',
  'Name',
  'Status__c',
  'Scheduled_Start__c',
  'Actual_Start__c',
  'Actual_End__c',
  'Channel__c',
];
const sfId = (prefix: string, id: string) => `${prefix}${hexId(id, 'sf', 15).toUpperCase()}`;
const dt = (ms: number | null) => (ms === null ? null : fmt.isoPlus0000(ms));
const attributes = (type: string, id: string) => ({ type, url: `${V}/${type}/${id}` });

function soqlError(code: string, message: string): DialectError {
  return new DialectError(400, code, message, 'q');
}

/** A locator: which list, which filter, where the next batch starts. */
interface Locator {
  path: string;
  q: string;
  at: number;
  size: number;
}

function batchSize(req: DialectRequest): number {
  const raw = req.headers['sforce-query-options'];
  const m = /batchSize=(\d{1,4})/i.exec(Array.isArray(raw) ? raw.join(',') : (raw ?? ''));
  return m === null ? 200 : Math.max(1, Math.min(2000, Number(m[1])));
}

function result<T>(
  req: DialectRequest,
  items: readonly T[],
  show: (t: T) => unknown,
  loc: Locator,
): Rendered {
  const rows = items.slice(loc.at, loc.at + loc.size);
  const done = loc.at + loc.size >= items.length;
  const next = Buffer.from(JSON.stringify({ ...loc, at: loc.at + loc.size })).toString('base64url');
  return {
    status: 200,
    headers: {},
    body: {
      totalSize: items.length,
      done,
      ...(done ? {} : { nextRecordsUrl: `/v1/${req.org.slug}/query/01g${next}-${loc.at + loc.size}` }),
      records: rows.map(show),
    },
  };
}

/** The WHERE clause of a SOQL statement: `Status__c = 'Live'`, `Status__c IN (…)`, datetime bounds, AND. */
function where(q: string): SessionFilter {
  if (q.trim() === '') return {};
  const m = /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+))?\s*$/i.exec(q);
  if (m === null) throw soqlError('MALFORMED_QUERY', `unexpected token: '${q.split(/\s+/)[0]}'`);
  if (m[2] !== 'Session__c') throw soqlError('INVALID_TYPE', `sObject type '${m[2]}' is not supported.`);
  const f: SessionFilter = {};
  if (m[3] === undefined) return f;
  for (const clause of m[3].split(/\s+AND\s+/i)) {
    const c = clause.trim();
    const field = /^(\w+)/.exec(c)?.[1] ?? c;
    if (!SESSION_FIELDS.includes(field)) {
      throw soqlError('INVALID_FIELD', `No such column '${field}' on entity 'Session__c'.`);
    }
    let x = /^Status__c\s*=\s*'([^']*)'$/i.exec(c);
    if (x !== null) {
      const s = wordBack(SESSION, x[1]!);
      f.statuses = new Set(s === undefined ? [] : [s]);
      continue;
    }
    x = /^Status__c\s+IN\s*\(([^)]*)\)$/i.exec(c);
    if (x !== null) {
      const words = x[1]!.split(',').map((w) => w.trim().replace(/^'|'$/g, ''));
      f.statuses = new Set(words.map((w) => wordBack(SESSION, w)).filter((s) => s !== undefined));
      continue;
    }
    x = /^(\w+)\s*(>=|>|<=|<)\s*(\S+)$/.exec(c);
    if (x !== null) {
      const ms = Date.parse(x[3]!);
      if (!Number.isFinite(ms))
        throw soqlError(
          'MALFORMED_QUERY',
          `value of filter criterion for field '${x[1]}' must be of type dateTime`,
        );
      if (x[2]!.startsWith('>')) f.from = ms;
      else f.to = ms;
      continue;
    }
    throw soqlError('MALFORMED_QUERY', `unexpected token: '${c}'`);
  }
  return f;
}

function member(req: DialectRequest, m: SimMember) {
  const id = sfId('005', m.id);
  return {
    attributes: attributes('User', id),
    Id: id,
    Name: m.name,
    Email: m.email,
    UserRole: { Name: m.role },
    IsActive: true,
    CreatedDate: dt(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  const id = sfId('a01', c.id);
  return {
    attributes: attributes('Channel__c', id),
    Id: id,
    Name: c.name,
    Status__c: CHANNEL[c.status],
    Visibility__c: c.visibility[0]!.toUpperCase() + c.visibility.slice(1),
    CreatedDate: dt(real(req.world, c.createdAt)),
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  const id = sfId('a02', s.id);
  return {
    attributes: attributes('Session__c', id),
    Id: id,
    Name: s.title,
    Channel__c: sfId('a01', s.channel.id),
    Status__c: SESSION[s.status],
    Scheduled_Start__c: dt(t.scheduled),
    Actual_Start__c: dt(t.started),
    Actual_End__c: dt(t.ended),
  };
}

function child(type: string, items: SubItem[]) {
  if (items.length === 0) return null;
  return {
    totalSize: items.length,
    done: true,
    records: items.map(({ id, at, ...rest }) => {
      const sf = sfId('a03', `${type}/${id}`);
      return {
        attributes: attributes(type, sf),
        Id: sf,
        ...Object.fromEntries(
          Object.entries(rest).map(([k, v]) => [`${k[0]!.toUpperCase()}${k.slice(1)}__c`, v]),
        ),
        CreatedDate: at === undefined ? null : dt(at),
      };
    }),
  };
}

function sessionsOf(req: DialectRequest, path: string, q: string, at: number, size: number): Rendered {
  const segs = path.split('/');
  const ch = req.org.channelById.get(findId(req.org.channels, segs[4] ?? '', (c) => sfId('a01', c.id)));
  if (ch === undefined) return notServed();
  const picked = filterSessions(req.world, ch.sessions, where(q));
  return result(req, picked, (s) => session(req, s), { path, q, at, size });
}

function list(req: DialectRequest, path: string, q: string, at: number, size: number): Rendered {
  const { org } = req;
  if (path.endsWith('/team')) return result(req, org.members, (m) => member(req, m), { path, q, at, size });
  if (path.endsWith('/channels'))
    return result(req, org.channels, (c) => channel(req, c), { path, q, at, size });
  return sessionsOf(req, path, q, at, size);
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  const size = batchSize(req);
  switch (req.kind) {
    case 'org': {
      const id = sfId('00D', org.slug);
      return one({
        attributes: attributes('Organization', id),
        Id: id,
        Name: org.name,
        OrganizationType: org.plan,
        DefaultVisibility__c: org.settings.default_visibility,
        AiEnabled__c: org.settings.ai_enabled,
        LanguageLocaleKey: org.settings.language,
        TimeZoneSidKey: org.settings.timezone,
        CreatedDate: dt(real(world, org.createdAt)),
      });
    }
    case 'subscription': {
      const f = org.funding;
      const id = sfId('a04', org.slug);
      const lim = PLAN_LIMITS[org.plan];
      return one({
        attributes: attributes('Subscription__c', id),
        Id: id,
        Plan__c: org.plan,
        Status__c: org.subscriptionStatus,
        Channel_Limit__c: lim.channels,
        Member_Limit__c: lim.members,
        AI_Minute_Limit__c: lim.ai_minutes,
        Concurrent_Live_Limit__c: lim.concurrent_live,
        Channels_Used__c: org.channels.length,
        Members_Used__c: org.members.length,
        AI_Minutes_Used__c: Math.floor(org.aiMinutesUsed),
        AI_Funding_Type__c: f.mode === 'wallet' ? 'Wallet' : 'BYOK',
        ...(f.mode === 'wallet'
          ? { AI_Balance__c: f.balance, CurrencyIsoCode: f.currency }
          : { AI_Provider__c: f.provider, AI_Key_Status__c: f.keyStatus }),
      });
    }
    case 'team':
    case 'channels':
    case 'sessions':
      return list(req, req.pathname, req.query.get('q') ?? '', 0, size);
    case 'more': {
      const m = /^01g([A-Za-z0-9_-]+)-\d+$/.exec(req.locator ?? '');
      let loc: Locator | null = null;
      try {
        loc = m === null ? null : (JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Locator);
      } catch {
        loc = null;
      }
      if (loc === null || typeof loc.path !== 'string') {
        throw new DialectError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
      }
      return list(req, loc.path, loc.q, loc.at, loc.size);
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one({
        ...session(req, s),
        Reactions_Total__c: items.reactionsTotal,
        AI_Status__c: s.aiStatus,
        AI_Enabled__c: s.aiEnabled,
        Questions__r: child('Question__c', subList(world, s, 'questions')),
        Announcements__r: child('Announcement__c', subList(world, s, 'announcements')),
        Speakers__r: child('Speaker__c', subList(world, s, 'speakers')),
      });
    }
    case 'sub':
      return notServed();
  }
}

const CODES: Readonly<Record<number, string>> = {
  401: 'INVALID_SESSION_ID',
  403: 'INSUFFICIENT_ACCESS',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
};

function error(status: number, code: string, message: string, _param?: string): ErrorAnswer {
  const errorCode = CODES[status] ?? (/^[A-Z_]+$/.test(code) ? code : 'MALFORMED_QUERY');
  const text =
    status === 401
      ? 'Session expired or invalid'
      : status === 404
        ? 'The requested resource does not exist'
        : message;
  return { status, headers: {}, body: [{ message: text, errorCode, fields: [] }] };
}

function rateHeaders(r: RateState): Record<string, string> {
  return { 'sforce-limit-info': `api-usage=${r.limit - r.remaining}/${r.limit}` };
}

/** Salesforce REST, as https://developer.salesforce.com/docs/platform/api-rest documents it. */
export const salesforce: FaithfulDialect = {
  name: 'salesforce',
  description:
    'Salesforce: records + done + nextRecordsUrl (query locator), SOQL in q, __c fields, error arrays',
  docs: [
    'https://developer.salesforce.com/docs/platform/api-rest/guide/dome-query.html',
    'https://developer.salesforce.com/docs/platform/api-rest/guide/resources-query.html',
    'https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/',
    'https://developer.salesforce.com/docs/platform/api-rest/guide/errorcodes.html',
  ],
  facets: {
    envelope: '`{totalSize, done, records: [{attributes, Id, …}]}`',
    paging: '`nextRecordsUrl` (a locator path `/v1/{org}/query/01g…`) while `done` is false',
    filters: "SOQL in `q`: `SELECT Id FROM Session__c WHERE Status__c = 'Live' AND Actual_End__c >= …`",
    errors: '`[{message, errorCode: "INVALID_FIELD", fields}]`',
    rateLimits: '`Sforce-Limit-Info: api-usage=n/m`; over the limit 403 `REQUEST_LIMIT_EXCEEDED`',
    money: '`AI_Balance__c: 12.34` beside `CurrencyIsoCode: "EUR"` (major)',
    times: '`2030-01-07T09:00:00.000+0000` (`Scheduled_Start__c`, `Actual_Start__c`, `Actual_End__c`)',
    casing: 'PascalCase with `__c` custom suffixes',
    ids: '18-character ids (`a01…`)',
    subResources: 'child relationships `Questions__r: {totalSize, done, records}` (null when empty)',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => sfId('a01', c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => sfId('a02', s.id)),
  subPaths: [],
  morePath: true,
  render,
  error,
  tooMany: (r) => ({
    status: 403,
    headers: rateHeaders({ ...r, remaining: 0 }),
    body: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }],
  }),
  rateHeaders,
};
