/**
 * Requests that adapt, continued: every safer query tried is a request like any other and
 * goes through the budget, and refusals of the credentials (401, 403) are never read as a
 * query to adapt, whatever their body says.
 */
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Learned, MAX_ADAPTATIONS, QueryMemory } from '../../src/upstream/query/adapt.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import type { RequestEvent } from '../../src/upstream/observer.js';
import { json, known, type Loopback, loopbackSuite, untimed } from './loopback.js';

const suite = loopbackSuite();

const ACME = { slug: 'acme', token: 'tok-adapt-more-01' };
const CHANNELS = Array.from({ length: 60 }, (_, i) => ({ id: `c${i}`, name: `C${i}`, status: 'offline' }));

let server: Loopback | undefined;
let client: UpstreamClient | undefined;

/** Channels paged by page numbers; page sizes above `max` are refused with `refuse`. */
function capped(max: number, refuse: (res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const size = Number(url.searchParams.get('per_page') ?? 20);
    if (size > max) return refuse(res);
    const page = Number(url.searchParams.get('page') ?? 1);
    json(res, 200, {
      data: CHANNELS.slice((page - 1) * size, page * size),
      meta: { page, per_page: size, total: CHANNELS.length },
    });
  };
}

/** Longest run of arrivals inside any window of `windowMs`. */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('adaptation requests count against the budget', () => {
  it('charges the budget once for every query tried, refused or answered', async () => {
    // 100 → 50 → 25 are refused in turn (no maximum named), 12 is answered: four tries, then pages.
    server = await suite.serve(capped(12, (res) => json(res, 400, { detail: 'page size too large' })));
    const requests: RequestEvent[] = [];
    client = suite.client(server.origin, {
      memory: new QueryMemory(undefined, TEACH_AT_ONCE),
      observer: { onRequest: (i) => requests.push(i) },
    });
    const part = await client.fetchChannels(ACME);
    expect(part.state === 'complete' && part.value).toHaveLength(60);
    const sizes = server.received.map((r) => new URL(r.url, 'http://x').searchParams.get('per_page'));
    expect(sizes.slice(0, 4)).toEqual(['100', '50', '25', '12']);
    // Every request the server saw, the refused ones included, was granted by the budget.
    expect(client.budget.stats().usedLastMinute).toBe(server.received.length);
    expect(requests).toHaveLength(server.received.length);
    expect(requests.filter((r) => r.status === 400)).toHaveLength(3);
  });

  it('charges every rung of a ladder that ends refused', async () => {
    server = await suite.serve((_req, res) => json(res, 422, { detail: 'no' }));
    client = suite.client(server.origin);
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    expect(server.received.length).toBeGreaterThan(1);
    expect(server.received.length).toBeLessThanOrEqual(1 + MAX_ADAPTATIONS);
    expect(client.budget.stats().usedLastMinute).toBe(server.received.length);
  });

  it('waits for the budget between tries instead of bursting past it', async () => {
    server = await suite.serve((_req, res) => json(res, 400, { detail: 'no' }));
    // 2 per 300 ms stands in for a minute's budget, to keep the test short.
    client = suite.client(server.origin, {
      budgetPerMinute: 2,
      budgetTuning: { windowMs: 300 },
    });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    const arrivals = server.received.map((r) => r.at);
    expect(arrivals.length).toBeGreaterThanOrEqual(3);
    expect(maxInWindow(arrivals, 300)).toBeLessThanOrEqual(2);
    expect(arrivals[2]! - arrivals[0]!).toBeGreaterThanOrEqual(300);
  });
});

describe('credentials refused are never adapted to', () => {
  it.each([401, 403])(
    'a %i naming a maximum page size: one request, no smaller size tried',
    async (status) => {
      server = await suite.serve(
        capped(50, (res) =>
          json(res, status, {
            type: 'about:blank',
            title: 'Forbidden',
            detail: 'per_page must be at most 50',
          }),
        ),
      );
      const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
      client = suite.client(server.origin, { memory });
      const part = await client.fetchChannels(ACME);
      expect(part.state).toBe('failed');
      expect(part.state === 'failed' && part.error).toMatchObject({
        reason: 'auth',
        message: expect.stringContaining(String(status)),
      });
      expect(server.received.map((r) => r.url)).toEqual(['/v1/acme/channels?per_page=100']);
      expect(known(memory, 'acme', 'channels')).toBeUndefined();
    },
  );

  it('a 403 to the session list drops no filter and changes no time format', async () => {
    server = await suite.serve((_req, res) => {
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end("unknown parameter: from; invalid date format for 'to'");
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('failed');
    expect(server.received).toHaveLength(1);
    expect(known(memory, 'acme', 'sessions')).toBeUndefined();
  });

  it('after a 403 the next read asks the same query again, not a safer one', async () => {
    let forbidden = true;
    server = await suite.serve((req, res) => {
      if (forbidden) return json(res, 403, { detail: 'per_page must be at most 50' });
      capped(1000, () => {})(req, res);
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    forbidden = false;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(server.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100',
    ]);
    expect(known(memory, 'acme', 'channels')).toBeUndefined();
  });
});

describe('what a read learned is kept, whether it was answered or not', () => {
  /** Channels; any page size above `max` is refused with words that name nothing. */
  const quiet = (max: number) => capped(max, (res) => json(res, 400, { detail: 'bad request' }));
  const sizes = (from: number) =>
    server!.received.slice(from).map((r) => new URL(r.url, 'http://x').searchParams.get('per_page'));

  it('a read that runs out of safer queries leaves the next one to go on from where it stopped', async () => {
    // Halving from 10 000 000 down to a size the server takes takes more tries than one read has.
    server = await suite.serve(quiet(20));
    const saved: Record<string, Learned>[] = [];
    const memory = new QueryMemory((all) => saved.push(all), TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory, shape: { perPage: 10_000_000 } });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    expect(server.received).toHaveLength(1 + MAX_ADAPTATIONS);
    // What it got to is remembered, marked as not answered yet, and saved.
    const after = memory.get('acme', 'channels');
    expect(untimed({ x: after })).toEqual({ x: { perPage: 1220, refused: true } });
    expect(saved.at(-1)?.['acme channels']).toEqual(after);
    // The next read starts there, not at 10 000 000, and goes on down — after a restart too,
    // from what was saved.
    await client.close();
    const memory2 = new QueryMemory(undefined, TEACH_AT_ONCE);
    memory2.load(JSON.parse(JSON.stringify(saved.at(-1))));
    client = suite.client(server.origin, {
      memory: memory2,
      shape: { perPage: 10_000_000 },
    });
    const before = server.received.length;
    const part = await client.fetchChannels(ACME);
    expect(part.state === 'complete' && part.value).toHaveLength(60);
    expect(sizes(before).slice(0, 7)).toEqual(['1220', '610', '305', '152', '76', '38', '19']);
    expect(known(memory2, 'acme', 'channels')).toEqual({ perPage: 19 });
    // And the one after asks for what worked at once.
    const again = server.received.length;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(sizes(again)[0]).toBe('19');
    expect(memory2.refusal('acme', 'channels')).toBeUndefined();
  });

  it('later reads of other channels start from what the first read learned: one request each', async () => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!url.searchParams.has('per_page')) return json(res, 200, []);
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request: unknown parameter per_page');
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    for (let i = 0; i < 7; i++) expect((await client.fetchSessions(ACME, `c${i}`)).state).toBe('complete');
    // And three empty lists once more without the window (the checks that the server reads
    // it, three an hour at most; client.ts, misreadsWindow).
    expect(server.received).toHaveLength(2 + 6 + 3);
    expect(server.received.filter((r) => !r.url.includes('from='))).toHaveLength(3);
    expect(known(memory, 'acme', 'sessions')).toEqual({ drop: ['per_page'] });
  });

  it('a read refused after another learned meanwhile takes up what that one learned, not the whole ladder', async () => {
    server = await suite.serve(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      // The first answer to channel c2 comes late: c1 has learned the page size meanwhile.
      if (url.pathname.includes('/c2/') && url.searchParams.get('per_page') === '100')
        await new Promise((r) => setTimeout(r, 300));
      quiet(12)(req, res);
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const parts = await Promise.all(['c1', 'c2'].map((c) => client!.fetchSessions(ACME, c)));
    expect(parts.every((p) => p.state === 'complete')).toBe(true);
    expect(known(memory, 'acme', 'sessions')).toEqual({ perPage: 12 });
    const firstPages = (c: string) =>
      server!.received
        .filter((r) => r.url.includes(`/${c}/`) && !new URL(r.url, 'http://x').searchParams.has('page'))
        .map((r) => new URL(r.url, 'http://x').searchParams.get('per_page'));
    expect(firstPages('c1')).toEqual(['100', '50', '25', '12']);
    expect(firstPages('c2')).toEqual(['100', '12']);
  });
});
