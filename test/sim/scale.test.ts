import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { get, ManualClock, readAll } from './helpers.js';

describe('simulator at scale (5000 channels, 100 000 sessions)', () => {
  const clock = new ManualClock();
  let sim: Simulator;
  let createMs: number;

  beforeAll(async () => {
    const t0 = performance.now();
    sim = await startSimulator({
      clock,
      seed: 1,
      channels: 5000,
      sessionsPerChannel: 20,
      rateLimitPerMinute: 1_000_000,
      paging: 'cursor',
      pageSize: 200,
    });
    createMs = performance.now() - t0;
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('starts quickly', async () => {
    // Loose: CI machines are shared; unloaded this takes well under a second.
    expect(createMs).toBeLessThan(8000);
    const status = (await (await fetch(`${sim.url}/_sim/status`)).json()) as {
      orgs: { channels: number; sessions: number }[];
    };
    expect(status.orgs[0]).toMatchObject({ channels: 5000, sessions: 100_000 });
  });

  it('serves a channel page, a session list and a detail quickly', async () => {
    clock.advance(60_000);
    sim.advance();
    const timed = async (path: string) => {
      const t0 = performance.now();
      const res = await get(sim, path);
      expect(res.status, path).toBe(200);
      const body = (await res.json()) as { data: { id: string }[] | { id: string }; has_more?: boolean };
      expect(performance.now() - t0, path).toBeLessThan(1000);
      return body;
    };
    const page = await timed('/v1/demo/channels?limit=200');
    const channels = page.data as { id: string }[];
    expect(channels).toHaveLength(200);
    expect(page.has_more).toBe(true);
    const sessions = (
      await timed(`/v1/demo/channels/${channels[150]!.id}/sessions?status=ended,live,scheduled`)
    ).data as { id: string }[];
    expect(sessions.length).toBeGreaterThan(10);
    expect(((await timed(`/v1/demo/sessions/${sessions[0]!.id}`)).data as { id: string }).id).toBe(
      sessions[0]!.id,
    );
  });

  it('reads all 5000 channels in 25 pages', async () => {
    const t0 = performance.now();
    const { items, pages } = await readAll(sim, '/v1/demo/channels');
    expect(items).toHaveLength(5000);
    expect(pages).toBe(25);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('catches up ten simulated minutes of a big world quickly', () => {
    const before = sim.changes().length;
    const t0 = performance.now();
    clock.advance(10 * 60_000);
    sim.advance();
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(sim.changes().length).toBeGreaterThan(before);
  });
});
