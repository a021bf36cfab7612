import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { createHttpServer, type HttpServer } from '../../src/http/index.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { channel, engine, event, HOUR, T0, view } from '../alerts/helpers.js';
import { FakeSource } from '../metrics/fixtures.js';

// The alert API over a real HTTP server on loopback, answering from a real engine.

const config = `
rules:
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    for: 5m
  - name: went_live
    on: session.started
route:
  receiver: ops
  routes:
    - matchers: ['alertname = "went_live"']
      receiver: chat
maintenance:
  - name: nightly
    schedule: '0 3 * * *'
    duration: 1h
    matchers: ['org = "globex"']
`;

const servers: HttpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close(1000);
});

/** An answer: status and parsed JSON body. */
interface Answer {
  status: number;
  body: unknown;
}

async function setup() {
  let n = 0;
  const x = engine(config, { newId: () => `s${++n}`, externalURL: 'https://tally.example.com/' });
  x.engine.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
  x.engine.onEvents([event('session.started', { org: 'globex' })]);
  const source = new FakeSource([]);
  const http = createHttpServer({
    server: { listen: '127.0.0.1:0', enable_writes: true },
    source,
    metrics: new TallyMetrics({ registry: new Registry(), source }),
    clock: x.clock,
    logger: silentLogger(),
    alerts: async () => x.engine,
  });
  servers.push(http);
  const { url } = await http.listen();
  const call = async (method: string, path: string, query = '', body?: unknown): Promise<Answer> => {
    const res = await fetch(`${url}${path}${query ? `?${query}` : ''}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: await res.json() };
  };
  return { ...x, alerts: call, silences: call, windows: call, req: (...a: Parameters<typeof call>) => a };
}

describe('GET /api/v1/alerts', () => {
  it.each<[string, string[]]>([
    ['', ['went_live', 'channel_down']],
    ['state=pending', ['channel_down']],
    ['state=firing', ['went_live']],
    ['org=acme', ['channel_down']],
    ['receiver=chat', ['went_live']],
    ['receiver=ops', ['channel_down']],
    ['silenced=false', ['went_live', 'channel_down']],
  ])('?%s', async (query, names) => {
    const { alerts, req } = await setup();
    const r = await alerts(...req('GET', '/api/v1/alerts', query));
    expect(r.status).toBe(200);
    expect((r.body as { alerts: { rule: string }[] }).alerts.map((a) => a.rule)).toEqual(names);
  });

  it('shows an alert with ISO times, receivers, silenced_by and a link back', async () => {
    const { alerts, silences, req } = await setup();
    await silences(
      ...req('POST', '/api/v1/silences', '', {
        matchers: ['org="globex"'],
        duration: '1h',
        created_by: 'a',
        comment: 'b',
      }),
    );
    const r = await alerts(...req('GET', '/api/v1/alerts', 'state=firing'));
    const [a] = (r.body as { alerts: Record<string, unknown>[] }).alerts;
    expect(a).toMatchObject({
      rule: 'went_live',
      state: 'firing',
      active_at: new Date(T0).toISOString(),
      starts_at: new Date(T0).toISOString(),
      receivers: ['chat'],
      silenced_by: ['s1'],
      inhibited_by: [],
    });
    expect(a!['generator_url']).toBe(
      `https://tally.example.com/api/v1/alerts?fingerprint=${a!['fingerprint']}`,
    );
  });

  it('refuses a bad filter and other methods', async () => {
    const { alerts, req } = await setup();
    expect(await alerts(...req('GET', '/api/v1/alerts', 'state=burning'))).toMatchObject({ status: 400 });
    expect(await alerts(...req('POST', '/api/v1/alerts'))).toMatchObject({ status: 405 });
  });
});

describe('/api/v1/silences', () => {
  it('adds (201), lists, gets and expires (DELETE) a silence', async () => {
    const { silences, req } = await setup();
    const created = await silences(
      ...req('POST', '/api/v1/silences', '', {
        matchers: ['org = "acme"'],
        ends_at: new Date(T0 + HOUR).toISOString(),
        created_by: 'a',
        comment: 'b',
      }),
    );
    expect(created).toMatchObject({ status: 201, body: { silence: { id: 's1', status: 'active' } } });
    expect(await silences(...req('GET', '/api/v1/silences', 'status=active'))).toMatchObject({
      status: 200,
      body: { silences: [{ id: 's1' }] },
    });
    expect(await silences(...req('GET', '/api/v1/silences/s1'))).toMatchObject({
      status: 200,
      body: { silence: { id: 's1' } },
    });
    expect(await silences(...req('DELETE', '/api/v1/silences/s1'))).toMatchObject({
      status: 200,
      body: { silence: { status: 'expired' } },
    });
    expect(await silences(...req('DELETE', '/api/v1/silences/s1'))).toMatchObject({ status: 409 });
    expect(await silences(...req('DELETE', '/api/v1/silences/nope'))).toMatchObject({ status: 404 });
  });

  it('names the fields of an invalid silence', async () => {
    const { silences, req } = await setup();
    const r = await silences(
      ...req('POST', '/api/v1/silences', '', { matchers: ['org ~ x'], duration: 'soon', created_by: 'a' }),
    );
    expect(r.status).toBe(400);
    expect(
      (r.body as { error: { problems: { field: string }[] } }).error.problems.map((p) => p.field),
    ).toEqual(['matchers[0]', 'duration', 'comment']);
    expect(await silences(...req('POST', '/api/v1/silences', '', [1]))).toMatchObject({ status: 400 });
    expect(await silences(...req('PUT', '/api/v1/silences'))).toMatchObject({ status: 405 });
  });
});

describe('GET /api/v1/maintenance', () => {
  it('lists windows with their next occurrence', async () => {
    const { windows, req } = await setup();
    const r = await windows(...req('GET', '/api/v1/maintenance'));
    expect(r).toMatchObject({
      status: 200,
      body: {
        maintenance: [{ name: 'nightly', active: false, starts_at: new Date(T0 + 3 * HOUR).toISOString() }],
      },
    });
  });
});
