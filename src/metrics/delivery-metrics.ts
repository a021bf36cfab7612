/**
 * Metrics of notification delivery, fed by the delivery worker through its DeliveryMetrics
 * interface (src/notify/metrics.ts): sent, failed by reason, dropped by reason, attempt
 * latency, and per receiver the outbox backlog and the age of its oldest notification.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryMetrics } from '../notify/metrics.js';
import { DELIVERY_REASONS, DROP_REASONS } from '../notify/notifier.js';

/** Attempt latency buckets (seconds): webhooks answer in ms, a slow SMTP server in seconds. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The delivery metrics on prom-client. */
export class PromDeliveryMetrics implements DeliveryMetrics {
  private readonly sentTotal: Counter<'receiver' | 'sink'>;
  private readonly failedTotal: Counter<'receiver' | 'sink' | 'reason'>;
  private readonly droppedTotal: Counter<'receiver' | 'sink' | 'reason'>;
  private readonly latency: Histogram<'receiver' | 'sink'>;
  private readonly depth: Gauge<'receiver'>;
  private readonly oldest: Gauge<'receiver'>;
  private readonly truncatedTotal: Counter<'receiver'>;
  private readonly cappedTotal: Counter<'rule'>;
  private readonly handoverFailures: Counter<'receiver'>;
  private readonly awaitingHandover: Gauge<'receiver'>;
  /** Receivers declared so far: a reload declares them again, and zero() would wipe their latency. */
  private readonly declared = new Set<string>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.sentTotal = new Counter({
      name: 'tally_notifications_sent_total',
      help: 'Notifications a receiver acknowledged.',
      labelNames: ['receiver', 'sink'],
      registers,
    });
    this.failedTotal = new Counter({
      name: 'tally_notification_attempts_failed_total',
      help: 'Delivery attempts that failed (the notification may be retried), by reason.',
      labelNames: ['receiver', 'sink', 'reason'],
      registers,
    });
    this.droppedTotal = new Counter({
      name: 'tally_notifications_dropped_total',
      help: 'Notifications given up on without delivery (not retryable, too old, too many attempts).',
      labelNames: ['receiver', 'sink', 'reason'],
      registers,
    });
    this.latency = new Histogram({
      name: 'tally_notification_attempt_duration_seconds',
      help: 'Duration of one delivery attempt, successful or not.',
      labelNames: ['receiver', 'sink'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const refresh = () => this.refresh?.();
    this.depth = new Gauge({
      name: 'tally_delivery_queue_depth',
      help: 'Notifications waiting in the outbox, by receiver.',
      labelNames: ['receiver'],
      registers,
      // The backlog's age grows without any delivery event: ask for it at scrape time.
      collect: refresh,
    });
    this.truncatedTotal = new Counter({
      name: 'tally_notification_alerts_truncated_total',
      help: 'Alerts left out of notifications to bound their size (counted in each payload), by receiver.',
      labelNames: ['receiver'],
      registers,
    });
    this.cappedTotal = new Counter({
      name: 'tally_alerts_capped_total',
      help: 'New alerts not kept because their rule holds as many as it may, by rule.',
      labelNames: ['rule'],
      registers,
    });
    this.oldest = new Gauge({
      name: 'tally_delivery_oldest_pending_age_seconds',
      help: "Age of the receiver's oldest notification still waiting in the outbox (0 when none waits).",
      labelNames: ['receiver'],
      registers,
    });
    this.handoverFailures = new Counter({
      name: 'tally_delivery_handover_failures_total',
      help: 'Notifications that could not be written to the outbox (the state directory failed) and wait in memory for the next try.',
      labelNames: ['receiver'],
      registers,
    });
    this.awaitingHandover = new Gauge({
      name: 'tally_delivery_awaiting_handover',
      help: 'Notifications waiting in memory because the outbox could not be written, by receiver.',
      labelNames: ['receiver'],
      registers,
    });
  }

  /** Called at scrape time to refresh the backlog gauges (the delivery worker's reportBacklog). */
  refresh: (() => void) | undefined;

  /**
   * Starts every receiver's series at zero (failures and drops by every reason too), so
   * that rates, alerts and the dashboard see them before the first send.
   */
  declareReceivers(receivers: readonly { name: string; type: string }[]): void {
    for (const r of receivers) {
      const labels = { receiver: r.name, sink: r.type };
      this.sentTotal.inc(labels, 0);
      for (const reason of DELIVERY_REASONS) this.failedTotal.inc({ ...labels, reason }, 0);
      // unknown_receiver is counted under the missing receiver's name, never a declared one.
      for (const reason of DROP_REASONS)
        if (reason !== 'unknown_receiver') this.droppedTotal.inc({ ...labels, reason }, 0);
      if (!this.declared.has(r.name)) this.latency.zero(labels);
      this.declared.add(r.name);
      this.depth.set({ receiver: r.name }, 0);
      this.oldest.set({ receiver: r.name }, 0);
      this.truncatedTotal.inc({ receiver: r.name }, 0);
      this.handoverFailures.inc({ receiver: r.name }, 0);
      this.awaitingHandover.set({ receiver: r.name }, 0);
    }
  }

  sent(receiver: string, sink: string): void {
    this.sentTotal.inc({ receiver, sink });
  }

  failed(receiver: string, sink: string, reason: string): void {
    this.failedTotal.inc({ receiver, sink, reason });
  }

  dropped(receiver: string, sink: string, reason: string): void {
    this.droppedTotal.inc({ receiver, sink, reason });
  }

  observeLatency(receiver: string, sink: string, seconds: number): void {
    this.latency.observe({ receiver, sink }, seconds);
  }

  setQueueDepth(receiver: string, depth: number): void {
    this.depth.set({ receiver }, depth);
  }

  setOldestPendingAge(receiver: string, seconds: number): void {
    this.oldest.set({ receiver }, seconds);
  }

  alertsCapped(rule: string): void {
    this.cappedTotal.inc({ rule });
  }

  truncated(receiver: string, alerts: number): void {
    this.truncatedTotal.inc({ receiver }, alerts);
  }

  handoverFailed(receiver: string, waiting: number): void {
    this.handoverFailures.inc({ receiver });
    this.awaitingHandover.set({ receiver }, waiting);
  }

  handedOver(receiver: string): void {
    this.awaitingHandover.set({ receiver }, 0);
  }
}
