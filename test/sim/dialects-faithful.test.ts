/**
 * The faithful dialects (src/sim/dialects/): every endpoint of each answers in its
 * convention; paging to the end through the convention's own mechanism returns every
 * record exactly once; its filter syntax is applied and a wrong filter is refused in its
 * error shape; 404 and 429 take its shapes. Counts are checked against the ground truth
 * the control surface serves (`GET /_sim/world`), which no dialect changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAITHFUL_DIALECT_NAMES } from '../../src/sim/dialects/index.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type DialectSpec, get, type Loose, readAll, withQuery } from './faithful-harness.js';
import { SPECS } from './faithful-specs.js';

interface Truth {
  team: Loose[];
  channels: Loose[];
  sessions: Record<string, Loose[]>;
  subscription: Loose;
}

it('every faithful dialect has a client spec, and there are at least 15', () => {
  expect(SPECS.map((s) => s.name).sort()).toEqual([...FAITHFUL_DIALECT_NAMES].sort());
  expect(FAITHFUL_DIALECT_NAMES.length).toBeGreaterThanOrEqual(15);
});

describe.each(SPECS.map((s) => [s.name, s] as const))('%s', (_name, spec: DialectSpec) => {
  let sim: Simulator;
  let truth: Truth;
  let channels: Loose[];

  beforeAll(async () => {
    sim = await startSimulator({
      orgs: [{ slug: 'demo', members: 7, funding: 'wallet' }],
      channels: 5,
      sessionsPerChannel: 9,
      seed: 5,
      frozen: true,
      dialect: spec.name,
    });
    truth = (await (await fetch(`${sim.url}/_sim/world?org=demo`)).json()) as Truth;
    channels = (await readAll(sim, spec, '/v1/demo/channels')).items;
  });
  afterAll(async () => {
    await sim.close();
  });

  it('org and subscription answer 200', async () => {
    for (const p of ['/v1/demo', '/v1/demo/subscription']) expect((await get(sim, p, spec)).status).toBe(200);
  });

  it('team and channels: paging to the end returns every record exactly once', async () => {
    const team = await readAll(sim, spec, '/v1/demo/team');
    expect(team.pages).toBeGreaterThan(1);
    expect(team.items).toHaveLength(truth.team.length);
    expect(new Set(team.items.map(spec.id)).size).toBe(truth.team.length);
    expect(channels).toHaveLength(truth.channels.length);
    expect(new Set(channels.map(spec.id)).size).toBe(truth.channels.length);
  });

  it('sessions: every one exactly once, and the live filter keeps the live ones', async () => {
    let live = 0;
    let liveRead = 0;
    for (const [i, ch] of channels.entries()) {
      const all = truth.sessions[truth.channels[i].id]!;
      const path = `/v1/demo/channels/${encodeURIComponent(spec.id(ch))}/sessions`;
      const read = await readAll(sim, spec, path);
      expect(read.items).toHaveLength(all.length);
      expect(new Set(read.items.map(spec.id)).size).toBe(all.length);
      live += all.filter((s) => s.status === 'live').length;
      // Where the convention's lists take no filter, the parameter is ignored: every session comes back.
      liveRead += (await readAll(sim, spec, path, spec.live ?? { status: 'live' })).items.length;
      if (spec.live === null) live += all.length - all.filter((s) => s.status === 'live').length;
    }
    expect(live).toBeGreaterThan(0);
    expect(liveRead).toBe(live);
  });

  it('a wrong filter is refused in the convention’s error shape', async () => {
    const path = `/v1/demo/channels/${encodeURIComponent(spec.id(channels[0]))}/sessions`;
    const res = await get(sim, withQuery(path, spec.badFilter ?? { colour: 'blue' }), spec);
    spec.refused(res.status, await res.json());
  });

  it('single objects, the detail and its sub-resources follow the convention', async () => {
    const org = await (await get(sim, '/v1/demo', spec)).json();
    const subscription = await (await get(sim, '/v1/demo/subscription', spec)).json();
    const path = `/v1/demo/channels/${encodeURIComponent(spec.id(channels[0]))}/sessions`;
    const session = (await readAll(sim, spec, path)).items[0];
    const segment = spec.sessionPath?.(session) ?? spec.id(session);
    const res = await get(sim, `/v1/demo/sessions/${encodeURIComponent(segment)}`, spec);
    expect(res.status).toBe(200);
    spec.shapes({ org, subscription, channel: channels[0], session, detail: await res.json() });
  });

  it('a session’s questions are reached the convention’s way, all of them', async () => {
    let checked = 0;
    for (const [i, ch] of channels.entries()) {
      const truthSessions = truth.sessions[truth.channels[i].id]!;
      const path = `/v1/demo/channels/${encodeURIComponent(spec.id(ch))}/sessions`;
      const read = (await readAll(sim, spec, path)).items;
      for (const [j, s] of truthSessions.entries()) {
        const asked = sim.sessionDetail('demo', s.id)?.['questions'];
        const want = Array.isArray(asked) ? asked.length : 0;
        if (want === 0 || checked >= 2) continue;
        const item = read[j];
        const seg = `/v1/demo/sessions/${encodeURIComponent(spec.sessionPath?.(item) ?? spec.id(item))}`;
        const detail = await (await get(sim, seg, spec)).json();
        const via = {
          path: seg,
          read: async (p: string) => (await readAll(sim, spec, p)).items,
          get: async (p: string) => (await get(sim, p, spec)).json(),
        };
        expect(await spec.questions(detail, via)).toBe(want);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('an injected 5xx keeps its status and the convention’s error body', async () => {
    sim.setFaults({ errorRate: 1, errorStatus: 503 });
    try {
      const res = await get(sim, '/v1/demo', spec);
      expect(res.status).toBe(503);
      const body = JSON.stringify(await res.json());
      expect(body).toContain('simulated server error 503');
      const canonical = { error: { code: 'upstream_error', message: 'simulated server error 503' } };
      expect(body).not.toBe(JSON.stringify(canonical));
    } finally {
      sim.setFaults(null);
    }
  });

  it('404 and 429 take the convention’s shapes', async () => {
    const res = await get(sim, '/v1/demo/sessions/nope', spec);
    spec.notFound(res.status, await res.json());
    sim.setRateLimit(1);
    try {
      await get(sim, '/v1/demo', spec);
      const limited = await get(sim, '/v1/demo', spec);
      spec.tooMany(limited.status, await limited.json(), limited.headers);
      // The request log records the Retry-After as sent, and none where the convention sends none.
      const sent = limited.headers.get('retry-after');
      expect(sim.requests().at(-1)?.retryAfterSeconds).toBe(sent === null ? null : Number(sent));
    } finally {
      sim.setRateLimit(300);
    }
  });
});
