/**
 * The running alerting half, replaceable as a whole by a reload: the old one stops (saving
 * alert state, finishing deliveries in flight), the new one starts from that state and the
 * outbox. Change events that become durable meanwhile are held and handed to the new one;
 * evaluations wait for it, and so do callers of {@link AlertingSlot.settled} (the alert API).
 */
import type { Alerting } from './alerting.js';
import type { AlertEngine } from '../alerts/engine.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import type { DeliveryWorker } from '../notify/delivery.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgView } from '../poll/status.js';

/** Holds the alerting half of the moment (see the module comment). */
export class AlertingSlot {
  private current: Alerting;
  /** Settles when the swap in progress, if any, is done. */
  private swapping: Promise<void> = Promise.resolve();
  /** Events that arrived during a swap; undefined while none runs. */
  private held: ChangeEvent[] | undefined;

  constructor(
    private readonly build: (config: Config) => Alerting,
    config: Config,
    private readonly log: Logger,
    /** Called after every swap, when the new half can evaluate again. */
    private readonly afterSwap: () => void,
  ) {
    this.current = build(config);
  }

  /** The engine of the moment; await {@link settled} first where a swap must not be in the way. */
  get engine(): AlertEngine {
    return this.current.engine;
  }

  /** Resolves once no swap is in progress. */
  settled(): Promise<void> {
    return this.swapping;
  }

  /** The delivery worker of the running half, once started. */
  delivery(): DeliveryWorker | undefined {
    return this.current.delivery();
  }

  start(): Promise<void> {
    return this.current.start();
  }

  /** Waits for a swap in progress, then stops the running half. */
  async stop(graceMs: number): Promise<void> {
    await this.swapping;
    await this.current.stop(graceMs);
  }

  /** New durable events: to the running half, or held for the next one during a swap. */
  onEvents(events: readonly ChangeEvent[]): void {
    if (this.held) this.held.push(...events);
    else this.current.onEvents(events);
  }

  /** Condition rules over the current snapshots; skipped during a swap (`afterSwap` follows). */
  evaluate(views: () => readonly OrgView[]): void {
    if (this.held) return;
    this.current.evaluate(views());
  }

  /** Builds a half for `config` without starting it: rules compile, receivers are checked. */
  prepare(config: Config): Alerting {
    return this.build(config);
  }

  /**
   * Stops the running half (`graceMs` for deliveries in flight) and starts `replacement`.
   * When the replacement cannot start, a half built from `fallback` (the running config)
   * starts instead, and the error is thrown.
   */
  async replace(replacement: Alerting, graceMs: number, fallback: Config): Promise<void> {
    const previous = this.swapping;
    let done!: () => void;
    this.swapping = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await previous;
      this.held ??= [];
      await this.current.stop(graceMs);
      this.current = replacement;
      try {
        await replacement.start();
      } catch (err) {
        // The state directory refused the new half (it opens the outbox and alert state):
        // go back to the running config's alerting rather than run without any.
        this.log.error({ err }, 'the reloaded alerting could not start; going back to the running config');
        await replacement.stop(0).catch(() => undefined);
        this.current = this.build(fallback);
        await this.current.start();
        throw err;
      }
    } finally {
      const held = this.held ?? [];
      this.held = undefined;
      done();
      if (held.length > 0) this.current.onEvents(held);
      this.afterSwap();
    }
  }
}
