/**
 * The simulator: the engine behind its HTTP listeners, with the handle tests and the
 * `sim` command hold. See docs/upstream-api.md for what it serves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildTokens, TokenRegistry } from './auth.js';
import { type ApiDeps, handleApi } from './api.js';
import { type ControlDeps, handleControl } from './control.js';
import { Engine } from './engine.js';
import { notFound, SimConfigError } from './errors.js';
import { Faults, normalizeFaults } from './faults.js';
import { type ResolvedOptions, resolveOptions, resolveStyle } from './options.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog } from './request-log.js';
import type { TimerSet } from './respond.js';
import {
  channelJson,
  memberJson,
  orgJson,
  type Json,
  sessionDetailJson,
  sessionJson,
  subscriptionJson,
} from './serialize.js';
import { type ListenerName, listen } from './server.js';
import { runTrigger, triggerHelpers, type Triggers } from './triggers.js';
import type {
  Change,
  FaultSpec,
  RequestLogEntry,
  Scenario,
  SimOptions,
  SimStyle,
  SimToken,
  TokenSpec,
} from './types.js';

/** What the API would show of one org right now, in the canonical shape (ground truth for tests). */
export interface WorldView {
  organization: Json;
  team: Json[];
  subscription: Json;
  channels: Json[];
  /** Every session of every channel, by channel id. */
  sessions: Record<string, Json[]>;
}

/** A running simulator. */
export interface Simulator {
  /** The API's base URL, e.g. `http://127.0.0.1:PORT` (paths start with `/v1`). */
  readonly url: string;
  /** Another origin on the same host that cross-origin faults point at. */
  readonly foreignUrl: string;
  /** The configured tokens (values included: they are the simulator's own). */
  readonly tokens: readonly SimToken[];
  /**
   * Replaces every configured token, e.g. to revoke one or to issue it again; requests
   * answered from then on use the new set. Throws SimConfigError when invalid.
   */
  setTokens(tokens: readonly TokenSpec[]): readonly SimToken[];
  /** Slugs of the simulated orgs. */
  readonly orgs: readonly string[];
  readonly seed: number;
  readonly speed: number;
  readonly scenario: Scenario;
  /** Typed triggers, one per `POST /_sim/<route>`. */
  readonly trigger: Triggers;
  /** The ground-truth change log after `sinceSeq` (catching the world up first). */
  changes(sinceSeq?: number, org?: string): Change[];
  /** The request log after `sinceSeq`. */
  requests(sinceSeq?: number): RequestLogEntry[];
  /** Empties the request log. */
  resetRequests(): void;
  /** Brings the world up to the clock now. */
  advance(): void;
  /** Simulated time now (ms). */
  simNow(): number;
  style(): SimStyle;
  /** Changes the response style; unset fields keep their value. Throws SimConfigError when invalid. */
  setStyle(style: Partial<SimStyle>): SimStyle;
  faults(): FaultSpec[];
  /** Replaces the fault rules (null or [] clears them). Throws SimConfigError when invalid. */
  setFaults(faults: FaultSpec | readonly FaultSpec[] | null): FaultSpec[];
  /** Changes the rate limit (and forgets what was counted). */
  setRateLimit(perMinute: number): void;
  /** Forgets what the rate limit counted. */
  resetRateLimit(): void;
  /** What the API would show of an org now, unstyled. */
  view(org: string): WorldView;
  /** A session's detail as the API would show it now, unstyled. */
  sessionDetail(org: string, sessionId: string): Json | undefined;
  /** Stops both listeners and drops pending timers. */
  close(): Promise<void>;
}

/** What GET /_sim/status shows: the clocks, the scenario and each org's counts. */
function simStatus(engine: Engine, o: ResolvedOptions) {
  engine.advance();
  const w = engine.world;
  return {
    now: o.clock.now(),
    simNow: w.now,
    speed: o.speed,
    scenario: o.scenario,
    seq: engine.changes.seq,
    pendingSteps: engine.evolver.pending,
    orgs: [...w.orgs.values()].map((org) => ({
      slug: org.slug,
      channels: org.channels.length,
      sessions: org.sessionById.size,
      liveSessions: org.liveSessions,
      members: org.members.length,
    })),
  };
}

/** One org's world as the API would show it now, unstyled. */
function worldView(engine: Engine, slug: string, hints: ResolvedOptions['hints']): WorldView {
  engine.advance();
  const w = engine.world;
  const org = w.org(slug);
  if (org === undefined) throw new SimConfigError(`no simulated org ${slug}`);
  return {
    organization: orgJson(w, org),
    team: org.members.map((m) => memberJson(w, m)),
    subscription: subscriptionJson(w, org),
    channels: org.channels.map((c) => channelJson(w, c, hints)),
    sessions: Object.fromEntries(org.channels.map((c) => [c.id, c.sessions.map((s) => sessionJson(w, s))])),
  };
}

/** Builds the world from the options, starts listening and returns the handle. */
export async function startSimulator(options: SimOptions = {}): Promise<Simulator> {
  const o = resolveOptions(options);
  const slugs = new Set(o.orgs.map((x) => x.slug));
  const engine = new Engine(o);
  const registry = new TokenRegistry(buildTokens(o.tokens, slugs, o.clock.now()));
  const limiter = new RateLimiter(o.rateLimitPerMinute);
  const faults = new Faults(o.seed, o.faults);
  const log = new RequestLog(o.maxRequests);
  const timers: TimerSet = new Set();
  let style = o.style;
  let urls = { url: '', foreignUrl: '' };

  const setStyle = (s: Partial<SimStyle>) => {
    style = resolveStyle(s, style);
    return style;
  };
  const setFaults = (f: FaultSpec | readonly FaultSpec[] | null) => {
    faults.set(normalizeFaults(f));
    return faults.specs;
  };
  const setRateLimit = (perMinute: number) => {
    if (!Number.isInteger(perMinute) || perMinute < 1) {
      throw new SimConfigError(`rate limit must be a positive integer, got ${String(perMinute)}`);
    }
    limiter.setLimit(perMinute);
  };
  const control: ControlDeps = {
    changes: (since, org, limit) => {
      engine.advance();
      return engine.changes.read(since, org, limit);
    },
    requests: (since) => log.list(since),
    resetRequests: () => log.clear(),
    style: () => style,
    setStyle,
    faults: () => faults.specs,
    setFaults: (f) => setFaults(f),
    rateLimit: () => limiter.perMinute,
    setRateLimit: (perMinute, reset) => {
      if (perMinute !== undefined) setRateLimit(perMinute);
      if (reset) limiter.reset();
      return limiter.perMinute;
    },
    status: () => simStatus(engine, o),
    incidents: () => incidentsView(engine),
    trigger: (name, input) => runTrigger(engine, name, input),
    world: (slug) => {
      if (engine.world.org(slug) === undefined) throw notFound(`organization ${slug}`);
      return view(slug);
    },
  };
  const apiDeps: ApiDeps = {
    engine,
    tokens: registry,
    limiter,
    faults,
    log,
    clock: o.clock,
    timers,
    style: () => style,
    origin: () => urls.url,
    foreignOrigin: () => urls.foreignUrl,
    dialect: () => o.dialect,
    hints: () => o.hints,
  };
  const handler = (req: IncomingMessage, res: ServerResponse, listener: ListenerName) => {
    if (listener === 'main' && (req.url === '/_sim' || req.url?.startsWith('/_sim/') === true)) {
      return handleControl(req, res, control);
    }
    return handleApi(req, res, apiDeps, listener);
  };
  const listeners = await listen(o.host, o.port, handler);
  urls = { url: listeners.url, foreignUrl: listeners.foreignUrl };
  const view = (slug: string): WorldView => worldView(engine, slug, o.hints);
  let closed: Promise<void> | undefined;
  return {
    url: listeners.url,
    foreignUrl: listeners.foreignUrl,
    get tokens() {
      return apiDeps.tokens.tokens;
    },
    setTokens: (specs) => {
      apiDeps.tokens = new TokenRegistry(buildTokens(specs, slugs, o.clock.now()));
      return apiDeps.tokens.tokens;
    },
    orgs: o.orgs.map((x) => x.slug),
    seed: o.seed,
    speed: o.speed,
    scenario: o.scenario,
    trigger: triggerHelpers(engine),
    changes: (since = 0, org) => control.changes(since, org, Number.POSITIVE_INFINITY).changes,
    requests: (since = 0) => log.list(since),
    resetRequests: () => log.clear(),
    advance: () => engine.advance(),
    simNow: () => engine.simNow(),
    style: () => style,
    setStyle,
    faults: () => faults.specs,
    setFaults,
    setRateLimit,
    resetRateLimit: () => limiter.reset(),
    view,
    sessionDetail: (slug, id) => {
      engine.advance();
      const s = engine.world.org(slug)?.sessionById.get(id);
      return s === undefined ? undefined : sessionDetailJson(engine.world, s);
    },
    close: () => {
      closed ??= (async () => {
        for (const t of timers) t.cancel();
        timers.clear();
        await listeners.close();
      })();
      return closed;
    },
  };
}

/** The incidents played so far, with times as the API writes them (ground truth for benches and tests). */
function incidentsView(engine: Engine): Record<string, unknown>[] {
  engine.advance();
  const w = engine.world;
  return engine.evolver.incidents.map((i) => ({
    ...i,
    scheduledAt: w.iso(i.scheduledAt),
    scheduledEndAt: w.iso(i.scheduledEndAt),
    at: w.iso(i.at),
  }));
}
