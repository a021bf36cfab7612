/**
 * What the faithful dialects share: the world's records with times on the clock, the
 * session filter every dialect applies in its own syntax, page slicing, links, time and
 * money formats. Nothing here decides how a body looks; each dialect file does.
 */
import { SimRequestError } from '../errors.js';
import {
  type ChannelStatus,
  SESSION_STATUSES,
  type SessionStatus,
  type SimChannel,
  type SimMember,
  type SimOrg,
  type SimSession,
} from '../model.js';
import type { World } from '../world.js';
import type { DialectRequest, SubName } from './types.js';

/** A refused request that names the query parameter at fault. */
export class DialectError extends SimRequestError {
  readonly param: string | undefined;
  constructor(status: number, code: string, message: string, param?: string) {
    super(status, code, message);
    this.param = param;
  }
}

/** A 400 naming a parameter. */
export function invalid(param: string, message: string, code = 'invalid_request'): DialectError {
  return new DialectError(400, code, message, param);
}

/** A simulated time on the clock (ms). */
export function real(w: World, sim: number): number {
  return Math.round(w.toReal(sim));
}

/** A session's times on the clock; null where it has none. */
export function times(
  w: World,
  s: SimSession,
): { scheduled: number; started: number | null; ended: number | null } {
  return {
    scheduled: real(w, s.scheduledAt),
    started: s.startedAt === null ? null : real(w, s.startedAt),
    ended: s.endedAt === null ? null : real(w, s.endedAt),
  };
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** Time formats the conventions use. */
export const fmt = {
  /** `2030-01-07T09:00:00.000Z`. */
  iso: (ms: number) => new Date(ms).toISOString(),
  /** `2030-01-07T09:00:00Z` (RFC 3339 without fractions). */
  isoSeconds: (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  /** `2030-01-07T09:00:00.000+0000` (Salesforce, Jira). */
  isoPlus0000: (ms: number) => new Date(ms).toISOString().replace(/Z$/, '+0000'),
  /** `2030-01-07T04:00:00-05:00`: local time at a fixed offset in minutes. */
  isoAt: (ms: number, offsetMin: number) => {
    const local = new Date(ms + offsetMin * 60_000).toISOString().replace(/\.\d{3}Z$/, '');
    const sign = offsetMin < 0 ? '-' : '+';
    const a = Math.abs(offsetMin);
    return `${local}${sign}${two(Math.floor(a / 60))}:${two(a % 60)}`;
  },
  /** `Mon, 07 Jan 2030 09:00:00 +0000` (RFC 2822). */
  rfc2822: (ms: number) => {
    const d = new Date(ms);
    const hms = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
    return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${hms} +0000`;
  },
  epochS: (ms: number) => Math.floor(ms / 1000),
};

/** A time parameter in any of the forms servers commonly take: ISO 8601 or epoch seconds. */
export function parseTimeParam(param: string, raw: string): number {
  if (/^\d{9,11}(\.\d+)?$/.test(raw)) return Math.floor(Number(raw) * 1000);
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw invalid(param, `${param}: ${JSON.stringify(raw)} is not a valid time`);
  return ms;
}

/** What a session filter asks for, on the clock. */
export interface SessionFilter {
  statuses?: ReadonlySet<SessionStatus> | null;
  from?: number | null;
  to?: number | null;
}

/**
 * Sessions that match: a status among `statuses`, and a span that overlaps [from, to].
 * The span is [started or scheduled, now] while live, [started or scheduled, ended] once
 * over, and the instant `scheduled` when scheduled or cancelled (as docs/upstream-api.md).
 */
export function filterSessions(w: World, all: readonly SimSession[], f: SessionFilter): SimSession[] {
  const from = f.from ?? null;
  const to = f.to ?? null;
  const statuses = f.statuses ?? null;
  if (from !== null && to !== null && from > to)
    throw invalid('to', 'the end of the range is before its start');
  const now = real(w, w.now);
  return all.filter((s) => {
    if (statuses !== null && !statuses.has(s.status)) return false;
    const t = times(w, s);
    const begin =
      s.status === 'scheduled' || s.status === 'cancelled' ? t.scheduled : (t.started ?? t.scheduled);
    const end = s.status === 'live' ? now : (t.ended ?? begin);
    return (to === null || begin <= to) && (from === null || end >= from);
  });
}

/** The canonical status a dialect word names (case-insensitive), or undefined. */
export function wordBack<T extends string>(words: Readonly<Record<T, string>>, raw: string): T | undefined {
  const lower = raw.trim().toLowerCase();
  for (const [k, v] of Object.entries(words) as [T, string][]) if (v.toLowerCase() === lower) return k;
  return undefined;
}

/** Statuses from a comma list of dialect words; throws naming `param` on an unknown word. */
export function statusesFrom(
  param: string,
  raw: string,
  words: Readonly<Record<SessionStatus, string>>,
): Set<SessionStatus> {
  const out = new Set<SessionStatus>();
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const s = wordBack(words, part);
    if (s === undefined) {
      const allowed = SESSION_STATUSES.map((x) => words[x]).join(', ');
      throw invalid(param, `${param}: ${JSON.stringify(part)} is not one of ${allowed}`);
    }
    out.add(s);
  }
  return out;
}

/** A positive integer parameter, capped at `max`; a bad value is refused naming it. */
export function intParam(q: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw invalid(name, `${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  if (Number(raw) > max) throw invalid(name, `${name} must be at most ${max}, got ${raw}`);
  return Number(raw);
}

/** A non-negative integer parameter (offsets). */
export function offsetParam(q: URLSearchParams, name: string): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return 0;
  if (!/^\d{1,9}$/.test(raw))
    throw invalid(name, `${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Items after the one with id `after` (keyset paging); an unknown id is refused naming `param`. */
export function keyset<T>(
  items: readonly T[],
  idOf: (t: T) => string,
  after: string | null,
  limit: number,
  param: string,
): { page: T[]; hasMore: boolean; start: number } {
  let start = 0;
  if (after !== null && after !== '') {
    const i = items.findIndex((t) => idOf(t) === after);
    if (i < 0)
      throw invalid(param, `${param}: no object with id ${JSON.stringify(after)}`, 'resource_missing');
    start = i + 1;
  }
  const page = items.slice(start, start + limit);
  return { page, hasMore: start + limit < items.length, start };
}

/** An opaque token carrying an offset (and a tag that ties it to one list). */
export function token(offset: number, tag: string): string {
  return Buffer.from(JSON.stringify({ o: offset, t: tag })).toString('base64url');
}

/** The offset an opaque token carries; a token of another list or a broken one is refused. */
export function untoken(param: string, raw: string | null, tag: string): number {
  if (raw === null || raw === '') return 0;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { o?: unknown; t?: unknown };
    if (typeof v.o === 'number' && Number.isInteger(v.o) && v.o >= 0 && v.t === tag) return v.o;
  } catch {
    // refused below
  }
  throw invalid(param, `${param} is not valid`);
}

/** The request's URL with some parameters set (a value) or removed (null). */
export function withParams(
  req: Pick<DialectRequest, 'origin' | 'query'>,
  path: string,
  set: Record<string, string | null>,
  absolute = true,
): string {
  const q = new URLSearchParams(req.query);
  for (const [k, v] of Object.entries(set)) {
    if (v === null) q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  return `${absolute ? req.origin : ''}${path}${s === '' ? '' : `?${s}`}`;
}

/** A `Link` header from (url, rel) pairs. */
export function linkHeader(links: readonly (readonly [string, string])[]): string {
  return links.map(([u, rel]) => `<${u}>; rel="${rel}"`).join(', ');
}

/** ISO 4217 exponents of the simulator's currencies. */
export function exponent(currency: string): number {
  return currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
}

/** An amount in major units → integer minor units of its currency. */
export function minor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** exponent(currency));
}

/** An amount in major units as a decimal string with the currency's digits. */
export function decimal(amount: number, currency: string): string {
  return amount.toFixed(exponent(currency));
}

/** The org's wallet, or null in BYOK mode. */
export function wallet(org: SimOrg): { balance: number; currency: string } | null {
  return org.funding.mode === 'wallet'
    ? { balance: org.funding.balance, currency: org.funding.currency }
    : null;
}

/** A session's sub-resources with times on the clock. */
export function subItems(w: World, s: SimSession) {
  const c = w.content(s);
  return {
    questions: c.questions.map((q) => ({ id: q.id, text: q.text, author: q.author, at: real(w, q.askedAt) })),
    announcements: c.announcements.map((a) => ({ id: a.id, text: a.text, at: real(w, a.postedAt) })),
    speakers: c.speakers.map((sp) => ({ id: sp.id, name: sp.name, at: real(w, sp.joinedAt) })),
    reactions: Object.entries(c.reactions).map(([kind, count]) => ({ id: kind, kind, count })),
    reactionsTotal: c.reactionsTotal,
  };
}

/** An item of a sub-resource list: an id, a time on the clock, and its own fields. */
export type SubItem = { id: string; at?: number } & Record<string, unknown>;

/** One sub-resource list of a session (reactions as one item per kind). */
export function subList(w: World, s: SimSession, sub: SubName): SubItem[] {
  return subItems(w, s)[sub] as SubItem[];
}

/** The number after the prefix of a canonical id (`ch_000006` → 6). */
export function idNumber(id: string): number {
  const m = /_(\d+)$/.exec(id);
  return m === null ? 0 : Number(m[1]);
}

/** A deterministic hex string of `len` characters from a canonical id and a salt. */
export function hexId(id: string, salt: string, len: number): string {
  let h = 2166136261;
  let out = '';
  const seed = `${salt}:${id}`;
  for (let round = 0; out.length < len; round++) {
    for (const ch of `${seed}#${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, len);
}

/** The canonical id among `items` whose dialect id is `segment`; the segment when none. */
export function findId<T extends { id: string }>(
  items: Iterable<T>,
  segment: string,
  show: (t: T) => string,
): string {
  for (const t of items) if (show(t) === segment) return t.id;
  return segment;
}

/** Every session of an org. */
export function allSessions(org: SimOrg): Iterable<SimSession> {
  return org.sessionById.values();
}

/** Canonical entities a dialect reads. */
export type { SimChannel, SimMember, SimSession, ChannelStatus };

/** A path this dialect does not serve. */
export function notServed(): never {
  throw new SimRequestError(404, 'not_found', 'path not found');
}

/** An org's usage by the platform's limit names, as every dialect's subscription reports it. */
export function usageOf(org: SimOrg): Record<string, number> {
  return {
    channels: org.channels.length,
    members: org.members.length,
    ai_minutes: Math.floor(org.aiMinutesUsed),
    concurrent_live: org.liveSessions,
  };
}
