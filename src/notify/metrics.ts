/**
 * What the delivery worker reports about delivery, as plain method calls. The metrics
 * component implements it on prom-client; tests record the calls.
 */
import type { DropReason, SinkType } from './notifier.js';

/** Receives delivery measurements from the delivery worker. */
export interface DeliveryMetrics {
  /** A notification was accepted by its receiver. */
  sent(receiver: string, sink: SinkType): void;
  /** One attempt failed (it may be retried). */
  failed(receiver: string, sink: SinkType, reason: string): void;
  /** A notification was given up on without delivery (non-retryable, expired, too many attempts). */
  dropped(receiver: string, sink: SinkType | 'unknown', reason: DropReason): void;
  /** Duration of one attempt, successful or not, in seconds. */
  observeLatency(receiver: string, sink: SinkType, seconds: number): void;
  /** Notifications waiting in the outbox for this receiver. */
  setQueueDepth(receiver: string, depth: number): void;
  /** Age of this receiver's oldest waiting notification in seconds (0 when none waits). */
  setOldestPendingAge(receiver: string, seconds: number): void;
  /** A notification queued for this receiver left `alerts` alerts out (src/alerts/cap.ts). */
  truncated?(receiver: string, alerts: number): void;
  /** A new alert of `rule` was not kept: the rule holds as many as it may (src/alerts/cap.ts). */
  alertsCapped?(rule: string): void;
  /**
   * Notifications that could not be handed over to the outbox (the state directory failed)
   * and wait in memory for the next try, by receiver: `waiting` is how many wait now.
   */
  handoverFailed?(receiver: string, waiting: number): void;
  /** Every notification waiting for the hand-over reached the outbox. */
  handedOver?(receiver: string): void;
}

/** A recorder that ignores everything, for commands and tests that do not measure. */
export function noopDeliveryMetrics(): DeliveryMetrics {
  const nothing = () => {};
  return {
    sent: nothing,
    failed: nothing,
    dropped: nothing,
    observeLatency: nothing,
    setQueueDepth: nothing,
    setOldestPendingAge: nothing,
  };
}
