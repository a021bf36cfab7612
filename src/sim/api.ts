/**
 * The `/v1` API: the six GET endpoints of the seed, behind the rate limit, fault
 * injection and bearer tokens, in the current response style. Order of checks (each
 * documented in docs/upstream-api.md): rate limit → faults (reset, redirect, 5xx) →
 * method (405) → `/v1/{org}` path (404) → token (401) → org (404) → token's org (403) →
 * resource (404) and query (400).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.js';
import type { TokenRegistry } from './auth.js';
import type { Engine } from './engine.js';
import { badRequest, notFound, SimRequestError } from './errors.js';
import { describePlan, type FaultPlan, type Faults, NO_FAULT } from './faults.js';
import { applyDialect, type Dialect, errorAnswer, idFromPath, refusal } from './dialect.js';
import {
  SESSION_STATUSES,
  type SessionStatus,
  type SimChannel,
  type SimMember,
  type SimSession,
} from './model.js';
import type { RateLimiter } from './rate-limit.js';
import { routeFaithful } from './dialects/route.js';
import type { ErrorAnswer, RateState } from './dialects/types.js';
import { effectivePaging, type Rendered, renderList, renderObject } from './render.js';
import type { RequestLog } from './request-log.js';
import { resetConnection, type TimerSet, writeJson } from './respond.js';
import {
  type Json,
  channelJson,
  memberJson,
  orgJson,
  sessionDetailJson,
  sessionJson,
  subscriptionJson,
} from './serialize.js';
import type { RequestLogEntry, SimStyle } from './types.js';

/** What the API handler works with. */
export interface ApiDeps {
  engine: Engine;
  tokens: TokenRegistry;
  limiter: RateLimiter;
  faults: Faults;
  log: RequestLog;
  clock: Clock;
  timers: TimerSet;
  style(): SimStyle;
  /** The API's own origin, for links when a request carries no Host header. */
  origin(): string;
  /** The other origin that cross-origin faults point at. */
  foreignOrigin(): string;
  /** The dialect the API speaks (dialect.ts). */
  dialect(): Dialect;
  /** Whether channel lists carry activity hints and session lists answer conditional requests. */
  hints(): boolean;
}

/** A client IP without the IPv4-in-IPv6 prefix. */
export function clientIp(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? 'unknown';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest('path is not valid percent-encoding');
  }
}

/**
 * Answers one request on the API origin (`main`) or the other origin (`foreign`). The
 * request is logged as soon as its answer is decided, before any byte is written, so a
 * test that has seen the response can always find the request in the log.
 */
export async function handleApi(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ApiDeps,
  origin: RequestLogEntry['origin'],
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const segs = url.pathname.replace(/\/+$/, '').split('/');
  const entry: Omit<RequestLogEntry, 'seq'> = {
    at: deps.clock.now(),
    ip: clientIp(req),
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    status: 0,
    org: segs[1] === 'v1' && segs[2] !== undefined && segs[2] !== '' ? segs[2] : null,
    tokenLabel: null,
    auth: authShape(req.headers.authorization),
    origin,
    fault: null,
    retryAfterSeconds: null,
  };
  let logged = false;
  const log = (status: number, plan: FaultPlan) => {
    if (logged) return;
    logged = true;
    entry.status = status;
    entry.fault = describePlan(plan);
    deps.log.add(entry);
  };
  const answer = (status: number, headers: Record<string, string>, json: string, plan: FaultPlan) => {
    log(status, plan);
    return writeJson(res, status, headers, json, plan, deps.clock, deps.timers);
  };
  let plan: FaultPlan = NO_FAULT;
  try {
    if (origin === 'main') {
      const rate = deps.limiter.take(entry.ip, entry.at);
      const fd = deps.dialect().faithful;
      if (!rate.ok && fd !== undefined) {
        const state: RateState = { ...deps.limiter.state(entry.ip, entry.at), now: entry.at };
        const a = fd.tooMany({ ...state, remaining: 0, resetSeconds: rate.retryAfterSeconds });
        // Logged as sent: a dialect whose convention sends no Retry-After logs none.
        const sent = Number.parseFloat(a.headers['retry-after'] ?? '');
        entry.retryAfterSeconds = Number.isFinite(sent) ? sent : null;
        await answer(a.status, a.headers, JSON.stringify(a.body), NO_FAULT);
        return;
      }
      if (!rate.ok) {
        const msg = `rate limit of ${deps.limiter.perMinute} requests per minute exceeded; retry in ${rate.retryAfterSeconds} s`;
        const headers = { 'retry-after': String(rate.retryAfterSeconds) };
        entry.retryAfterSeconds = rate.retryAfterSeconds;
        await answer(429, headers, errorBody('rate_limited', msg), NO_FAULT);
        return;
      }
      plan = deps.faults.plan(url.pathname);
    }
    if (plan.reset) {
      log(0, { ...NO_FAULT, reset: true });
      resetConnection(res);
      return;
    }
    if (plan.redirect) {
      log(302, { ...NO_FAULT, redirect: true });
      const location = `${deps.foreignOrigin()}${url.pathname}${url.search}`;
      res.writeHead(302, { location, 'content-length': '0' });
      res.end();
      return;
    }
    if (plan.error !== null) {
      const msg = `simulated server error ${plan.error}`;
      const fd = deps.dialect().faithful;
      // A faithful dialect writes even a 5xx in its own error shape, with the fault's status.
      const body =
        fd === undefined
          ? errorBody('upstream_error', msg)
          : JSON.stringify(fd.error(plan.error, 'upstream_error', msg).body);
      await answer(plan.error, {}, body, { ...NO_FAULT, error: plan.error, latencyMs: plan.latencyMs });
      return;
    }
    const rendered = route(req, url, segs, deps, entry, plan);
    Object.assign(rendered.headers, faithfulRateHeaders(deps, entry));
    const text = JSON.stringify(rendered.body);
    // With hints on, session lists carry an ETag and answer a matching If-None-Match with 304.
    if (deps.hints() && rendered.status === 200 && /\/sessions\/?$/.test(url.pathname)) {
      const etag = `"${createHash('sha1').update(text).digest('base64url')}"`;
      if (req.headers['if-none-match'] === etag) {
        log(304, plan);
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      rendered.headers['etag'] = etag;
    }
    await answer(rendered.status, rendered.headers, text, plan);
  } catch (err) {
    if (!(err instanceof SimRequestError)) {
      log(500, NO_FAULT);
      throw err;
    }
    const fd = deps.dialect().faithful;
    const param = 'param' in err && typeof err.param === 'string' ? err.param : undefined;
    const dialectError =
      fd === undefined
        ? { status: err.status, ...errorAnswer(deps.dialect(), err.status, err.code, err.message) }
        : faithfulError(fd.error(err.status, err.code, err.message, param));
    const headers: Record<string, string> = { ...dialectError.headers, ...faithfulRateHeaders(deps, entry) };
    if (err.status === 405) headers['allow'] = 'GET';
    if (err.status === 401) headers['www-authenticate'] = 'Bearer realm="api"';
    await answer(dialectError.status, headers, dialectError.body, {
      ...NO_FAULT,
      latencyMs: plan.latencyMs,
    });
  }
}

/** A faithful dialect's error as status, headers and body text. */
function faithfulError(a: ErrorAnswer): { status: number; headers: Record<string, string>; body: string } {
  return { status: a.status, headers: a.headers, body: JSON.stringify(a.body) };
}

/** Rate-limit headers a faithful dialect sends on every answer (none for the others). */
function faithfulRateHeaders(deps: ApiDeps, entry: Omit<RequestLogEntry, 'seq'>): Record<string, string> {
  const fd = deps.dialect().faithful;
  if (fd === undefined || entry.origin !== 'main') return {};
  return fd.rateHeaders({ ...deps.limiter.state(entry.ip, entry.at), now: entry.at });
}

function authShape(header: string | undefined): RequestLogEntry['auth'] {
  if (header === undefined) return 'none';
  return /^bearer\s/i.test(header) ? 'bearer' : 'other';
}

function route(
  req: IncomingMessage,
  url: URL,
  segs: string[],
  deps: ApiDeps,
  entry: Omit<RequestLogEntry, 'seq'>,
  plan: FaultPlan,
): Rendered {
  if (req.method !== 'GET') {
    throw new SimRequestError(
      405,
      'method_not_allowed',
      `${req.method ?? ''} is not allowed; the API is read-only (GET)`,
    );
  }
  if (segs[1] !== 'v1' || entry.org === null) throw notFound(`path ${url.pathname}`);
  const token = deps.tokens.authenticate(req.headers.authorization, entry.at);
  entry.tokenLabel = token.label;
  const { engine } = deps;
  engine.advance();
  const slug = segment(entry.org);
  const org = engine.world.org(slug);
  if (org === undefined) throw notFound(`organization ${slug}`);
  if (token.org !== org.slug) {
    throw new SimRequestError(
      403,
      'forbidden',
      `token "${token.label}" does not give access to organization ${slug}`,
    );
  }
  const style = deps.style();
  const w = engine.world;
  const rest = segs.slice(3);
  const d = deps.dialect();
  if (d.faithful !== undefined) {
    const origin = req.headers.host === undefined ? deps.origin() : `http://${req.headers.host}`;
    plan.truncate = false;
    plan.crossOriginNext = false;
    return routeFaithful(d.faithful, rest.map(segment), {
      world: w,
      org,
      query: url.searchParams,
      origin,
      pathname: url.pathname,
      headers: req.headers,
    });
  }
  const t =
    <A>(fn: (a: A) => Json) =>
    (a: A) =>
      applyDialect(d, fn(a));
  const check = (isList: boolean, sessions: boolean) => {
    const why = refusal(d, url.searchParams, sessions, isList, effectivePaging(style));
    if (why !== undefined) throw badRequest(why);
  };
  const listCtx = () => ({
    style,
    query: url.searchParams,
    origin: req.headers.host === undefined ? deps.origin() : `http://${req.headers.host}`,
    pathname: url.pathname,
    truncate: plan.truncate,
    foreignOrigin: plan.crossOriginNext ? deps.foreignOrigin() : null,
  });
  const single = (r: Rendered) => {
    // Truncation and foreign links are list faults; a single object cannot show them.
    plan.truncate = false;
    plan.crossOriginNext = false;
    return r;
  };
  if (rest.length === 0) {
    check(false, false);
    return single(renderObject(style, 'organization', applyDialect(d, orgJson(w, org))));
  }
  if (rest.length === 1 && rest[0] === 'team') {
    check(true, false);
    return renderList(
      org.members,
      t((m: SimMember) => memberJson(w, m)),
      'members',
      listCtx(),
    );
  }
  if (rest.length === 1 && rest[0] === 'subscription') {
    check(false, false);
    return single(renderObject(style, 'subscription', applyDialect(d, subscriptionJson(w, org))));
  }
  if (rest.length === 1 && rest[0] === 'channels') {
    check(true, false);
    return renderList(
      org.channels,
      t((c: SimChannel) => channelJson(w, c, deps.hints())),
      'channels',
      listCtx(),
    );
  }
  if (rest.length === 3 && rest[0] === 'channels' && rest[2] === 'sessions') {
    const id = idFromPath(d, segment(rest[1]!), 'ch');
    const ch = org.channelById.get(id);
    if (ch === undefined) throw notFound(`channel ${id}`);
    check(true, true);
    const sessions = d.filters ? filterSessions(ch.sessions, url.searchParams, deps) : ch.sessions;
    return renderList(
      sessions,
      t((s: SimSession) => sessionJson(w, s)),
      'sessions',
      listCtx(),
    );
  }
  if (rest.length === 2 && rest[0] === 'sessions') {
    const id = idFromPath(d, segment(rest[1]!), 'ses');
    const s = org.sessionById.get(id);
    if (s === undefined) throw notFound(`session ${id}`);
    check(false, false);
    return single(renderObject(style, 'session', applyDialect(d, sessionDetailJson(w, s))));
  }
  throw notFound(`path ${url.pathname}`);
}

function parseTime(name: string, raw: string | null): number | null {
  if (raw === null || raw === '') return null;
  // Epoch seconds or milliseconds are taken too, as lenient servers do.
  if (/^\d{9,13}$/.test(raw)) return Number(raw) < 1e11 ? Number(raw) * 1000 : Number(raw);
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw badRequest(`${name} must be an ISO 8601 time, got ${JSON.stringify(raw)}`);
  return ms;
}

/**
 * Status and time-range filters. A session's span is [started_at, now] while live,
 * [started_at or scheduled_at, ended_at] once over, and the instant scheduled_at when
 * scheduled or cancelled; it matches when the span overlaps [from, to].
 */
function filterSessions(all: SimSession[], q: URLSearchParams, deps: ApiDeps): SimSession[] {
  const w = deps.engine.world;
  const rawStatus = q.get('status');
  let statuses: Set<SessionStatus> | null = null;
  if (rawStatus !== null && rawStatus !== '') {
    statuses = new Set();
    for (const s of rawStatus.split(',').map((x) => x.trim().toLowerCase())) {
      if (!(SESSION_STATUSES as readonly string[]).includes(s)) {
        throw badRequest(
          `status must be a comma list of ${SESSION_STATUSES.join(', ')}; got ${JSON.stringify(s)}`,
        );
      }
      statuses.add(s as SessionStatus);
    }
  }
  const fromReal = parseTime('from', q.get('from'));
  const toReal = parseTime('to', q.get('to'));
  if (statuses === null && fromReal === null && toReal === null) return all;
  const from = fromReal === null ? null : w.toSim(fromReal);
  const to = toReal === null ? null : w.toSim(toReal);
  if (from !== null && to !== null && from > to) throw badRequest('from must not be after to');
  return all.filter((s) => {
    if (statuses !== null && !statuses.has(s.status)) return false;
    if (from === null && to === null) return true;
    const begin =
      s.status === 'scheduled' || s.status === 'cancelled' ? s.scheduledAt : (s.startedAt ?? s.scheduledAt);
    const end = s.status === 'live' ? w.now : (s.endedAt ?? begin);
    return (to === null || begin <= to) && (from === null || end >= from);
  });
}
