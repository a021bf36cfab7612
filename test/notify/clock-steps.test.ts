/**
 * Delivery across steps of the wall clock (docs/reliability.md, "Clock steps"): ages, expiry
 * and retries measure elapsed time, so a step of a day either way drops nothing, strands
 * nothing and keeps the oldest-pending age true; times read back from the last run are
 * checked against the clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import { silentLogger } from '../../src/core/log.js';
import { type DeliveryOptions, DeliveryWorker, resumedTimes } from '../../src/notify/delivery.js';
import { DeliveryError, type Notifier } from '../../src/notify/notifier.js';
import type { DeliveryItem } from '../../src/notify/outbox.js';
import { ManualClock } from '../helpers/clock.js';
import { firingNotification, type RecordedMetrics, recordingMetrics } from './helpers/fixtures.js';
import { MemoryOutbox } from './helpers/memory-outbox.js';

const HOUR = 3_600_000;
const OPTIONS: DeliveryOptions = {
  timeoutMs: 2000,
  concurrency: 8,
  maxAgeMs: HOUR,
  maxAttempts: 0,
  backoff: { baseMs: 1000, maxMs: 30_000 },
  deadLetterLimit: 10,
};

const workers: DeliveryWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop(10);
});

/** A receiver that refuses with a 503 until `up` is set, and records what it took. */
function receiver() {
  const state = { up: false, got: [] as string[], tries: 0 };
  const notifier: Notifier = {
    name: 'ops',
    type: 'webhook',
    async send(n: Notification) {
      state.tries++;
      if (!state.up) throw new DeliveryError('HTTP 503', { reason: 'http_5xx' });
      state.got.push(n.id);
    },
  };
  return { state, notifier };
}

function worker(
  clock: ManualClock,
  notifier: Notifier,
  outbox: MemoryOutbox<DeliveryItem>,
  metrics: RecordedMetrics,
) {
  const w = new DeliveryWorker({
    notifiers: [notifier],
    outbox,
    clock,
    logger: silentLogger(),
    metrics,
    options: OPTIONS,
    random: () => 0.99,
  });
  workers.push(w);
  return w;
}

const lastOldest = (m: RecordedMetrics) =>
  m.calls.filter((c) => c.method === 'setOldestPendingAge').at(-1)?.args[1] as number;

/** Five notifications of five groups, queued while the receiver refuses, 20 s of retries. */
async function pendingFive(clock: ManualClock) {
  const rx = receiver();
  const metrics = recordingMetrics();
  const outbox = new MemoryOutbox<DeliveryItem>(() => clock.now());
  const w = worker(clock, rx.notifier, outbox, metrics);
  await w.start();
  for (let i = 0; i < 5; i++) await w.enqueue(firingNotification({ id: `n${i}`, groupKey: `g${i}` }));
  await clock.tick(20_000);
  expect(rx.state.tries).toBeGreaterThan(5);
  expect(rx.state.got).toEqual([]);
  return { rx, metrics, outbox, w };
}

describe('delivery across wall-clock steps', () => {
  it.each([
    ['forward 25 h', 25 * HOUR],
    ['back 25 h', -25 * HOUR],
  ])('%s with notifications pending: none dropped, none stranded, all delivered once', async (_n, step) => {
    const clock = new ManualClock();
    const { rx, metrics, outbox, w } = await pendingFive(clock);
    clock.stepWall(step);
    await clock.tick(1000);
    // The oldest waits for about the 21 s that passed, not 25 h, and not 0.
    w.reportBacklog();
    expect(lastOldest(metrics)).toBeGreaterThanOrEqual(20);
    expect(lastOldest(metrics)).toBeLessThan(30);
    expect(metrics.count('dropped')).toBe(0);
    // Every retry comes due within the backoff's bound, whatever the wall clock says.
    for (const p of w.pending())
      expect(p.nextAttemptAt - clock.now()).toBeLessThanOrEqual(OPTIONS.backoff.maxMs);
    rx.state.up = true;
    await clock.tick(OPTIONS.backoff.maxMs + 1000);
    expect(rx.state.got.sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    expect(metrics.count('dropped')).toBe(0);
    expect(outbox.entries.size).toBe(0);
    expect(w.pending()).toEqual([]);
  });

  it('still expires what really waited longer than the maximum age, a step or not', async () => {
    const clock = new ManualClock();
    const { rx, metrics, w } = await pendingFive(clock);
    clock.stepWall(-25 * HOUR);
    await clock.tick(HOUR);
    expect(metrics.count('dropped', 'ops', 'webhook', 'expired')).toBe(5);
    expect(rx.state.got).toEqual([]);
    expect(w.pending()).toEqual([]);
  });

  it.each([
    ['forward 25 h', 25 * HOUR],
    ['back 25 h', -25 * HOUR],
  ])('stepped %s while stopped: the next run delivers every entry it finds', async (_n, step) => {
    const clock = new ManualClock();
    const { outbox, w } = await pendingFive(clock);
    await w.stop(10);
    expect(outbox.entries.size).toBe(5);
    clock.stepWall(step);
    const rx = receiver();
    rx.state.up = true;
    const metrics = recordingMetrics();
    const next = worker(clock, rx.notifier, outbox, metrics);
    await next.start();
    // Within the backoff's bound: not 25 h later.
    await clock.tick(OPTIONS.backoff.maxMs + 1000);
    expect(rx.state.got.sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    expect(metrics.count('dropped')).toBe(0);
    expect(outbox.entries.size).toBe(0);
  });
});

describe('resumedTimes', () => {
  const now = 10 * HOUR;
  it.each([
    [
      'as written',
      { createdAt: now - 5000, nextAttemptAt: now + 2000 },
      { createdAt: now - 5000, nextAttemptAt: now + 2000 },
    ],
    [
      'dated in the future: counted from now, due now',
      { createdAt: now + 25 * HOUR, nextAttemptAt: now + 25 * HOUR + 3000 },
      { createdAt: now, nextAttemptAt: now },
    ],
    [
      'a retry further ahead than the maximum age: now',
      { createdAt: now - 5000, nextAttemptAt: now + 2 * HOUR },
      { createdAt: now - 5000, nextAttemptAt: now },
    ],
  ])('%s', (_n, entry, expected) => {
    expect(resumedTimes(entry, now, HOUR)).toEqual(expected);
  });
});
