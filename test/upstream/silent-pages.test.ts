/**
 * A list that shows no paging at all (no next pointer, totals or "more" flag) may still
 * be a page the server cut short. tally asks for the page after it, by page number and
 * then by offset, and learns what it found (silent-pages.ts): a server that pages without
 * showing it is read page by page; a first page with fewer records than a list found
 * whole is whole; one with as many or more is asked after every time.
 */
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot } from '../../src/snapshot/model.js';
import { json, loopbackSuite } from './loopback.js';
import { ManualClock } from '../helpers/clock.js';

const ACME = { slug: 'acme', token: 'tok-silent-0001' };
const { serve, client, logs } = loopbackSuite();

type Rec = { id: string; status: string };
const channels = (n: number, from = 0): Rec[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${String(from + i).padStart(3, '0')}`, status: 'offline' }));

/**
 * A server that answers at most `cap` records per page and says nothing of paging:
 * `page` (from `base`) and `offset` as `by` allows, a page past the end `clamp`ed to the
 * last one or empty; anything else it ignores.
 */
function capped(
  list: () => Rec[],
  cap: number,
  by: { page?: boolean; offset?: boolean; base?: 0 | 1; clamp?: boolean },
) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const all = list();
    const base = by.base ?? 1;
    let from = 0;
    if (by.offset && q.has('offset')) from = Number(q.get('offset'));
    else if (by.page && q.has('page')) from = (Number(q.get('page')) - base) * cap;
    if (by.clamp && from >= all.length) from = Math.max(0, Math.floor((all.length - 1) / cap) * cap);
    json(res, 200, { data: all.slice(from, from + cap) });
  };
}

/** The page after the record `id`, asked by each parameter that takes the last record's id (keyset.ts). */
const afterId = (id: string) => [
  `?starting_after=${id}`,
  `?after=${id}`,
  `?after_id=${id}`,
  `?since_id=${id}`,
];
const ids = (part: { state: string; value?: { id: string }[] }) => part.value?.map((c) => c.id) ?? [];
const paths = (received: { url: string }[]) =>
  received.map((r) =>
    r.url.replace('/v1/acme/channels', '').replace('per_page=100&', '').replace('?per_page=100', ''),
  );

describe('a server that pages without showing it', () => {
  it('is read page by page by page number, and known from then on', async () => {
    const s = await serve(capped(() => channels(10), 4, { page: true }));
    const drift: DriftIssue[] = [];
    const memory = new QueryMemory();
    const c = client(s.origin, { memory, observer: { onDrift: (i) => drift.push(i) } });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toEqual(channels(10).map((x) => x.id));
    // Page 2 brought records, so page 1 once: the same records, pages count from 1.
    expect(paths(s.received)).toEqual(['', '?page=2', '?page=1', '?page=3']);
    expect(memory.get('acme', 'channels')).toEqual({
      pagedAs: 100,
      countsFrom1: true,
      silentPages: { by: 'page', size: 4 },
    });
    expect(drift).toEqual([
      expect.objectContaining({
        endpoint: 'channels',
        field: 'paging',
        problem: expect.stringContaining('a page of 4 records has more after it (asked for by page number)'),
        fatal: false,
      }),
    ]);
    s.received.length = 0;
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(10);
    expect(paths(s.received)).toEqual(['', '?page=2', '?page=3']);
  });

  it('counting pages from 0, every page is read, also of a list of three pages', async () => {
    const s = await serve(capped(() => channels(12), 4, { page: true, base: 0 }));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    // Read as found: page 2 (its third) before page 1.
    expect(ids(part as never).sort()).toEqual(channels(12).map((x) => x.id));
    expect(memory.get('acme', 'channels')).toEqual({
      pagedAs: 100,
      silentPages: { by: 'page', size: 4, base: 0 },
    });
    s.received.length = 0;
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(12);
    expect(paths(s.received)).toEqual(['', '?page=1', '?page=2', '?page=3']);
  });

  it('counting pages from 0, a list of two pages is read whole too', async () => {
    const s = await serve(capped(() => channels(6), 4, { page: true, base: 0 }));
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never).sort()).toEqual(channels(6).map((x) => x.id));
    // Page 2 (its third) empty, page 1 its second.
    expect(paths(s.received)).toEqual(['', '?page=2', '?page=1']);
    expect(memory.get('acme', 'channels')).toEqual({
      pagedAs: 100,
      silentPages: { by: 'page', size: 4, base: 0 },
    });
  });

  it('counting pages from 0 and answering its last page for any page past the end, a list of three full pages is read whole the first time', async () => {
    const s = await serve(capped(() => channels(12), 4, { page: true, base: 0, clamp: true }));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never).sort()).toEqual(channels(12).map((x) => x.id));
    expect(memory.get('acme', 'channels')).toEqual({
      pagedAs: 100,
      silentPages: { by: 'page', size: 4, base: 0 },
    });
    s.received.length = 0;
    const again = await c.fetchChannels(ACME);
    expect(again.state).toBe('complete');
    expect(ids(again as never)).toEqual(channels(12).map((x) => x.id));
    expect(paths(s.received)).toEqual(['', '?page=1', '?page=2', '?page=3']);
  });

  it('answering its last page for a page past the end, every list is read whole, counting from 0 or 1', async () => {
    const expected = (n: number) => channels(n).map((x) => x.id);
    for (const base of [0, 1] as const)
      for (const offset of [false, true]) {
        let n = 0;
        const s = await serve(capped(() => channels(n), 4, { page: true, offset, base, clamp: true }));
        // Each length read first by a client that knows nothing, then read again.
        for (n of [6, 8, 10, 12, 14, 16]) {
          const memory = new QueryMemory();
          const c = client(s.origin, { memory });
          for (const read of ['first', 'again']) {
            const part = await c.fetchChannels(ACME);
            expect([base, offset, n, read, part.state]).toEqual([base, offset, n, read, 'complete']);
            expect(ids(part as never).sort()).toEqual(expected(n));
          }
          expect(memory.get('acme', 'channels')?.silentPages).toEqual({
            by: 'page',
            size: 4,
            ...(base === 0 ? { base: 0 } : {}),
          });
        }
        // One client, as the list grows and shrinks: what the first reads learned holds.
        const c = client(s.origin, { memory: new QueryMemory() });
        for (n of [6, 12, 8, 16, 10, 12, 6]) {
          const part = await c.fetchChannels(ACME);
          expect([base, offset, n, part.state]).toEqual([base, offset, n, 'complete']);
          expect(ids(part as never).sort()).toEqual(expected(n));
        }
      }
  });

  it('a failed page 1 leaves a list known to be longer incomplete, and teaches nothing', async () => {
    let failed = false;
    const paged = capped(() => channels(12), 4, { page: true, base: 0 });
    const s = await serve((req, res) => {
      if (!failed && /[?&]page=1\b/.test(req.url ?? '')) {
        failed = true;
        return json(res, 503, { error: 'unavailable' });
      }
      paged(req, res);
    });
    const memory = new QueryMemory();
    const c = client(s.origin, {
      memory,
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    });
    expect((await c.fetchChannels(ACME)).state).toBe('incomplete');
    expect(memory.get('acme', 'channels')).toBeUndefined();
    const again = await c.fetchChannels(ACME);
    expect(again.state).toBe('complete');
    expect(ids(again as never)).toHaveLength(12);
  });

  it('a record added while page 1 is asked for does not pass for pages counted from 0', async () => {
    let list = channels(10);
    const paged = capped(() => list, 4, { page: true });
    const s = await serve((req, res) => {
      if (/[?&]page=1\b/.test(req.url ?? '')) list = [...channels(1, 900), ...channels(10)];
      paged(req, res);
    });
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    await c.fetchChannels(ACME);
    expect(memory.get('acme', 'channels')?.silentPages).toEqual({ by: 'page', size: 4 });
    const again = await c.fetchChannels(ACME);
    expect(again.state).toBe('complete');
    expect(ids(again as never)).toHaveLength(11);
  });

  it('counting pages from 0 with a list of one page, an empty page 1 is not taken for counting from 1', async () => {
    let n = 4;
    const s = await serve(capped(() => channels(n), 4, { page: true, base: 0 }));
    const memory = new QueryMemory();
    const clock = new ManualClock();
    const c = client(s.origin, { memory, clock });
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(4);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 4 });
    n = 6;
    clock.time += 11 * 60_000;
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(6);
  });

  it('a server that pages only when asked to (a next link then) reads whole, as before', async () => {
    const all = channels(250);
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      if (!q.has('page')) return json(res, 200, { data: all });
      const page = Number(q.get('page'));
      const next = `<http://x/v1/acme/channels?page=${page + 1}>; rel="next"`;
      json(res, 200, { data: all.slice((page - 1) * 100, page * 100) }, { link: next });
    });
    const c = client(s.origin, { memory: new QueryMemory() });
    for (let i = 0; i < 2; i++) {
      const part = await c.fetchChannels(ACME);
      expect(part.state).toBe('complete');
      expect(ids(part as never)).toHaveLength(250);
    }
  });

  it('a read stopped by max_pages leaves the next one free to find out', async () => {
    const s = await serve(capped(() => channels(10), 4, { page: true }));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory, maxPages: 2 });
    expect((await c.fetchChannels(ACME)).state).toBe('incomplete');
    s.received.length = 0;
    expect((await c.fetchChannels(ACME)).state).toBe('incomplete');
    expect(paths(s.received)).toContain('?page=2');
  });

  it('is read by offset when the server ignores the page number', async () => {
    const s = await serve(capped(() => channels(10), 4, { offset: true }));
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toEqual(channels(10).map((x) => x.id));
    expect(paths(s.received)).toEqual(['', '?page=2', '?offset=4', '?offset=8']);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, silentPages: { by: 'offset', size: 4 } });
  });

  it('a full page without paging signs is read on too, and its doubt dropped once the rest is read', async () => {
    const s = await serve(capped(() => channels(150), 100, { page: true }));
    const from = logs.text().length;
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(150);
    expect(logs.text().slice(from)).not.toContain('list may be longer than read');
  });

  it('what was learned under one page size does not hold for another', async () => {
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const size = Number(q.get('per_page') ?? '100');
      const page = Number(q.get('page') ?? '1');
      json(res, 200, { data: channels(40).slice((page - 1) * size, page * size) });
    });
    const memory = new QueryMemory();
    expect(ids((await client(s.origin, { memory }).fetchChannels(ACME)) as never)).toHaveLength(40);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 40, countsFrom1: true });
    const small = client(s.origin, { memory, shape: { perPage: 20 } });
    const part = await small.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(40);
  });
});

describe('a list found whole', () => {
  it('when the page after it is empty: fewer records later are whole at once; as many or more are asked after', async () => {
    let n = 3;
    const s = await serve(capped(() => channels(n), 4, { page: true }));
    const memory = new QueryMemory();
    const clock = new ManualClock();
    const c = client(s.origin, { memory, clock });
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(3);
    // Page 2 empty, page 1 the first page again: pages count from 1, the list was whole.
    expect(paths(s.received)).toEqual(['', '?page=2', '?page=1']);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 3, countsFrom1: true });
    const asked = async () => {
      s.received.length = 0;
      const part = await c.fetchChannels(ACME);
      expect(part.state).toBe('complete');
      return paths(s.received);
    };
    n = 2;
    expect(await asked()).toEqual(['']);
    // As many as the most found whole, the same records as last time: asked after only
    // every 10 minutes.
    n = 3;
    expect(await asked()).toEqual(['']);
    expect(await asked()).toEqual(['']);
    clock.time += 11 * 60_000;
    expect(await asked()).toEqual(['', '?page=2']);
    n = 6;
    expect(await asked()).toEqual(['', '?page=2']);
    expect(memory.get('acme', 'channels')).toEqual({
      pagedAs: 100,
      countsFrom1: true,
      silentPages: { by: 'page', size: 4 },
    });
  });

  it('a list exactly at the cut that grows at its head is read whole at once: no channel is taken for removed', async () => {
    let list = channels(3);
    const s = await serve(capped(() => list, 3, { page: true }));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    const first = await c.fetchChannels(ACME);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 3, countsFrom1: true });
    // A channel added at the head: the first page now holds c003, c000, c001.
    list = [...channels(1, 3), ...channels(3)];
    const second = await c.fetchChannels(ACME);
    expect(second.state).toBe('complete');
    expect(ids(second as never).sort()).toEqual(['c000', 'c001', 'c002', 'c003']);
    const before = { ...emptySnapshot('acme', 1), channels: first };
    const after = { ...emptySnapshot('acme', 2), channels: second };
    const events = diff(before, after).map((e) => `${e.kind} ${e.entity.id}`);
    expect(events).toEqual(['channel.added c003']);
  });

  it('a list exactly at the cut that grows at its end: the same first page waits its turn, and no 304 hides it then', async () => {
    let list = channels(4).map((x) => ({ ...x, status: 'scheduled' }));
    const s = await serve((req, res) => {
      const etag = `"${list
        .slice(0, 4)
        .map((x) => x.id)
        .join(',')}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const from = (Number(q.get('page') ?? '1') - 1) * 4;
      json(res, 200, { data: list.slice(from, from + 4) }, { etag });
    });
    const clock = new ManualClock();
    const c = client(s.origin, { memory: new QueryMemory(), clock });
    const read = async () => ids((await c.fetchSessions(ACME, 'ch-1')) as never);
    const pages = () => s.received.map((r) => new URL(r.url, 'http://x').searchParams.get('page'));
    expect(await read()).toHaveLength(4);
    list = [...list, { id: 'c999', status: 'scheduled' }];
    // Within 10 minutes: the same first page, taken as the list (nothing removed), and
    // then its copy stands for a 304 …
    expect(await read()).toHaveLength(4);
    expect(await read()).toHaveLength(4);
    expect(s.received.at(-1)?.headers['if-none-match']).toBeDefined();
    // … then it is asked for plainly, and after.
    clock.time += 11 * 60_000;
    s.received.length = 0;
    expect(await read()).toHaveLength(5);
    expect(s.received[0]?.headers['if-none-match']).toBeUndefined();
    expect(pages()).toEqual([null, '2']);
  });

  it('every list at the longest found whole gets its turn: each is asked after every 10 minutes', async () => {
    const lists: Record<string, Rec[]> = {
      a: channels(4, 100),
      b: channels(4, 200),
      c: channels(4, 300),
    };
    const s = await serve((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const ch = u.pathname.split('/').at(-2) ?? '';
      const page = Number(u.searchParams.get('page') ?? '1');
      json(res, 200, { data: (lists[ch] ?? []).slice((page - 1) * 4, page * 4) });
    });
    const clock = new ManualClock();
    const c = client(s.origin, { memory: new QueryMemory(), clock });
    for (const ch of ['a', 'b', 'c']) await c.fetchSessions(ACME, ch);
    lists['c'] = [...lists['c']!, { id: 'c-new', status: 'scheduled' }];
    clock.time += 11 * 60_000;
    const counts: number[] = [];
    for (const ch of ['a', 'b', 'c']) counts.push(ids((await c.fetchSessions(ACME, ch)) as never).length);
    expect(counts).toEqual([4, 4, 5]);
  });

  it('a list of one page whose page 2 is refused or answered again teaches nothing of how longer lists page', async () => {
    // A server that refuses a page past the end, and any offset.
    const lists: Record<string, Rec[]> = { a: channels(3, 100), b: channels(10, 200) };
    const s = await serve((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const list = lists[u.pathname.split('/').at(-2) ?? ''] ?? [];
      const page = Number(u.searchParams.get('page') ?? '1');
      if (u.searchParams.has('offset') || (page - 1) * 4 >= list.length)
        return json(res, 400, { error: 'out of range' });
      json(res, 200, { data: list.slice((page - 1) * 4, page * 4) });
    });
    const c = client(s.origin, { memory: new QueryMemory() });
    expect(ids((await c.fetchSessions(ACME, 'a')) as never)).toHaveLength(3);
    const b = await c.fetchSessions(ACME, 'b');
    expect(b.state).toBe('complete');
    expect(ids(b as never)).toHaveLength(10);
  });

  it('a first page short once (the page after holds more) teaches nothing, and the list reads whole next time', async () => {
    let short = true;
    const s = await serve((req, res) => {
      const all = channels(8);
      const first = !/[?&](page|offset)=/.test(req.url ?? '');
      if (first && short) {
        short = false;
        return json(res, 200, { data: all.slice(0, 4) });
      }
      json(res, 200, { data: all });
    });
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect((await c.fetchChannels(ACME)).state).toBe('incomplete');
    expect(memory.get('acme', 'channels')?.silentPages).toBeUndefined();
    const again = await c.fetchChannels(ACME);
    expect(again.state).toBe('complete');
    expect(ids(again as never)).toHaveLength(8);
  });

  it('a known silent pager that answers page 1 again for page 2 is found out afresh', async () => {
    let paging = true;
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const all = channels(8);
      json(res, 200, { data: paging ? all.slice((page - 1) * 4, page * 4) : all.slice(0, 4) });
    });
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(8);
    expect(memory.get('acme', 'channels')?.silentPages).toBeDefined();
    paging = false;
    await c.fetchChannels(ACME);
    expect(memory.get('acme', 'channels')?.silentPages).toBeUndefined();
  });

  it('when the server answers its last page again for a page past it, and grows past a page later', async () => {
    let n = 3;
    const s = await serve(capped(() => channels(n), 4, { page: true, offset: true, clamp: true }));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect(ids((await c.fetchChannels(ACME)) as never)).toHaveLength(3);
    // Page 2, offset 3 and the page after the last id answer the last page again: the list is whole.
    expect(paths(s.received)).toEqual(['', '?page=2', '?offset=3', ...afterId('c002')]);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 3 });
    n = 10;
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(10);
  });

  it('when the page after it is refused (400 by number and by offset) or missing (404)', async () => {
    let n = 5;
    const refusing = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const from = q.has('offset') ? Number(q.get('offset')) : 0;
      if (q.has('page') || from >= n) return json(res, 400, { error: 'out of range' });
      json(res, 200, { data: channels(n).slice(from, from + 5) });
    });
    const memory = new QueryMemory();
    const clock = new ManualClock();
    const c = client(refusing.origin, { memory, clock });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(5);
    // Both refused, in words naming no parameter after the last id: none is asked.
    expect(paths(refusing.received)).toEqual(['', '?page=2', '?offset=5']);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 5 });
    // The list grows at its end: once due, asked after by offset, read on, whole at a short page.
    n = 8;
    clock.time += 11 * 60_000;
    refusing.received.length = 0;
    const grown = await c.fetchChannels(ACME);
    expect(grown.state).toBe('complete');
    expect(ids(grown as never)).toHaveLength(8);
    // Page 2 first: a refusal of it on a list of one page says nothing of the server.
    expect(paths(refusing.received)).toEqual(['', '?page=2', '?offset=5']);
    // A refusal after a full page cannot be told from a limit on how deep one may read:
    // a list of exactly two pages reads as incomplete.
    n = 10;
    clock.time += 11 * 60_000;
    expect((await c.fetchChannels(ACME)).state).toBe('incomplete');

    const ending = await serve((req, res) => {
      if (/[?&]page=/.test(req.url ?? '')) return json(res, 404, { error: 'no such page' });
      json(res, 200, { data: channels(5) });
    });
    const m2 = new QueryMemory();
    expect((await client(ending.origin, { memory: m2 }).fetchChannels(ACME)).state).toBe('complete');
    // A 404 for page 2, and for page 1 (asked for in case pages count from 0).
    expect(paths(ending.received)).toEqual(['', '?page=2', '?page=1']);
    expect(m2.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 5 });
  });
});

describe('a server that does not page', () => {
  it('answers the same records for any page or offset: whole, asked after again only at the longest', async () => {
    let n = 10;
    const s = await serve(capped(() => channels(n), 100, {}));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(10);
    expect(paths(s.received)).toEqual(['', '?page=2', '?offset=10', ...afterId('c009')]);
    expect(memory.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 10 });
    // As long as the longest found whole, the same records: one request.
    s.received.length = 0;
    await c.fetchChannels(ACME);
    expect(paths(s.received)).toEqual(['']);
    // Shorter: one request.
    n = 9;
    s.received.length = 0;
    await c.fetchChannels(ACME);
    expect(paths(s.received)).toEqual(['']);
    const again = new QueryMemory();
    again.load(JSON.parse(JSON.stringify(memory.toJSON())));
    expect(again.get('acme', 'channels')).toEqual({ pagedAs: 100, wholeUpTo: 10 });
  });

  it('a full page from it keeps its doubt', async () => {
    const s = await serve(capped(() => channels(150), 100, {}));
    const from = logs.text().length;
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(100);
    expect(logs.text().slice(from)).toContain('list may be longer than read');
  });

  it('a list of one record is not asked after', async () => {
    const s = await serve(capped(() => channels(1), 100, {}));
    await client(s.origin).fetchChannels(ACME);
    expect(s.received).toHaveLength(1);
  });
});

describe('what never makes a cut list complete, nor costs without end', () => {
  it('a page asked for that repeats the first page among new records ends the list as incomplete', async () => {
    // The server ignores the page number; a record is added at the head between requests.
    let list = channels(10);
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      if (q.has('page')) list = [...channels(1, 900), ...channels(10)];
      const from = q.has('offset') ? Number(q.get('offset')) : 0;
      json(res, 200, { data: list.slice(from, from + 4) });
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('incomplete');
  });

  it('records without an id, or two records under one id, on a page asked for make the list incomplete', async () => {
    const noId = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const all: object[] = [...channels(5), { status: 'offline', name: 'no id' }];
      json(res, 200, { data: all.slice((page - 1) * 4, page * 4) });
    });
    expect((await client(noId.origin).fetchChannels(ACME)).state).toBe('incomplete');
    const twice = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const all = [...channels(4), { id: 'c001', status: 'live' }, ...channels(2, 4)];
      json(res, 200, { data: all.slice((page - 1) * 4, page * 4) });
    });
    expect((await client(twice.origin).fetchChannels(ACME)).state).toBe('incomplete');
  });

  it('a page past the end that shows only links back (prev, first, last) ends a whole list', async () => {
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      if (page === 1) return json(res, 200, channels(3));
      json(res, 200, [], {
        link: '<https://x/v1/acme/channels?page=1>; rel="first", <https://x/v1/acme/channels?page=1>; rel="prev"',
      });
    });
    const c = client(s.origin, { memory: new QueryMemory() });
    for (let i = 0; i < 2; i++) expect((await c.fetchChannels(ACME)).state).toBe('complete');
  });

  it('a page asked for whose records have no ids makes the list incomplete', async () => {
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, { data: page === 1 ? channels(4) : [{ name: 'x1' }, { name: 'x2' }] });
    });
    expect((await client(s.origin).fetchChannels(ACME)).state).toBe('incomplete');
  });

  it('a page asked for that shows paging after all ends the list as incomplete', async () => {
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      if (page === 1) return json(res, 200, { data: channels(4) });
      json(res, 200, { data: channels(3, 4), has_more: true, total: 12 });
    });
    expect((await client(s.origin).fetchChannels(ACME)).state).toBe('incomplete');
  });

  it('a page asked for that fails otherwise: the first page stands as before, and no read asks again for a while', async () => {
    const s = await serve((req, res) => {
      if (/[?&](page|offset)=/.test(req.url ?? '')) return json(res, 503, { error: 'unavailable' });
      json(res, 200, { data: channels(5) });
    });
    const clock = new ManualClock();
    const memory = new QueryMemory();
    const c = client(s.origin, {
      memory,
      clock,
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    });
    const part = await c.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toHaveLength(5);
    expect(memory.get('acme', 'channels')).toBeUndefined();
    s.received.length = 0;
    clock.time += 5 * 60_000;
    await c.fetchChannels(ACME);
    expect(paths(s.received)).toEqual(['']);
    clock.time += 6 * 60_000;
    s.received.length = 0;
    await c.fetchChannels(ACME);
    expect(paths(s.received)).toEqual(['', '?page=2']);
  });

  it.each([
    ['page 1, asked after page 2 brought records', 10, '1', undefined],
    ['page 2 of a list grown past the most found whole', 6, '2', 3],
    ['page 2 of a list as long as the most found whole', 5, '2', 4],
  ] as const)(
    '%s: one 503 is retried, and the list is read whole',
    async (_what, n, flakyPage, wholeUpTo) => {
      let failed = false;
      const list = channels(n);
      const s = await serve((req, res) => {
        const q = new URL(req.url ?? '/', 'http://x').searchParams;
        if (q.get('page') === flakyPage && !failed) {
          failed = true;
          return json(res, 503, { error: 'unavailable' });
        }
        const page = q.has('page') ? Number(q.get('page')) : 1;
        json(res, 200, { data: list.slice((page - 1) * 4, page * 4) });
      });
      const memory = new QueryMemory();
      if (wholeUpTo !== undefined) memory.set('acme', 'channels', { pagedAs: 100, wholeUpTo });
      const retries = { attempts: 3, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 2000 };
      const part = await client(s.origin, { memory, retries }).fetchChannels(ACME);
      expect(failed).toBe(true);
      expect(part.state).toBe('complete');
      expect(ids(part as never)).toHaveLength(n);
    },
  );

  it('reads at once of a list nothing is known of: one finds out, the others wait and stand as before', async () => {
    const s = await serve(capped(() => channels(3), 100, {}));
    const c = client(s.origin, { memory: new QueryMemory() });
    const parts = await Promise.all(Array.from({ length: 10 }, (_, i) => c.fetchSessions(ACME, `ch-${i}`)));
    expect(parts.map((p) => p.state)).toEqual(Array(10).fill('complete'));
    // Page 2, offset 3, and four parameters after the last id, once.
    const probes = s.received.filter((r) =>
      /[?&](page|offset|starting_after|after|after_id|since_id)=/.test(r.url),
    );
    expect(probes).toHaveLength(6);
    expect(s.received).toHaveLength(16);
  });

  it('what another read learns of the paging meanwhile is kept by a read adapting its query, at no extra request', async () => {
    // The refusal teaches at once here (query/evidence.ts): what it teaches is under test.
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    const s = await serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      if (q.has('from')) {
        // Another read of the endpoint learns meanwhile that the server cuts pages at 2.
        memory.set('acme', 'sessions', { pagedAs: 100, silentPages: { by: 'page', size: 2 } });
        return json(res, 400, { detail: 'unknown parameter: from' });
      }
      json(res, 200, { data: [{ id: 's1', status: 'scheduled' }] });
    });
    const part = await client(s.origin, { memory }).fetchSessions(ACME, 'ch-1');
    expect(part.state).toBe('complete');
    expect(s.received).toHaveLength(2);
    expect(memory.get('acme', 'sessions')).toMatchObject({
      drop: ['from'],
      pagedAs: 100,
      silentPages: { by: 'page', size: 2 },
    });
  });

  it('a read of one page only (max_pages 1) never asks after it', async () => {
    const s = await serve(capped(() => channels(10), 4, { page: true }));
    const part = await client(s.origin, { maxPages: 1 }).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(s.received).toHaveLength(1);
  });

  it('is never asked after when the config says the list has no paging, nor when it is empty', async () => {
    const s = await serve(capped(() => channels(10), 4, { page: true }));
    expect((await client(s.origin, { shape: { paging: 'none' } }).fetchChannels(ACME)).state).toBe(
      'complete',
    );
    expect(s.received).toHaveLength(1);
    const empty = await serve(capped(() => [], 4, { page: true }));
    expect((await client(empty.origin).fetchChannels(ACME)).state).toBe('complete');
    expect(empty.received).toHaveLength(1);
  });
});
