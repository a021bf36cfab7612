/**
 * A server that takes the window filter but misreads it (it wants another time format, or
 * another meaning) answers every windowed list with nothing: tally checks one empty list
 * without the window, and when that holds sessions inside the window, stops sending it
 * and says so, instead of watching an org with no sessions in silence.
 */
import { describe, expect, it } from 'vitest';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-window-misread-1';
const ACME = { slug: 'acme', token: TOKEN };
const { serve, client } = loopbackSuite({ secret: TOKEN });

/** A channel's sessions around now; `epochOnly`: a window in ISO 8601 matches nothing. */
function sessionsServer(epochOnly: boolean, sessions: () => Record<string, unknown>[]) {
  return serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const from = url.searchParams.get('from');
    if (from !== null && epochOnly && !/^\d+$/.test(from)) return json(res, 200, { data: [] });
    json(res, 200, { data: sessions() });
  });
}

describe('a window filter the server misreads', () => {
  it('is no longer sent once a list without it shows sessions inside the window, and the drift says so', async () => {
    const now = Date.now();
    const s = await sessionsServer(true, () => [
      { id: 's1', status: 'live', started_at: new Date(now - 60_000).toISOString() },
    ]);
    const drift: DriftIssue[] = [];
    const c = client(s.origin, { observer: { onDrift: (i) => drift.push(i) } });
    const part = await c.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.map((x) => x.id)).toEqual(['s1']);
    expect(drift.map((d) => d.field)).toContain('window');
    expect(c.memory.get('acme', 'sessions')?.drop).toEqual(expect.arrayContaining(['from', 'to']));
    // Later reads go without the window, one request each.
    const before = s.received.length;
    await c.fetchSessions(ACME, 'c2');
    expect(s.received.length - before).toBe(1);
    expect(s.received.at(-1)!.url).not.toContain('from=');
  });

  it('is kept by a server that reads it: empty lists are checked three times an hour at most', async () => {
    const s = await sessionsServer(false, () => []);
    const drift: DriftIssue[] = [];
    const c = client(s.origin, { observer: { onDrift: (i) => drift.push(i) } });
    for (let i = 0; i < 5; i++) expect((await c.fetchSessions(ACME, `c${i}`)).state).toBe('complete');
    // Five windowed reads and three checks without the window, for the whole org.
    expect(s.received.filter((r) => r.url.includes('from='))).toHaveLength(5);
    expect(s.received.filter((r) => !r.url.includes('from='))).toHaveLength(3);
    expect(drift).toEqual([]);
    expect(c.memory.get('acme', 'sessions')).toBeUndefined();
  });

  it('takes a check that finds only old sessions for no proof, and goes on checking', async () => {
    const now = Date.now();
    const old = new Date(now - 90 * 86_400_000).toISOString();
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('from') && !/^\d+$/.test(url.searchParams.get('from')!))
        return json(res, 200, { data: [] });
      // c1 holds only a session of three months ago; c2 one that started a minute ago.
      const data = url.pathname.includes('/c1/')
        ? [{ id: 'o1', status: 'ended', started_at: old, ended_at: old }]
        : [{ id: 'n1', status: 'live', started_at: new Date(now - 60_000).toISOString() }];
      json(res, 200, { data });
    });
    const c = client(s.origin);
    expect((await c.fetchSessions(ACME, 'c1')).state).toBe('complete');
    expect(c.memory.get('acme', 'sessions')?.drop ?? []).not.toContain('from');
    const part = await c.fetchSessions(ACME, 'c2');
    expect(part.state === 'complete' && part.value.map((x) => x.id)).toEqual(['n1']);
    expect(c.memory.get('acme', 'sessions')?.drop).toEqual(expect.arrayContaining(['from', 'to']));
    // Lists read from then on say they were read without the window (the diff adds no
    // session between such a list and one read with it).
    expect(part).toMatchObject({ unwindowed: true });
    expect(await c.fetchSessions(ACME, 'c1')).toMatchObject({ unwindowed: true });
  });

  it('is kept when a live session began before the window: its start says nothing of how the window is read', async () => {
    const twoDays = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const s = await sessionsServer(true, () => [{ id: 'stream', status: 'live', started_at: twoDays }]);
    const c = client(s.origin);
    await c.fetchSessions(ACME, 'c1');
    expect(c.memory.get('acme', 'sessions')?.drop ?? []).not.toContain('from');
  });

  it('is kept when the sessions without it all lie outside the window', async () => {
    const long = Date.now() - 90 * 86_400_000;
    const s = await sessionsServer(true, () => [
      {
        id: 'old',
        status: 'ended',
        started_at: new Date(long).toISOString(),
        ended_at: new Date(long + 3_600_000).toISOString(),
      },
    ]);
    const c = client(s.origin);
    const part = await c.fetchSessions(ACME, 'c1');
    expect(part.state === 'complete' && part.value).toEqual([]);
    expect(c.memory.get('acme', 'sessions')?.drop ?? []).not.toContain('from');
  });
});
