import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimConfigError, type Simulator, startSimulator } from '../../src/sim/index.js';
import { get, ManualClock, nextLink, type Loose } from './helpers.js';

type Body = Record<string, Loose>;

describe('simulator fault injection', () => {
  const clock = new ManualClock();
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 12,
      orgs: [{ slug: 'demo', channels: 23, sessionsPerChannel: 3 }],
      pageSize: 10,
      rateLimitPerMinute: 1_000_000,
    });
  });
  beforeEach(() => {
    sim.setFaults(null);
    sim.setStyle({ envelope: 'data', paging: 'pages', fieldCase: 'snake', pageSize: 10 });
  });
  afterAll(async () => {
    await sim.close();
  });

  const last = () => sim.requests().at(-1)!;

  it('answers 5xx with an error body, only on the paths it is scoped to', async () => {
    sim.setFaults({ path: '/channels$', errorRate: 1, errorStatus: 503 });
    const res = await get(sim, '/v1/demo/channels');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: { code: 'upstream_error', message: expect.any(String) } });
    expect(last()).toMatchObject({ status: 503, fault: 'error' });
    expect((await get(sim, '/v1/demo')).status).toBe(200);
    sim.setFaults({ errorRate: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 20; i++) statuses.add((await get(sim, '/v1/demo')).status);
    expect([...statuses].every((s) => s >= 500 && s <= 504)).toBe(true);
    expect(statuses.size).toBeGreaterThan(1);
  });

  it('adds latency on the injected clock', async () => {
    sim.setFaults({ latencyMs: 5000 });
    let done = false;
    const p = get(sim, '/v1/demo').then((r) => {
      done = true;
      return r;
    });
    await clock.waitForTimers();
    clock.advance(4999);
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    clock.advance(1);
    expect((await p).status).toBe(200);
    expect(last().fault).toBe('latency');
  });

  it('trickles the body in small chunks', async () => {
    sim.setFaults({ slowBodyRate: 1, slowBodyChunkBytes: 64, slowBodyIntervalMs: 100 });
    const res = await get(sim, '/v1/demo/team');
    expect(res.status).toBe(200);
    let text: string | undefined;
    const reading = res.text().then((t) => {
      text = t;
    });
    let ticks = 0;
    while (text === undefined) {
      await Promise.race([clock.waitForTimers(), reading]);
      if (text !== undefined) break;
      clock.advance(100);
      ticks++;
    }
    expect(ticks).toBe(Math.ceil(Buffer.byteLength(text) / 64) - 1);
    expect(ticks).toBeGreaterThan(3);
    expect(JSON.parse(text).data.length).toBeGreaterThan(0);
  });

  it('resets the connection', async () => {
    sim.setFaults({ resetRate: 1 });
    await expect(get(sim, '/v1/demo')).rejects.toThrow();
    expect(last()).toMatchObject({ status: 0, fault: 'reset' });
  });

  it('answers a body that is not JSON', async () => {
    sim.setFaults({ malformedRate: 1 });
    const res = await get(sim, '/v1/demo/channels');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(last().fault).toBe('malformed');
  });

  it('truncates pages: cut short while the totals say more (pages)', async () => {
    sim.setFaults({ truncateRate: 1 });
    const body = (await (await get(sim, '/v1/demo/channels')).json()) as Body;
    expect(body).toMatchObject({ page: 1, per_page: 10, total: 23, total_pages: 3 });
    expect(body.data).toHaveLength(5);
    expect(last().fault).toBe('truncate');
  });

  it('truncates pages: has_more without a cursor (cursor)', async () => {
    sim.setStyle({ paging: 'cursor' });
    sim.setFaults({ truncateRate: 1 });
    const body = (await (await get(sim, '/v1/demo/channels')).json()) as Body;
    expect(body).toMatchObject({ has_more: true, next_cursor: null });
    expect(body.data).toHaveLength(5);
  });

  it('truncates pages: no next link (link)', async () => {
    sim.setStyle({ paging: 'link' });
    sim.setFaults({ truncateRate: 1 });
    const res = await get(sim, '/v1/demo/channels');
    expect(nextLink(res.headers.get('link'))).toBeNull();
    expect(res.headers.get('link')).toContain('rel="last"');
    expect(((await res.json()) as Body).data).toHaveLength(5);
  });

  it('does not pretend to truncate a single object', async () => {
    sim.setFaults({ truncateRate: 1 });
    expect((await get(sim, '/v1/demo')).status).toBe(200);
    expect(last().fault).toBeNull();
  });

  it('sends an oversized body without Content-Length', async () => {
    sim.setFaults({ oversizeRate: 1, oversizeBytes: 3 * 1024 * 1024 });
    const res = await get(sim, '/v1/demo/subscription');
    expect(res.headers.get('content-length')).toBeNull();
    const text = await res.text();
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(JSON.parse(text).data.plan).toEqual(expect.any(String));
    expect(last().fault).toBe('oversize');
  });

  it('points the next link at another origin, and logs who follows it with a token', async () => {
    sim.setStyle({ paging: 'link' });
    sim.setFaults({ crossOriginNextRate: 1 });
    const res = await get(sim, '/v1/demo/channels');
    const next = nextLink(res.headers.get('link'))!;
    expect(new URL(next).origin).toBe(sim.foreignUrl);
    expect(sim.foreignUrl).not.toBe(sim.url);
    expect(last().fault).toBe('cross_origin_next');
    // A careless client that follows it leaks its token, and the log shows it.
    await get(sim, next);
    expect(last()).toMatchObject({
      origin: 'foreign',
      auth: 'bearer',
      path: '/v1/demo/channels',
      status: 200,
    });
  });

  it('redirects to another origin', async () => {
    sim.setFaults({ redirectRate: 1 });
    const res = await get(sim, '/v1/demo/team?page=2', 'demo-token', { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${sim.foreignUrl}/v1/demo/team?page=2`);
    expect(last()).toMatchObject({ status: 302, fault: 'redirect', origin: 'main' });
  });

  it('draws random faults repeatably for the seed', async () => {
    const statuses = async (s: Simulator) => {
      s.setFaults({ errorRate: 0.5, errorStatus: 500 });
      const out: number[] = [];
      for (let i = 0; i < 30; i++) out.push((await get(s, '/v1/demo')).status);
      return out;
    };
    const a = await statuses(sim);
    const b = await statuses(sim);
    expect(b).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
    const other = await startSimulator({ clock, seed: 13, channels: 1, sessionsPerChannel: 1 });
    try {
      expect(await statuses(other)).not.toEqual(a);
    } finally {
      await other.close();
    }
  });

  it('is set and read on the control surface, and refuses bad rules', async () => {
    let res = await fetch(`${sim.url}/_sim/faults`, {
      method: 'POST',
      body: JSON.stringify({ faults: [{ path: '/team', errorRate: 1, errorStatus: 502 }] }),
    });
    expect(await res.json()).toEqual({ faults: [{ path: '/team', errorRate: 1, errorStatus: 502 }] });
    expect((await get(sim, '/v1/demo/team')).status).toBe(502);
    res = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', body: JSON.stringify([{ errorRate: 2 }]) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body).error.message).toContain('errorRate');
    res = await fetch(`${sim.url}/_sim/faults`);
    expect(((await res.json()) as Body).faults).toHaveLength(1);
    expect(() => sim.setFaults({ path: '(' })).toThrow(SimConfigError);
    expect(() => sim.setFaults({ surprise: 1 } as never)).toThrow(/unknown fault option/);
    await fetch(`${sim.url}/_sim/faults`, { method: 'POST', body: '[]' });
    expect((await get(sim, '/v1/demo/team')).status).toBe(200);
  });
});
