import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { get, ManualClock, objectOf, type Loose } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

describe('simulator API', () => {
  const clock = new ManualClock();
  let sim: Simulator;
  let channel: string;
  let session: string;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 3,
      orgs: ['demo', 'other'],
      channels: 4,
      sessionsPerChannel: 6,
      tokens: [
        { value: 'demo-token', org: 'demo', label: 'ci' },
        { value: 'other-token', org: 'other', label: 'other-ci', validity: 90 },
        { value: 'old-token', org: 'demo', label: 'old', validity: 30, createdAt: clock.now() - 31 * DAY },
      ],
      envelope: 'bare',
      paging: 'none',
    });
    const view = sim.view('demo');
    channel = view.channels[0]!.id as string;
    session = view.sessions[channel]![0]!.id as string;
  });
  afterAll(async () => {
    await sim.close();
  });

  const endpoints = () => [
    '/v1/demo',
    '/v1/demo/team',
    '/v1/demo/subscription',
    '/v1/demo/channels',
    `/v1/demo/channels/${channel}/sessions`,
    `/v1/demo/sessions/${session}`,
  ];

  it('answers 200 on every endpoint with the canonical shape', async () => {
    const bodies = [];
    for (const path of endpoints()) {
      const res = await get(sim, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      bodies.push(await res.json());
    }
    const [org, team, sub, channels, sessions, detail] = bodies as [
      Loose,
      Loose[],
      Loose,
      Loose[],
      Loose[],
      Loose,
    ];
    expect(org).toMatchObject({ slug: 'demo', name: 'Demo', settings: { language: expect.any(String) } });
    expect(org.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(team[0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      email: expect.stringContaining('@'),
      role: 'owner',
      joined_at: expect.any(String),
    });
    expect(sub).toMatchObject({ plan: org.plan, limits: expect.any(Object), usage: { channels: 4 } });
    expect(['wallet', 'byok']).toContain(sub.ai_funding.mode);
    expect(channels).toHaveLength(4);
    expect(channels[0]).toEqual({
      id: channel,
      name: expect.any(String),
      status: expect.stringMatching(/^(live|idle|offline)$/),
      visibility: expect.stringMatching(/^(public|unlisted|private)$/),
      created_at: expect.any(String),
    });
    expect(sessions).toHaveLength(6);
    expect(sessions[0]).toMatchObject({ id: session, channel_id: channel, status: expect.any(String) });
    expect(detail).toMatchObject({
      id: session,
      reactions: { total: expect.any(Number), by_kind: expect.any(Object) },
      ai: { status: expect.any(String), enabled: expect.any(Boolean) },
    });
    expect(
      Array.isArray(detail.questions) &&
        Array.isArray(detail.speakers) &&
        Array.isArray(detail.announcements),
    ).toBe(true);
  });

  it.each([
    ['no header', null, undefined],
    ['another scheme', null, 'Basic ZGVtbzpkZW1v'],
    ['an empty bearer', null, 'Bearer '],
    ['an unknown token', 'nope', undefined],
    ['an expired token', 'old-token', undefined],
  ])('answers 401 with an error body for %s', async (_name, token, header) => {
    for (const path of endpoints()) {
      const res = await get(
        sim,
        path,
        token,
        header === undefined ? {} : { headers: { authorization: header } },
      );
      expect(res.status, path).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toMatch(/^(unauthorized|token_expired)$/);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });

  it('says when a token has expired, naming its label but never its value', async () => {
    const res = await get(sim, '/v1/demo', 'old-token');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'token_expired', message: expect.stringContaining('"old"') },
    });
    expect(text).not.toContain('old-token');
  });

  it('answers 403 on every endpoint for a token of another org', async () => {
    for (const path of endpoints()) {
      const res = await get(sim, path, 'other-token');
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
  });

  it.each([
    ['an unknown org', '/v1/nosuch'],
    ['an unknown org (sub-path)', '/v1/nosuch/channels'],
    ['an unknown channel', '/v1/demo/channels/ch_999999/sessions'],
    ['an unknown session', '/v1/demo/sessions/ses_99999999'],
    ['an unknown resource', '/v1/demo/widgets'],
    ['a path outside /v1', '/v2/demo'],
  ])('answers 404 for %s', async (_name, path) => {
    const res = await get(sim, path);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('answers 404 for a session of another org', async () => {
    const otherView = sim.view('other');
    const ch = otherView.channels[0]!.id as string;
    const res = await get(sim, `/v1/demo/sessions/${otherView.sessions[ch]![0]!.id as string}`);
    expect(res.status).toBe(404);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'answers 405 with Allow: GET to %s on every endpoint',
    async (method) => {
      for (const path of endpoints()) {
        const res = await get(sim, path, 'demo-token', { method });
        expect(res.status, path).toBe(405);
        expect(res.headers.get('allow')).toBe('GET');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
      }
    },
  );

  it('logs requests with the token label, never the token value', async () => {
    const since = sim.requests().at(-1)?.seq ?? 0;
    await get(sim, '/v1/demo/channels?x=1');
    await get(sim, '/v1/demo', 'other-token');
    const log = sim.requests(since);
    expect(log).toMatchObject([
      {
        method: 'GET',
        path: '/v1/demo/channels',
        query: { x: '1' },
        status: 200,
        org: 'demo',
        tokenLabel: 'ci',
      },
      {
        path: '/v1/demo',
        status: 403,
        tokenLabel: 'other-ci',
        auth: 'bearer',
        ip: '127.0.0.1',
        at: clock.now(),
      },
    ]);
    expect(JSON.stringify(log)).not.toMatch(/demo-token|other-token/);
  });

  it('serves the session detail with questions, announcements, reactions, speakers and ai', async () => {
    const view = sim.view('demo');
    const past = Object.values(view.sessions)
      .flat()
      .find((s) => s.status === 'ended');
    expect(past).toBeDefined();
    const res = await get(sim, `/v1/demo/sessions/${past!.id as string}`);
    const detail = objectOf(await res.json()) as Loose;
    expect(detail).toEqual(sim.sessionDetail('demo', past!.id as string));
    expect(detail.speakers.length).toBeGreaterThan(0);
    expect(detail.reactions.total).toBe(
      Object.values(detail.reactions.by_kind as Record<string, number>).reduce((a, b) => a + b, 0),
    );
  });
});

describe('simulator rate limit', () => {
  it('answers 429 with Retry-After past N requests per minute per IP on all six endpoints, and recovers', async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({ clock, rateLimitPerMinute: 5, channels: 1, sessionsPerChannel: 1 });
    try {
      const view = sim.view('demo');
      const ch = view.channels[0]!.id as string;
      const ses = view.sessions[ch]![0]!.id as string;
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        expect((await get(sim, '/v1/demo')).status).toBe(200);
      }
      const paths = [
        '/v1/demo',
        '/v1/demo/team',
        '/v1/demo/subscription',
        '/v1/demo/channels',
        `/v1/demo/channels/${ch}/sessions`,
        `/v1/demo/sessions/${ses}`,
      ];
      for (const path of paths) {
        const res = await get(sim, path);
        expect(res.status, path).toBe(429);
        // The first of the 5 was at +1 s, now is +5 s: it leaves the window in 56 s.
        expect(res.headers.get('retry-after'), path).toBe('56');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      }
      expect((await get(sim, '/v1/demo', null)).status).toBe(429);
      clock.advance(55_000);
      const late = await get(sim, '/v1/demo');
      expect(late.status).toBe(429);
      expect(late.headers.get('retry-after')).toBe('1');
      clock.advance(1_000);
      expect((await get(sim, '/v1/demo')).status).toBe(200);
      const log = sim.requests();
      const limited = log.filter((r) => r.status === 429);
      expect(limited.map((r) => r.path)).toEqual([...paths, '/v1/demo', '/v1/demo']);
      // The log keeps the Retry-After each 429 carried, and none on any other answer.
      expect(limited.map((r) => r.retryAfterSeconds)).toEqual([56, 56, 56, 56, 56, 56, 56, 1]);
      expect(log.filter((r) => r.status !== 429).map((r) => r.retryAfterSeconds)).toEqual(
        Array(6).fill(null),
      );
    } finally {
      await sim.close();
    }
  });
});
