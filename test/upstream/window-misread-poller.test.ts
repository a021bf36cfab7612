/**
 * Lists read without the window through the real client and poller: only a window the
 * server misread makes the diff hold back additions (SessionsPart.unwindowed), decided by
 * the query each read was sent with; a window dropped after a refusal was read right.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { SessionsOptions } from '../../src/upstream/types.js';
import type { OrgAuth } from '../../src/poll/fetcher.js';
import { setup } from '../poll/world.js';
import { json, loopbackSuite } from './loopback.js';

type Raw = { id: string; status: string; scheduled_at: string };
const { serve, client } = loopbackSuite();

/** A loopback server answering by the request's URL. */
function server(answer: (url: URL, res: ServerResponse) => void) {
  return serve((req, res) => answer(new URL(req.url ?? '/', 'http://x'), res));
}

/** setup() from world.ts, with the session lists read by a real UpstreamClient. */
function setupWithClient(origin: string) {
  const c = client(origin, {
    budgetPerMinute: 600,
    maxPages: 5,
    retries: { attempts: 1, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 5000 },
  });
  return setup(undefined, {
    fetchSessions: (o: OrgAuth, ch: string, opts?: SessionsOptions) => c.fetchSessions(o, ch, opts),
  });
}

describe('lists read without a window the server misread', () => {
  it('a read sent with the window while another learns it is misread adds nothing when read again', async () => {
    let data: Record<string, Raw[]> = {};
    const srv = await server((url, res) => {
      const ch = url.pathname.split('/')[4]!;
      if (url.searchParams.has('from')) {
        // misreads the window: nothing; c1's answer is slow
        setTimeout(() => json(res, 200, { data: [] }), ch === 'c1' ? 400 : 0);
        return;
      }
      json(res, 200, { data: data[ch] ?? [] });
    });
    const t = setupWithClient(srv.origin);
    const at = new Date(t.clock.now() + 3_600_000).toISOString();
    // Both sessions exist all along, from before tally's first look.
    data = {
      c1: [{ id: 's1', status: 'scheduled', scheduled_at: at }],
      c2: [{ id: 's2', status: 'scheduled', scheduled_at: at }],
    };
    t.world.channels = [
      { id: 'c1', status: 'offline' },
      { id: 'c2', status: 'offline' },
    ] as never;
    await t.p.refresh('channels', t.signal);
    await Promise.all([t.p.readSessions('c1', 'low', t.signal), t.p.readSessions('c2', 'low', t.signal)]);
    await t.settle();
    // c1's first answer was read with the window (misread, empty): stored as such.
    expect(t.p.snapshot().sessions['c1']).not.toHaveProperty('unwindowed');
    await t.clock.tick(30_000);
    await t.p.readSessions('c1', 'low', t.signal);
    await t.settle();
    // s1 was there all along: no session.added may come.
    expect(t.kinds()).not.toContain('session.added s1');
  });

  it('a window refused (400) by a server that read it well: a session created meanwhile is added', async () => {
    let refuse = false;
    let data: Raw[] = [];
    const srv = await server((url, res) => {
      if (refuse && url.searchParams.has('from'))
        return json(res, 400, { error: { message: 'unknown query parameter: from, to' } });
      json(res, 200, { data });
    });
    const t = setupWithClient(srv.origin);
    const at = (h: number) => new Date(t.clock.now() + h * 3_600_000).toISOString();
    data = [{ id: 's1', status: 'scheduled', scheduled_at: at(1) }];
    t.world.channels = [{ id: 'c1', status: 'offline' }] as never;
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('c1', 'low', t.signal);
    await t.settle();
    // The windowed list was right. Then s2 is created (in the older list's window) and
    // the server starts refusing the window parameters.
    await t.clock.tick(30_000);
    data = [...data, { id: 's2', status: 'scheduled', scheduled_at: at(2) }];
    refuse = true;
    await t.p.readSessions('c1', 'low', t.signal);
    await t.settle();
    expect(t.p.snapshot().sessions['c1']).not.toHaveProperty('unwindowed');
    expect(t.kinds()).toContain('session.added s2');
  });
});
