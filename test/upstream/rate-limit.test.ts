/**
 * Rate-limit signals besides Retry-After (src/upstream/transport/rate-limit.ts): every header form
 * read, a 429 waiting exactly as long as they say, and the pace slowing down before the
 * limit when few requests are left.
 */
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/upstream/transport/budget.js';
import { type RateHeaders, readRateLimit, ServerPace } from '../../src/upstream/transport/rate-limit.js';
import { CLOCK_START, ManualClock } from '../helpers/clock.js';
import { json, loopbackSuite } from './loopback.js';

const NOW = CLOCK_START;
const epochS = (ms: number) => String(Math.floor(ms / 1000));

describe('readRateLimit', () => {
  it.each<[string, RateHeaders, ReturnType<typeof readRateLimit>]>([
    [
      'RateLimit as a dictionary (drafts up to 07)',
      { ratelimit: 'limit=100, remaining=50, reset=5' },
      { limit: 100, remaining: 50, resetMs: 5000 },
    ],
    [
      'RateLimit items with r and t, RateLimit-Policy with q (drafts 08 on)',
      { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' },
      { remaining: 50, resetMs: 30_000, limit: 100 },
    ],
    [
      'RateLimit-Policy of draft 07',
      { ratelimit: 'remaining=3, reset=9', 'ratelimit-policy': '100;w=60' },
      { remaining: 3, resetMs: 9000, limit: 100 },
    ],
    [
      'several RateLimit items: the one with the fewest left',
      { ratelimit: '"hour";r=400;t=3000, "minute";r=2;t=20' },
      { remaining: 2, resetMs: 20_000 },
    ],
    [
      'RateLimit-Limit, -Remaining, -Reset (delta seconds)',
      { 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '3' },
      { limit: 100, remaining: 0, resetMs: 3000 },
    ],
    [
      'X-RateLimit-Reset as delta seconds',
      { 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '60' },
      { remaining: 7, resetMs: 60_000 },
    ],
    [
      'X-RateLimit-Reset as epoch seconds (GitHub)',
      {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '12',
        'x-ratelimit-reset': epochS(NOW + 42_000),
      },
      { limit: 5000, remaining: 12, resetMs: 42_000 },
    ],
    [
      'X-Rate-Limit-Reset as epoch seconds',
      { 'x-rate-limit-remaining': '1', 'x-rate-limit-reset': epochS(NOW + 7000) },
      { remaining: 1, resetMs: 7000 },
    ],
    [
      'X-RateLimit-Reset in epoch milliseconds',
      { 'x-ratelimit-reset': String(NOW + 1500) },
      { resetMs: 1500 },
    ],
    ['X-RateLimit-Reset-After (delta seconds)', { 'x-ratelimit-reset-after': '1.5' }, { resetMs: 1500 }],
    ['a reset more than an hour away is not believed', { 'ratelimit-reset': '7201' }, {}],
    ['an epoch long past means now', { 'x-ratelimit-reset': epochS(NOW - 60_000) }, { resetMs: 0 }],
    ['nothing readable', { 'ratelimit-reset': 'soon', 'x-ratelimit-remaining': '-1' }, {}],
  ])('%s', (_name, headers, want) => {
    const got = readRateLimit(headers, NOW);
    const defined = Object.fromEntries(Object.entries(got).filter(([, v]) => v !== undefined));
    expect(defined).toEqual(want);
  });

  it('measures an epoch reset from the server’s own Date, whatever its clock', () => {
    // The server's clock is 10 minutes behind; its reset is 30 s after its own now.
    const serverNow = NOW - 600_000;
    const got = readRateLimit(
      { 'x-ratelimit-reset': epochS(serverNow + 30_000) },
      NOW,
      new Date(serverNow).toUTCString(),
    );
    expect(got.resetMs).toBe(30_000);
  });
});

describe('RequestBudget and the rate-limit fields', () => {
  const budget = (clock: ManualClock) =>
    new RequestBudget({ perMinute: 300, clock, pauseMarginMs: 0, fallbackMinMs: 30_000 });

  it.each<[string, RateHeaders, number]>([
    ['RateLimit-Reset: 3', { 'ratelimit-reset': '3' }, 3000],
    ['RateLimit: limit=100, remaining=0, reset=3', { ratelimit: 'limit=100, remaining=0, reset=3' }, 3000],
    ['RateLimit: "default";r=0;t=4', { ratelimit: '"default";r=0;t=4' }, 4000],
    ['X-RateLimit-Reset: 5 (delta)', { 'x-ratelimit-reset': '5' }, 5000],
    ['x-ratelimit-reset: epoch (GitHub)', { 'x-ratelimit-reset': epochS(NOW + 6000) }, 6000],
    ['X-Rate-Limit-Reset: 2', { 'x-rate-limit-reset': '2' }, 2000],
    ['nothing said: the fallback', {}, 30_000],
  ])('a 429 with %s and no Retry-After waits %i ms', (_name, headers, wait) => {
    const clock = new ManualClock();
    const b = budget(clock);
    const pause = b.rateLimited(undefined, undefined, headers);
    expect(pause.retryAfterMs).toBe(wait);
    expect(pause.trusted).toBe(Object.keys(headers).length > 0);
    expect(b.pauseLeftMs()).toBe(wait);
  });

  it('Retry-After, seconds or date, is believed before the rate-limit fields', () => {
    const clock = new ManualClock();
    expect(budget(clock).rateLimited('2', undefined, { 'ratelimit-reset': '9' }).retryAfterMs).toBe(2000);
    const date = new Date(NOW + 4000).toUTCString();
    expect(budget(clock).rateLimited(date, undefined, { 'ratelimit-reset': '9' }).retryAfterMs).toBe(4000);
  });

  it('holds every request until the reset when none are left, and goes on after it', async () => {
    const clock = new ManualClock();
    const b = budget(clock);
    b.serverLimits({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' });
    let granted = false;
    void b.acquire('high').then((release) => {
      granted = true;
      release();
    });
    clock.advance(4999);
    await Promise.resolve();
    expect(granted).toBe(false);
    clock.advance(1);
    await Promise.resolve();
    expect(granted).toBe(true);
    expect(b.stats().server).toEqual({ remaining: 0 });
  });

  it('spreads the few requests left over the time to the reset', async () => {
    const clock = new ManualClock();
    const b = budget(clock);
    // 4 left of 100 for 8 s: one every 2 s.
    b.serverLimits({ ratelimit: 'limit=100, remaining=4, reset=8' });
    const times: number[] = [];
    for (let i = 0; i < 4; i++)
      void b.acquire('normal').then((release) => {
        times.push(clock.now() - NOW);
        release();
      });
    for (let t = 0; t < 10; t++) {
      await Promise.resolve();
      clock.advance(1000);
    }
    await Promise.resolve();
    expect(times).toEqual([0, 2000, 4000, 6000]);
  });

  it('does not slow down while plenty are left', async () => {
    const clock = new ManualClock();
    const b = budget(clock);
    b.serverLimits({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4000',
      'x-ratelimit-reset': '3600',
    });
    const times: number[] = [];
    for (let i = 0; i < 3; i++)
      void b.acquire('normal').then((release) => {
        times.push(clock.now() - NOW);
        release();
      });
    await Promise.resolve();
    await Promise.resolve();
    expect(times).toEqual([0, 0, 0]);
  });

  it('a pace moves back with a clock set back', () => {
    const pace = new ServerPace();
    pace.observe({ remaining: 0, resetMs: 5000 }, NOW);
    expect(pace.notBefore(NOW)).toBe(NOW + 5000);
    pace.shift(60_000);
    expect(pace.notBefore(NOW - 60_000)).toBe(NOW - 55_000);
  });
});

describe('on the wire', () => {
  const ACME = { slug: 'acme', token: 'tok-ratelimit-77aa' };
  const { serve, client } = loopbackSuite({ secret: ACME.token });

  it.each<[string, (now: number) => Record<string, string>, number]>([
    ['RateLimit-Reset: 3', () => ({ 'ratelimit-reset': '3' }), 3000],
    [
      'RateLimit: limit=100, remaining=0, reset=3',
      () => ({ ratelimit: 'limit=100, remaining=0, reset=3' }),
      3000,
    ],
    [
      'x-ratelimit-reset as epoch seconds beside Date',
      (now) => ({ date: new Date(now).toUTCString(), 'x-ratelimit-reset': epochS(now + 3000) }),
      3000,
    ],
  ])(
    'a 429 with %s and no Retry-After pauses for what it says, not the fallback',
    async (_name, headers, wait) => {
      const s = await serve((_req, res) => {
        // Whole seconds: the server's now, rounded down, so that an epoch reset is exact.
        const now = Math.floor(Date.now() / 1000) * 1000;
        json(res, 429, { error: { code: 'rate_limited' } }, headers(now));
      });
      const waits: number[] = [];
      const c = client(s.origin, {
        observer: { onRateLimited: (e) => waits.push(e.retryAfterMs) },
        retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
      });
      expect((await c.fetchOrg(ACME)).state).toBe('failed');
      expect(waits).toHaveLength(1);
      // An epoch in whole seconds measured from the local clock may be up to a second short.
      expect(waits[0]).toBeGreaterThan(wait - 1000);
      expect(waits[0]).toBeLessThanOrEqual(wait);
      expect(c.budget.pauseLeftMs()).toBeLessThan(wait + 1000);
    },
  );

  it('reports the requests the server says are left', async () => {
    const s = await serve((_req, res) =>
      json(
        res,
        200,
        { slug: 'acme', name: 'Acme' },
        { 'x-ratelimit-remaining': '4321', 'x-ratelimit-limit': '5000' },
      ),
    );
    const c = client(s.origin);
    expect((await c.fetchOrg(ACME)).state).toBe('complete');
    expect(c.budget.stats().server).toEqual({ remaining: 4321, limit: 5000 });
  });
});
