/**
 * A server that refuses the window's times one parameter at a time, each in its own words
 * (`invalid date format for 'to' (expected YYYY-MM-DD HH:MM:SS)`): tally sends the format
 * it states, the format `from` was found to take first for `to`, and when no format
 * works, leaves both out and keeps only what lies in the window itself. `--explain` says
 * what it learned, and nothing about the format of a parameter it left out.
 */
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { captureIO } from '../helpers/io.js';
import { json, known, type Loopback, loopbackSuite } from './loopback.js';

const suite = loopbackSuite();

const TOKEN = 'tok-times-0001';
const ACME = { slug: 'acme', token: TOKEN };
const H = 3_600_000;
const DT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

let server: Loopback | undefined;
let client: UpstreamClient | undefined;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-times-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const text = (res: ServerResponse, status: number, body: string): void => {
  res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
};

/**
 * An API that takes no parameter but the ones it lists, and times only as `YYYY-MM-DD
 * HH:MM:SS` (or, with `times: 'none'`, refuses every time it is given), one parameter at
 * a time. Sessions: one in the window, one long ended, one far ahead.
 */
function strictServer(times: 'datetime' | 'none' = 'datetime') {
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const sessions = [
    { id: 's-in', status: 'ended', started_at: iso(now - 2 * H), ended_at: iso(now - H) },
    { id: 's-old', status: 'ended', started_at: iso(now - 900 * H), ended_at: iso(now - 899 * H) },
    { id: 's-far', status: 'scheduled', scheduled_at: iso(now + 900 * H) },
  ];
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return text(res, 401, 'Unauthorized');
    const p = url.pathname;
    const allowed = p.endsWith('/sessions') ? ['from', 'to'] : [];
    for (const k of url.searchParams.keys())
      if (!allowed.includes(k)) return text(res, 400, `Bad Request: unknown parameter ${k}`);
    for (const k of ['from', 'to']) {
      const v = url.searchParams.get(k);
      if (v !== null && (times === 'none' || !DT.test(v)))
        return text(res, 400, `Bad Request: invalid date format for '${k}' (expected YYYY-MM-DD HH:MM:SS)`);
    }
    if (p === '/v1/acme') return json(res, 200, { slug: 'acme', name: 'Acme', plan: 'pro' });
    if (p === '/v1/acme/subscription') return json(res, 200, { plan: 'pro', limits: { channels: 5 } });
    if (p === '/v1/acme/team') return json(res, 200, [{ id: 'u1', role: 'owner' }]);
    if (p === '/v1/acme/channels') return json(res, 200, [{ id: 'c1', name: 'One', status: 'offline' }]);
    if (p === '/v1/acme/channels/c1/sessions') return json(res, 200, sessions);
    text(res, 404, 'Not Found');
  };
}

const sessionQueries = () =>
  server!.received
    .filter((r) => r.url.includes('/sessions'))
    .map((r) =>
      [...new URL(r.url, 'http://x').searchParams.entries()].map(([k, v]) => `${k}=${v}`).join('&'),
    );

describe('a server that refuses the window times one parameter at a time', () => {
  it('sends the format it states, to in the format from took, and reads the list in four requests', async () => {
    server = await suite.serve(strictServer());
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.map((s) => s.id)).toEqual(['s-in']);
    const all = sessionQueries();
    // Then the page after it (the list shows no paging), by number, refused, and by
    // offset, refused: the list is whole as answered (a server refusing what it does not
    // take, whose words name no parameter after the last id, is not asked with one).
    expect(all.slice(4).map((q) => q.replace(/.*&/, ''))).toEqual(['page=2', 'offset=3']);
    const q = all.slice(0, 4);
    expect(q[0]).toMatch(/^from=\S+Z&to=\S+Z&per_page=100$/);
    expect(q[1]).toMatch(/^from=\S+Z&to=\S+Z$/);
    expect(q[2]).toMatch(/^from=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d&to=\S+Z$/);
    expect(q[3]).toMatch(/^from=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d&to=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(known(memory, 'acme', 'sessions')).toEqual({
      drop: ['per_page'],
      times: { from: 'YYYY-MM-DD HH:mm:ss', to: 'YYYY-MM-DD HH:mm:ss' },
      ignored: ['window'],
      pagedAs: 0,
      wholeUpTo: 3,
    });
    // The next channel's read asks in the learned format at once: one request.
    const before = server.received.length;
    expect((await client.fetchSessions(ACME, 'c1')).state).toBe('complete');
    expect(server.received.length - before).toBe(1);
  });

  it('leaves out both times when the server takes no format, and filters the window itself', async () => {
    server = await suite.serve(strictServer('none'));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.map((s) => s.id)).toEqual(['s-in']);
    expect(sessionQueries().slice(-3)).toEqual(['', 'page=2', 'offset=3']);
    expect(known(memory, 'acme', 'sessions')).toEqual({
      drop: ['per_page', 'from', 'to'],
      ignored: ['window'],
      pagedAs: 0,
      wholeUpTo: 3,
    });
  });

  it('a server that applies a window given by dates is not taken for one that ignores it', async () => {
    const now = Date.now();
    const day = 86_400_000;
    // Later today (in its window by the day), and tomorrow beyond tally's 7-day window
    // but within the last day the server was asked for.
    const sessions = [
      { id: 's-soon', status: 'scheduled', scheduled_at: new Date(now + H).toISOString() },
      { id: 's-edge', status: 'scheduled', scheduled_at: new Date(now + 7 * day + H).toISOString() },
    ];
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const to = url.searchParams.get('to') ?? '';
      if (!/^\d{4}-\d\d-\d\d$/.test(to))
        return text(res, 400, "invalid date format for 'to' (expected YYYY-MM-DD)");
      // Inclusive of the whole day named.
      const end = Date.parse(`${to}T00:00:00Z`) + day;
      json(
        res,
        200,
        sessions.filter((x) => Date.parse(x.scheduled_at) < end),
      );
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state === 'complete' && part.value.map((x) => x.id)).toEqual(['s-soon']);
    expect(memory.get('acme', 'sessions')?.times).toEqual({ to: 'YYYY-MM-DD' });
    expect(memory.get('acme', 'sessions')?.ignored).toBeUndefined();
  });

  it.each<[string, 'datetime' | 'none', string]>([
    ['the format it states', 'datetime', 'learned: left out per_page; from, to as YYYY-MM-DD HH:mm:ss'],
    [
      'no format at all',
      'none',
      'learned: left out per_page, from, to; the window is not sent (tally filters)',
    ],
  ])(
    '--explain says what it learned of %s, and no format for a parameter left out',
    async (_what, times, line) => {
      server = await suite.serve(strictServer(times));
      const file = path.join(dir, `${times}.yaml`);
      await writeFile(
        file,
        `upstream:\n  base_url: ${server.origin}\norgs:\n  - slug: acme\n    token: ${TOKEN}\n`,
      );
      const io = captureIO({}, dir);
      expect(await onceCommand(['--config', file, '--explain'], io)).toBe(0);
      const sessions = io.out().slice(io.out().indexOf('  sessions'));
      expect(sessions).toContain(line);
      const learned = sessions.split('\n').find((l) => l.includes('learned:'))!;
      if (times === 'none') expect(learned).not.toMatch(/epoch|offset| as /);
    },
  );
});
