import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import {
  type BudgetOptions,
  type Priority,
  RequestBudget,
  Urgency,
} from '../../src/upstream/transport/budget.js';
import { parseRetryAfter } from '../../src/upstream/transport/retry-after.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function budget(opts: Partial<BudgetOptions> = {}): RequestBudget {
  return new RequestBudget({ perMinute: 10, clock: systemClock, ...opts });
}

/** Queues `n` acquires and records when each one was granted; each is answered at once. */
function grantTimes(b: RequestBudget, n: number, priority: Priority = 'normal'): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    void b.acquire(priority).then((release) => {
      times.push(Date.now());
      release();
    });
  }
  return times;
}

/** The most grants found in any window of `windowMs` starting at a grant. */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - windowMs + 1) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('RequestBudget accounting', () => {
  it.each([1, 10, 240, 300])('never grants more than %i in any 60 s window, even for a burst', async (n) => {
    const b = budget({ perMinute: n });
    const times = grantTimes(b, n * 3 + 1);
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(times).toHaveLength(n * 3 + 1);
    expect(maxInWindow(times, 60_000)).toBe(n);
    // The guard stretches each window when asked to.
    const guarded = budget({ perMinute: n, guardMs: 1000 });
    const guardedTimes = grantTimes(guarded, n * 2 + 1);
    await vi.advanceTimersByTimeAsync(3 * 61_000);
    expect(guardedTimes).toHaveLength(n * 2 + 1);
    expect(maxInWindow(guardedTimes, 61_000)).toBe(n);
  });

  it('keeps the bound for any arrival pattern (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 180_000 }), { minLength: 1, maxLength: 60 }),
        async (n, arrivals) => {
          vi.setSystemTime(T0);
          const b = budget({ perMinute: n });
          const times: number[] = [];
          const sorted = [...arrivals].sort((a, c) => a - c);
          let now = 0;
          for (const at of sorted) {
            await vi.advanceTimersByTimeAsync(at - now);
            now = at;
            void b.acquire('normal').then((release) => {
              times.push(Date.now());
              release();
            });
          }
          await vi.advanceTimersByTimeAsync(Math.ceil(arrivals.length / n + 1) * 60_000);
          expect(times).toHaveLength(arrivals.length);
          expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(n);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts a request from its grant until a window after its answer', async () => {
    const b = budget({ perMinute: 1 });
    const release = await b.acquire('normal');
    const next = grantTimes(b, 1);
    await vi.advanceTimersByTimeAsync(30_000);
    release(); // a slow exchange: the server may have received it just now
    await vi.advanceTimersByTimeAsync(59_999);
    expect(next).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(next).toEqual([T0 + 90_000]);
  });

  it('caps the configured budget at the API limit of 300', () => {
    expect(budget({ perMinute: 1000 }).stats().configured).toBe(300);
    expect(budget({ perMinute: 0 }).stats().configured).toBe(1);
  });

  it('reports used, left and queued', async () => {
    const b = budget({ perMinute: 3 });
    grantTimes(b, 5, 'low');
    grantTimes(b, 1, 'high');
    await vi.advanceTimersByTimeAsync(0);
    const s = b.stats();
    expect(s).toMatchObject({
      configured: 3,
      effective: 3,
      usedLastMinute: 3,
      left: 0,
      pausedUntil: 0,
      pauses: 0,
    });
    expect(s.queued).toEqual({ high: 0, follow: 0, normal: 0, low: 3 });
  });
});

describe('RequestBudget priorities', () => {
  it('serves high before normal before low when capacity is scarce, FIFO within a class', async () => {
    const b = budget({ perMinute: 2, lowReserve: 0 });
    grantTimes(b, 2); // uses the window
    const order: string[] = [];
    for (const [p, tag] of [
      ['low', 'low-1'],
      ['normal', 'normal-1'],
      ['high', 'high-1'],
      ['low', 'low-2'],
      ['high', 'high-2'],
    ] as const) {
      void b.acquire(p).then((release) => {
        order.push(tag);
        release();
      });
    }
    await vi.advanceTimersByTimeAsync(4 * 61_000);
    expect(order).toEqual(['high-1', 'high-2', 'normal-1', 'low-1', 'low-2']);
  });

  it('moves a waiting request up when its urgency rises, and never down', async () => {
    const b = budget({ perMinute: 2, lowReserve: 0 });
    grantTimes(b, 2); // uses the window
    const order: string[] = [];
    const grant = (p: Priority | Urgency, tag: string) =>
      void b.acquire(p).then((release) => {
        order.push(tag);
        release();
      });
    const sweep = new Urgency('low');
    grant(sweep, 'sweep');
    grant('normal', 'normal-1');
    grant('normal', 'normal-2');
    grant('low', 'low-1');
    expect(b.stats().queued).toMatchObject({ normal: 2, low: 2 });
    sweep.raise('follow'); // a follow-up asks for the same read
    sweep.raise('low'); // a later sweep asker lowers nothing
    expect(sweep.priority).toBe('follow');
    expect(b.stats().queued).toMatchObject({ follow: 1, normal: 2, low: 1 });
    await vi.advanceTimersByTimeAsync(4 * 61_000);
    expect(order).toEqual(['sweep', 'normal-1', 'normal-2', 'low-1']);
  });

  it('forgets a request granted or aborted: a later rise moves nothing', async () => {
    const b = budget({ perMinute: 1, lowReserve: 0 });
    grantTimes(b, 1);
    const ctrl = new AbortController();
    const u = new Urgency('low');
    const aborted = b.acquire(u, ctrl.signal);
    ctrl.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    u.raise('high');
    expect(b.stats().queued).toEqual({ high: 0, follow: 0, normal: 0, low: 0 });
  });

  it('serves a request passed over for agingMs among the follow-ups, by how long each waited', async () => {
    // One a second, and a storm of two follow-ups a second: they alone outrun the budget.
    const b = budget({ perMinute: 60, burst: 1, lowReserve: 0, agingMs: 10_000 });
    const order: string[] = [];
    const grant = (p: Priority, tag: string) =>
      void b.acquire(p).then((release) => {
        order.push(`${tag}@${(Date.now() - T0) / 1000}`);
        release();
      });
    for (let i = 0; i < 5; i++) grant('follow', 'f');
    await vi.advanceTimersByTimeAsync(500);
    grant('normal', 'normal');
    grant('low', 'low');
    for (let s = 0; s < 60; s++) {
      grant('follow', 'f');
      grant('follow', 'f');
      await vi.advanceTimersByTimeAsync(1000);
    }
    const at = (tag: string) => Number(order.find((o) => o.startsWith(`${tag}@`))?.split('@')[1]);
    // The periodic read competes as a follow-up once 10 s passed it over, and then goes
    // ahead of the follow-ups that came after it; the sweep's read needs 20 s.
    expect(at('normal')).toBeGreaterThanOrEqual(10.5);
    expect(at('normal')).toBeLessThanOrEqual(12.5);
    expect(at('low')).toBeGreaterThanOrEqual(20.5);
    expect(at('low')).toBeLessThanOrEqual(22.5);
    // Without aging neither would have gone in the minute: follow-ups were always waiting.
    expect(b.stats().queued.follow).toBeGreaterThan(50);
  });

  it('never lets an aged request ahead of the channel list', async () => {
    const b = budget({ perMinute: 2, lowReserve: 0, agingMs: 1000 });
    grantTimes(b, 2); // uses the window for a minute
    const order: string[] = [];
    const grant = (p: Priority, tag: string) =>
      void b.acquire(p).then((release) => {
        order.push(tag);
        release();
      });
    grant('low', 'low');
    grant('normal', 'normal');
    await vi.advanceTimersByTimeAsync(5000); // both aged to follow's rank meanwhile
    grant('high', 'high');
    await vi.advanceTimersByTimeAsync(3 * 61_000);
    expect(order[0]).toBe('high');
    expect([...order].sort()).toEqual(['high', 'low', 'normal']);
  });

  it('keeps a reserve that low-priority work cannot take', async () => {
    const b = budget({ perMinute: 20, lowReserve: 0.1 });
    const low = grantTimes(b, 20, 'low');
    await vi.advanceTimersByTimeAsync(0);
    expect(low).toHaveLength(18);
    const high = grantTimes(b, 2, 'high');
    await vi.advanceTimersByTimeAsync(0);
    expect(high).toHaveLength(2);
    expect(b.stats().left).toBe(0);
  });

  it('bounds requests in flight and grants the next one on release', async () => {
    const b = budget({ perMinute: 100, maxInFlight: 2 });
    const releases: Array<() => void> = [];
    for (let i = 0; i < 3; i++) void b.acquire('normal').then((r) => releases.push(r));
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(2);
    expect(b.stats().inFlight).toBe(2);
    releases[0]!();
    releases[0]!(); // twice is harmless
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(3);
    expect(b.stats().inFlight).toBe(2);
  });

  it('rejects an aborted waiter and serves the rest', async () => {
    const b = budget({ perMinute: 1 });
    grantTimes(b, 1);
    const ctrl = new AbortController();
    const aborted = b.acquire('high', ctrl.signal);
    const other = grantTimes(b, 1, 'low');
    ctrl.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(b.stats().queued.high).toBe(0);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(other).toHaveLength(1);
  });
});

describe('RequestBudget 429 handling', () => {
  it.each([
    ['seconds', () => '5', 5_000],
    ['HTTP-date', () => new Date(Date.now() + 20_000).toUTCString(), 20_000],
  ])('pauses every request until Retry-After (%s) plus the margin', async (_kind, header, waitMs) => {
    const b = budget({ perMinute: 100, pauseMarginMs: 500 });
    const pause = b.rateLimited(header());
    expect(pause).toMatchObject({
      retryAfterMs: waitMs,
      untilMs: T0 + waitMs + 500,
      trusted: true,
      started: true,
    });
    expect(b.pauseLeftMs()).toBe(waitMs + 500);
    const high = grantTimes(b, 1, 'high');
    const low = grantTimes(b, 1, 'low');
    await vi.advanceTimersByTimeAsync(waitMs + 499);
    expect(high).toEqual([]);
    expect(b.stats().pausedUntil).toBe(T0 + waitMs + 500);
    await vi.advanceTimersByTimeAsync(1);
    expect(high).toEqual([T0 + waitMs + 500]);
    expect(low).toEqual([T0 + waitMs + 500]);
    expect(b.stats()).toMatchObject({ pausedUntil: 0, pauses: 1, rateLimited: 1 });
  });

  it.each([
    ['missing', undefined],
    ['negative', '-5'],
    ['absurd (> 1 h)', '7200'],
    ['garbage', 'soon'],
    ['a date an hour and a half away', new Date(T0 + 90 * 60_000).toUTCString()],
  ])('falls back to a bounded backoff when Retry-After is %s', (_kind, header) => {
    const b = budget({ fallbackMinMs: 30_000, fallbackMaxMs: 300_000, pauseMarginMs: 0 });
    expect(b.rateLimited(header)).toMatchObject({ retryAfterMs: 30_000, trusted: false });
  });

  it('doubles the fallback on repeated untrusted 429s, up to 5 minutes', async () => {
    const b = budget({ pauseMarginMs: 0 });
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const p = b.rateLimited(undefined);
      waits.push(p.retryAfterMs);
      await vi.advanceTimersByTimeAsync(p.untilMs - Date.now());
    }
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  });

  it('lowers the learned limit once per pause, to a share of what the server took, and recovers after it', async () => {
    const b = budget({ perMinute: 100, pauseMarginMs: 0 });
    grantTimes(b, 80);
    await vi.advanceTimersByTimeAsync(0);
    expect(b.rateLimited('10').started).toBe(true);
    expect(b.rateLimited('12').started).toBe(false); // an answer already in flight: extends, no second step
    // 79 of the 80 sent were taken (one was the 429): 0.85 × 79.
    expect(b.effective()).toBe(67);
    expect(b.stats()).toMatchObject({
      pauses: 1,
      rateLimited: 2,
      pausedUntil: T0 + 12_000,
      learned: { perMinute: 67, from: 'refusals', decreases: 1 },
    });
    await vi.advanceTimersByTimeAsync(12_000);
    expect(b.effective()).toBe(67);
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    expect(b.effective()).toBe(75);
    expect(b.capacityPerMinute()).toBe(75);
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(b.effective()).toBe(100);
    expect(b.stats().learned).toMatchObject({ perMinute: 100, from: 'configured' });
  });

  it('sends at the learned rate after the pause', async () => {
    const b = budget({ perMinute: 20, pauseMarginMs: 0, learning: { increasePerMinute: 0 } });
    // Nothing of this process was taken: the deepest one step goes, half.
    b.rateLimited('1');
    const times = grantTimes(b, 40);
    await vi.advanceTimersByTimeAsync(1_000 + 59_999);
    expect(times).toHaveLength(10);
    await vi.advanceTimersByTimeAsync(1);
    expect(times).toHaveLength(20);
  });
});

describe('parseRetryAfter', () => {
  const now = T0;
  it.each([
    ['0', 0],
    ['5', 5_000],
    ['1.5', 1_500],
    [' 30 ', 30_000],
    ['3600', 3_600_000],
    ['3601', undefined],
    ['-1', undefined],
    ['', undefined],
    ['1e3', undefined],
    ['tomorrow', undefined],
    [new Date(T0 + 42_000).toUTCString(), 42_000],
    [new Date(T0 - 42_000).toUTCString(), 0],
    [new Date(T0 + 2 * 3_600_000).toUTCString(), undefined],
  ])('%j → %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('RequestBudget pacing (token bucket)', () => {
  it('spreads a backlog evenly after a burst, and still never exceeds the window', async () => {
    const b = budget({ perMinute: 240, burst: 20, lowReserve: 0 });
    const times = grantTimes(b, 240);
    await vi.advanceTimersByTimeAsync(0);
    expect(times).toHaveLength(20);
    // 4 per second after the burst: in any 10 s, at most the burst plus 40.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(times).toHaveLength(240);
    expect(maxInWindow(times, 10_000)).toBeLessThanOrEqual(20 + 40 + 1);
    expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(240);
    const gaps = times.slice(21).map((t, i) => t - times[20 + i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(260);
  });

  it('lets high borrow a second burst ahead of the pace (a long channel list)', async () => {
    const b = budget({ perMinute: 240, burst: 10, lowReserve: 0 });
    grantTimes(b, 10); // the burst is spent
    await vi.advanceTimersByTimeAsync(0);
    const high = grantTimes(b, 12, 'high');
    const normal = grantTimes(b, 1, 'normal');
    await vi.advanceTimersByTimeAsync(0);
    expect(high).toHaveLength(10);
    expect(normal).toHaveLength(0);
  });

  it('serves follow-ups after the channel list and before periodic reads and the sweep', async () => {
    const b = budget({ perMinute: 2, lowReserve: 0 });
    grantTimes(b, 2);
    const order: string[] = [];
    for (const p of ['low', 'normal', 'follow', 'high'] as const) {
      void b.acquire(p).then((release) => {
        order.push(p);
        release();
      });
    }
    await vi.advanceTimersByTimeAsync(3 * 61_000);
    expect(order).toEqual(['high', 'follow', 'normal', 'low']);
  });
});
