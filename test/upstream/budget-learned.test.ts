/**
 * The budget's learned limit (src/upstream/transport/learned-limit.ts) as the budget uses
 * it: taught by 429s and by the server's rate-limit fields, and three budgets behind one
 * address (the simulator's own limiter) converging on fair shares of it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { RateLimiter } from '../../src/sim/rate-limit.js';
import { type BudgetOptions, RequestBudget } from '../../src/upstream/transport/budget.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const MIN = 60_000;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function budget(opts: Partial<BudgetOptions> = {}): RequestBudget {
  return new RequestBudget({ perMinute: 240, clock: systemClock, ...opts });
}

/** Sends `n` requests through the budget, each answered at once. */
async function send(b: RequestBudget, n: number): Promise<void> {
  for (let i = 0; i < n; i++) (await b.acquire('normal'))();
}

describe('RequestBudget learned limit', () => {
  it('keeps the configured budget when the server never refuses and never says it is short', async () => {
    const b = budget({ burst: 20 });
    const plenty = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '250', 'x-ratelimit-reset': '30' };
    for (let minute = 0; minute < 5; minute++) {
      const sending = send(b, 240);
      await vi.advanceTimersByTimeAsync(MIN);
      await sending;
      b.serverLimits(plenty);
    }
    expect(b.effective()).toBe(240);
    expect(b.stats().learned).toEqual({ perMinute: 240, from: 'configured', decreases: 0 });
  });

  it('lowers the limit when the server says little is left and others spent it', async () => {
    const b = budget();
    await send(b, 200);
    // 300 allowed, 5 left, 200 of them this process's: 95 went to someone else.
    b.serverLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '20' });
    expect(b.effective()).toBe(170);
    expect(b.stats().learned).toMatchObject({ perMinute: 170, from: 'server', decreases: 1 });
    expect(b.stats().pauses).toBe(0);
  });

  it('does not lower the limit when the requests left went to this process alone', async () => {
    const b = budget({ perMinute: 300 });
    await send(b, 295);
    b.serverLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '20' });
    expect(b.effective()).toBe(300);
    expect(b.stats().learned?.decreases).toBe(0);
  });

  it('lets the channel lists take their share on top of a lowered limit, while the others wait', async () => {
    const b = budget({ perMinute: 100, pauseMarginMs: 0 });
    b.reserveForHigh(20);
    await send(b, 60);
    b.rateLimited('1');
    // 0.85 × 59 taken: 50, and the window holds 60.
    expect(b.effective()).toBe(50);
    const granted: string[] = [];
    for (const p of ['normal', 'high'] as const) void b.acquire(p).then(() => granted.push(p));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(granted).toEqual(['high']);
    await vi.advanceTimersByTimeAsync(MIN);
    expect(granted).toEqual(['high', 'normal']);
  });

  it('takes no stated limit alone as its own: its window is seldom said', () => {
    const b = budget();
    // Ten a second, or ten a minute: the fields do not say.
    b.serverLimits({ ratelimit: 'limit=10, remaining=9, reset=1' });
    expect(b.effective()).toBe(240);
    expect(b.capacityPerMinute()).toBe(240);
    expect(b.stats().learned).toMatchObject({ perMinute: 240, from: 'configured' });
  });
});

describe('replicas behind one address', () => {
  /**
   * Three budgets of 240/min, started 20 s apart, with as much to send as they may, each request taken or
   * refused by the simulator's limiter for one IP (300/min), a refusal's Retry-After
   * honoured as the requester does. Returns what the server saw, by minute.
   */
  async function run(minutes: number) {
    const limiter = new RateLimiter(300);
    const budgets = [0, 1, 2].map(() => budget({ burst: 20, pauseMarginMs: 500 }));
    const seen: { at: number; replica: number; ok: boolean }[] = [];
    let running = true;
    const loops = budgets.map(async (b, replica) => {
      await new Promise((r) => setTimeout(r, replica * 20_000));
      while (running) {
        const release = await b.acquire('low');
        const rate = limiter.take('127.0.0.1', Date.now());
        seen.push({ at: Date.now(), replica, ok: rate.ok });
        release();
        if (!rate.ok) b.rateLimited(String(rate.retryAfterSeconds));
      }
    });
    for (let m = 0; m < minutes; m++) await vi.advanceTimersByTimeAsync(MIN);
    running = false;
    await vi.advanceTimersByTimeAsync(5 * MIN);
    await Promise.all(loops);
    return { seen, budgets };
  }

  it('converge on fair shares: few 429s after two minutes, most of the limit used', async () => {
    const { seen, budgets } = await run(10);
    const late = seen.filter((s) => s.at >= T0 + 2 * MIN && s.at < T0 + 10 * MIN);
    const refused = late.filter((s) => !s.ok).length;
    const accepted = late.length - refused;
    expect(refused / late.length).toBeLessThanOrEqual(0.01);
    expect(accepted / 8).toBeGreaterThanOrEqual(0.85 * 300);
    // Fair: each replica got between a fifth and half of what was taken.
    for (const r of [0, 1, 2]) {
      const mine = late.filter((s) => s.ok && s.replica === r).length;
      expect(mine / accepted).toBeGreaterThan(0.2);
      expect(mine / accepted).toBeLessThan(0.5);
    }
    for (const b of budgets) {
      expect(b.stats().learned?.from).not.toBe('configured');
      expect(b.effective()).toBeLessThan(240);
    }
  });
});
