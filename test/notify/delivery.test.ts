import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import { systemClock } from '../../src/core/clock.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { DeliveryWorker, type DeliveryOptions } from '../../src/notify/delivery.js';
import {
  type DeliveryItem,
  deliveryId,
  type OutboxPort,
  parseDeliveryItem,
} from '../../src/notify/outbox.js';
import { webhookSchema } from '../../src/notify/webhook/schema.js';
import { WebhookNotifier } from '../../src/notify/webhook/webhook.js';
import { Outbox } from '../../src/store/outbox.js';
import {
  firingNotification,
  type RecordedMetrics,
  recordingMetrics,
  resolvedNotification,
} from './helpers/fixtures.js';
import { type HttpReceiver, startHttpReceiver } from './helpers/http-receiver.js';
import { MemoryOutbox } from './helpers/memory-outbox.js';

const OPTIONS: DeliveryOptions = {
  timeoutMs: 2000,
  concurrency: 4,
  maxAgeMs: 60_000,
  maxAttempts: 0,
  backoff: { baseMs: 20, maxMs: 100 },
  deadLetterLimit: 10,
};

interface Rig {
  rx: HttpReceiver;
  dispatcher: DeliveryWorker;
  outbox: MemoryOutbox<DeliveryItem>;
  metrics: RecordedMetrics;
  log: () => string;
  notifier: WebhookNotifier;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.dispatcher.stop(100);
    await r.notifier.close();
    await r.rx.close();
  }
});

async function rig(
  opts: Partial<DeliveryOptions> = {},
  outbox = new MemoryOutbox<DeliveryItem>(),
): Promise<Rig> {
  const rx = await startHttpReceiver();
  const notifier = new WebhookNotifier('ops', webhookSchema.parse({ url: rx.url }), { clock: systemClock });
  const metrics = recordingMetrics();
  let logText = '';
  const dest = new PassThrough();
  dest.on('data', (c: Buffer) => {
    logText += c.toString();
  });
  const dispatcher = new DeliveryWorker({
    notifiers: [notifier],
    outbox,
    clock: systemClock,
    logger: createLogger({ level: 'info', format: 'json', destination: dest }),
    metrics,
    options: { ...OPTIONS, ...opts },
    random: () => 0.5,
  });
  const r = { rx, dispatcher, outbox, metrics, log: () => logText, notifier };
  rigs.push(r);
  return r;
}

const settle = (ms: number) => new Promise((res) => setTimeout(res, ms));
/** Waits (up to 5 s) until the log holds `text`: log lines are written asynchronously. */
async function logged(log: () => string, text: string): Promise<string> {
  for (let end = Date.now() + 5000; Date.now() < end && !log().includes(text); ) await settle(20);
  return log();
}
const ids = (rx: HttpReceiver) => rx.requests.map((q) => (JSON.parse(q.body) as { id: string }).id);

describe('DeliveryWorker', () => {
  it('stores before the first attempt, sends with the stable id, removes after acceptance', async () => {
    const r = await rig();
    await r.dispatcher.start();
    const n = firingNotification();
    const id = await r.dispatcher.enqueue(n);
    expect(id).toBe(deliveryId(n.id, 'ops'));
    await r.dispatcher.whenIdle();
    expect(r.outbox.ops).toEqual([`put ${id}`, `ack ${id}`]);
    expect(r.rx.requests[0]!.headers['webhook-id']).toBe(id);
    expect(r.outbox.entries.size).toBe(0);
    expect(r.metrics.count('sent', 'ops', 'webhook')).toBe(1);
    expect(r.metrics.count('observeLatency', 'ops', 'webhook')).toBe(1);
    expect(r.metrics.calls.filter((c) => c.method === 'setQueueDepth').at(-1)?.args).toEqual(['ops', 0]);
  });

  it('retries a 500 with backoff and records the failure', async () => {
    const r = await rig();
    r.rx.respond((_q, i) => ({ status: i < 2 ? 500 : 200 }));
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    expect(r.rx.requests).toHaveLength(3);
    expect(new Set(r.rx.requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
    expect(r.metrics.count('failed', 'ops', 'webhook', 'http_5xx')).toBe(2);
    expect(r.metrics.count('sent')).toBe(1);
    expect(r.outbox.ops.filter((o) => o.startsWith('update'))).toHaveLength(2);
  });

  it('retries after a timeout', async () => {
    // Long enough that a loaded machine does not time out the answering second attempt too.
    const r = await rig({ timeoutMs: 1000 });
    r.rx.respond((_q, i) => (i === 0 ? { hang: true } : { status: 200 }));
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    expect(r.rx.requests).toHaveLength(2);
    expect(r.metrics.count('failed', 'ops', 'webhook', 'timeout')).toBe(1);
  });

  it('drops a 410 at once: not retried, logged, counted, kept as a dead letter', async () => {
    const r = await rig();
    r.rx.respond(() => ({ status: 410 }));
    await r.dispatcher.start();
    const id = await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    await settle(150);
    expect(r.rx.requests).toHaveLength(1);
    expect(r.metrics.count('dropped', 'ops', 'webhook', 'http_410')).toBe(1);
    expect(r.outbox.entries.size).toBe(0);
    expect(r.dispatcher.deadLetters()).toEqual([
      expect.objectContaining({ id, receiver: 'ops', reason: 'http_410', attempts: 1 }),
    ]);
    expect(r.log()).toMatch(/"msg":"notification dropped"/);
    expect(r.log()).toContain('"reason":"http_410"');
  });

  it('honours Retry-After of a 429', async () => {
    const r = await rig();
    const at: number[] = [];
    r.rx.respond((_q, i) => {
      at.push(Date.now());
      return i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 };
    });
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    expect(at).toHaveLength(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950);
    expect(r.metrics.count('failed', 'ops', 'webhook', 'http_429')).toBe(1);
  });

  it('drops a notification older than max_age with a log line and a counter', async () => {
    const r = await rig({ maxAgeMs: 250 });
    r.rx.respond(() => ({ status: 503 }));
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    expect(r.rx.requests.length).toBeGreaterThan(1);
    expect(r.metrics.count('dropped', 'ops', 'webhook', 'expired')).toBe(1);
    expect(r.outbox.entries.size).toBe(0);
    expect(await logged(r.log, '"reason":"expired"')).toMatch(/"msg":"notification dropped"/);
  });

  it('drops after max_attempts failures', async () => {
    const r = await rig({ maxAttempts: 3 });
    r.rx.respond(() => ({ status: 500 }));
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.whenIdle();
    expect(r.rx.requests).toHaveLength(3);
    expect(r.metrics.count('dropped', 'ops', 'webhook', 'max_attempts')).toBe(1);
  });

  it('keeps the order within a group: resolved never overtakes a firing that is being retried', async () => {
    const r = await rig();
    let firingTries = 0;
    r.rx.respond((q) => {
      if (JSON.parse(q.body).id !== 'grp-acme-offline:1') return { status: 200 };
      firingTries++;
      return { status: firingTries <= 2 ? 500 : 200 };
    });
    await r.dispatcher.start();
    await r.dispatcher.enqueue(firingNotification());
    await r.dispatcher.enqueue(resolvedNotification());
    await r.dispatcher.enqueue(firingNotification({ id: 'other-group:1', groupKey: 'other' }));
    await r.dispatcher.whenIdle();
    const order = ids(r.rx);
    expect(order.filter((id) => id !== 'other-group:1')).toEqual([
      'grp-acme-offline:1',
      'grp-acme-offline:1',
      'grp-acme-offline:1',
      'grp-acme-offline:2',
    ]);
  });

  it('drops a notification for an unknown receiver without storing it', async () => {
    const r = await rig();
    await r.dispatcher.start();
    expect(await r.dispatcher.enqueue(firingNotification({ receiver: 'nobody' }))).toBeUndefined();
    expect(r.outbox.ops).toEqual([]);
    expect(r.metrics.count('dropped', 'nobody', 'unknown', 'unknown_receiver')).toBe(1);
  });

  it('stop() aborts an attempt in flight and leaves the entry for the next run', async () => {
    const r = await rig({ timeoutMs: 10_000 });
    r.rx.respond(() => ({ hang: true }));
    await r.dispatcher.start();
    const id = await r.dispatcher.enqueue(firingNotification());
    await r.rx.waitFor(1);
    await r.dispatcher.stop(50);
    expect(r.outbox.entries.has(id!)).toBe(true);
    expect(r.metrics.count('failed')).toBe(0);
  });

  describe('across restarts (the state directory outbox)', () => {
    let dir: string;
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('a second dispatcher delivers what the first left pending, under the same id', async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'tally-outbox-'));
      const first = await rig({}, new MemoryOutbox());
      const open = () =>
        Outbox.open<DeliveryItem>({
          dir,
          logger: silentLogger(),
          clock: systemClock,
          validate: parseDeliveryItem,
        });
      // The store's outbox is what the delivery worker is written against.
      const outbox: OutboxPort<DeliveryItem> = await open();
      const d1 = new DeliveryWorker({
        notifiers: [first.notifier],
        outbox,
        clock: systemClock,
        logger: createLogger({ level: 'silent', format: 'json', destination: new PassThrough() }),
        metrics: recordingMetrics(),
        options: OPTIONS,
      });
      first.rx.respond(() => ({ status: 503 }));
      const notifications: Notification[] = [
        firingNotification(),
        firingNotification({ id: 'g2:1', groupKey: 'g2' }),
      ];
      await d1.start();
      for (const n of notifications) await d1.enqueue(n);
      await first.rx.waitFor(2);
      await d1.stop(50);
      expect(await outbox.list()).toHaveLength(2);

      // A new process opens the outbox from disk.
      const reopened = await open();
      expect(reopened.list()).toHaveLength(2);
      expect(reopened.list().every((e) => e.attempts >= 1 && e.lastError?.includes('HTTP 503'))).toBe(true);

      const second = await rig({}, new MemoryOutbox());
      const d2 = new DeliveryWorker({
        notifiers: [second.notifier],
        outbox: reopened,
        clock: systemClock,
        logger: createLogger({ level: 'silent', format: 'json', destination: new PassThrough() }),
        metrics: recordingMetrics(),
        options: OPTIONS,
      });
      await d2.start();
      await d2.whenIdle();
      await d2.stop();
      expect(ids(second.rx).sort()).toEqual(['g2:1', 'grp-acme-offline:1']);
      expect(second.rx.requests.map((q) => q.headers['webhook-id']).sort()).toEqual(
        notifications.map((n) => deliveryId(n.id, 'ops')).sort(),
      );
      expect(reopened.list()).toHaveLength(0);
      expect((await open()).list()).toHaveLength(0);
    });
  });
});
