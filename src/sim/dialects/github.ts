/**
 * GitHub REST. Follows:
 * - https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api —
 *   lists are bare arrays; `per_page` (default 30, max 100) and `page`; the `Link` header
 *   names `next`, `last`, `first`, `prev` with absolute URLs and is omitted on one page.
 * - https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api —
 *   `x-ratelimit-limit/-remaining/-used/-reset` (epoch seconds)/`-resource` on every
 *   answer; over the primary limit 429 with `x-ratelimit-remaining: 0`, no Retry-After.
 * - https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api —
 *   errors `{message, documentation_url, status}`; 422 "Validation Failed" with `errors`.
 * - https://docs.github.com/en/rest/actions/workflow-runs — `status` (queued,
 *   in_progress, completed) beside `conclusion` (success, failure, cancelled); the
 *   `created` filter as a date range `A..B`, `>=A`, `<=B`.
 * Numeric ids beside `node_id`; ISO 8601 times without fractions; sub-resources behind
 * `*_url` fields with counts, reactions inline; plan as an object; prices in cents.
 */
import { PLAN_LIMITS, type SimChannel, type SimMember, type SimSession } from '../model.js';
import type { Rendered } from '../render.js';
import {
  DialectError,
  filterSessions,
  fmt,
  idNumber,
  intParam,
  linkHeader,
  minor,
  notServed,
  real,
  subItems,
  times,
  usageOf,
  withParams,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, RateState } from './types.js';

const DOCS = 'https://docs.github.com/rest';

const RUN: Record<SimSession['status'], { status: string; conclusion: string | null }> = {
  scheduled: { status: 'queued', conclusion: null },
  live: { status: 'in_progress', conclusion: null },
  ended: { status: 'completed', conclusion: 'success' },
  failed: { status: 'completed', conclusion: 'failure' },
  cancelled: { status: 'completed', conclusion: 'cancelled' },
};
const VISIBILITY = { public: 'public', private: 'private', unlisted: 'internal' } as const;

const nodeId = (kind: string, id: string) => Buffer.from(`${kind}:${idNumber(id)}`).toString('base64');
const at = (ms: number | null) => (ms === null ? null : fmt.isoSeconds(ms));

function page<T>(req: DialectRequest, items: readonly T[], show: (t: T) => unknown): Rendered {
  const perPage = intParam(req.query, 'per_page', 30, 100);
  const n = intParam(req.query, 'page', 1, 1_000_000);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const url = (p: number) => withParams(req, req.pathname, { page: String(p), per_page: String(perPage) });
  const links: [string, string][] = [];
  if (n > 1) links.push([url(Math.min(n - 1, last)), 'prev']);
  if (n < last) links.push([url(n + 1), 'next'], [url(last), 'last']);
  if (n > 1) links.push([url(1), 'first']);
  return {
    status: 200,
    headers: links.length === 0 ? {} : { link: linkHeader(links) },
    body: items.slice((n - 1) * perPage, n * perPage).map(show),
  };
}

function member(req: DialectRequest, m: SimMember) {
  return {
    login: m.email.split('@')[0],
    id: idNumber(m.id),
    node_id: nodeId('User', m.id),
    name: m.name,
    email: m.email,
    role: m.role,
    type: 'User',
    site_admin: false,
    created_at: at(real(req.world, m.joinedAt)),
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  const base = `${req.origin}/v1/${req.org.slug}/channels/${idNumber(c.id)}`;
  return {
    id: idNumber(c.id),
    node_id: nodeId('Channel', c.id),
    name: c.name,
    state: c.status,
    visibility: VISIBILITY[c.visibility],
    created_at: at(real(req.world, c.createdAt)),
    url: base,
    sessions_url: `${base}/sessions`,
  };
}

function session(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  return {
    id: idNumber(s.id),
    node_id: nodeId('Session', s.id),
    channel_id: idNumber(s.channel.id),
    name: s.title,
    ...RUN[s.status],
    run_started_at: at(t.started),
    created_at: at(t.scheduled),
    updated_at: at(t.ended ?? t.started ?? t.scheduled),
    url: `${req.origin}/v1/${req.org.slug}/sessions/${idNumber(s.id)}`,
  };
}

function detail(req: DialectRequest, s: SimSession) {
  const items = subItems(req.world, s);
  const base = `${req.origin}/v1/${req.org.slug}/sessions/${idNumber(s.id)}`;
  return {
    ...session(req, s),
    questions: items.questions.length,
    questions_url: `${base}/questions`,
    announcements: items.announcements.length,
    announcements_url: `${base}/announcements`,
    speakers_url: `${base}/speakers`,
    reactions: {
      url: `${base}/reactions`,
      total_count: items.reactionsTotal,
      ...Object.fromEntries(items.reactions.map((r) => [r.kind, r.count])),
    },
    ai: { status: s.aiStatus, enabled: s.aiEnabled },
  };
}

function validation(field: string, message: string): DialectError {
  return new DialectError(422, 'invalid', message, field);
}

/** `created=A..B`, `>=A`, `<=B`, `>A`, `<B` or a single day. */
function createdRange(raw: string): { from: number | null; to: number | null } {
  const parse = (v: string) => {
    const ms = Date.parse(v);
    if (!Number.isFinite(ms))
      throw validation('created', `created: ${JSON.stringify(raw)} is not a date range`);
    return ms;
  };
  if (raw.includes('..')) {
    const [a, b] = raw.split('..');
    return { from: a === '*' || a === '' ? null : parse(a!), to: b === '*' || b === '' ? null : parse(b!) };
  }
  const m = /^(>=|<=|>|<)(.+)$/.exec(raw);
  if (m !== null)
    return m[1]!.startsWith('>') ? { from: parse(m[2]!), to: null } : { from: null, to: parse(m[2]!) };
  const day = parse(raw);
  return { from: day, to: day + 86_399_999 };
}

function sessions(req: DialectRequest, all: readonly SimSession[]): Rendered {
  const q = req.query;
  const status = q.get('status');
  let statuses: Set<SimSession['status']> | null = null;
  if (status !== null && status !== '') {
    statuses = new Set(
      (Object.keys(RUN) as SimSession['status'][]).filter(
        (k) => RUN[k].status === status || RUN[k].conclusion === status,
      ),
    );
    if (statuses.size === 0) throw validation('status', `status: ${JSON.stringify(status)} is not valid`);
  }
  const created = q.get('created');
  const range = created === null || created === '' ? { from: null, to: null } : createdRange(created);
  return page(req, filterSessions(req.world, all, { statuses, ...range }), (s) => session(req, s));
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  switch (req.kind) {
    case 'org':
      return one({
        login: org.slug,
        id: 1,
        node_id: nodeId('Organization', 'org_1'),
        name: org.name,
        ...org.settings,
        plan: { name: org.plan, filled_seats: org.members.length },
        created_at: at(real(world, org.createdAt)),
      });
    case 'team':
      return page(req, org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        plan: { name: org.plan },
        state: org.subscriptionStatus,
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: usageOf(org),
        ai_billing:
          f.mode === 'wallet'
            ? { source: 'wallet', balance_in_cents: minor(f.balance, f.currency), currency: f.currency }
            : { source: 'byok', provider: f.provider, key_state: f.keyStatus },
      });
    }
    case 'channels':
      return page(req, org.channels, (c) => channel(req, c));
    case 'sessions':
      return sessions(req, req.channel!.sessions);
    case 'session':
      return one(detail(req, req.session!));
    case 'more':
      return notServed();
    case 'sub': {
      const items = subItems(world, req.session!)[req.sub as 'questions'];
      return page(req, items, (x) => {
        const { at: when, ...rest } = x as { at?: number };
        return { ...rest, created_at: when === undefined ? null : at(when) };
      });
    }
  }
}

function error(status: number, _code: string, message: string, param?: string): ErrorAnswer {
  if (status === 401)
    return {
      status,
      headers: {},
      body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' },
    };
  if (status === 404)
    return { status, headers: {}, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
  if (status === 400 || status === 422) {
    return {
      status: 422,
      headers: {},
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'Session', field: param ?? 'query', code: 'invalid', message }],
        documentation_url: DOCS,
        status: '422',
      },
    };
  }
  return { status, headers: {}, body: { message, documentation_url: DOCS, status: String(status) } };
}

function rateHeaders(r: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(r.limit),
    'x-ratelimit-remaining': String(r.remaining),
    'x-ratelimit-used': String(r.limit - r.remaining),
    'x-ratelimit-reset': String(Math.ceil(r.now / 1000) + r.resetSeconds),
    'x-ratelimit-resource': 'core',
  };
}

const sessionByNumber = (_org: DialectRequest['org'], seg: string) => {
  if (!/^\d{1,12}$/.test(seg)) return seg;
  return `ses_${seg.padStart(8, '0')}`;
};

/** GitHub REST, as https://docs.github.com/en/rest documents it. */
export const github: FaithfulDialect = {
  name: 'github',
  description: 'GitHub REST: bare arrays, Link header with page numbers, x-ratelimit-*, numeric ids',
  docs: [
    'https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api',
    'https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api',
    'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api',
    'https://docs.github.com/en/rest/actions/workflow-runs',
  ],
  facets: {
    envelope: 'bare JSON arrays',
    paging: '`Link` header (`next`, `last` …) with `page`, `per_page` ≤ 100',
    filters: '`status=` (a status or a conclusion), `created=A..B` / `>=A`',
    errors: '`{message, documentation_url, status}`; 422 "Validation Failed" with `errors[]`',
    rateLimits: '`x-ratelimit-*` on every answer (reset in epoch s); 429, no Retry-After',
    money: '`ai_billing.balance_in_cents` (integer) beside `currency`',
    times: 'ISO 8601 without fractions (`created_at`, `run_started_at`, `updated_at`)',
    casing: 'snake_case',
    ids: 'numbers (`6`) beside base64 `node_id`; paths by number',
    subResources: '`questions_url`, `speakers_url` … with counts; reactions inline',
  },
  channelId: (_org, seg) => (/^\d{1,12}$/.test(seg) ? `ch_${seg.padStart(6, '0')}` : seg),
  sessionId: sessionByNumber,
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { ...rateHeaders(r), 'x-ratelimit-remaining': '0' },
    body: { message: 'API rate limit exceeded.', documentation_url: DOCS, status: '429' },
  }),
  rateHeaders,
};
