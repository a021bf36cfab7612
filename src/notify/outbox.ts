/**
 * The durable queue the delivery worker delivers from, as the delivery worker sees it. The state
 * directory's `Outbox<T>` (src/store) implements it; tests may use any other. An entry is
 * durable once `put` resolves and stays until `ack`, so a crash between the two means the
 * notification is sent again after the restart (at-least-once), under the same id.
 */
import { createHash } from 'node:crypto';
import type { Notification } from '../alerts/types.js';
import type { OutboxEntry, OutboxPatch } from '../store/outbox.js';

export type { OutboxEntry, OutboxPatch };

/** A value, or a promise of it: the store may answer synchronously or not. */
export type Awaitable<T> = T | Promise<T>;

/** The outbox operations the delivery worker uses. */
export interface OutboxPort<T> {
  /** Stores `item` under `id` durably before resolving; putting an existing id keeps one entry. */
  put(id: string, item: T): Awaitable<unknown>;
  /** Every pending entry, oldest first. */
  list(): Awaitable<readonly OutboxEntry<T>[]>;
  /** Records a failed attempt. */
  update(id: string, patch: OutboxPatch): Awaitable<unknown>;
  /** Removes the entry: delivered, or given up on. */
  ack(id: string): Awaitable<unknown>;
}

/** What the delivery worker stores per entry: the notification, which names its receiver. */
export interface DeliveryItem {
  notification: Notification;
}

/**
 * Checks an item read back from the outbox (pass it as the store's `validate`), so an
 * entry that is not a notification is set aside instead of crashing delivery.
 */
export function parseDeliveryItem(item: unknown): DeliveryItem {
  const n = (item as Partial<DeliveryItem> | null)?.notification;
  if (n === undefined || n === null || typeof n !== 'object') throw new Error('missing notification');
  if (typeof n.id !== 'string' || typeof n.receiver !== 'string' || typeof n.groupKey !== 'string')
    throw new Error('notification id, receiver or groupKey is not a string');
  if (!Array.isArray(n.alerts)) throw new Error('notification alerts is not a list');
  return { notification: n };
}

/**
 * The stable id of one notification for one receiver: the outbox key, the webhook's
 * `webhook-id` and `Idempotency-Key`, and the e-mail's `Message-ID`. A hash keeps it safe
 * as a file name, a header value and a Message-ID whatever the group key holds.
 */
export function deliveryId(notificationId: string, receiver: string): string {
  const h = createHash('sha256').update(receiver).update('\0').update(notificationId).digest('hex');
  return `msg_${h.slice(0, 32)}`;
}
