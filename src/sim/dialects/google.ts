/**
 * Google APIs (the AIPs). Follows:
 * - https://google.aip.dev/158 — `pageSize` / `pageToken` in, `nextPageToken` out (empty
 *   or absent at the end), a token of another query refused as INVALID_ARGUMENT.
 * - https://google.aip.dev/160 — one `filter` expression: `state = "RUNNING" AND
 *   endTime >= "2030-01-07T00:00:00Z"`.
 * - https://google.aip.dev/132, https://google.aip.dev/122 — the list under the resource's
 *   plural (`channels`, `sessions`), resources named by `name`
 *   (`organizations/demo/channels/ch_000006`), sub-collections on their own paths.
 * - https://google.aip.dev/193 — `{error: {code, message, status, details}}` with
 *   `google.rpc.BadRequest` field violations and, for 429 RESOURCE_EXHAUSTED,
 *   `google.rpc.RetryInfo` (no Retry-After header).
 * - https://google.aip.dev/142, https://google.aip.dev/216 — `*Time` RFC 3339 timestamps,
 *   `state` enums in UPPER_SNAKE_CASE. Money as `google.type.Money` (`units` an int64
 *   string, `nanos`). Unknown query parameters are refused, as HTTP transcoding does.
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
  intParam,
  real,
  type SessionFilter,
  statusesFrom,
  subItems,
  times,
  token,
  untoken,
  notServed,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'STREAMING', idle: 'READY', offline: 'STOPPED' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'SCHEDULED',
  live: 'RUNNING',
  ended: 'SUCCEEDED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};
const ts = (ms: number | null) => (ms === null ? undefined : fmt.isoSeconds(ms));

function invalid(field: string, description: string): DialectError {
  return new DialectError(400, 'INVALID_ARGUMENT', description, field);
}

function refuseUnknown(q: URLSearchParams, known: readonly string[]): void {
  for (const k of q.keys()) {
    if (!known.includes(k)) {
      throw invalid(
        k,
        `Invalid JSON payload received. Unknown name "${k}": Cannot bind query parameter. Field '${k}' could not be found in request message.`,
      );
    }
  }
}

function list<T>(
  req: DialectRequest,
  key: string,
  items: readonly T[],
  show: (t: T) => unknown,
  filter = false,
): Rendered {
  refuseUnknown(req.query, ['pageSize', 'pageToken', ...(filter ? ['filter'] : [])]);
  const size = Math.min(intParam(req.query, 'pageSize', 50, 1_000_000), 1000);
  const tag = `${req.pathname}|${req.query.get('filter') ?? ''}`;
  let offset: number;
  try {
    offset = untoken('pageToken', req.query.get('pageToken'), tag);
  } catch {
    throw invalid('pageToken', 'The page token is invalid or does not match the request.');
  }
  const more = offset + size < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      [key]: items.slice(offset, offset + size).map(show),
      ...(more ? { nextPageToken: token(offset + size, tag) } : {}),
    },
  };
}

/** AIP-160: `state = "X"`, `state = "X" OR state = "Y"`, `<time> >= "…"` joined by AND. */
function sessionFilter(raw: string | null): SessionFilter {
  if (raw === null || raw.trim() === '') return {};
  const f: SessionFilter = {};
  for (const term of raw.split(/\s+AND\s+/)) {
    const t = term.trim().replace(/^\((.*)\)$/, '$1');
    const states = [...t.matchAll(/state\s*=\s*"?([A-Z_]+)"?/g)].map((m) => m[1]!);
    if (states.length > 0 && /^(state\s*=\s*"?[A-Z_]+"?\s*(OR\s+)?)+$/.test(t)) {
      f.statuses = statusesFrom('filter', states.join(','), SESSION);
      continue;
    }
    const m = /^(\w+)\s*(>=|>|<=|<)\s*"?([^"]+)"?$/.exec(t);
    if (m !== null && ['startTime', 'endTime', 'scheduleTime'].includes(m[1]!)) {
      const ms = Date.parse(m[3]!);
      if (!Number.isFinite(ms)) throw invalid('filter', `Invalid timestamp "${m[3]}" in filter.`);
      if (m[2]!.startsWith('>')) f.from = ms;
      else f.to = ms;
      continue;
    }
    throw invalid('filter', `Unsupported filter term: ${t}`);
  }
  return f;
}

function money(amount: number, currency: string) {
  const units = Math.trunc(amount);
  return { currencyCode: currency, units: String(units), nanos: Math.round((amount - units) * 1e9) };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const root = `organizations/${org.slug}`;
  const one = (body: unknown): Rendered => {
    refuseUnknown(req.query, []);
    return { status: 200, headers: {}, body };
  };
  const member = (m: SimMember) => ({
    name: `${root}/members/${m.id}`,
    displayName: m.name,
    email: m.email,
    role: m.role.toUpperCase(),
    createTime: ts(real(world, m.joinedAt)),
  });
  const channel = (c: SimChannel) => ({
    name: `${root}/channels/${c.id}`,
    displayName: c.name,
    state: CHANNEL[c.status],
    visibility: c.visibility.toUpperCase(),
    createTime: ts(real(world, c.createdAt)),
  });
  const session = (s: SimSession) => {
    const t = times(world, s);
    return {
      name: `${root}/sessions/${s.id}`,
      channel: `${root}/channels/${s.channel.id}`,
      displayName: s.title,
      state: SESSION[s.status],
      scheduleTime: ts(t.scheduled),
      startTime: ts(t.started),
      endTime: ts(t.ended),
    };
  };
  switch (req.kind) {
    case 'org':
      return one({
        name: root,
        displayName: org.name,
        plan: org.plan.toUpperCase(),
        settings: {
          defaultVisibility: org.settings.default_visibility.toUpperCase(),
          aiEnabled: org.settings.ai_enabled,
          languageCode: org.settings.language,
          timeZone: { id: org.settings.timezone },
        },
        createTime: ts(real(world, org.createdAt)),
      });
    case 'team':
      return list(req, 'members', org.members, member);
    case 'subscription': {
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      const int64 = (n: number | null) => (n === null ? undefined : String(n));
      return one({
        name: `${root}/subscription`,
        plan: org.plan.toUpperCase(),
        state: org.subscriptionStatus.toUpperCase(),
        limits: {
          channels: int64(lim.channels),
          members: int64(lim.members),
          aiMinutes: int64(lim.ai_minutes),
          concurrentLive: int64(lim.concurrent_live),
        },
        usage: {
          channels: String(org.channels.length),
          members: String(org.members.length),
          aiMinutes: String(Math.floor(org.aiMinutesUsed)),
          concurrentLive: String(org.liveSessions),
        },
        aiFunding:
          f.mode === 'wallet'
            ? { wallet: { balance: money(f.balance, f.currency) } }
            : { byok: { provider: f.provider, keyState: f.keyStatus.toUpperCase() } },
      });
    }
    case 'channels':
      return list(req, 'channels', org.channels, channel);
    case 'sessions': {
      refuseUnknown(req.query, ['pageSize', 'pageToken', 'filter']);
      const picked = filterSessions(world, req.channel!.sessions, sessionFilter(req.query.get('filter')));
      return list(req, 'sessions', picked, session, true);
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      return one({
        ...session(s),
        reactions: {
          totalCount: String(items.reactionsTotal),
          counts: Object.fromEntries(items.reactions.map((r) => [r.kind, String(r.count)])),
        },
        ai: { state: s.aiStatus.toUpperCase(), enabled: s.aiEnabled },
      });
    }
    case 'more':
      return notServed();
    case 'sub': {
      const s = req.session!;
      const name = req.sub as Exclude<SubName, 'reactions'>;
      return list(req, name, subItems(world, s)[name] as { id: string; at: number }[], (x) => {
        const { at, id, ...rest } = x as { at: number; id: string };
        return { name: `${root}/sessions/${s.id}/${name}/${id}`, ...rest, createTime: ts(at) };
      });
    }
  }
}

const STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  429: 'RESOURCE_EXHAUSTED',
};

function error(status: number, _code: string, message: string, param?: string): ErrorAnswer {
  const details =
    status === 400 && param !== undefined
      ? [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: param, description: message }],
          },
        ]
      : [];
  return {
    status,
    headers: {},
    body: { error: { code: status, message, status: STATUS[status] ?? 'INTERNAL', details } },
  };
}

/** Google APIs, as the AIPs at https://google.aip.dev document them. */
export const google: FaithfulDialect = {
  name: 'google',
  description:
    'Google AIPs: plural list keys, nextPageToken/pageToken/pageSize, AIP-160 filter, google.rpc errors',
  docs: [
    'https://google.aip.dev/158',
    'https://google.aip.dev/160',
    'https://google.aip.dev/132',
    'https://google.aip.dev/122',
    'https://google.aip.dev/193',
    'https://google.aip.dev/216',
  ],
  facets: {
    envelope: 'list under the plural (`{channels: [...], nextPageToken}`)',
    paging: '`nextPageToken` → `pageToken`, `pageSize` ≤ 1000',
    filters: '`filter=state = "RUNNING" AND endTime >= "…"` (AIP-160); unknown params 400',
    errors: '`{error: {code, message, status, details: [google.rpc.BadRequest]}}`',
    rateLimits: '429 RESOURCE_EXHAUSTED with `google.rpc.RetryInfo`, no header',
    money: '`google.type.Money` `{currencyCode, units: "12", nanos: 340000000}`',
    times: 'RFC 3339 `…Z` (`createTime`, `scheduleTime`, `startTime`, `endTime`)',
    casing: 'camelCase; enums UPPER_SNAKE (`RUNNING`, `SUCCEEDED`)',
    ids: 'resource names (`organizations/demo/channels/ch_000006`), no `id`',
    subResources: 'sub-collections on their own paths (`…/sessions/{id}/questions`)',
  },
  channelId: (_org, seg) => seg,
  sessionId: (_org, seg) => seg,
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: {},
    body: {
      error: {
        code: 429,
        message: 'Quota exceeded for quota metric "Read requests" of service.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${r.resetSeconds}s` }],
      },
    },
  }),
  rateHeaders: () => ({}),
};
