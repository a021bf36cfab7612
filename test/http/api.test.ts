import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { createHttpServer, type HttpServer } from '../../src/http/index.js';
import { silentLogger } from '../../src/core/log.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { TallyError } from '../../src/core/errors.js';
import type { ChangeEvent, EventKind } from '../../src/snapshot/events.js';
import { FakeSource, orgView, snapshot, testPlan } from '../metrics/fixtures.js';
import { send as rawSend } from './client.js';

const AT = 1_700_000_000_000;
const TOKEN = 'tok_live_0123456789abcdef';

const clock: Clock = {
  now: () => AT + 90_000,
  monotonic: () => AT + 90_000,
  setTimeout: () => ({ cancel() {} }),
  sleep: async () => {},
};

function event(n: number, org: string, kind: EventKind, entity = `c${n % 3}`): ChangeEvent {
  return {
    id: `e${n}`,
    at: AT + n * 1000,
    org,
    kind,
    entity: { kind: 'channel', id: entity },
    labels: { channel_id: entity },
  };
}

/** Every request carries the server's bearer token, so a leak of it into a body would show. */
const send = (target: string) => rawSend(target, { headers: { authorization: `Bearer ${TOKEN}` } });

interface FreshnessBody {
  last_success_at: string | null;
  last_attempt_at: string | null;
  failing: number;
  last_error: unknown;
}
interface StatusBody {
  uptime_seconds: number;
  started_at: string;
  ready: boolean;
  orgs: {
    slug: string;
    labels: Record<string, string>;
    health: unknown;
    token_expires_at: string | null;
    freshness: Record<string, FreshnessBody>;
    sessions: unknown;
  }[];
  budget: Record<string, unknown>;
  plan: { intervals_seconds: Record<string, number> } & Record<string, unknown>;
}

let server: HttpServer;
let url: string;
const source = new FakeSource([], AT - 30_000);

beforeAll(async () => {
  const metrics = new TallyMetrics({ registry: new Registry(), source, defaultMetrics: false });
  server = createHttpServer({
    server: { listen: '127.0.0.1:0', auth: { bearer_token: TOKEN } },
    source,
    metrics,
    clock,
    logger: silentLogger(),
    version: '1.0.0',
  });
  ({ url } = await server.listen());
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  const snap = snapshot({
    org: 'acme',
    at: AT,
    profile: { slug: 'acme', name: 'Acme', settings: { 'notifications.email': true } },
    channels: [
      { id: 'c1', name: 'One', status: 'live' },
      { id: 'c2', name: 'Two', status: 'offline' },
    ],
    sessions: { c1: [{ id: 's1', title: 'Breakfast with Ada', status: 'live' }] },
  });
  source.views = [
    orgView(snap, {
      labels: { team: 'radio' },
      tokenExpiresAt: Date.UTC(2030, 0, 1),
      attempts: new Map([
        ['channels', { at: AT, state: 'complete' as const }],
        ['team', { at: AT + 1000, state: 'failed' as const, reason: 'timeout' }],
      ]),
      health: {
        state: 'ok',
        lastSuccessAt: AT,
        lastError: { reason: 'timeout', message: 'GET /v1/acme/team timed out' },
      },
    }),
  ];
  source.log = Array.from({ length: 12 }, (_, i) => 12 - i).map((n) =>
    event(n, n % 2 === 0 ? 'acme' : 'beta', n % 3 === 0 ? 'channel.status_changed' : 'channel.added'),
  );
  source.failEvents = undefined;
  source.currentPlan = testPlan({
    notes: ['sweep needs 5000 reads: every channel within 2580s'],
    sweepBoundMs: 2_580_000,
  });
});

describe('/api/v1/status', () => {
  it('reports orgs with health and freshness, the budget, the plan and uptime', async () => {
    const res = await send(`${url}/api/v1/status`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json() as StatusBody;
    expect(body.uptime_seconds).toBe(120);
    expect(body.started_at).toBe(new Date(AT - 30_000).toISOString());
    expect(body.ready).toBe(true);
    const org = body.orgs[0]!;
    expect(org.slug).toBe('acme');
    expect(org.labels).toEqual({ team: 'radio' });
    expect(org.health).toEqual({
      state: 'ok',
      stale: [],
      last_success_at: new Date(AT).toISOString(),
      last_error: { reason: 'timeout', message: 'GET /v1/acme/team timed out' },
    });
    expect(org.token_expires_at).toBe('2030-01-01T00:00:00.000Z');
    expect(org.freshness['channels']).toEqual({
      last_success_at: new Date(AT).toISOString(),
      last_attempt_at: new Date(AT).toISOString(),
      failing: 0,
      last_error: null,
    });
    expect(org.freshness['team']).toEqual({
      last_success_at: null,
      last_attempt_at: new Date(AT + 1000).toISOString(),
      failing: 1,
      last_error: { at: new Date(AT + 1000).toISOString(), state: 'failed', reason: 'timeout' },
    });
    expect(org.sessions).toEqual({
      channels: 2,
      channels_unread: 1,
      oldest_read_at: new Date(AT).toISOString(),
      live: 1,
      // The titles tally_live_session_info leaves out.
      live_sessions: [{ id: 's1', channel_id: 'c1', channel: 'One', title: 'Breakfast with Ada' }],
      last_full_sweep: null,
    });
    expect(body.budget).toMatchObject({ configured_per_minute: 240, left: 223, paused_until: null });
    expect(body.plan).toMatchObject({
      sweep_bound_seconds: 2580,
      stretch: 1,
      hot_stretch: 1,
      notes: ['sweep needs 5000 reads: every channel within 2580s'],
    });
    expect(body.plan.intervals_seconds['channels']).toBe(30);
  });

  it('reports the limit learned for the address, and what taught it', async () => {
    const was = source.currentBudget;
    source.currentBudget = {
      ...was,
      effective: 97,
      learned: { perMinute: 97, from: 'refusals', loweredAt: AT - 5_000, decreases: 2 },
    };
    const body = (await send(`${url}/api/v1/status`)).json() as StatusBody;
    source.currentBudget = was;
    expect(body.budget).toMatchObject({
      effective_per_minute: 97,
      learned: {
        per_minute: 97,
        from: 'refusals',
        lowered_at: new Date(AT - 5_000).toISOString(),
        decreases: 2,
      },
    });
  });
});

describe('/api/v1/snapshot/:org', () => {
  it('serves the normalized snapshot of a known org, without any secret', async () => {
    const res = await send(`${url}/api/v1/snapshot/acme`);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(JSON.parse(JSON.stringify(source.views[0]?.snapshot)));
    expect(res.text).not.toContain(TOKEN);
    expect(res.text).not.toMatch(/"(token|authorization|password|secret|bearer_token)"/i);
    const status = await send(`${url}/api/v1/status`);
    expect(status.text).not.toContain(TOKEN);
    expect(status.text).not.toMatch(/"(token|authorization|password|secret|bearer_token)"/i);
  });

  it('answers 404 for an unknown org', async () => {
    const res = await send(`${url}/api/v1/snapshot/nobody`);
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'unknown org "nobody"' } });
  });
});

describe('/api/v1/events', () => {
  const get = async (query: string) => send(`${url}/api/v1/events${query}`);
  const ids = (body: unknown) => (body as { events: ChangeEvent[] }).events.map((e) => e.id);

  it('says which sequence numbers are missing, with the events that remain', async () => {
    const original = source.events.bind(source);
    source.events = async (q) => ({
      ...(await original(q)),
      missing: [{ from: 1, to: 40, reason: 'deleted', at: AT }],
    });
    try {
      const res = await get('?limit=2');
      expect(res.status).toBe(200);
      const body = res.json() as { events: unknown[]; missing: unknown };
      expect(body.events).toHaveLength(2);
      expect(body.missing).toEqual([
        { from_seq: 1, to_seq: 40, reason: 'deleted', detected_at: new Date(AT).toISOString() },
      ]);
    } finally {
      source.events = original;
    }
    expect((await get('?limit=2')).json()).not.toHaveProperty('missing');
  });

  it('returns recent events newest first, 100 by default', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(ids(res.json())).toEqual([
      'e12',
      'e11',
      'e10',
      'e9',
      'e8',
      'e7',
      'e6',
      'e5',
      'e4',
      'e3',
      'e2',
      'e1',
    ]);
    expect((res.json() as { next_cursor: unknown }).next_cursor).toBeNull();
    expect(source.queries.at(-1)).toEqual({ limit: 100 });
  });

  it('filters by org, kind (repeated or comma-separated), entity and time', async () => {
    expect(ids((await get('?org=acme')).json())).toEqual(['e12', 'e10', 'e8', 'e6', 'e4', 'e2']);
    expect(ids((await get('?kind=channel.status_changed')).json())).toEqual(['e12', 'e9', 'e6', 'e3']);
    const both = await get('?org=acme&kind=channel.status_changed,channel.added&kind=channel.added');
    expect(source.queries.at(-1)?.kinds).toEqual(['channel.status_changed', 'channel.added']);
    expect(ids(both.json())).toHaveLength(6);
    expect(ids((await get('?entity=c0')).json())).toEqual(['e12', 'e9', 'e6', 'e3']);
    const since = new Date(AT + 10_000).toISOString();
    expect(ids((await get(`?since=${since}&until=${AT + 11_000}`)).json())).toEqual(['e11', 'e10']);
  });

  it('pages with next_cursor', async () => {
    const first = (await get('?limit=5')).json() as { events: ChangeEvent[]; next_cursor: string };
    expect(ids(first)).toEqual(['e12', 'e11', 'e10', 'e9', 'e8']);
    expect(first.next_cursor).toBe('e8');
    const second = (await get(`?limit=5&cursor=${first.next_cursor}`)).json() as { next_cursor: string };
    expect(ids(second)).toEqual(['e7', 'e6', 'e5', 'e4', 'e3']);
    const third = (await get(`?limit=5&cursor=${second.next_cursor}`)).json() as {
      next_cursor: string | null;
    };
    expect(ids(third)).toEqual(['e2', 'e1']);
    expect(third.next_cursor).toBeNull();
  });

  it.each([
    ['?kind=channel.exploded', 'unknown event kind "channel.exploded"'],
    ['?kind=channel.added,nope', 'unknown event kind "nope"'],
    ['?limit=1001', 'limit must be an integer from 1 to 1000, got "1001"'],
    ['?limit=0', 'limit must be an integer from 1 to 1000'],
    ['?since=yesterday', 'since must be an ISO 8601 time or epoch milliseconds, got "yesterday"'],
    ['?org=a&org=b', 'org may be given once'],
  ])('refuses %s with a 400 naming the problem', async (query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    const body = res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toContain(message);
  });

  it('answers 400 for a cursor the event log cannot read, 500 for other failures', async () => {
    source.failEvents = new TallyError('cursor "zz" is not one of ours', { reason: 'invalid_cursor' });
    expect((await get('?cursor=zz')).status).toBe(400);
    source.failEvents = new Error('disk on fire');
    const res = await get('');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('disk on fire');
  });
});
