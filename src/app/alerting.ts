/**
 * The alerting half of the composition root: the alert engine fed by change events and
 * snapshots, and the delivery worker behind its durable outbox (plus Alertmanager
 * re-sends). Built from a Config by {@link App}; nothing here touches `process`.
 */
import path from 'node:path';
import type { Writable } from 'node:stream';
import { AlertEngine } from '../alerts/engine.js';
import { type AlertStateFile, type AlertStore, validateAlertState } from '../alerts/state.js';
import type { Notification } from '../alerts/types.js';
import type { Clock } from '../core/clock.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { AlertmanagerNotifier } from '../notify/alertmanager/alertmanager.js';
import { AlertmanagerResender } from '../notify/alertmanager/resender.js';
import { DeliveryWorker } from '../notify/delivery.js';
import type { DeliveryMetrics } from '../notify/metrics.js';
import type { Notifier } from '../notify/notifier.js';
import { type DeliveryItem, parseDeliveryItem } from '../notify/outbox.js';
import { closeNotifiers, createNotifiers, keepsTold } from '../notify/registry.js';
import { deliveryOptions } from '../notify/schema.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgView } from '../poll/status.js';
import { JsonStateFile } from '../store/json-file.js';
import type { StoreHealth } from '../store/health.js';
import { Outbox } from '../store/outbox.js';

/** What {@link Alerting} is built with. */
export interface AlertingDeps {
  clock: Clock;
  logger: Logger;
  /** Where the console (`log`) sink writes. */
  console: Writable;
  /** How tally's log on `console` is written (see NotifierDeps.consoleFormat). */
  consoleFormat?: 'json' | 'pretty';
  metrics: DeliveryMetrics;
  storeHealth: StoreHealth;
  stateDir: string;
  /** The event log's highest sequence number handed out, saved with the alert state. */
  highestSeq?: (() => number) | undefined;
}

/** Alert state in the state directory, as one atomic JSON file. */
function alertStore(deps: AlertingDeps): AlertStore {
  const file = new JsonStateFile<AlertStateFile>({
    path: path.join(deps.stateDir, 'alerts', 'state.json'),
    format: 'tally-alert-state',
    version: 1,
    validate: validateAlertState,
    logger: deps.logger,
    clock: deps.clock,
    createDir: true,
    health: deps.storeHealth.at('alerts'),
  });
  return {
    load: async () => (await file.load())?.value,
    save: async (state) => {
      await file.save(state);
    },
  };
}

/** The alert engine and delivery, started and stopped together. */
export class Alerting {
  readonly engine: AlertEngine;
  private worker: DeliveryWorker | undefined;
  private resender: AlertmanagerResender | undefined;
  private readonly notifiers: Notifier[];
  private readonly log: Logger;

  constructor(
    private readonly config: Config,
    private readonly deps: AlertingDeps,
  ) {
    this.log = deps.logger.child({ component: 'alerting' });
    this.notifiers = createNotifiers(config.receivers, {
      clock: deps.clock,
      console: deps.console,
      ...(deps.consoleFormat ? { consoleFormat: deps.consoleFormat } : {}),
    });
    const orgLabels: Record<string, Record<string, string>> = {};
    for (const o of config.orgs) if (o.labels) orgLabels[o.slug] = o.labels;
    this.engine = new AlertEngine({
      rules: config.rules,
      highestSeq: deps.highestSeq,
      route: config.route,
      silences: config.silences,
      maintenance: config.maintenance,
      inhibit: config.inhibit,
      clock: deps.clock,
      logger: deps.logger, // the engine binds its component itself
      store: alertStore(deps),
      externalURL: config.server.external_url,
      orgs: config.orgs.map((o) => o.slug),
      orgLabels,
      onNotifications: (ns) => this.deliver(ns),
      keepsTold: (receiver) => config.receivers.some((r) => r.name === receiver && keepsTold(r)),
      onCapped: (rule) => deps.metrics.alertsCapped?.(rule),
    });
  }

  /** Opens the outbox (resuming undelivered notifications), loads alert state, starts timers. */
  async start(): Promise<void> {
    const outbox = await Outbox.open<DeliveryItem>({
      dir: path.join(this.deps.stateDir, 'outbox'),
      logger: this.deps.logger,
      clock: this.deps.clock,
      validate: parseDeliveryItem,
      health: this.deps.storeHealth.at('outbox'),
    });
    this.worker = new DeliveryWorker({
      notifiers: this.notifiers,
      outbox,
      clock: this.deps.clock,
      logger: this.deps.logger, // the delivery worker binds its component itself
      metrics: this.deps.metrics,
      options: deliveryOptions(this.config.delivery, this.config.receivers),
    });
    await this.worker.start();
    await this.engine.load();
    await this.engine.start();
    const am = this.notifiers.filter((n): n is AlertmanagerNotifier => n instanceof AlertmanagerNotifier);
    if (am.length > 0) {
      this.resender = new AlertmanagerResender({
        notifiers: am,
        firingAlerts: (receiver) => this.engine.resendable(receiver),
        clock: this.deps.clock,
        logger: this.deps.logger,
        metrics: this.deps.metrics,
        timeoutMs: this.config.delivery.timeout,
      });
      this.resender.start();
    }
  }

  /** New change events, after they are durable. */
  onEvents(events: readonly ChangeEvent[]): void {
    this.engine.onEvents(events);
  }

  /** Condition rules over the current snapshots. */
  evaluate(views: readonly OrgView[]): void {
    this.engine.evaluate(views);
  }

  /** The delivery worker, once started (for status and metrics). */
  delivery(): DeliveryWorker | undefined {
    return this.worker;
  }

  /** Stops the engine (saving its state), then lets delivery finish for up to `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    await this.resender?.stop();
    await this.engine.stop().catch((err: unknown) => this.log.error({ err }, 'saving alert state failed'));
    await this.worker?.stop(graceMs);
    await closeNotifiers(this.notifiers);
  }

  private async deliver(notifications: Notification[]): Promise<void> {
    if (!this.worker) throw new Error('delivery is not started');
    const metrics = this.deps.metrics;
    for (const [i, n] of notifications.entries()) {
      try {
        await this.worker.enqueue(n);
      } catch (err) {
        // The engine keeps these and tries again; the state failure itself is counted by path.
        const waiting = new Map<string, number>();
        for (const m of notifications.slice(i)) waiting.set(m.receiver, (waiting.get(m.receiver) ?? 0) + 1);
        for (const [receiver, count] of waiting) metrics.handoverFailed?.(receiver, count);
        throw err;
      }
    }
    for (const r of new Set(notifications.map((n) => n.receiver))) metrics.handedOver?.(r);
  }
}
