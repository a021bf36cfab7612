/**
 * The composition root: builds every part of tally from a Config, starts it, stops it
 * within a bound, reloads it. Nothing here touches `process`: main.ts does that, so that
 * a whole tally can run inside a test.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Alerting } from './alerting.js';
import { AlertingSlot } from './alerting-slot.js';
import type { Clock } from '../core/clock.js';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import type { DeliveryMetrics } from '../notify/metrics.js';
import { Registry } from 'prom-client';
import type { AlertEngine } from '../alerts/engine.js';
import type { ApiHandler } from '../alerts/http.js';
import { alertsHandler, maintenanceHandler, silencesHandler } from '../alerts/http.js';
import { createHttpServer } from '../http/index.js';
import { json } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import type { HttpServer } from '../http/server.js';
import { PromDeliveryMetrics } from '../metrics/delivery-metrics.js';
import { TallyMetrics } from '../metrics/index.js';
import { Poller, type PolledOrg } from '../poll/poller.js';
import { diff } from '../snapshot/diff.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { BudgetView, EventQuery, OrgView, StatusSource } from '../core/status.js';
import { EventLog } from '../store/event-log.js';
import { StateWriter } from './state-writer.js';
import { StoreHealth } from '../store/health.js';
import { acquireStateLock, type StateLock } from '../store/lock.js';
import { SnapshotStore } from '../store/snapshot-store.js';
import { UpstreamClient } from '../upstream/client.js';
import type { UpstreamObserver } from '../upstream/observer.js';

/** Receives change events once they are durable in the event log. */
export type EventListener = (events: readonly ChangeEvent[]) => void;

/** What an {@link App} is built with besides its config. */
export interface AppDeps {
  clock: Clock;
  logger: Logger;
  /** Observes upstream requests (the metrics layer). */
  observer?: UpstreamObserver;
  /** Receives delivery measurements (the metrics layer). */
  deliveryMetrics?: DeliveryMetrics;
  /** Where the console (`log`) receiver writes. */
  console: Writable;
  /** How tally's log on `console` is written (default json; the demo's is pretty). */
  consoleFormat?: 'json' | 'pretty';
  /** Reads the config again, for `POST /-/reload` (the daemon passes its config file). */
  reloadConfig?: () => Promise<LoadedConfig>;
  rng?: () => number;
}

/** Condition rules run at most this often, after the snapshots changed. */
const EVALUATE_MS = 1_000;
/** Config sections the alerting half is built from; a reload that changes one rebuilds it. */
const ALERTING_SECTIONS = [
  'rules',
  'route',
  'silences',
  'maintenance',
  'inhibit',
  'receivers',
  'delivery',
] as const;
/** Config sections that keep their running value until a restart. */
const RESTART_SECTIONS = ['upstream', 'intervals', 'server', 'state', 'log'] as const;

/** A running tally: poller, state, and the read-only view the HTTP side serves. */
export class App implements StatusSource {
  readonly startedAt: number;
  private config: Config;
  private readonly log: Logger;
  private readonly client: UpstreamClient;
  private readonly storeHealth: StoreHealth;
  private snapshots!: SnapshotStore;
  private eventLog!: EventLog;
  private poller!: Poller;
  private lock: StateLock | undefined;
  private readonly listeners = new Set<EventListener>();
  private writer!: StateWriter;
  private readonly orgConfig = new Map<string, Config['orgs'][number]>();
  private started = false;
  /** The alerting half; replaced as a whole when a reload changes its sections. */
  readonly alerting: AlertingSlot;
  private readonly deliveryMetrics: DeliveryMetrics;
  /** The metrics, read from this app at scrape time. */
  readonly metrics: TallyMetrics;
  private http: HttpServer | undefined;
  private httpBase: string | undefined;
  private evaluateTimer: { cancel(): void } | undefined;

  private constructor(
    loaded: LoadedConfig,
    private readonly deps: AppDeps,
  ) {
    this.config = loaded.config;
    this.startedAt = deps.clock.now();
    this.log = deps.logger.child({ component: 'app' });
    const registry = new Registry();
    this.metrics = new TallyMetrics({ registry, source: this });
    const delivery = new PromDeliveryMetrics(registry);
    delivery.declareReceivers(loaded.config.receivers);
    delivery.refresh = () => void this.alerting.delivery()?.reportBacklog();
    this.client = UpstreamClient.fromConfig(loaded.config, {
      clock: deps.clock,
      logger: deps.logger, // the client binds its component itself
      observer: deps.observer ?? this.observer(),
      ...(deps.rng ? { rng: deps.rng } : {}),
    });
    this.storeHealth = new StoreHealth(deps.clock);
    this.deliveryMetrics = deps.deliveryMetrics ?? delivery;
    this.declareReceivers = (receivers) => delivery.declareReceivers(receivers);
    this.alerting = new AlertingSlot(
      (c) => this.buildAlerting(c),
      loaded.config,
      this.log,
      () => this.scheduleEvaluation(),
    );
    for (const org of loaded.config.orgs) this.orgConfig.set(org.slug, org);
  }

  private readonly declareReceivers: (receivers: Config['receivers']) => void;

  private buildAlerting(config: Config): Alerting {
    return new Alerting(config, {
      clock: this.deps.clock,
      logger: this.deps.logger,
      console: this.deps.console,
      ...(this.deps.consoleFormat ? { consoleFormat: this.deps.consoleFormat } : {}),
      metrics: this.deliveryMetrics,
      storeHealth: this.storeHealth,
      stateDir: this.stateDir(),
    });
  }

  /** Builds an app; call {@link start} to run it. */
  static create(loaded: LoadedConfig, deps: AppDeps): App {
    return new App(loaded, deps);
  }

  /** Locks the state directory, resumes from stored snapshots and starts polling. */
  async start(): Promise<void> {
    this.lock = await acquireStateLock(this.stateDir(), { logger: this.deps.logger, clock: this.deps.clock });
    this.snapshots = await SnapshotStore.open({
      dir: path.join(this.stateDir(), 'snapshots'),
      logger: this.deps.logger,
      clock: this.deps.clock,
      health: this.storeHealth,
    });
    this.eventLog = await EventLog.open({
      dir: path.join(this.stateDir(), 'events'),
      logger: this.deps.logger,
      clock: this.deps.clock,
      maxBytes: this.config.state.events.max_bytes,
      maxAgeMs: this.config.state.events.max_age,
      health: this.storeHealth,
    });
    this.writer = new StateWriter({
      clock: this.deps.clock,
      logger: this.deps.logger,
      snapshots: this.snapshots,
      eventLog: this.eventLog,
      announce: (appended) => this.announce(appended),
      onWriteFailure: (reason) => this.metrics.recordStateWriteFailure(reason),
      running: () => this.started,
    });
    await this.alerting.start();
    const orgs: PolledOrg[] = [];
    for (const org of this.config.orgs) {
      const stored = await this.snapshots.loadWithEnvelope(org.slug);
      const initial = stored?.snapshot;
      await this.writer.publish(pendingEventsOf(stored?.extra));
      this.log.info(
        { org: org.slug, resumed: initial !== undefined },
        initial ? 'resuming from stored snapshot' : 'first look: taking a silent baseline',
      );
      orgs.push({ auth: { slug: org.slug, token: org.token! }, filter: org.channels, initial });
    }
    const iv = this.config.intervals;
    this.poller = new Poller(
      {
        orgs,
        intervals: iv,
        window: this.config.upstream.window,
        perPage: this.config.upstream.shape.per_page,
        capacity: () => this.client.budget.capacityPerMinute(),
        reserveForHigh: (requests) => this.client.budget.reserveForHigh(requests),
      },
      {
        fetcher: this.client,
        clock: this.deps.clock,
        logger: this.deps.logger,
        diff: (prev, next) => diff(prev, next),
        onUpdate: (org, snapshot, events) => {
          this.scheduleEvaluation();
          this.writer.update(org, snapshot, events);
        },
        onPoll: (org, resource, ms) =>
          this.metrics.recordPoll(org, resource as Parameters<TallyMetrics['recordPoll']>[1], ms),
        ...(this.deps.rng ? { rng: this.deps.rng } : {}),
      },
    );
    this.poller.start();
    this.started = true;
    await this.serveHttp();
    this.onStarted?.();
  }

  /** Called once the app is running and serving (the demo prints its URLs). */
  onStarted: (() => void) | undefined;

  /** The base URL the HTTP server listens on, once started. */
  url(): string | undefined {
    return this.httpBase;
  }

  private async serveHttp(): Promise<void> {
    const http = createHttpServer({
      server: this.config.server,
      source: this,
      metrics: this.metrics,
      clock: this.deps.clock,
      logger: this.deps.logger,
    });
    // The engine of the moment: a reload may replace it, and a request waits for that.
    const live =
      (make: (engine: AlertEngine) => ApiHandler): ApiHandler =>
      async (req) => {
        await this.alerting.settled();
        return make(this.alerting.engine)(req);
      };
    const mount = (method: string, pattern: string, handler: ApiHandler) =>
      http.router.addRoute(method, pattern, adapt(handler));
    mount('GET', '/api/v1/alerts', live(alertsHandler));
    mount('GET', '/api/v1/silences', live(silencesHandler));
    mount('POST', '/api/v1/silences', live(silencesHandler));
    mount('DELETE', '/api/v1/silences/:id', live(silencesHandler));
    mount('GET', '/api/v1/maintenance', live(maintenanceHandler));
    http.router.addRoute('POST', '/-/reload', async () => {
      if (!this.deps.reloadConfig)
        return json(501, { error: { code: 'not_supported', message: 'no config file to reload' } });
      const r = await this.reloadFromFile();
      return r.ok
        ? json(200, { status: 'reloaded' })
        : json(400, { error: { code: 'invalid_config', message: r.error } });
    });
    this.http = http;
    this.httpBase = (await http.listen()).url;
    this.log.info({ url: this.httpBase }, 'serving metrics and the JSON API');
  }

  /** Stops polling, flushes state and releases the state directory, within `timeoutMs`. */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.poller.stop(Math.max(0, timeoutMs - 1000));
    await this.writer.flushAll();
    this.evaluateTimer?.cancel();
    await this.alerting.stop(Math.max(1000, timeoutMs / 2));
    await this.http?.close(1000);
    await this.eventLog.close();
    await this.client.close();
    await this.lock?.release();
    this.log.info('stopped');
  }

  /**
   * The upstream observer: every measurement goes to the metrics; schema drift also
   * becomes one `upstream.schema_drift` event per distinct problem (its id is the problem's
   * hash, so the event log keeps it once, across restarts too).
   */
  private observer(): UpstreamObserver {
    const metrics = this.metrics.upstream;
    const seen = new Set<string>();
    return {
      onRequest: (i) => metrics.onRequest(i),
      onRetry: (i) => metrics.onRetry(i),
      onRateLimited: (i) => metrics.onRateLimited(i),
      onPause: (i) => metrics.onPause(i),
      onAuthFailure: (i) => metrics.onAuthFailure(i),
      onDrift: (issue) => {
        metrics.onDrift(issue);
        const key = JSON.stringify([issue.org, issue.endpoint, issue.field, issue.problem, issue.fatal]);
        if (seen.has(key) || !this.started) return;
        seen.add(key);
        const event: ChangeEvent = {
          id: createHash('sha256').update(key).digest('hex').slice(0, 20),
          at: this.deps.clock.now(),
          org: issue.org,
          kind: 'upstream.schema_drift',
          entity: { kind: 'upstream', id: issue.org },
          field: `${issue.endpoint}.${issue.field}`,
          to: issue.problem,
          labels: {
            endpoint: issue.endpoint,
            field: issue.field,
            problem: issue.problem,
            fatal: String(issue.fatal),
          },
        };
        this.writer.publishInOrder(issue.org, [event], () => this.poller?.orgs().get(issue.org)?.snapshot());
      },
    };
  }

  /** Calls `fn` with every batch of new events, after they are durable. */
  onEvents(fn: EventListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Reads the config file again and applies it: the one path of SIGHUP and
   * `POST /-/reload`. A file that cannot be read or is invalid (rules that do not compile
   * included) leaves the running config in place and sets
   * `tally_config_last_reload_successful` to 0.
   */
  async reloadFromFile(): Promise<{ ok: true } | { ok: false; error: string }> {
    if (!this.deps.reloadConfig) return { ok: false, error: 'no config file to reload' };
    try {
      await this.reload(await this.deps.reloadConfig());
      return { ok: true };
    } catch (err) {
      this.metrics.recordConfigReload(false, this.deps.clock.now());
      this.log.error({ err }, 'config reload failed, keeping the running config');
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Takes a new config. `orgs` apply at once (orgs added or removed, tokens, filters,
   * labels). A change to rules, route, silences, maintenance, inhibit, receivers or delivery
   * (or to the orgs the alerts are about) rebuilds the alerting half the way a restart
   * would: the running engine saves its state and lets deliveries in flight finish, the new
   * one loads that state and resumes the outbox, and events that arrive meanwhile wait for
   * it. Firing alerts of rules that remain stay firing (nothing is sent again); alerts of
   * removed rules resolve. The new rules are compiled before anything changes, so a rule
   * that does not compile refuses the whole reload. Upstream, intervals, server, state and
   * log keep their running values until a restart, and the log says which changed.
   */
  async reload(loaded: LoadedConfig): Promise<void> {
    const next = loaded.config;
    const before = this.config;
    const changed = (k: keyof Config) => JSON.stringify(next[k]) !== JSON.stringify(this.config[k]);
    const orgKey = (c: Config) => JSON.stringify(c.orgs.map((o) => [o.slug, o.labels ?? {}]));
    const alertingChanged =
      ALERTING_SECTIONS.filter((k) => changed(k)).length > 0 || orgKey(next) !== orgKey(this.config);
    // Built (rules compiled, receivers checked) before anything changes: a failure here
    // keeps the whole running config.
    const replacement = alertingChanged
      ? this.alerting.prepare({ ...this.config, ...pickAlerting(next) })
      : undefined;
    const restart = RESTART_SECTIONS.filter((k) => changed(k));
    if (restart.length > 0)
      this.log.warn({ sections: restart }, 'these config sections change only on restart');
    this.config = { ...this.config, ...pickAlerting(next) };
    this.orgConfig.clear();
    for (const org of next.orgs) this.orgConfig.set(org.slug, org);
    this.poller.reconfigure(
      next.orgs.map((o) => ({ auth: { slug: o.slug, token: o.token! }, filter: o.channels })),
    );
    if (replacement) {
      this.declareReceivers(next.receivers);
      const running = { ...this.config, ...pickAlerting(before), orgs: next.orgs };
      try {
        await this.alerting.replace(replacement, next.delivery.timeout + 1000, running);
      } catch (err) {
        this.config = running; // the slot went back to the running alerting
        throw err;
      }
    }
    this.metrics.recordConfigReload(true, this.deps.clock.now());
    this.log.info(
      { alerting: alertingChanged, orgs: next.orgs.length, restartNeeded: restart },
      'config reloaded',
    );
  }

  // ---- StatusSource --------------------------------------------------------------------

  orgs(): readonly OrgView[] {
    return [...this.poller.orgs().values()].map((p) => {
      const cfg = this.orgConfig.get(p.slug);
      const s = p.snapshot();
      const ready = (['profile', 'team', 'subscription', 'channels'] as const).every(
        (k) => s[k]?.state === 'complete',
      );
      return {
        slug: p.slug,
        snapshot: s,
        health: {
          state: p.health.state,
          lastSuccessAt: p.health.lastSuccessAt,
          lastError: p.health.lastError,
        },
        attempts: p.attempts,
        tokenExpiresAt: cfg?.token_expires_at ? Date.parse(cfg.token_expires_at) : undefined,
        labels: cfg?.labels ?? {},
        ready,
        lastFullSweep: p.lastFullSweep,
      };
    });
  }

  plan() {
    return this.poller.plan();
  }

  budget(): BudgetView {
    return this.client.budget.stats();
  }

  ready(): boolean {
    return this.started && this.orgs().every((o) => o.ready);
  }

  events(query: EventQuery): Promise<{ events: ChangeEvent[]; nextCursor?: string }> {
    return this.eventLog.query(query);
  }

  /** State-directory write health, for metrics. */
  store(): StoreHealth {
    return this.storeHealth;
  }

  // ---- internals -----------------------------------------------------------------------

  private stateDir(): string {
    return path.resolve(this.config.state.dir);
  }

  /** Tells metrics, alerting and listeners of events that are now durable. */
  private announce(appended: readonly ChangeEvent[]): void {
    if (appended.length === 0) return;
    this.metrics.recordEvents(appended);
    this.alerting.onEvents(appended);
    for (const fn of this.listeners) fn(appended);
  }

  private scheduleEvaluation(): void {
    if (this.evaluateTimer) return;
    this.evaluateTimer = this.deps.clock.setTimeout(() => {
      this.evaluateTimer = undefined;
      if (!this.started) return;
      try {
        this.alerting.evaluate(() => this.orgs());
      } catch (err) {
        this.log.error({ err }, 'evaluating condition rules failed');
      }
    }, EVALUATE_MS);
  }
}

/** The sections of `config` that apply on a reload: orgs and the alerting half. */
function pickAlerting(config: Config): Pick<Config, 'orgs' | (typeof ALERTING_SECTIONS)[number]> {
  return {
    orgs: config.orgs,
    rules: config.rules,
    route: config.route,
    silences: config.silences,
    maintenance: config.maintenance,
    inhibit: config.inhibit,
    receivers: config.receivers,
    delivery: config.delivery,
  };
}

/** The events a stored snapshot carried that may not have reached the log before a crash. */
function pendingEventsOf(extra: Record<string, unknown> | undefined): ChangeEvent[] {
  const list = extra?.['pendingEvents'];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is ChangeEvent =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as ChangeEvent).id === 'string' &&
      typeof (e as ChangeEvent).kind === 'string',
  );
}

/** Serves an alert-layer handler (plain request/response) as a route. */
function adapt(handler: ApiHandler): Handler {
  return async (ctx) => {
    const hasBody = ctx.method === 'POST' || ctx.method === 'PUT';
    const body = hasBody ? await ctx.json() : undefined;
    const res = await handler({
      method: ctx.method,
      path: ctx.url.pathname,
      query: ctx.query,
      ...(body !== undefined ? { body } : {}),
    });
    return json(res.status, res.body);
  };
}
