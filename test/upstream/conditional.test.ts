/**
 * Change hints from the server: a session list that carries an ETag or Last-Modified is
 * asked for conditionally next time; a 304 costs a request but no parse or diff, and the
 * copy held is returned as a complete read. Servers without validators get plain requests.
 */
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { json, type Loopback, loopbackSuite, withoutProbes } from './loopback.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

const suite = loopbackSuite();

const ACME = { slug: 'acme', token: 'tok-cond-0001' };
const SESSIONS = [
  { id: 's1', status: 'scheduled', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() },
];

describe('conditional requests', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  it.each([
    ['an ETag', { etag: '"v1"' }, 'if-none-match', '"v1"'],
    [
      'a Last-Modified',
      { 'last-modified': 'Tue, 24 Nov 2026 10:00:00 GMT' },
      'if-modified-since',
      'Tue, 24 Nov 2026 10:00:00 GMT',
    ],
  ])('sends back %s, and a 304 returns the copy held', async (_name, validators, header, value) => {
    server = await suite.serve((req, res) => {
      if (req.headers[header] === value) {
        res.writeHead(304, validators).end();
        return;
      }
      // A total: the list shows its paging (one page), as lists read conditionally do.
      json(res, 200, { data: SESSIONS, total: SESSIONS.length }, validators);
    });
    client = suite.client(server.origin);
    const first = await client.fetchSessions(ACME, 'c1');
    const second = await client.fetchSessions(ACME, 'c1');
    const asked = withoutProbes(server.received);
    expect(asked[0]?.headers[header]).toBeUndefined();
    expect(asked[1]?.headers[header]).toBe(value);
    expect(second.state).toBe('complete');
    expect(second.state !== 'failed' && second.value.map((s) => s.id)).toEqual(['s1']);
    expect(second.at).toBeGreaterThanOrEqual(first.at);
    // Another channel has its own copy: no validators for it.
    await client.fetchSessions(ACME, 'c2');
    expect(withoutProbes(server.received)[2]?.headers[header]).toBeUndefined();
  });

  it('a server without validators is asked plainly every time', async () => {
    server = await suite.serve((_req, res) => json(res, 200, { data: SESSIONS }));
    client = suite.client(server.origin);
    await client.fetchSessions(ACME, 'c1');
    await client.fetchSessions(ACME, 'c1');
    expect(
      withoutProbes(server.received).map((r) => r.headers['if-none-match'] ?? r.headers['if-modified-since']),
    ).toEqual([undefined, undefined]);
  });

  it('a changed list is read in full again', async () => {
    let version = 1;
    server = await suite.serve((req, res) => {
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
      json(
        res,
        200,
        { data: version === 1 ? SESSIONS : [...SESSIONS, { id: 's2', status: 'live' }] },
        { etag },
      );
    });
    client = suite.client(server.origin);
    await client.fetchSessions(ACME, 'c1');
    version = 2;
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state !== 'failed' && part.value.map((s) => s.id)).toEqual(['s1', 's2']);
  });

  it('against the simulator with hints: unchanged session lists answer 304', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 4, seed: 3, frozen: true, hints: true });
    const c = suite.client(sim.url);
    try {
      const a = await c.readAll({ slug: 'demo', token: 'demo-token' });
      const b = await c.readAll({ slug: 'demo', token: 'demo-token' });
      const lists = sim.requests().filter((r) => /\/sessions$/.test(r.path));
      expect(lists.filter((r) => r.status === 304).length).toBeGreaterThan(0);
      const ids = (s: typeof a) =>
        Object.values(s.sessions)
          .flatMap((p) => (p.state === 'failed' ? [] : sessionArray(p.value).map((x) => x.id)))
          .sort();
      expect(ids(b)).toEqual(ids(a));
      const channels = a.channels?.state === 'complete' ? a.channels.value : [];
      expect(channels.every((ch) => typeof ch.activityAt === 'number')).toBe(true);
    } finally {
      await c.close();
      await sim.close();
    }
  });
});
