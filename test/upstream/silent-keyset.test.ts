/**
 * A server in Discord's paging convention (https://discord.com/developers/docs/reference,
 * "Pagination"): lists are bare arrays with no next link, no "more" flag and no totals;
 * `limit` asks for a page size the server caps at its own maximum; `before` / `after` take
 * a record's id (snowflakes, ordered as numbers); unknown query parameters are ignored. Its
 * first page shows no paging, and page number and offset answer that page again: tally
 * asks after the last record's id (silent-pages.ts), learns the parameter that works, and
 * reads every record, the next time at one request a page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import { DEFAULT_FILTERS } from '../../src/upstream/query/filters.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import { json, loopbackSuite, type Received } from './loopback.js';
import { ManualClock } from '../helpers/clock.js';

const DEMO = { slug: 'demo', token: 'tok-discord-0001' };
const { serve, client } = loopbackSuite({ secret: DEMO.token });

/** The most records the server gives a page, whatever `limit` asks. */
const MAX = 3;
const now = Date.now();
const iso = (min: number) => new Date(now + min * 60_000).toISOString();
const CHANNELS = Array.from({ length: 7 }, (_, i) => ({
  id: String(1_000 + i),
  name: `Chan ${i}`,
  type: 2,
}));
const SESSIONS = Array.from({ length: 8 }, (_, i) => ({
  id: String(5_000 + i),
  name: `Show ${i}`,
  scheduled_start_time: iso(-60 + i * 30),
  scheduled_end_time: iso(-30 + i * 30),
  status: 'scheduled',
}));
// Guild members: the id is the user's (https://discord.com/developers/docs/resources/guild).
const TEAM = Array.from({ length: 5 }, (_, i) => ({
  user: { id: String(90 + i), username: `u${i}` },
  roles: ['admin'],
}));

const idOf = (x: { id?: string; user?: { id: string } }) => BigInt(x.id ?? x.user!.id);

/** A page as Discord answers it: after `after` or before `before`, at most `limit` (capped) records. */
function page<T extends { id?: string; user?: { id: string } }>(list: readonly T[], q: URLSearchParams): T[] {
  const limit = Math.min(Number(q.get('limit') ?? MAX) || MAX, MAX);
  const after = q.get('after');
  const before = q.get('before');
  if (before !== null) return list.filter((x) => idOf(x) < BigInt(before)).slice(-limit);
  return list.filter((x) => after === null || idOf(x) > BigInt(after)).slice(0, limit);
}

function discord(req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? '/', 'http://x');
  const q = u.searchParams;
  const p = u.pathname;
  const body =
    p === '/v1/demo'
      ? { id: '1', name: 'Demo', plan: 'pro' }
      : p === '/v1/demo/subscription'
        ? { plan: 'pro', limits: { channels: 10 } }
        : p === '/v1/demo/team'
          ? page(TEAM, q)
          : p === '/v1/demo/channels'
            ? page(CHANNELS, q)
            : /^\/v1\/demo\/channels\/\d+\/sessions$/.test(p)
              ? page(SESSIONS, q)
              : undefined;
  if (body === undefined) json(res, 404, { message: '404: Not Found', code: 0 });
  else json(res, 200, body);
}

const complete = <T>(part: { state: string; value?: T } | undefined): T => {
  expect(part?.state).toBe('complete');
  return (part as { value: T }).value;
};
const counts = (snap: OrgSnapshot) => ({
  team: complete(snap.team).length,
  channels: complete(snap.channels).length,
  sessions: Object.values(snap.sessions).map((s) => complete<unknown[]>(s as never).length),
});
/** The query of each request to `path`, without the page size and window tally sends. */
const queries = (received: readonly Received[], path: RegExp) =>
  received
    .map((r) => new URL(r.url, 'http://x'))
    .filter((u) => path.test(u.pathname))
    .map((u) =>
      [...u.searchParams.entries()]
        .filter(([k]) => !['per_page', 'from', 'to'].includes(k))
        .map(([k, v]) => `${k}=${v}`)
        .join('&'),
    );

describe('a server that pages by the last record id and shows no paging (Discord)', () => {
  it('is read whole, the way learned per endpoint, and the next read asks that way at once', async () => {
    const s = await serve(discord);
    const memory = new QueryMemory();
    const drift: DriftIssue[] = [];
    let requests = 0;
    const c = client(s.origin, {
      memory,
      observer: {
        onDrift: (i) => drift.push(i),
        onRequest: () => {
          requests += 1;
        },
      },
    });
    const first = await c.readAll(DEMO);
    expect(counts(first)).toEqual({ team: 5, channels: 7, sessions: Array(7).fill(8) });
    // Page number and offset answer the first page again, Stripe's parameter too; `after`
    // brings the rest, page by page, until a short page.
    expect(queries(s.received, /\/channels$/)).toEqual([
      '',
      'page=2',
      'offset=3',
      'starting_after=1002',
      'after=1002',
      'after=1005',
    ]);
    for (const endpoint of ['team', 'channels', 'sessions'])
      expect(memory.get('demo', endpoint)).toMatchObject({
        silentPages: { by: 'keyset', param: 'after', size: MAX },
      });
    expect(drift).toContainEqual(
      expect.objectContaining({
        endpoint: 'channels',
        field: 'paging',
        problem: expect.stringContaining("asked for by after=<the last record's id>"),
      }),
    );
    // Every request went through the budget (the observer sees each one).
    expect(requests).toBe(s.received.length);
    // Finding out is done once per endpoint: every other session list reads on by `after`.
    const sessionQueries = queries(s.received, /\/sessions$/);
    expect(sessionQueries.filter((q) => /page=|offset=|starting_after=/.test(q))).toHaveLength(3);
    expect(sessionQueries).toHaveLength(7 * 3 + 3);

    s.received.length = 0;
    const second = await c.readAll(DEMO);
    expect(counts(second)).toEqual(counts(first));
    // One request a page, asked the learned way at once.
    expect(queries(s.received, /\/channels$/)).toEqual(['', 'after=1002', 'after=1005']);
    expect(queries(s.received, /\/team$/)).toEqual(['', 'after=92']);
    expect(queries(s.received, /\/sessions$/)).toHaveLength(7 * 3);
    expect(
      s.received.filter((r) => /[?&](page|offset|starting_after|after_id|since_id)=/.test(r.url)),
    ).toEqual([]);
  });

  it('what was learned is kept across a restart, and a malformed entry is dropped', async () => {
    const s = await serve(discord);
    const memory = new QueryMemory();
    await client(s.origin, { memory }).fetchChannels(DEMO);
    const saved = JSON.parse(JSON.stringify(memory.toJSON())) as Record<string, unknown>;
    const again = new QueryMemory();
    again.load({
      ...saved,
      'demo team': { pagedAs: 100, silentPages: { by: 'keyset', param: 'x&y', size: 3 } },
    });
    expect(again.get('demo', 'channels')).toEqual({
      ...memory.get('demo', 'channels'),
      silentPages: { by: 'keyset', param: 'after', size: MAX },
    });
    expect(again.get('demo', 'team')?.silentPages).toBeUndefined();
    s.received.length = 0;
    const part = await client(s.origin, { memory: again }).fetchChannels(DEMO);
    expect(complete(part)).toHaveLength(7);
    expect(queries(s.received, /\/channels$/)).toEqual(['', 'after=1002', 'after=1005']);
  });

  it('a server that stops taking the parameter is found out afresh, and no record is read twice', async () => {
    let keyset = true;
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      if (!keyset) q.delete('after');
      json(res, 200, page(CHANNELS, q));
    });
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect(complete(await c.fetchChannels(DEMO))).toHaveLength(7);
    keyset = false;
    const part = await c.fetchChannels(DEMO);
    // The first page again for `after`: it is all the server gives now.
    expect(complete(part)).toHaveLength(MAX);
    expect(memory.get('demo', 'channels')?.silentPages).toBeUndefined();
  });
});

describe('a server that refuses what it does not take', () => {
  it('is asked after the last id only by the parameters its refusal names', async () => {
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      for (const k of q.keys())
        if (k !== 'per_page' && k !== 'after')
          return json(res, 400, { message: `unknown parameter ${k}; allowed: limit, before, after` });
      json(res, 200, page(CHANNELS, q));
    });
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(DEMO);
    expect(complete(part)).toHaveLength(7);
    expect(queries(s.received, /\/channels$/)).toEqual([
      '',
      'page=2',
      'offset=3',
      'after=1002',
      'after=1005',
    ]);
    expect(memory.get('demo', 'channels')?.silentPages).toEqual({ by: 'keyset', param: 'after', size: MAX });
  });
});

describe('a server that ignores every paging parameter', () => {
  it('reads whole as answered, at a bounded number of requests', async () => {
    const all = CHANNELS.slice(0, 5);
    const s = await serve((_req, res) => json(res, 200, all));
    const clock = new ManualClock();
    const memory = new QueryMemory();
    const c = client(s.origin, { memory, clock });
    expect(complete(await c.fetchChannels(DEMO))).toHaveLength(5);
    // The first page, then page 2, offset 5 and four parameters after the last id: each the
    // first page again.
    expect(queries(s.received, /\/channels$/)).toEqual([
      '',
      'page=2',
      'offset=5',
      'starting_after=1004',
      'after=1004',
      'after_id=1004',
      'since_id=1004',
    ]);
    expect(memory.get('demo', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 5 });
    // The same list again: one request.
    s.received.length = 0;
    expect(complete(await c.fetchChannels(DEMO))).toHaveLength(5);
    expect(s.received).toHaveLength(1);
    // Asked after again only after 10 minutes, and without the parameters it ignored.
    clock.time += 11 * 60_000;
    s.received.length = 0;
    expect(complete(await c.fetchChannels(DEMO))).toHaveLength(5);
    expect(queries(s.received, /\/channels$/)).toEqual(['', 'page=2', 'offset=5']);
    // An hour on, they are asked once more (the server may have changed).
    clock.time += 60 * 60_000;
    s.received.length = 0;
    await c.fetchChannels(DEMO);
    expect(s.received).toHaveLength(7);
  });

  it('a window parameter named like one of them is never overwritten with an id', async () => {
    const s = await serve((_req, res) => json(res, 200, CHANNELS.slice(0, 4)));
    const c = client(s.origin, {
      memory: new QueryMemory(),
      filters: { ...DEFAULT_FILTERS, from_param: 'after', to_param: 'before' },
    });
    expect((await c.fetchSessions(DEMO, '1000')).state).toBe('complete');
    const asked = s.received.map((r) => new URL(r.url, 'http://x').searchParams);
    // The window's `after` is sent as it was on every request, and never taken for the id.
    expect(new Set(asked.map((q) => q.get('after'))).size).toBe(1);
    expect(
      asked.map((q) => [...q.keys()].filter((k) => k !== 'after' && k !== 'before' && k !== 'per_page')),
    ).toEqual([[], ['page'], ['offset'], ['starting_after'], ['after_id'], ['since_id']]);
  });
});
