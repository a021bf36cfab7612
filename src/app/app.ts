/**
 * The composition root: builds every part of tally from a Config, starts it, stops it
 * within a bound, reloads it. Nothing here touches `process`: main.ts does that, so that
 * a whole tally can run inside a test. The parts it wires each live in their own file:
 * resume.ts (how an org joins), reload.ts (what a reload changes), org-views.ts (the read
 * side's view), drift-events.ts (drift as events), state-writer.ts (durable writes),
 * alerting.ts and alerting-slot.ts (the alerting half a reload swaps).
 */
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { Registry } from 'prom-client';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { ClockStepReporter } from './clock-steps.js';
import { ConfigError } from '../core/errors.js';
import type { HostFacts } from '../core/host.js';
import type { Logger } from '../core/log.js';
import { VERSION } from '../core/version.js';
import type { EventQuery, OrgView, StateView, StatusSource } from '../poll/status.js';
import { createHttpServer, type HttpServer } from '../http/index.js';
import { PromDeliveryMetrics } from '../metrics/delivery-metrics.js';
import { TallyMetrics } from '../metrics/index.js';
import { StateMetrics } from '../metrics/state-metrics.js';
import type { DeliveryMetrics } from '../notify/metrics.js';
import { Poller, type PolledOrg } from '../poll/poller.js';
import { diff } from '../snapshot/diff.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import { EventLog } from '../store/event-log.js';
import { StoreHealth } from '../store/health.js';
import { acquireStateLock, type StateLock } from '../store/lock.js';
import { SnapshotStore } from '../store/snapshot-store.js';
import type { BudgetStats } from '../upstream/transport/budget.js';
import { QueryMemory } from '../upstream/query/adapt.js';
import type { EvidenceOptions } from '../upstream/query/evidence.js';
import { UpstreamClient } from '../upstream/client.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import { Alerting } from './alerting.js';
import { AlertingSlot } from './alerting-slot.js';
import { LearnedQueriesFile, learnedOf } from './learned-queries.js';
import { DriftBoard, DriftEvents } from './drift-events.js';
import { orgView } from './org-views.js';
import { planReload, reloadable } from './reload.js';
import { resumeOrg } from './resume.js';
import { replayLogged, stateView, watchEventLog } from './state-view.js';
import { StateWriter } from './state-writer.js';

/** Receives change events once they are durable in the event log. */
export type EventListener = (events: readonly ChangeEvent[]) => void;

/** What an {@link App} is built with besides its config. */
export interface AppDeps {
  clock: Clock;
  logger: Logger;
  /** The registry the app's metrics register in; the caller serves or inspects it. */
  registry: Registry;
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
  /** When a refusal teaches (upstream/query/evidence.ts; tests teach at once). */
  queryEvidence?: EvidenceOptions;
  /** The process's pid, liveness check and Node.js version (from src/main.ts; default EMBEDDED_HOST). */
  host?: HostFacts;
}

/** Condition rules run at most this often, after the snapshots changed. */
const EVALUATE_MS = 1_000;

/** A running tally: poller, state, and the read-only view the HTTP side serves. */
export class App implements StatusSource {
  readonly startedAt: number;
  private config: Config;
  private readonly log: Logger;
  private readonly client: UpstreamClient;
  private readonly storeHealth: StoreHealth;
  private readonly stateMetrics: StateMetrics;
  private snapshots!: SnapshotStore;
  private eventLog!: EventLog;
  private poller!: Poller;
  private lock: StateLock | undefined;
  private readonly listeners = new Set<EventListener>();
  private writer!: StateWriter;
  private readonly orgConfig = new Map<string, Config['orgs'][number]>();
  private started = false;
  /** The state directory is locked: set from the lock on, so a start that fails is undone by stop. */
  private opened = false;
  /** The alerting half; replaced as a whole when a reload changes its sections. */
  readonly alerting: AlertingSlot;
  private readonly deliveryMetrics: DeliveryMetrics;
  private readonly declareReceivers: (receivers: Config['receivers']) => void;
  private readonly drift: DriftEvents;
  /** What the upstream client learned about the server's queries, on disk. */
  private readonly learned: LearnedQueriesFile;
  /** Recent drift per org, for the status API. */
  private readonly driftBoard = new DriftBoard();
  /** The metrics, read from this app at scrape time. */
  readonly metrics: TallyMetrics;
  private http: HttpServer | undefined;
  private httpBase: string | undefined;
  private evaluateTimer: TimerHandle | undefined;
  private readonly clockSteps: ClockStepReporter;
  private stopWatch: (() => void) | undefined;

  private constructor(
    loaded: LoadedConfig,
    private readonly deps: AppDeps,
  ) {
    this.config = loaded.config;
    this.startedAt = deps.clock.now();
    this.log = deps.logger.child({ component: 'app' });
    const caps = loaded.config.server.metrics;
    this.metrics = new TallyMetrics({
      registry: deps.registry,
      source: this,
      caps: { channelSeries: caps.channel_series, sessionSeries: caps.session_series },
      ...(deps.host ? { build: { version: VERSION, node: deps.host.nodeVersion } } : {}),
    });
    const delivery = new PromDeliveryMetrics(deps.registry);
    delivery.declareReceivers(loaded.config.receivers);
    delivery.refresh = () => void this.alerting.delivery()?.reportBacklog();
    this.drift = new DriftEvents(deps.clock);
    this.storeHealth = new StoreHealth(deps.clock);
    this.stateMetrics = new StateMetrics(deps.registry, {
      writable: () => this.state().writable,
      missing: () => this.eventLog?.stats().missingEvents ?? 0,
    });
    this.storeHealth.onFailure((where, reason) => this.metrics.recordStateWriteFailure(where, reason));
    this.learned = new LearnedQueriesFile(() => this.stateDir(), this.log, this.storeHealth.at('learned'));
    this.client = UpstreamClient.fromConfig(loaded.config, {
      memory: new QueryMemory((all) => this.learned.save(all), {
        ...(deps.rng ? { rng: deps.rng } : {}),
        ...deps.queryEvidence,
      }),
      clock: deps.clock,
      logger: deps.logger, // the client binds its component itself
      observer: deps.observer ?? this.observer(),
      ...(deps.rng ? { rng: deps.rng } : {}),
    });
    this.clockSteps = new ClockStepReporter(deps.clock, this.log, (d) => this.metrics.recordClockStep(d));
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

  private buildAlerting(config: Config): Alerting {
    return new Alerting(config, {
      clock: this.deps.clock,
      logger: this.deps.logger,
      console: this.deps.console,
      ...(this.deps.consoleFormat ? { consoleFormat: this.deps.consoleFormat } : {}),
      metrics: this.deliveryMetrics,
      storeHealth: this.storeHealth,
      stateDir: this.stateDir(),
      highestSeq: () => this.eventLog?.highestSeq() ?? 0,
    });
  }

  /** Builds an app; call {@link start} to run it. */
  static create(loaded: LoadedConfig, deps: AppDeps): App {
    return new App(loaded, deps);
  }

  /** Locks the state directory, resumes from stored snapshots and starts polling. */
  async start(): Promise<void> {
    const host = this.deps.host;
    this.lock = await acquireStateLock(this.stateDir(), {
      logger: this.deps.logger,
      clock: this.deps.clock,
      health: this.storeHealth.at('lock'),
      onLost: (holder) => this.lockLost(`pid ${holder.pid} on ${holder.hostname}`),
      ...(host ? { pid: host.pid, isAlive: (pid: number) => host.isAlive(pid) } : {}),
    });
    this.opened = true;
    this.clockSteps.start();
    this.snapshots = await SnapshotStore.open({
      dir: path.join(this.stateDir(), 'snapshots'),
      logger: this.deps.logger,
      clock: this.deps.clock,
      health: this.storeHealth.at('snapshots'),
    });
    this.eventLog = await EventLog.open({
      dir: path.join(this.stateDir(), 'events'),
      logger: this.deps.logger,
      clock: this.deps.clock,
      maxBytes: this.config.state.events.max_bytes,
      maxAgeMs: this.config.state.events.max_age,
      health: this.storeHealth.at('events'),
      onGap: (gap) => this.stateMetrics.eventsMissing(gap.reason, gap.to - gap.from + 1),
    });
    this.writer = new StateWriter({
      clock: this.deps.clock,
      logger: this.deps.logger,
      snapshots: this.snapshots,
      eventLog: this.eventLog,
      announce: (appended) => this.announce(appended),
      running: () => this.started,
    });
    await this.alerting.start();
    await replayLogged(this.alerting.engine, this.eventLog, this.log);
    await this.learned.load(this.client.memory);
    const orgs = await this.resume(this.config.orgs);
    this.poller = new Poller(
      {
        orgs,
        intervals: this.config.intervals,
        window: this.config.upstream.window,
        perPage: this.config.upstream.shape.per_page ?? 100,
        capacity: () => this.client.budget.capacityPerMinute(),
        reserveForHigh: (requests) => this.client.budget.reserveForHigh(requests),
        // A few requests stay free for what a change asks for next.
        // A second's worth stays free for a read that comes due meanwhile.
        spare: () => this.client.budget.spare(Math.ceil(this.client.budget.effective() / 60)),
        removals: {
          massShare: this.config.removals.mass_share,
          massMin: this.config.removals.mass_min,
          confirmReads: this.config.removals.confirm_reads,
          confirmAfterMs: this.config.removals.confirm_after,
        },
      },
      {
        fetcher: this.client,
        clock: this.deps.clock,
        logger: this.deps.logger,
        diff: (prev, next, opts) => diff(prev, next, opts),
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
    this.stopWatch = watchEventLog(this.deps.clock, this.eventLog, this.log);
    this.started = true;
    await this.serveHttp();
    this.onStarted?.();
  }

  /**
   * Another running tally took the state directory (its lock file was removed and made
   * again): from now on nothing is written, and `halted` tells the command to stop and exit.
   */
  private lockLost(holder: string): void {
    this.storeHealth.fence(`the state directory lock is held by ${holder}`);
    this.halt({ reason: `the state directory lock was taken by ${holder}`, lost: 'lock' });
  }

  private halt!: (why: { reason: string; lost: 'lock' }) => void;

  /** Resolves when the app cannot go on and must be stopped (the lock lost to another tally). */
  readonly halted = new Promise<{ reason: string; lost: 'lock' }>((resolve) => {
    this.halt = resolve;
  });

  /** Called once the app is running and serving (the demo prints its URLs). */
  onStarted: (() => void) | undefined;

  /** The base URL the HTTP server listens on, once started. */
  url(): string | undefined {
    return this.httpBase;
  }

  /** Resumes each org from the state directory, in config order. */
  private async resume(orgs: Config['orgs']): Promise<PolledOrg[]> {
    const deps = { snapshots: this.snapshots, writer: this.writer, log: this.log };
    const out: PolledOrg[] = [];
    for (const org of orgs) out.push(await resumeOrg(org, deps));
    return out;
  }

  private async serveHttp(): Promise<void> {
    const http = createHttpServer({
      server: this.config.server,
      source: this,
      metrics: this.metrics,
      clock: this.deps.clock,
      logger: this.deps.logger,
      // The engine of the moment: a reload may replace it, and a request waits for that.
      alerts: async () => {
        await this.alerting.settled();
        return this.alerting.engine;
      },
      ...(this.deps.reloadConfig ? { reload: () => this.reloadFromFile() } : {}),
      outbox: () => {
        const d = this.alerting.delivery();
        if (!d) return undefined;
        return {
          receivers: () =>
            [...d.reportBacklog()].map(([name, r]) => ({ name, depth: r.depth, oldestAgeMs: r.oldestAgeMs })),
          failing: () =>
            d
              .pending()
              .filter((p) => p.lastError !== undefined)
              .map((p) => ({
                receiver: p.receiver,
                attempts: p.attempts,
                lastError: p.lastError,
                createdAt: p.createdAt,
              })),
        };
      },
    });
    this.http = http;
    this.httpBase = (await http.listen()).url;
    this.log.info({ url: this.httpBase }, 'serving metrics and the JSON API');
  }

  /**
   * Stops polling, flushes state and releases the state directory, returning within
   * `timeoutMs` whatever is still in flight: each step gets what is left of the time, and
   * a step that overruns is abandoned (and logged) so the ones after it still run. Reads
   * in flight are aborted; deliveries in flight stay in the outbox for the next start.
   */
  async stop(timeoutMs: number): Promise<void> {
    // Also after a start that failed half way: what it opened is closed, the lock released.
    if (!this.started && !this.opened) return;
    this.started = false;
    this.opened = false;
    this.evaluateTimer?.cancel();
    this.clockSteps.stop();
    this.stopWatch?.();
    const clock = this.deps.clock;
    const end = clock.now() + timeoutMs;
    const left = (share = 1) => Math.max(0, Math.floor((end - clock.now()) * share));
    const late: string[] = [];
    const step = async (name: string, ms: number, work: () => Promise<unknown>): Promise<void> => {
      let timer: TimerHandle | undefined;
      const overran = new Promise<'late'>((resolve) => {
        timer = clock.setTimeout(() => resolve('late'), ms);
      });
      // A step whose part a failed start never made is a no-op, not a throw.
      const done = Promise.resolve()
        .then(work)
        .then(
          () => 'done' as const,
          (err: unknown) => {
            this.log.warn({ err, step: name }, 'a step of stopping failed');
            return 'done' as const;
          },
        );
      if ((await Promise.race([done, overran])) === 'late') late.push(name);
      timer?.cancel();
    };
    // Shares of what is left at each step; the last steps are quick and get the rest. A
    // reload under way finishes first (one not begun is refused: no longer started).
    await step('reload', left(0.2), () => this.reloadTurn);
    await step('poller', left(0.4), () => this.poller?.stop(left(0.3)));
    await step('state', left(0.5), () => Promise.all([this.writer?.flushAll(), this.learned.flushed()]));
    await step('alerting', left(0.6), () => this.alerting.stop(left(0.5)));
    await step('http', left(0.5), () => this.http?.close(left(0.4)) ?? Promise.resolve());
    await step('event log', left(0.5), () => this.eventLog?.close());
    await step('upstream', left(0.5), () => this.client.close());
    await step('lock', left(), () => this.lock?.release() ?? Promise.resolve());
    if (late.length > 0) this.log.warn({ timeoutMs, late }, 'stopped before every step finished');
    else this.log.info('stopped');
  }

  /**
   * The upstream observer: every measurement goes to the metrics; schema drift also
   * becomes an `upstream.schema_drift` event per distinct problem (drift-events.ts).
   */
  private observer(): UpstreamObserver {
    const metrics = this.metrics.upstream;
    return {
      onRequest: (i) => metrics.onRequest(i),
      onRetry: (i) => metrics.onRetry(i),
      onRateLimited: (i) => metrics.onRateLimited(i),
      onPause: (i) => metrics.onPause(i),
      onAuthFailure: (i) => metrics.onAuthFailure(i),
      onDrift: (issue) => {
        metrics.onDrift(issue);
        this.driftBoard.add(issue, this.deps.clock.now());
        if (!this.started) return;
        const event = this.drift.eventFor(issue);
        if (!event) return;
        this.writer.publishInOrder(issue.org, [event], () => this.poller?.orgs().get(issue.org)?.snapshot());
      },
      onSight: (e) => this.driftBoard.sight(e),
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
      // A mistake in the file is the user's, and its problems say where: no stack trace.
      if (err instanceof ConfigError)
        this.log.error(
          { problems: err.problems },
          `config reload refused, keeping the running config: ${err.message.split('\n')[0]}`,
        );
      else this.log.error({ err }, 'config reload failed, keeping the running config');
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Takes a new config. `orgs` apply at once (orgs added or removed, tokens, filters,
   * labels); an added org joins exactly as on a restart, from its stored snapshot when it
   * has one. A change to rules, route, silences, maintenance, inhibit, receivers or
   * delivery (or to the orgs the alerts are about) rebuilds the alerting half the way a
   * restart would: the running engine saves its state and lets deliveries in flight finish,
   * the new one loads that state and resumes the outbox, and events that arrive meanwhile
   * wait for it. Firing alerts of rules that remain stay firing (nothing is sent again);
   * alerts of removed rules resolve. The new rules are compiled before anything changes, so
   * a rule that does not compile refuses the whole reload. Upstream, intervals, server,
   * state, removals and log keep their running values until a restart, and the log says which
   * changed.
   */
  async reload(loaded: LoadedConfig): Promise<void> {
    // One at a time, in the order asked (a SIGHUP during a reload waits for it), and never
    // once stopping has begun: stop waits for the one under way.
    const turn = this.reloadTurn.then(() => this.applyReload(loaded));
    this.reloadTurn = turn.catch(() => undefined);
    return turn;
  }

  private reloadTurn: Promise<unknown> = Promise.resolve();

  private async applyReload(loaded: LoadedConfig): Promise<void> {
    if (!this.started) throw new Error('tally is not running (starting or stopping): config not reloaded');
    const next = loaded.config;
    const before = this.config;
    const plan = planReload(this.config, next);
    // Built (rules compiled, receivers checked) before anything changes: a failure here
    // keeps the whole running config.
    const replacement = plan.alerting
      ? this.alerting.prepare({ ...this.config, ...reloadable(next) })
      : undefined;
    if (plan.restartNeeded.length > 0)
      this.log.warn({ sections: plan.restartNeeded }, 'these config sections change only on restart');
    const polled = this.poller.orgs();
    const joining = next.orgs.filter((o) => !polled.has(o.slug));
    const leaving = [...polled.keys()].filter((slug) => !next.orgs.some((o) => o.slug === slug));
    // An org removed earlier may still have a save pending: it must reach the disk first,
    // so the org resumes from its newest snapshot.
    if (joining.length > 0) await this.writer.flushAll();
    const added = await this.resume(joining);
    // The alerting half first: when the new one cannot start, the running one comes back
    // and nothing else has changed, orgs included.
    if (replacement) {
      this.declareReceivers(next.receivers);
      try {
        await this.alerting.replace(replacement, next.delivery.timeout + 1000, before);
      } catch (err) {
        this.declareReceivers(before.receivers);
        throw err;
      }
    }
    this.config = { ...this.config, ...reloadable(next) };
    this.orgConfig.clear();
    for (const org of next.orgs) this.orgConfig.set(org.slug, org);
    this.poller.reconfigure(
      next.orgs.map(
        (o) =>
          added.find((a) => a.auth.slug === o.slug) ?? {
            auth: { slug: o.slug, token: o.token! },
            filter: o.channels,
            weight: o.weight,
          },
      ),
    );
    // A removed org's last snapshot is written, then no longer held in memory.
    for (const slug of leaving) this.writer.forget(slug, () => !this.poller?.orgs().has(slug));
    this.metrics.recordConfigReload(true, this.deps.clock.now());
    this.log.info(
      { alerting: plan.alerting, orgs: next.orgs.length, restartNeeded: plan.restartNeeded },
      'config reloaded',
    );
  }

  // ---- StatusSource --------------------------------------------------------------------

  orgs(): readonly OrgView[] {
    const fresh = { plan: this.poller.plan(), now: this.deps.clock.now() };
    return [...this.poller.orgs().values()].map((p) => ({
      ...orgView(p, this.orgConfig.get(p.slug), fresh),
      drift: this.driftBoard.of(p.slug),
      degraded: this.driftBoard.degraded(p.slug),
      learned: learnedOf(this.client.memory, p.slug),
      spend: this.poller?.spend.of(p.slug),
    }));
  }

  plan() {
    return this.poller.plan();
  }

  budget(): BudgetStats {
    return this.client.budget.stats();
  }

  /**
   * Ready once every org's org-level parts were read completely; with
   * `server.ready_after_baseline`, also every channel's sessions (the first complete
   * baseline, docs/http-api.md).
   */
  ready(): boolean {
    if (!this.started) return false;
    // What is read while the state directory cannot be written is not durable.
    if (!this.state().writable) return false;
    const orgs = this.orgs();
    if (!orgs.every((o) => o.ready)) return false;
    if (!this.config.server.ready_after_baseline) return true;
    return orgs.every((o) => baselineComplete(o.snapshot));
  }

  events(query: EventQuery): Promise<{ events: ChangeEvent[]; nextCursor?: string }> {
    return this.eventLog.query(query);
  }

  /** State-directory write health, for metrics. */
  store(): StoreHealth {
    return this.storeHealth;
  }

  /** The state directory's health, the event log's lost ranges and the lock (status API, readiness). */
  state(): StateView {
    return stateView(this.storeHealth, this.eventLog, this.lock);
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

/** Whether every current channel's session list has been read completely at least once. */
function baselineComplete(s: OrgSnapshot): boolean {
  if (s.channels?.state !== 'complete') return false;
  return s.channels.value.every((c) => s.sessions[c.id]?.state === 'complete');
}
