/**
 * Atlassian Jira Cloud REST. Follows:
 * - https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#pagination — a page
 *   `{self, startAt, maxResults, total, isLast, values}`; `startAt` / `maxResults`, the
 *   server cutting `maxResults` to its own cap without an error.
 * - https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#status-codes —
 *   errors `{errorMessages: [...], errors: {field: message}}`.
 * - https://developer.atlassian.com/cloud/jira/platform/rate-limiting/ — 429 with
 *   Retry-After, `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (an ISO
 *   8601 instant), `RateLimit-Reason`; `X-RateLimit-NearLimit: true` below a fifth left.
 * - https://support.atlassian.com/jira-software-cloud/docs/jql-fields/ — one `jql`
 *   expression: `status = "On Air"`, `status in (…)`, `resolved >= "2030-01-06 09:00"`.
 * - https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/ — objects
 *   `{id: "10006", key, self, fields: {...}}`, `status: {name, statusCategory: {key}}`,
 *   times `2030-01-07T09:00:00.000+0000`, camelCase, comment-like sub-lists embedded as
 *   `{startAt, maxResults, total, <items>}` and on their own paths.
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
  type SessionFilter,
  subItems,
  subList,
  type SubItem,
  times,
  withParams,
  notServed,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState, SubName } from './types.js';

const CAP = 50;
const BASE = 10_000;
type Category = 'new' | 'indeterminate' | 'done';
const CHANNEL: Record<SimChannel['status'], [string, Category]> = {
  live: ['On Air', 'indeterminate'],
  idle: ['Standby', 'new'],
  offline: ['Off Air', 'done'],
};
const SESSION: Record<SessionStatus, [string, Category]> = {
  scheduled: ['Scheduled', 'new'],
  live: ['On Air', 'indeterminate'],
  ended: ['Done', 'done'],
  failed: ['Failed', 'done'],
  cancelled: ["Won't Do", 'done'],
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const jiraTime = (ms: number | null) => (ms === null ? null : fmt.isoPlus0000(ms));
const num = (id: string) => String(BASE + idNumber(id));
const status = ([name, key]: [string, Category], id: number) => ({
  name,
  id: String(id),
  statusCategory: { key, name: key === 'new' ? 'To Do' : key === 'done' ? 'Done' : 'In Progress' },
});

function jql(message: string): DialectError {
  return new DialectError(400, 'jql', message, 'jql');
}

function pageBean<T>(
  req: DialectRequest,
  items: readonly T[],
  show: (t: T) => unknown,
  key = 'values',
): Rendered {
  const startAt = offsetParam(req.query, 'startAt');
  const raw = req.query.get('maxResults');
  const asked = raw === null || !/^\d{1,9}$/.test(raw) ? CAP : Number(raw);
  const maxResults = Math.max(1, Math.min(asked, CAP));
  const rows = items.slice(startAt, startAt + maxResults);
  return {
    status: 200,
    headers: {},
    body: {
      self: withParams(req, req.pathname, {}),
      maxResults,
      startAt,
      total: items.length,
      isLast: startAt + maxResults >= items.length,
      [key]: rows.map(show),
    },
  };
}

/** JQL: `status = "X"`, `status in ("X", "Y")`, `resolved >= "…"`, `started <= "…"` joined by AND. */
function parseJql(raw: string | null): SessionFilter {
  if (raw === null || raw.trim() === '') return {};
  const f: SessionFilter = {};
  const byName = (n: string) => {
    const s = (Object.keys(SESSION) as SessionStatus[]).find(
      (k) => SESSION[k][0].toLowerCase() === n.toLowerCase(),
    );
    if (s === undefined) throw jql(`The value '${n}' does not exist for the field 'status'.`);
    return s;
  };
  for (const clause of raw.split(/\s+AND\s+/i)) {
    const c = clause.trim();
    let m = /^status\s*=\s*"([^"]*)"$/i.exec(c);
    if (m !== null) {
      f.statuses = new Set([byName(m[1]!)]);
      continue;
    }
    m = /^status\s+in\s*\(([^)]*)\)$/i.exec(c);
    if (m !== null) {
      f.statuses = new Set(m[1]!.split(',').map((x) => byName(x.trim().replace(/^"|"$/g, ''))));
      continue;
    }
    m = /^(\w+)\s*(>=|>|<=|<)\s*"([^"]*)"$/.exec(c);
    if (m !== null && ['resolved', 'started', 'planned'].includes(m[1]!)) {
      const ms = Date.parse(m[3]!.replace(' ', 'T') + (m[3]!.length <= 16 ? ':00Z' : ''));
      if (!Number.isFinite(ms)) throw jql(`Date value '${m[3]}' for field '${m[1]}' is invalid.`);
      if (m[2]!.startsWith('>')) f.from = ms;
      else f.to = ms;
      continue;
    }
    const field = /^(\w+)/.exec(c)?.[1] ?? c;
    throw jql(`Field '${field}' does not exist or you do not have permission to view it.`);
  }
  return f;
}

function member(req: DialectRequest, m: SimMember) {
  return {
    self: `${req.origin}/v1/${req.org.slug}/team/${num(m.id)}`,
    accountId: `5b10a2844c20165700ede${num(m.id)}`,
    accountType: 'atlassian',
    displayName: m.name,
    emailAddress: m.email,
    active: true,
    groups: { items: [{ name: m.role }] },
    created: jiraTime(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    self: `${req.origin}/v1/${req.org.slug}/channels/${num(c.id)}`,
    id: num(c.id),
    key: `CH${idNumber(c.id)}`,
    name: c.name,
    status: status(CHANNEL[c.status], 1),
    isPrivate: c.visibility === 'private',
    visibility: c.visibility,
    created: jiraTime(real(req.world, c.createdAt)),
  };
}

function embeddedPage(items: SubItem[], key: string) {
  return { startAt: 0, maxResults: 20, total: items.length, [key]: items.slice(0, 20).map(subItem) };
}

function subItem({ id, at, ...rest }: SubItem) {
  return { id: String(id), ...rest, created: at === undefined ? null : jiraTime(at) };
}

function session(req: DialectRequest, s: SimSession, withSubs = false) {
  const t = times(req.world, s);
  const fields: Record<string, unknown> = {
    summary: s.title,
    project: { id: num(s.channel.id), key: `CH${idNumber(s.channel.id)}` },
    status: status(SESSION[s.status], 10 + Object.keys(SESSION).indexOf(s.status)),
    plannedStart: jiraTime(t.scheduled),
    started: jiraTime(t.started),
    resolutiondate: jiraTime(t.ended),
  };
  if (withSubs) {
    for (const n of SUBS) fields[n] = embeddedPage(subList(req.world, s, n), n);
    const items = subItems(req.world, s);
    fields['reactions'] = {
      total: items.reactionsTotal,
      byKind: Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
    };
    fields['ai'] = { status: s.aiStatus, enabled: s.aiEnabled };
  }
  return {
    id: num(s.id),
    key: `SES-${idNumber(s.id)}`,
    self: `${req.origin}/v1/${req.org.slug}/sessions/${num(s.id)}`,
    fields,
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  switch (req.kind) {
    case 'org':
      return one({
        self: `${req.origin}/v1/${org.slug}`,
        key: org.slug.toUpperCase(),
        name: org.name,
        plan: org.plan,
        settings: {
          defaultVisibility: org.settings.default_visibility,
          aiEnabled: org.settings.ai_enabled,
          language: org.settings.language,
          timeZone: org.settings.timezone,
        },
        created: jiraTime(real(world, org.createdAt)),
      });
    case 'team':
      return pageBean(req, org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      return one({
        plan: org.plan,
        status: org.subscriptionStatus,
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
            ? { type: 'wallet', balance: f.balance, currency: f.currency }
            : { type: 'byok', provider: f.provider, keyStatus: f.keyStatus },
      });
    }
    case 'channels':
      return pageBean(req, org.channels, (c) => channel(req, c));
    case 'sessions': {
      const picked = filterSessions(world, req.channel!.sessions, parseJql(req.query.get('jql')));
      return pageBean(req, picked, (s) => session(req, s));
    }
    case 'session':
      return one(session(req, req.session!, true));
    case 'more':
      return notServed();
    case 'sub':
      return pageBean(req, subList(world, req.session!, req.sub!), subItem, req.sub!);
  }
}

function error(status: number, _code: string, message: string, param?: string): ErrorAnswer {
  const errorMessages =
    status === 404
      ? ['The requested resource does not exist or you do not have permission to see it.']
      : status === 401
        ? ['You are not authenticated. Authentication required to perform this operation.']
        : [message];
  return {
    status,
    headers: {},
    body: { errorMessages, errors: param === undefined || param === 'jql' ? {} : { [param]: message } },
  };
}

function rateHeaders(r: RateState): Record<string, string> {
  return r.remaining < r.limit / 5 ? { 'x-ratelimit-nearlimit': 'true' } : {};
}

const byNumber = (prefix: string, pad: number) => (_org: unknown, seg: string) => {
  const key = /^[A-Z]+-?(\d+)$/.exec(seg);
  if (key !== null) return `${prefix}_${key[1]!.padStart(pad, '0')}`;
  return /^\d{5,12}$/.test(seg) ? `${prefix}_${String(Number(seg) - BASE).padStart(pad, '0')}` : seg;
};

/** Jira Cloud REST, as https://developer.atlassian.com/cloud/jira/platform/rest/v3 documents it. */
export const jira: FaithfulDialect = {
  name: 'jira',
  description: 'Atlassian Jira: values + startAt/maxResults/total/isLast (capped at 50), JQL, fields objects',
  docs: [
    'https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#pagination',
    'https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#status-codes',
    'https://developer.atlassian.com/cloud/jira/platform/rate-limiting/',
    'https://support.atlassian.com/jira-software-cloud/docs/jql-fields/',
    'https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/',
  ],
  facets: {
    envelope: '`{self, startAt, maxResults, total, isLast, values: [...]}`',
    paging: '`startAt` + `maxResults` (cut to 50 without an error), `isLast`',
    filters: '`jql=status = "On Air" AND resolved >= "2030-01-06 09:00"`',
    errors: '`{errorMessages: [...], errors: {}}`',
    rateLimits: '429 Retry-After + `X-RateLimit-*` (reset as ISO instant); `X-RateLimit-NearLimit`',
    money: '`aiFunding: {type, balance: 12.34, currency}` (major)',
    times: '`2030-01-07T09:00:00.000+0000` (`fields.plannedStart`, `started`, `resolutiondate`)',
    casing: 'camelCase; status as `{name: "On Air", statusCategory: {key}}`',
    ids: 'numeric strings (`"10006"`) + keys (`SES-6`)',
    subResources: 'embedded pages in `fields` (`{startAt, maxResults, total, questions}`) + own paths',
  },
  channelId: byNumber('ch', 6),
  sessionId: byNumber('ses', 8),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: {
      'retry-after': String(r.resetSeconds),
      'x-ratelimit-limit': String(r.limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': new Date(r.now + r.resetSeconds * 1000).toISOString(),
      'ratelimit-reason': 'jira-burst-based',
    },
    body: { errorMessages: ['Rate limit exceeded.'], errors: {} },
  }),
  rateHeaders,
};
