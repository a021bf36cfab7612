/**
 * YouTube Live Streaming API (the YouTube Data API v3 conventions). Follows:
 * - https://developers.google.com/youtube/v3/live/docs/liveBroadcasts/list — a list
 *   response `{kind, etag, nextPageToken, prevPageToken, pageInfo: {totalResults,
 *   resultsPerPage}, items}`; `maxResults` 0–50 (default 5) and `pageToken`; the one
 *   filter `broadcastStatus` (active, all, completed, upcoming); a resource fetched by
 *   `id` comes back as a list response of one item.
 * - https://developers.google.com/youtube/v3/live/docs/liveBroadcasts — a broadcast's
 *   `snippet` (`scheduledStartTime`, `scheduledEndTime`, `actualStartTime`,
 *   `actualEndTime`, `liveChatId`) and `status` (`lifeCycleStatus`: created, ready,
 *   testing, live, complete, revoked …; `privacyStatus`: public, private, unlisted).
 * - https://developers.google.com/youtube/v3/docs/errors — `{error: {code, message,
 *   errors: [{message, domain, reason, location, locationType}]}}`: 400 `invalidFilters`,
 *   `invalidPageToken`; 404 `notFound`; quota spent as 403 `quotaExceeded`.
 * - https://developers.google.com/youtube/v3/live/docs/liveChatMessages — chat messages
 *   (`snippet.type`, `publishedAt`, `displayMessage`, `authorDetails`) on their own list.
 * - https://developers.google.com/youtube/v3/live/docs/superChatEvents — money as
 *   `amountMicros` (a string of millionths) beside `currency` and a `displayString`.
 * - https://developers.google.com/youtube/v3/docs/search — `snippet.liveBroadcastContent`
 *   (live, upcoming, none) says whether a channel is on air.
 * Mapping: the org is a content owner, channels are `youtube#channel`, members are
 * `youtube#member` items (no `id`: the member's channel is `snippet.memberDetails.channelId`),
 * sessions are live broadcasts. YouTube has no word for a broadcast that failed: its
 * lifecycle ends `complete` whatever happened to the stream, so a failed session is
 * `complete` here, and a cancelled one `revoked`.
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
  findId,
  fmt,
  hexId,
  intParam,
  notServed,
  real,
  subItems,
  times,
  token,
  untoken,
} from './kit.js';
import type { DialectRequest, ErrorAnswer, FaithfulDialect, SubName } from './types.js';

const CONTENT = { live: 'live', idle: 'upcoming', offline: 'none' } as const;
const LIFECYCLE: Record<SessionStatus, string> = {
  scheduled: 'ready',
  live: 'live',
  ended: 'complete',
  failed: 'complete',
  cancelled: 'revoked',
};
/** `broadcastStatus` values and the statuses each keeps. */
const BROADCAST_STATUS: Readonly<Record<string, readonly SessionStatus[] | null>> = {
  all: null,
  active: ['live'],
  completed: ['ended', 'failed', 'cancelled'],
  upcoming: ['scheduled'],
};
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** An id in YouTube's alphabet: `UC` + 22 characters for channels, 11 for videos. */
function ytId(id: string, salt: string, len: number): string {
  const hex = hexId(id, salt, len * 2);
  let out = '';
  for (let i = 0; i < len; i++) out += B64[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 64];
  return out;
}
const channelYt = (id: string) => `UC${ytId(id, 'yt-channel', 22)}`;
const videoYt = (id: string) => ytId(id, 'yt-video', 11);
const etag = (seed: string) => ytId(seed, 'etag', 27);
const ts = (ms: number | null) => (ms === null ? undefined : fmt.isoSeconds(ms));

function refused(reason: string, location: string, message: string): DialectError {
  return new DialectError(400, reason, message, location);
}

function list<T>(
  req: DialectRequest,
  kind: string,
  items: readonly T[],
  show: (t: T) => unknown,
  extra: Record<string, unknown> = {},
): Rendered {
  const size = intParam(req.query, 'maxResults', 5, 50);
  const tag = `${req.pathname}|${req.query.get('broadcastStatus') ?? ''}`;
  let offset: number;
  try {
    offset = untoken('pageToken', req.query.get('pageToken'), tag);
  } catch {
    throw refused('invalidPageToken', 'pageToken', 'The request specifies an invalid page token.');
  }
  const more = offset + size < items.length;
  return {
    status: 200,
    headers: {},
    body: {
      kind: `youtube#${kind}ListResponse`,
      etag: etag(`${tag}|${offset}`),
      ...(more ? { nextPageToken: token(offset + size, tag) } : {}),
      ...(offset > 0 ? { prevPageToken: token(Math.max(0, offset - size), tag) } : {}),
      ...extra,
      pageInfo: { totalResults: items.length, resultsPerPage: size },
      items: items.slice(offset, offset + size).map(show),
    },
  };
}

function broadcast(req: DialectRequest, s: SimSession) {
  const t = times(req.world, s);
  const plannedEnd = real(req.world, s.scheduledEndAt);
  return {
    kind: 'youtube#liveBroadcast',
    etag: etag(`${s.id}|${s.status}`),
    id: videoYt(s.id),
    snippet: {
      publishedAt: ts(t.scheduled - 86_400_000),
      channelId: channelYt(s.channel.id),
      title: s.title,
      description: '',
      scheduledStartTime: ts(t.scheduled),
      scheduledEndTime: ts(plannedEnd),
      actualStartTime: ts(t.started),
      actualEndTime: ts(t.ended),
      isDefaultBroadcast: false,
      liveChatId: `Cg0KC${videoYt(s.id)}`,
    },
    status: {
      lifeCycleStatus: LIFECYCLE[s.status],
      privacyStatus: s.channel.visibility,
      recordingStatus:
        s.status === 'live' ? 'recording' : s.status === 'scheduled' ? 'notRecording' : 'recorded',
      madeForKids: false,
      selfDeclaredMadeForKids: false,
    },
    contentDetails: { enableDvr: true, recordFromStart: true, latencyPreference: 'normal' },
  };
}

function channel(req: DialectRequest, c: SimChannel) {
  return {
    kind: 'youtube#channel',
    etag: etag(`${c.id}|${c.status}`),
    id: channelYt(c.id),
    snippet: {
      title: c.name,
      description: '',
      customUrl: `@${c.name.toLowerCase().replace(/[^a-z0-9]+/g, '')}`,
      publishedAt: ts(real(req.world, c.createdAt)),
      liveBroadcastContent: CONTENT[c.status],
    },
    status: { privacyStatus: c.visibility, isLinked: true, longUploadsStatus: 'allowed', madeForKids: false },
  };
}

function member(req: DialectRequest, m: SimMember) {
  const id = channelYt(m.id);
  return {
    kind: 'youtube#member',
    etag: etag(m.id),
    snippet: {
      creatorChannelId: channelYt(req.org.slug),
      memberDetails: {
        channelId: id,
        channelUrl: `https://www.youtube.com/channel/${id}`,
        displayName: m.name,
      },
      membershipsDetails: {
        highestAccessibleLevelDisplayName: m.role[0]!.toUpperCase() + m.role.slice(1),
        membershipsDuration: { memberSince: ts(real(req.world, m.joinedAt)) },
      },
    },
  };
}

/** Money as YouTube writes it: millionths of the unit in a string, beside the currency. */
function micros(amount: number, currency: string) {
  return {
    amountMicros: String(Math.round(amount * 1e6)),
    currency,
    displayString: `${amount.toFixed(exponent(currency))} ${currency}`,
  };
}

function chat(req: DialectRequest, s: SimSession, sub: Exclude<SubName, 'reactions'>) {
  const rows = subItems(req.world, s)[sub] as {
    id: string;
    at: number;
    text?: string;
    name?: string;
    author?: string;
  }[];
  return list(
    req,
    'liveChatMessage',
    rows,
    (x) => ({
      kind: 'youtube#liveChatMessage',
      etag: etag(x.id),
      id: `${videoYt(s.id)}.${x.id}`,
      snippet: {
        type: 'textMessageEvent',
        liveChatId: `Cg0KC${videoYt(s.id)}`,
        publishedAt: ts(x.at),
        hasDisplayContent: true,
        displayMessage: x.text ?? x.name ?? '',
      },
      authorDetails: { displayName: x.author ?? x.name ?? req.org.name, isChatOwner: sub !== 'questions' },
    }),
    { pollingIntervalMillis: 5000 },
  );
}

function render(req: DialectRequest): Rendered {
  const { org, world } = req;
  const one = (body: unknown): Rendered => ({ status: 200, headers: {}, body });
  switch (req.kind) {
    case 'org':
      return one({
        kind: 'youtube#contentOwner',
        etag: etag(org.slug),
        id: org.slug,
        snippet: {
          title: org.name,
          publishedAt: ts(real(world, org.createdAt)),
          defaultLanguage: org.settings.language,
        },
        contentOwnerDetails: { plan: org.plan, timeZone: org.settings.timezone },
        status: { privacyStatus: org.settings.default_visibility, aiEnabled: org.settings.ai_enabled },
      });
    case 'team':
      return list(req, 'member', org.members, (m) => member(req, m));
    case 'subscription': {
      const f = org.funding;
      return one({
        kind: 'youtube#membershipsLevel',
        etag: etag(`${org.slug}|${org.plan}`),
        id: `${org.slug}-plan`,
        snippet: { plan: org.plan, status: org.subscriptionStatus },
        limits: { ...PLAN_LIMITS[org.plan] },
        usage: {
          channels: org.channels.length,
          members: org.members.length,
          aiMinutes: Math.floor(org.aiMinutesUsed),
          concurrentLive: org.liveSessions,
        },
        aiFunding:
          f.mode === 'wallet'
            ? { type: 'wallet', balance: micros(f.balance, f.currency) }
            : { type: 'byok', provider: f.provider, keyStatus: f.keyStatus },
      });
    }
    case 'channels':
      return list(req, 'channel', org.channels, (c) => channel(req, c));
    case 'sessions': {
      const raw = req.query.get('broadcastStatus') ?? 'all';
      const keep = BROADCAST_STATUS[raw];
      if (keep === undefined)
        throw refused('invalidFilters', 'broadcastStatus', `Invalid value '${raw}' for broadcastStatus.`);
      const picked = filterSessions(world, req.channel!.sessions, {
        statuses: keep === null ? null : new Set(keep),
      });
      return list(req, 'liveBroadcast', picked, (s) => broadcast(req, s));
    }
    case 'session': {
      const s = req.session!;
      const items = subItems(world, s);
      const b = broadcast(req, s);
      return list(req, 'liveBroadcast', [s], () => ({
        ...b,
        statistics: {
          totalChatCount: String(items.questions.length + items.announcements.length),
          reactionCount: String(items.reactionsTotal),
        },
      }));
    }
    case 'sub':
      return chat(req, req.session!, req.sub as Exclude<SubName, 'reactions'>);
    case 'more':
      return notServed();
  }
}

const TYPE: Readonly<Record<number, [string, string]>> = {
  400: ['badRequest', 'youtube.parameter'],
  401: ['authError', 'global'],
  403: ['forbidden', 'global'],
  404: ['notFound', 'global'],
};

function error(status: number, code: string, message: string, param?: string): ErrorAnswer {
  const [reason, domain] = TYPE[status] ?? ['backendError', 'global'];
  const r = status === 400 && /^[a-z][A-Za-z]+$/.test(code) ? code : reason;
  return {
    status,
    headers: {},
    body: {
      error: {
        code: status,
        message,
        errors: [
          {
            message,
            domain,
            reason: r,
            ...(param === undefined ? {} : { location: param, locationType: 'parameter' }),
          },
        ],
      },
    },
  };
}

/** The YouTube Live Streaming API, as https://developers.google.com/youtube/v3/live documents it. */
export const youtube: FaithfulDialect = {
  name: 'youtube',
  description:
    'YouTube Live Streaming API: items + nextPageToken/pageInfo, snippet/status parts, errors[] with reason',
  docs: [
    'https://developers.google.com/youtube/v3/live/docs/liveBroadcasts/list',
    'https://developers.google.com/youtube/v3/live/docs/liveBroadcasts',
    'https://developers.google.com/youtube/v3/docs/errors',
    'https://developers.google.com/youtube/v3/live/docs/liveChatMessages',
    'https://developers.google.com/youtube/v3/live/docs/superChatEvents',
    'https://developers.google.com/youtube/v3/docs/search',
  ],
  facets: {
    envelope: '`{kind, etag, nextPageToken, pageInfo, items}`; a resource by id is a list of one',
    paging: '`nextPageToken` → `pageToken`, `maxResults` ≤ 50 (default 5)',
    filters: '`broadcastStatus=active|completed|upcoming|all`; no time filter',
    errors: '`{error: {code, message, errors: [{reason: "invalidFilters", location}]}}`',
    rateLimits: 'no headers; quota spent: 403 `quotaExceeded`',
    money: '`{amountMicros: "12340000", currency, displayString}`',
    times: 'RFC 3339 `…Z` in `snippet.scheduledStartTime`, `actualStartTime`, `actualEndTime`',
    casing: 'camelCase; `lifeCycleStatus` words (ready, live, complete, revoked)',
    ids: 'YouTube ids (`UC…` channels, 11-character broadcasts); members have none of their own',
    subResources: 'live chat messages on their own paths (`…/sessions/{id}/questions`)',
  },
  channelId: (org, seg) => findId(org.channels, seg, (c) => channelYt(c.id)),
  sessionId: (org, seg) => findId(org.sessionById.values(), seg, (s) => videoYt(s.id)),
  subPaths: ['questions', 'announcements', 'speakers'],
  render,
  error,
  tooMany: () => ({
    status: 403,
    headers: {},
    body: {
      error: {
        code: 403,
        message: 'The request cannot be completed because you have exceeded your quota.',
        errors: [
          {
            message: 'The request cannot be completed because you have exceeded your quota.',
            domain: 'youtube.quota',
            reason: 'quotaExceeded',
          },
        ],
      },
    },
  }),
  rateHeaders: () => ({}),
};
