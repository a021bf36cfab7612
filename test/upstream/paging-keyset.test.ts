/**
 * A page that says "more" and gives no pointer (src/upstream/lists/keyset.ts): asked after
 * the last record's id, the way that works learned and remembered, relearned when it stops
 * working, and a list whose next page no way reaches asked again only after a wait.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { CLOCK_START, ManualClock } from '../helpers/clock.js';
import { json, loopbackSuite } from './loopback.js';

const ORG = { slug: 'acme', token: 'tok-keyset-5c1e' };
const { serve, client } = loopbackSuite({ secret: ORG.token });

const CHANNELS = Array.from({ length: 25 }, (_, i) => ({
  id: `ch_${String(i + 1).padStart(2, '0')}`,
  object: 'channel',
  name: `Channel ${i + 1}`,
  status: 'idle',
  visibility: 'public',
}));
const ids = (part: { state: string; value?: { id: string }[] }) => part.value?.map((c) => c.id) ?? [];
const query = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://x').searchParams;

/**
 * A list as Stripe documents it (https://docs.stripe.com/api/pagination): `{ object: "list",
 * url, has_more, data }`, `limit` (default 10) and `starting_after=<id>`, and a 400 naming any
 * other parameter (`parameter_unknown`, https://docs.stripe.com/error-codes).
 */
function stripe(accepts: () => string = () => 'starting_after') {
  return (req: IncomingMessage, res: ServerResponse) => {
    const q = query(req);
    const after = accepts();
    for (const k of q.keys()) {
      if (k === 'limit' || k === after) continue;
      return json(res, 400, {
        error: {
          code: 'parameter_unknown',
          message: `Received unknown parameter: ${k}`,
          param: k,
          type: 'invalid_request_error',
        },
      });
    }
    const limit = Number(q.get('limit') ?? 10);
    const from = q.has(after) ? CHANNELS.findIndex((c) => c.id === q.get(after)) + 1 : 0;
    const data = CHANNELS.slice(from, from + limit);
    json(res, 200, { object: 'list', url: '/v1/channels', has_more: from + limit < CHANNELS.length, data });
  };
}

/** A server that ignores what it does not know and pages after the id given under `param()`. */
function lenient(param: () => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const q = query(req);
    const p = param();
    const from = q.has(p) ? CHANNELS.findIndex((c) => c.id === q.get(p)) + 1 : 0;
    json(res, 200, { data: CHANNELS.slice(from, from + 10), has_more: from + 10 < CHANNELS.length });
  };
}

function observed(): { drift: DriftIssue[]; observer: { onDrift: (i: DriftIssue) => void } } {
  const drift: DriftIssue[] = [];
  return { drift, observer: { onDrift: (i) => drift.push(i) } };
}

describe('keyset paging: "more" and no pointer', () => {
  it('a Stripe list that refuses page=: asks starting_after=<last id>, never page=, and remembers it', async () => {
    const s = await serve(stripe());
    // The refused per_page teaches at once here (query/evidence.ts); the way after the
    // last record is learned from one read either way (below).
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    const c = client(s.origin, { memory });
    const part = await c.fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(CHANNELS.map((ch) => ch.id));
    expect(s.received.map((r) => r.url)).toEqual([
      // Stripe's page size is `limit`: tally's `per_page` is refused and left out (adapt.ts).
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels',
      '/v1/acme/channels?starting_after=ch_10',
      '/v1/acme/channels?starting_after=ch_20',
    ]);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('starting_after');

    // The next read goes straight to it.
    const before = s.received.length;
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    expect(s.received.slice(before).map((r) => r.url)).toEqual([
      '/v1/acme/channels',
      '/v1/acme/channels?starting_after=ch_10',
      '/v1/acme/channels?starting_after=ch_20',
    ]);
  });

  it('a refused per_page that does not teach yet is left out until it is asked again, not learned; the way after the last record is kept', async () => {
    const s = await serve(stripe());
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    // One refusal is a burst, not a lesson (query/evidence.ts): nothing of the query is kept.
    expect(memory.get('acme', 'channels')).toEqual({ moreBy: 'starting_after' });
    const before = s.received.length;
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    // The next read, within the minute before the refused query is asked again, starts
    // where the refused one was answered: one request for its first page, not two.
    expect(s.received.slice(before).map((r) => r.url)).toEqual([
      '/v1/acme/channels',
      '/v1/acme/channels?starting_after=ch_10',
      '/v1/acme/channels?starting_after=ch_20',
    ]);
    expect(memory.get('acme', 'channels')?.drop).toBeUndefined();
  });

  it('remembers the way across a restart (the memory is what the state directory keeps)', async () => {
    const s = await serve(stripe());
    const memory = new QueryMemory();
    memory.load({ 'acme channels': { drop: ['per_page'], moreBy: 'starting_after' } });
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels',
      '/v1/acme/channels?starting_after=ch_10',
      '/v1/acme/channels?starting_after=ch_20',
    ]);
  });

  it('a server ignoring starting_after (the first page again) is asked by after, which is learned', async () => {
    const s = await serve(lenient(() => 'after'));
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(25);
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100&starting_after=ch_10',
      '/v1/acme/channels?per_page=100&after=ch_10',
      '/v1/acme/channels?per_page=100&after=ch_20',
    ]);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('after');
  });

  it('relearns when the way learned stops working', async () => {
    let param = 'after';
    const s = await serve(lenient(() => param));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    param = 'starting_after';
    const before = s.received.length;
    const part = await c.fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(25);
    expect(s.received.slice(before).map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100&after=ch_10',
      '/v1/acme/channels?per_page=100&starting_after=ch_10',
      '/v1/acme/channels?per_page=100&starting_after=ch_20',
    ]);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('starting_after');
  });

  it('a refusal naming the parameter it takes is believed first', async () => {
    const s = await serve((req, res) => {
      const q = query(req);
      const bad = [...q.keys()].find((k) => k !== 'per_page' && k !== 'start_after');
      if (bad !== undefined)
        return json(res, 400, { detail: `unknown query parameter ${bad}; allowed: per_page, start_after` });
      const from = q.has('start_after') ? CHANNELS.findIndex((c) => c.id === q.get('start_after')) + 1 : 0;
      json(res, 200, { items: CHANNELS.slice(from, from + 10), hasMore: from + 10 < CHANNELS.length });
    });
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100&starting_after=ch_10',
      '/v1/acme/channels?per_page=100&start_after=ch_10',
      '/v1/acme/channels?per_page=100&start_after=ch_20',
    ]);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('start_after');
  });
});

describe('servers that misread a way', () => {
  it('an empty answer to a way not yet known to work (an unknown parameter read as a filter) is not the end', async () => {
    const s = await serve((req, res) => {
      const q = query(req);
      // Every parameter but the page size and `after` filters records by a field of that name.
      for (const k of q.keys())
        if (k !== 'per_page' && k !== 'after') return json(res, 200, { data: [], has_more: false });
      const from = q.has('after') ? CHANNELS.findIndex((c) => c.id === q.get('after')) + 1 : 0;
      json(res, 200, { data: CHANNELS.slice(from, from + 10), has_more: from + 10 < CHANNELS.length });
    });
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(25);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('after');
  });

  it('an empty last page by the way learned ends the list (a record removed between pages)', async () => {
    const memory = new QueryMemory();
    memory.load({ 'acme channels': { drop: ['per_page'], moreBy: 'starting_after' } });
    // 20 records, and the page before the last says more: the page after ch_20 is empty.
    const s = await serve((req, res) => {
      const q = query(req);
      const from = q.has('starting_after')
        ? CHANNELS.findIndex((c) => c.id === q.get('starting_after')) + 1
        : 0;
      json(res, 200, {
        object: 'list',
        has_more: from < 20,
        data: CHANNELS.slice(0, 20).slice(from, from + 10),
      });
    });
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(20);
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels',
      '/v1/acme/channels?starting_after=ch_10',
      '/v1/acme/channels?starting_after=ch_20',
    ]);
  });
});

describe('a page number refused', () => {
  /** Totals and page numbers in the body, but the page asked for only by `offset`. */
  const byOffsetOnly = (offsetToo: boolean) => (req: IncomingMessage, res: ServerResponse) => {
    const q = query(req);
    if (q.has('page') || (q.has('offset') && !offsetToo))
      return json(res, 400, { message: `unknown parameter: ${q.has('page') ? 'page' : 'offset'}` });
    const from = Number(q.get('offset') ?? 0);
    json(res, 200, { data: CHANNELS.slice(from, from + 10), page: 1 + from / 10, total_pages: 3 });
  };

  it('is asked by offset instead, and the list is whole', async () => {
    const s = await serve(byOffsetOnly(true));
    const part = await client(s.origin).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(25);
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100&page=2',
      '/v1/acme/channels?per_page=100&offset=10',
      '/v1/acme/channels?per_page=100&offset=20',
    ]);
  });

  it('by offset too: incomplete, and page 2 is not asked again before the wait is over', async () => {
    const s = await serve(byOffsetOnly(false));
    const clock = new ManualClock();
    const c = client(s.origin, { clock });
    const part = await c.fetchChannels(ORG);
    expect(part.state === 'incomplete' && part.error.message).toMatch(
      /refused or ignored every way of asking for the next page \(page, offset\); asked again from 2026-11-01T12:05:00/,
    );
    const first = s.received.length;
    clock.time = CLOCK_START + 60_000;
    expect((await c.fetchChannels(ORG)).state).toBe('incomplete');
    expect(s.received.length - first).toBe(1);
  });
});

describe('a next page no way reaches', () => {
  it('an id parameter answered 404 is a way that did not work, not the end of the read', async () => {
    const s = await serve((req, res) => {
      const q = query(req);
      if (q.has('starting_after')) return json(res, 404, { message: 'no such object' });
      const from = q.has('after') ? CHANNELS.findIndex((c) => c.id === q.get('after')) + 1 : 0;
      json(res, 200, { data: CHANNELS.slice(from, from + 10), has_more: from + 10 < CHANNELS.length });
    });
    const memory = new QueryMemory();
    const part = await client(s.origin, { memory }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(25);
    expect(memory.get('acme', 'channels')?.moreBy).toBe('after');
  });

  /** "More" on every first page, and a 400 for any parameter but the page size. */
  const refusing = (req: IncomingMessage, res: ServerResponse) => {
    const bad = [...query(req).keys()].find((k) => k !== 'per_page');
    if (bad !== undefined) return json(res, 400, { message: `unknown parameter: ${bad}` });
    json(res, 200, { data: CHANNELS.slice(0, 10), has_more: true });
  };

  it('tries each way once, then is incomplete with a drift naming the endpoint, and asks again only after a wait', async () => {
    const s = await serve(refusing);
    const clock = new ManualClock();
    const { drift, observer } = observed();
    const c = client(s.origin, { clock, observer });
    const part = await c.fetchChannels(ORG);
    expect(part.state).toBe('incomplete');
    expect(ids(part)).toHaveLength(10);
    expect(part.state === 'incomplete' && part.error).toMatchObject({
      reason: 'paging',
      message: expect.stringContaining(
        'the server refused or ignored every way of asking for the next page (starting_after, after, page, offset, after_id, since_id); asked again from 2026-11-01T12:05:00',
      ),
    });
    expect(drift).toEqual([expect.objectContaining({ endpoint: 'channels', field: 'paging', fatal: false })]);
    const first = s.received.length;
    expect(first).toBe(7);

    // A poll every 3 s for three minutes: the first page each time, never a refused request.
    for (let t = 3; t <= 180; t += 3) {
      clock.time = CLOCK_START + t * 1000;
      const again = await c.fetchChannels(ORG);
      expect(again.state).toBe('incomplete');
      expect(again.state === 'incomplete' && again.error.message).toMatch(
        /no way of asking for its next page worked \(starting_after, .*since_id\); asked again from 2026-11-01T12:05:00/,
      );
    }
    const refused = s.received.filter((r) => r.url !== '/v1/acme/channels?per_page=100');
    expect(refused).toHaveLength(6);
    // The drift holds while the list waits: one problem, heard on every read.
    expect(new Set(drift.map((d) => d.problem)).size).toBe(1);
    expect(drift).toHaveLength(61);
    expect(s.received.length).toBe(first + 60);

    // The wait over, one more try of every way; refused again, the wait doubles.
    clock.time = CLOCK_START + 300_000;
    expect((await c.fetchChannels(ORG)).state).toBe('incomplete');
    expect(s.received.filter((r) => r.url !== '/v1/acme/channels?per_page=100')).toHaveLength(12);
    clock.time = CLOCK_START + 300_000 + 599_000;
    const later = await c.fetchChannels(ORG);
    expect(later.state === 'incomplete' && later.error.message).toMatch(
      /asked again from 2026-11-01T12:15:00/,
    );
    expect(s.received.filter((r) => r.url !== '/v1/acme/channels?per_page=100')).toHaveLength(12);
  });
});
