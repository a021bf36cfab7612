import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { DeliveryWorker, type DeliveryOptions } from '../../src/notify/delivery.js';
import { DeliveryError, type Notifier } from '../../src/notify/notifier.js';
import { type DeliveryItem, deliveryId } from '../../src/notify/outbox.js';
import { MemoryOutbox } from './helpers/memory-outbox.js';
import { firingNotification, recordingMetrics } from './helpers/fixtures.js';

const OPTIONS: DeliveryOptions = {
  timeoutMs: 2000,
  concurrency: 4,
  maxAgeMs: 3_600_000,
  maxAttempts: 0,
  backoff: { baseMs: 1000, maxMs: 60_000 },
  deadLetterLimit: 10,
};
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const workers: DeliveryWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop(10);
});

function countingClock() {
  let zero = 0;
  const clock: Clock = {
    ...systemClock,
    now: () => systemClock.now(),
    setTimeout: (fn, ms) => {
      if (ms <= 0) zero++;
      return systemClock.setTimeout(fn, ms);
    },
    sleep: systemClock.sleep.bind(systemClock),
  };
  return { clock, zero: () => zero };
}

/** A started worker with one notifier and an outbox in memory. */
async function worker(
  notifier: Notifier,
  outbox = new MemoryOutbox<DeliveryItem>(),
  clock: Clock = systemClock,
) {
  const w = new DeliveryWorker({
    notifiers: [notifier],
    outbox,
    clock,
    logger: silentLogger(),
    metrics: recordingMetrics(),
    options: OPTIONS,
    random: () => 0.5,
  });
  workers.push(w);
  await w.start();
  return w;
}

/**
 * The delivery worker when the outbox or the receiver misbehaves: no busy loop, no retry
 * without backoff, nothing unhandled.
 */
describe('delivery worker under faults', () => {
  it('does not spin while a newer entry of a group waits behind one in backoff', async () => {
    const { clock, zero } = countingClock();
    const sends: string[] = [];
    const notifier: Notifier = {
      name: 'ops',
      type: 'webhook',
      async send(n) {
        sends.push(n.id);
        throw new DeliveryError('HTTP 503', { reason: 'http_5xx', retryAfterMs: 60_000 });
      },
    };
    const w = await worker(notifier, new MemoryOutbox<DeliveryItem>(), clock);
    await w.enqueue(firingNotification({ id: 'g-1' }));
    await settle(50); // g-1 failed, waits 60 s
    await w.enqueue(firingNotification({ id: 'g-2' })); // same group, due now but blocked
    const before = zero();
    await settle(500);
    // The worker sleeps until the older entry is due: no timer of zero delay, one send.
    expect(zero() - before).toBeLessThan(3);
    expect(sends).toEqual(['g-1']);
  });

  it('does not retry at once, without backoff, when the outbox cannot record a failure', async () => {
    const sends: number[] = [];
    const notifier: Notifier = {
      name: 'ops',
      type: 'webhook',
      async send() {
        sends.push(Date.now());
        await new Promise((r) => setImmediate(r));
        throw new DeliveryError('HTTP 503', { reason: 'http_5xx' });
      },
    };
    const outbox = new MemoryOutbox<DeliveryItem>();
    outbox.update = async () => {
      await new Promise((r) => setImmediate(r));
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    const w = await worker(notifier, outbox);
    await w.enqueue(firingNotification({ id: 'g-1' }));
    await settle(500);
    expect(sends.length).toBeLessThanOrEqual(2);
  });

  it('does not leave an unhandled rejection when dropping an entry fails to ack', async () => {
    const unhandled: unknown[] = [];
    const onUR = (r: unknown) => unhandled.push(r);
    const listeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUR);
    try {
      const notifier: Notifier = { name: 'ops', type: 'webhook', async send() {} };
      const outbox = new MemoryOutbox<DeliveryItem>();
      // an entry left by the last run for a receiver that a reload removed
      const n = firingNotification({ id: 'g-1', receiver: 'gone' });
      outbox.put(deliveryId(n.id, 'gone'), { notification: n });
      outbox.ack = () => {
        throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      };
      await worker(notifier, outbox);
      await settle(100);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUR);
      for (const l of listeners) process.on('unhandledRejection', l as never);
    }
  });
});
