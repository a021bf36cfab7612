/**
 * The composition root: builds every part of tally from a Config, starts it, stops it
 * within a bound, reloads it. Nothing here touches `process`: main.ts does that, so that
 * a whole tally can run inside a test.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { Alerting } from './alerting.js';
import type { Clock } from './clock.js';
import type { LoadedConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import type { Logger } from './log.js';
import type { DeliveryMetrics } from './notify/metrics.js';
import { Registry } from 'prom-client';
import type { AlertEngine } from './alerts/engine.js';
import type { ApiHandler } from './alerts/http.js';
import { alertsHandler, maintenanceHandler, silencesHandler } from './alerts/http.js';
import { createHttpServer } from './http/index.js';
import { json } from './http/reply.js';
import type { Handler } from './http/router.js';
import type { HttpServer } from './http/server.js';
import { PromDeliveryMetrics } from './metrics/delivery-metrics.js';
import { TallyMetrics } from './metrics/index.js';
import { Poller, type PolledOrg } from './poll/poller.js';
import { diff } from './snapshot/diff.js';
import type { ChangeEvent } from './snapshot/events.js';
import type { OrgSnapshot } from './snapshot/model.js';
import type { BudgetView, EventQuery, OrgView, StatusSource } from './status.js';
import { EventLog } from './store/event-log.js';
import type { LoggedEvent } from './store/event-segments.js';
import { StoreHealth } from './store/health.js';
import { acquireStateLock, type StateLock } from './store/lock.js';
import { SnapshotStore } from './store/snapshot-store.js';
import { UpstreamClient } from './upstream/client.js';
import type { UpstreamObserver } from './upstream/observer.js';

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
  /** Reads the config again, for `POST /-/reload` (the daemon passes its config file). */
  reloadConfig?: () => Promise<LoadedConfig>;
  rng?: () => number;
}

/** How long a snapshot may wait to be saved when nothing changed (freshness only). */
const QUIET_SAVE_MS = 30_000;
/** How long new events (and their snapshot) may wait to be made durable, at the least. */
const EVENT_SAVE_MS = 1_000;
/** Condition rules run at most this often, after the snapshots changed. */
const EVALUATE_MS = 1_000;
/** A failed state write is tried again after 1 s, doubling up to this (a full or read-only disk). */
const RETRY_MAX_MS = 30_000;
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

/**
 * Snapshot and events of one org waiting to be made durable. `kind` says why its timer
 * runs: a quiet save (freshness only), new events, or a retry after a failed write.
 * Deliberately no wall-clock due time: the injected clock may jump (NTP step, VM resume)
 * while timers run in real time, and comparing due times across a jump would park new
 * events behind a quiet save's 30 s timer.
 */
interface DirtyEntry {
  snapshot: OrgSnapshot;
  events: ChangeEvent[];
  kind: 'quiet' | 'events' | 'retry';
  timer: { cancel(): void };
}

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
  /** Per org: the chain of pending writes, so events and snapshots are written in order. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly dirty = new Map<string, DirtyEntry>();
  /** Per org: consecutive failed state writes, for the retry backoff. */
  private readonly writeFailures = new Map<string, number>();
  private eventSaveDelay = EVENT_SAVE_MS;
  private readonly orgConfig = new Map<string, Config['orgs'][number]>();
  /** Orgs whose snapshot was saved at least once by this process. */
  private readonly saved = new Set<string>();
  private started = false;
  /** The alerting half; replaced as a whole when a reload changes its sections. */
  alerting: Alerting;
  /** Settles when a reload's swap of the alerting half is done (events wait for it). */
  private alertingSwap: Promise<void> = Promise.resolve();
  /** Events that became durable while the alerting half was being swapped. */
  private heldForAlerting: ChangeEvent[] | undefined;
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
      logger: deps.logger.child({ component: 'upstream' }),
      observer: deps.observer ?? this.observer(),
      ...(deps.rng ? { rng: deps.rng } : {}),
    });
    this.storeHealth = new StoreHealth(deps.clock);
    this.deliveryMetrics = deps.deliveryMetrics ?? delivery;
    this.declareReceivers = (receivers) => delivery.declareReceivers(receivers);
    this.alerting = this.buildAlerting(loaded.config);
    for (const org of loaded.config.orgs) this.orgConfig.set(org.slug, org);
  }

  private readonly declareReceivers: (receivers: Config['receivers']) => void;

  private buildAlerting(config: Config): Alerting {
    return new Alerting(config, {
      clock: this.deps.clock,
      logger: this.deps.logger,
      console: this.deps.console,
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
    await this.alerting.start();
    const orgs: PolledOrg[] = [];
    for (const org of this.config.orgs) {
      const stored = await this.snapshots.loadWithEnvelope(org.slug);
      const initial = stored?.snapshot;
      await this.publish(pendingEventsOf(stored?.extra));
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
        onUpdate: (org, snapshot, events) => this.onUpdate(org, snapshot, events),
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
        await this.alertingSwap;
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
    for (const slug of [...this.dirty.keys()]) this.flush(slug);
    await Promise.allSettled([...this.writes.values()]);
    this.evaluateTimer?.cancel();
    await this.alertingSwap;
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
        this.chain(issue.org, async () => {
          try {
            await this.publish([event]);
          } catch (err) {
            const snapshot = this.poller?.orgs().get(issue.org)?.snapshot();
            if (snapshot) this.retryLater(issue.org, snapshot, [event]);
            throw err;
          }
        });
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
      ? this.buildAlerting({ ...this.config, ...pickAlerting(next) })
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
    if (replacement) await this.swapAlerting(replacement, next, before);
    this.metrics.recordConfigReload(true, this.deps.clock.now());
    this.log.info(
      { alerting: alertingChanged, orgs: next.orgs.length, restartNeeded: restart },
      'config reloaded',
    );
  }

  /**
   * Replaces the alerting half: the old one stops (saving alert state, finishing
   * deliveries in flight within the delivery timeout), the new one starts from that state
   * and the outbox. Events made durable meanwhile are held and handed to the new one.
   */
  private async swapAlerting(replacement: Alerting, config: Config, fallback: Config): Promise<void> {
    const previous = this.alertingSwap;
    let done!: () => void;
    this.alertingSwap = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await previous;
      this.heldForAlerting ??= [];
      await this.alerting.stop(config.delivery.timeout + 1000);
      this.declareReceivers(config.receivers);
      this.alerting = replacement;
      try {
        await replacement.start();
      } catch (err) {
        // The state directory refused the new half (it opens the outbox and alert state):
        // go back to the running config's alerting rather than run without any.
        this.log.error({ err }, 'the reloaded alerting could not start; going back to the running config');
        await replacement.stop(0).catch(() => undefined);
        this.config = { ...this.config, ...pickAlerting(fallback), orgs: this.config.orgs };
        this.alerting = this.buildAlerting(this.config);
        await this.alerting.start();
        throw err;
      }
    } finally {
      const held = this.heldForAlerting ?? [];
      this.heldForAlerting = undefined;
      done();
      if (held.length > 0) this.alerting.onEvents(held);
      this.scheduleEvaluation();
    }
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

  /**
   * Events and the snapshot that produced them become durable together: the snapshot is
   * saved first, carrying the batch's events in its envelope, then the events are
   * appended to the log, then listeners hear of them. A crash before the save leaves the
   * older snapshot, which yields the same changes again; a crash after it leaves the
   * events in the envelope, and the next start appends them (the log drops ids it has).
   * Saves are coalesced so that a busy org does not rewrite a large file on every read.
   */
  private onUpdate(org: string, snapshot: OrgSnapshot, events: ChangeEvent[]): void {
    this.scheduleEvaluation();
    const entry = this.dirty.get(org);
    if (entry) {
      entry.snapshot = snapshot;
      entry.events = [...entry.events, ...events];
      // A quiet save is brought forward by new events; an event save or a retry (which
      // keeps its backoff while the disk refuses writes) already carries them.
      if (entry.kind !== 'quiet' || events.length === 0) return;
      entry.timer.cancel();
      entry.kind = 'events';
      entry.timer = this.deps.clock.setTimeout(() => this.flush(org), this.eventSaveDelay);
      return;
    }
    // The first save (the baseline) is prompt too, so a restart soon after start resumes from it.
    const prompt = events.length > 0 || !this.saved.has(org);
    const delay = prompt ? this.eventSaveDelay : QUIET_SAVE_MS;
    const timer = this.deps.clock.setTimeout(() => this.flush(org), delay);
    this.dirty.set(org, { snapshot, events, kind: prompt ? 'events' : 'quiet', timer });
  }

  private flush(org: string): void {
    const entry = this.dirty.get(org);
    if (!entry) return;
    entry.timer.cancel();
    this.dirty.delete(org);
    this.chain(org, async () => {
      // How long the save takes, on the monotonic clock: the injected one may jump mid-save.
      const started = performance.now();
      let appended: LoggedEvent[];
      try {
        await this.snapshots.save(org, entry.snapshot, { pendingEvents: entry.events });
        appended = await this.append(entry.events);
      } catch (err) {
        // Nothing accepted is dropped: the batch waits in memory (and, once a save
        // succeeds, in the snapshot's envelope) until the disk takes it again.
        this.retryLater(org, entry.snapshot, entry.events);
        throw err;
      }
      this.writeFailures.delete(org);
      // A large snapshot is saved less often: at most a tenth of the time goes to saving.
      const took = performance.now() - started;
      this.eventSaveDelay = Math.min(30_000, Math.max(EVENT_SAVE_MS, took * 10));
      this.saved.add(org);
      this.announce(appended);
    });
  }

  /**
   * Puts a batch whose write failed back in front of anything newer for `org`, and tries
   * again after a backoff (1 s, doubling, at most {@link RETRY_MAX_MS}). A read-only mount
   * is retried too: it may be remounted read-write, and the retry costs one failed open.
   */
  private retryLater(org: string, snapshot: OrgSnapshot, events: readonly ChangeEvent[]): void {
    const failures = (this.writeFailures.get(org) ?? 0) + 1;
    this.writeFailures.set(org, failures);
    const newer = this.dirty.get(org);
    newer?.timer.cancel();
    const entry: DirtyEntry = {
      snapshot: newer?.snapshot ?? snapshot,
      events: [...events, ...(newer?.events ?? [])],
      kind: 'retry',
      timer: { cancel: () => undefined },
    };
    this.dirty.set(org, entry);
    // Stopping: the next start gets these events again, from the older snapshot on disk
    // (the diff yields them anew) or from the envelope of the newer one.
    if (!this.started) return;
    const delay = Math.min(RETRY_MAX_MS, EVENT_SAVE_MS * 2 ** Math.min(failures - 1, 16));
    entry.timer = this.deps.clock.setTimeout(() => this.flush(org), delay);
  }

  /** Appends events to the log and tells listeners of those it did not have. */
  private async publish(events: readonly ChangeEvent[]): Promise<void> {
    this.announce(await this.append(events));
  }

  /** Appends events to the log; returns those it did not have. */
  private async append(events: readonly ChangeEvent[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    return (await this.eventLog.append(events)).appended;
  }

  /** Tells metrics, alerting and listeners of events that are now durable. */
  private announce(appended: readonly ChangeEvent[]): void {
    if (appended.length === 0) return;
    this.metrics.recordEvents(appended);
    if (this.heldForAlerting) this.heldForAlerting.push(...appended);
    else this.alerting.onEvents(appended);
    for (const fn of this.listeners) fn(appended);
  }

  private scheduleEvaluation(): void {
    if (this.evaluateTimer) return;
    this.evaluateTimer = this.deps.clock.setTimeout(() => {
      this.evaluateTimer = undefined;
      if (!this.started || this.heldForAlerting) return; // the swap evaluates when it is done
      try {
        this.alerting.evaluate(this.orgs());
      } catch (err) {
        this.log.error({ err }, 'evaluating condition rules failed');
      }
    }, EVALUATE_MS);
  }

  private chain(org: string, work: () => Promise<void>): void {
    const prev = this.writes.get(org) ?? Promise.resolve();
    const next = prev.then(work).catch((err: unknown) => {
      // A full or read-only disk is reported (log, metric) and does not stop polling.
      this.metrics.recordStateWriteFailure((err as { reason?: string }).reason ?? 'io');
      this.log.error({ org, err }, 'state write failed');
    });
    this.writes.set(org, next);
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
