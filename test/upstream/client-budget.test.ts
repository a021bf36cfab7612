import { describe, expect, it } from 'vitest';
import { json, loopbackSuite } from './loopback.js';

const ACME = { slug: 'acme', token: 'tok-budget-1234' };
const ORG_BODY = { slug: 'acme', name: 'Acme Radio' };

const { serve, client } = loopbackSuite();

function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('the budget on the wire', () => {
  it('never lets the server see more than the budget in any window, even for a burst', async () => {
    const s = await serve((_req, res) => json(res, 200, ORG_BODY));
    // 5 per 400 ms stands in for 5 per minute, to keep the test short; no guard needed.
    const c = client(s.origin, { budgetPerMinute: 5, budgetTuning: { windowMs: 400 } });
    const parts = await Promise.all(Array.from({ length: 12 }, () => c.fetchOrg(ACME)));
    expect(parts.every((p) => p.state === 'complete')).toBe(true);
    const arrivals = s.received.map((r) => r.at);
    expect(arrivals).toHaveLength(12);
    expect(maxInWindow(arrivals, 400)).toBeLessThanOrEqual(5);
    expect(c.budget.stats().usedLastMinute).toBeLessThanOrEqual(5);
  });

  it('sends retries through the budget too', async () => {
    const s = await serve((_req, res, n) => (n <= 2 ? json(res, 503, {}) : json(res, 200, ORG_BODY)));
    const c = client(s.origin, { budgetPerMinute: 2, budgetTuning: { windowMs: 300 } });
    const part = await c.fetchOrg(ACME);
    expect(part.state).toBe('complete');
    const [a, , third] = s.received.map((r) => r.at);
    expect(third! - a!).toBeGreaterThanOrEqual(300);
  });

  it('pauses every request after a 429 until Retry-After has passed', async () => {
    let limitedAt = 0;
    const s = await serve((_req, res, n) => {
      if (n === 2) {
        limitedAt = Date.now();
        json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' });
        return;
      }
      json(res, 200, ORG_BODY);
    });
    const pauses: number[] = [];
    const c = client(s.origin, {
      concurrency: 1,
      observer: { onPause: (e) => pauses.push(e.untilMs), onRateLimited: (e) => pauses.push(e.retryAfterMs) },
      budgetTuning: { pauseMarginMs: 100 },
    });
    const parts = await Promise.all([
      c.fetchOrg(ACME),
      c.fetchOrg(ACME),
      c.fetchOrg(ACME),
      c.fetchTeam(ACME),
    ]);
    expect(parts.map((p) => p.state)).toEqual(['complete', 'complete', 'complete', 'failed']);
    const after = s.received.slice(2).map((r) => r.at);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after) - limitedAt).toBeGreaterThanOrEqual(1000);
    expect(pauses[0]).toBe(1000);
    // The server took one request before it refused: the learned limit halves (the deepest one step goes).
    expect(c.budget.stats()).toMatchObject({ pauses: 1, rateLimited: 1, effective: 150 });
  });

  it('measures an HTTP-date Retry-After from the server’s own Date, whatever its clock', async () => {
    // The server's clock is 50 minutes ahead; it asks for 2 s in its own time.
    const skewMs = 50 * 60_000;
    const s = await serve((_req, res) => {
      const serverNow = Date.now() + skewMs;
      json(
        res,
        429,
        { error: { code: 'rate_limited' } },
        {
          date: new Date(serverNow).toUTCString(),
          'retry-after': new Date(serverNow + 2000).toUTCString(),
        },
      );
    });
    const waits: number[] = [];
    const c = client(s.origin, {
      observer: { onRateLimited: (e) => waits.push(e.retryAfterMs) },
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    });
    expect((await c.fetchOrg(ACME)).state).toBe('failed');
    // Whole seconds on both headers: 1 to 3 s, never the 50 minutes its clock is ahead.
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(waits[0]).toBeLessThanOrEqual(3000);
    expect(c.budget.pauseLeftMs()).toBeLessThan(5000);
  });

  it('serves high-priority reads before low-priority ones when the budget is scarce', async () => {
    const s = await serve((req, res) => json(res, 200, req.url?.includes('/team') ? { data: [] } : ORG_BODY));
    const c = client(s.origin, { budgetPerMinute: 1, budgetTuning: { windowMs: 200 } });
    const first = c.fetchOrg(ACME); // takes the only slot
    const low = c.fetchChannels(ACME, { priority: 'low' });
    const high = c.fetchTeam(ACME, { priority: 'high' });
    await Promise.all([first, low, high]);
    expect(s.received.map((r) => r.url.split('?')[0])).toEqual([
      '/v1/acme',
      '/v1/acme/team',
      '/v1/acme/channels',
    ]);
  });
});
