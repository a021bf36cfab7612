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

  it('is kept by a server that reads it: an empty list is checked once, and nothing is learned', async () => {
    const s = await sessionsServer(false, () => []);
    const drift: DriftIssue[] = [];
    const c = client(s.origin, { observer: { onDrift: (i) => drift.push(i) } });
    for (let i = 0; i < 5; i++) expect((await c.fetchSessions(ACME, `c${i}`)).state).toBe('complete');
    // Five windowed reads and one check without the window, for the whole org.
    expect(s.received.filter((r) => r.url.includes('from='))).toHaveLength(5);
    expect(s.received.filter((r) => !r.url.includes('from='))).toHaveLength(1);
    expect(drift).toEqual([]);
    expect(c.memory.get('acme', 'sessions')).toBeUndefined();
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
