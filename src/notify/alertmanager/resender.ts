/**
 * Re-sends firing alerts to Alertmanager receivers, as Alertmanager expects of its
 * clients: an alert that is not pushed again before its `endsAt` is taken as resolved.
 * Each Alertmanager receiver is pushed every `resend_interval` with all alerts that fire
 * for it now. Best effort and not through the outbox: a failed resend is logged and
 * counted, and the next tick simply sends the current set again.
 */
import type { Alert } from '../../alerts/types.js';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { DeliveryMetrics } from '../metrics.js';
import { DeliveryError } from '../notifier.js';
import type { AlertmanagerNotifier } from './alertmanager.js';

/** What the resender is built from. */
export interface ResenderDeps {
  notifiers: Iterable<AlertmanagerNotifier>;
  /** The firing alerts the named receiver was sent and should be sent again: not muted, past group_wait. */
  firingAlerts: (receiver: string) => readonly Alert[];
  clock: Clock;
  logger: Logger;
  metrics: DeliveryMetrics;
  /** Longest one resend may take (ms). */
  timeoutMs: number;
}

/** Pushes firing alerts again on a timer, one timer per Alertmanager receiver. */
export class AlertmanagerResender {
  readonly #deps: ResenderDeps;
  readonly #log: Logger;
  readonly #timers = new Map<string, TimerHandle>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(deps: ResenderDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'notify.resend' });
  }

  /** Starts the timers; the first resend of each receiver happens one interval from now. */
  start(): void {
    for (const n of this.#deps.notifiers) this.#schedule(n);
  }

  /** Stops the timers and aborts resends in flight. */
  async stop(): Promise<void> {
    for (const t of this.#timers.values()) t.cancel();
    this.#timers.clear();
    this.#stop.abort(new DeliveryError('tally is stopping', { reason: 'aborted' }));
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Pushes the firing alerts of one receiver now; resolves when done, never rejects. */
  async resendNow(n: AlertmanagerNotifier): Promise<void> {
    const alerts = this.#deps.firingAlerts(n.name).filter((a) => a.state !== 'resolved');
    if (alerts.length === 0) return;
    const ctrl = new AbortController();
    const timer = this.#deps.clock.setTimeout(
      () => ctrl.abort(new DeliveryError(`${n.name}: resend timed out`, { reason: 'timeout' })),
      this.#deps.timeoutMs,
    );
    const onStop = () => ctrl.abort(this.#stop.signal.reason);
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    const started = this.#deps.clock.monotonic();
    try {
      await n.push(alerts, ctrl.signal);
      this.#log.debug({ receiver: n.name, alerts: alerts.length }, 'firing alerts re-sent');
    } catch (err) {
      if (this.#stop.signal.aborted) return;
      const reason = err instanceof DeliveryError ? err.reason : 'unknown';
      this.#deps.metrics.failed(n.name, 'alertmanager', reason);
      this.#log.error(
        { receiver: n.name, reason, error: describeError(err) },
        'resend of firing alerts failed',
      );
    } finally {
      timer.cancel();
      this.#stop.signal.removeEventListener('abort', onStop);
      this.#deps.metrics.observeLatency(
        n.name,
        'alertmanager',
        (this.#deps.clock.monotonic() - started) / 1000,
      );
    }
  }

  #schedule(n: AlertmanagerNotifier): void {
    if (this.#stop.signal.aborted) return;
    const t = this.#deps.clock.setTimeout(() => {
      const p = this.resendNow(n).finally(() => {
        this.#inFlight.delete(p);
        this.#schedule(n);
      });
      this.#inFlight.add(p);
    }, n.resendIntervalMs);
    this.#timers.set(n.name, t);
  }
}
