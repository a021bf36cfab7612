/**
 * Notion API. Follows:
 * - https://developers.notion.com/reference/intro#pagination — lists `{object: "list",
 *   results, next_cursor, has_more, type}`, `start_cursor` and `page_size` (≤ 100) in.
 * - https://developers.notion.com/reference/page and
 *   https://developers.notion.com/reference/page-property-values — records as pages whose
 *   `properties` are typed values: `title` rich text, `status` `{name}`, `select`, `date`
 *   `{start, end}`, `number`.
 * - https://developers.notion.com/reference/status-codes — errors `{object: "error",
 *   status, code, message}` (`validation_error`, `object_not_found`, `unauthorized`,
 *   429 `rate_limited` with Retry-After).
 * - https://developers.notion.com/reference/comment-object,
 *   https://developers.notion.com/reference/user — sub-records as comments and users on
 *   their own paths.
 * UUID ids, ISO 8601 times with milliseconds, snake_case envelope; GET lists take no
 * filter (Notion filters in POST query bodies), unknown parameters are ignored.
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
  findId,
  fmt,
  hexId,
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
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CHANNEL = { live: 'On air', idle: 'Standby', offline: 'Off air' } as const;
const SESSION: Record<SessionStatus, string> = {
  scheduled: 'Not started',
  live: 'In progress',
  ended: 'Done',
  failed: 'Failed',
  cancelled: 'Canceled',
};
const SUBS: readonly Exclude<SubName, 'reactions'>[] = ['questions', 'announcements', 'speakers'];
const uuid = (id: string) => {
  const h = hexId(id, 'notion', 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
};
const iso = (ms: number | null) => (ms === null ? null : fmt.iso(ms));
const richText = (text: string) => [
  {
    type: 'text',
    text: { content: text, link: null },
    plain_text: text,
    href: null,
    annotations: { bold: false },
  },
];
const title = (text: string) => ({ id: 'title', type: 'title', title: richText(text) });
const select = (id: string, name: string) => ({ id, type: 'select', select: { name, color: 'default' } });
const date = (id: string, start: number | null, end: number | null = null) => ({
  id,
  type: 'date',
  date: start === null ? null : { start: iso(start), end: iso(end), time_zone: null },
});

function list<T>(req: DialectRequest, items: readonly T[], show: (t: T) => unknown, type = 'page'): Rendered {
  const size = intParam(req.query, 'page_size', 100, 100);
  let offset: number;
  try {
    offset = untoken('start_cursor', req.query.get('start_cursor'), req.pathname);
  } catch {
    throw new DialectError(
      400,
      'validation_error',
      'body failed validation: start_cursor should be a valid cursor.',
      'start_cursor',
    );
  }
  const more = offset + size < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      object: 'list',
      results: items.slice(offset, offset + size).map(show),
      next_cursor: more ? token(offset + size, req.pathname) : null,
      has_more: more,
      type,
      [type]: {},
    },
  };
}

function page(id: string, created: number | null, properties: Record<string, unknown>) {
  return {
    object: 'page',
    id,
    created_time: iso(created),
    last_edited_time: iso(created),
    archived: false,
    in_trash: false,
    properties,
  };
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  const user = (m: SimMember) => ({
    object: 'user',
    id: uuid(m.id),
    type: 'person',
    name: m.name,
    avatar_url: null,
    person: { email: m.email },
    role: m.role,
  });
  const channel = (c: SimChannel) =>
    page(uuid(c.id), real(world, c.createdAt), {
      Name: title(c.name),
      State: select('st', CHANNEL[c.status]),
      Visibility: select('vi', c.visibility[0]!.toUpperCase() + c.visibility.slice(1)),
    });
  const session = (s: SimSession) => {
    const t = times(world, s);
    return page(uuid(s.id), t.scheduled, {
      Name: title(s.title),
      Status: { id: 'status', type: 'status', status: { name: SESSION[s.status], color: 'default' } },
      Channel: { id: 'ch', type: 'relation', relation: [{ id: uuid(s.channel.id) }], has_more: false },
      Scheduled: date('sc', t.scheduled),
      'On air': date('oa', t.started, t.ended),
    });
  };
  const comment = (parent: string) => (x: SubItem) => {
    const { id, at } = x;
    const text = typeof x['text'] === 'string' ? x['text'] : String(x['name'] ?? '');
    return {
      object: 'comment',
      id: uuid(`${parent}/${id}`),
      parent: { type: 'page_id', page_id: parent },
      created_time: iso(at ?? null),
      created_by: { object: 'user', id: uuid(String(x['author'] ?? 'anon')) },
      rich_text: richText(text),
    };
  };
  switch (req.kind) {
    case 'org':
      return one({
        object: 'workspace',
        id: uuid(org.slug),
        name: org.name,
        plan: org.plan,
        settings: { ...org.settings },
        created_time: iso(real(world, org.createdAt)),
      });
    case 'team':
      return list(req, org.members, user, 'user');
    case 'subscription': {
      const f = org.funding;
      const lim = PLAN_LIMITS[org.plan];
      const num = (id: string, n: number | null) => ({ id, type: 'number', number: n });
      return one(
        page(uuid(`sub/${org.slug}`), null, {
          Plan: select('pl', org.plan),
          Status: { id: 'status', type: 'status', status: { name: org.subscriptionStatus, color: 'green' } },
          'Channel limit': num('cl', lim.channels),
          'Member limit': num('ml', lim.members),
          'AI minutes limit': num('al', lim.ai_minutes),
          Channels: num('cu', org.channels.length),
          Members: num('mu', org.members.length),
          'AI minutes': num('au', Math.floor(org.aiMinutesUsed)),
          Funding: select('fu', f.mode === 'wallet' ? 'Wallet' : 'BYOK'),
          ...(f.mode === 'wallet'
            ? { Balance: num('ba', f.balance), Currency: select('cu2', f.currency) }
            : { Provider: select('pr', f.provider), 'Key status': select('ks', f.keyStatus) }),
        }),
      );
    }
    case 'channels':
      return list(req, org.channels, channel);
    case 'sessions':
      return list(req, req.channel!.sessions, session);
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      const body = session(s);
      Object.assign(body.properties, {
        Reactions: { id: 're', type: 'number', number: items.reactionsTotal },
        'AI status': select('ai', s.aiStatus),
      });
      return one(body);
    }
    case 'sub': {
      const s = req.session!;
      if (req.sub === 'speakers') {
        return list(
          req,
          subList(world, s, 'speakers'),
          (x) => ({
            object: 'user',
            id: uuid(`${s.id}/${x.id}`),
            type: 'person',
            name: x['name'],
            joined_time: iso(x.at ?? null),
          }),
          'user',
        );
      }
      return list(req, subList(world, s, req.sub!), comment(uuid(s.id)), 'comment');
    }
    case 'more':
      return notServed();
  }
}

const CODE: Readonly<Record<number, string>> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'restricted_resource',
  404: 'object_not_found',
  405: 'invalid_request',
  429: 'rate_limited',
};

function error(status: number, _code: string, message: string, _param?: string): ErrorAnswer {
  return {
    status,
    headers: {},
    body: { object: 'error', status, code: CODE[status] ?? 'internal_server_error', message },
  };
}

/** Notion, as https://developers.notion.com/reference documents it. */
export const notion: FaithfulDialect = {
  name: 'notion',
  description: 'Notion: object "list" + results + next_cursor/has_more, start_cursor, typed page properties',
  docs: [
    'https://developers.notion.com/reference/intro#pagination',
    'https://developers.notion.com/reference/page',
    'https://developers.notion.com/reference/page-property-values',
    'https://developers.notion.com/reference/status-codes',
    'https://developers.notion.com/reference/comment-object',
  ],
  facets: {
    envelope: '`{object: "list", results, next_cursor, has_more, type}`',
    paging: '`next_cursor` → `start_cursor=`; `has_more`; `page_size` ≤ 100',
    filters: 'none on GET lists (Notion filters in POST query bodies); parameters ignored',
    errors: '`{object: "error", status, code: "object_not_found", message}`',
    rateLimits: '429 `rate_limited` with Retry-After',
    money: '`properties.Balance: {type: "number", number: 12.34}` + `Currency` select',
    times: 'ISO 8601 ms; `date` properties `{start, end}` (`Scheduled`, `On air`)',
    casing: 'snake_case envelope; property names as titled (`"On air"`, `"AI status"`)',
    ids: 'UUIDs',
    subResources: 'own paths: questions and announcements as comments, speakers as users',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => uuid(c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => uuid(s.id)),
  subPaths: SUBS,
  render,
  error,
  tooMany: (r) => ({
    status: 429,
    headers: { 'retry-after': String(r.resetSeconds) },
    body: {
      object: 'error',
      status: 429,
      code: 'rate_limited',
      message: 'You have been rate limited. Please try again in a few minutes.',
    },
  }),
  rateHeaders: () => ({}),
};
