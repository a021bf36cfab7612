import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-SECRET-88e1d0b3';
const ACME = { slug: 'acme', token: TOKEN };

const { logs, serve, client } = loopbackSuite({ secret: TOKEN });

const channel = (i: number) => ({
  id: `ch-${i}`,
  name: `Channel ${i}`,
  status: 'idle',
  visibility: 'public',
});
const CHANNELS = Array.from({ length: 7 }, (_, i) => channel(i + 1));
const ids = (part: { state: string; value?: { id: string }[] }) => part.value?.map((c) => c.id);

function pageOf(req: IncomingMessage): { page: number; perPage: number; url: URL } {
  const url = new URL(req.url ?? '/', 'http://x');
  return {
    page: Number(url.searchParams.get('page') ?? 1),
    perPage: Number(url.searchParams.get('per_page')),
    url,
  };
}

/** Channels paged 3 per page with a Link header whose next URL `nextLink` decides. */
function linkPaged(nextLink: (origin: string, page: number) => string | undefined) {
  return (origin: () => string) => (req: IncomingMessage, res: ServerResponse) => {
    const { page } = pageOf(req);
    const items = CHANNELS.slice((page - 1) * 3, page * 3);
    const next = page * 3 < CHANNELS.length ? nextLink(origin(), page) : undefined;
    json(res, 200, { data: items }, next ? { link: `<${next}>; rel="next"` } : {});
  };
}

describe('following pages', () => {
  it('follows Link headers to the last page, with the token on every page', async () => {
    let origin = '';
    const s = await serve(
      linkPaged((o, p) => `${o}/v1/acme/channels?page=${p + 1}&per_page=3`)(() => origin),
    );
    origin = s.origin;
    const part = await client(origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(CHANNELS.map((c) => c.id));
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=3',
      '/v1/acme/channels?page=2&per_page=3',
      '/v1/acme/channels?page=3&per_page=3',
    ]);
    expect(s.received.every((r) => r.headers['authorization'] === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('follows cursors in the body', async () => {
    const s = await serve((req, res) => {
      const cursor = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? 0);
      const items = CHANNELS.slice(cursor, cursor + 3);
      const next = cursor + 3 < CHANNELS.length ? String(cursor + 3) : null;
      json(res, 200, { channels: items, next_cursor: next, has_more: next !== null });
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(CHANNELS.map((c) => c.id));
    expect(s.received).toHaveLength(3);
  });

  it('follows page numbers with totals', async () => {
    const s = await serve((req, res) => {
      const { page } = pageOf(req);
      json(res, 200, {
        items: CHANNELS.slice((page - 1) * 3, page * 3),
        page,
        per_page: 3,
        total: CHANNELS.length,
        total_pages: 3,
      });
    });
    const part = await client(s.origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part)).toHaveLength(7);
  });
});

describe('incomplete lists', () => {
  it('refuses a next link to another origin: the other origin receives nothing', async () => {
    const other = await serve((_req, res) => json(res, 200, { data: CHANNELS.slice(3) }));
    let origin = '';
    const s = await serve(linkPaged(() => `${other.origin}/v1/acme/channels?page=2`)(() => origin));
    origin = s.origin;
    const part = await client(origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part).toMatchObject({
      state: 'incomplete',
      error: {
        reason: 'cross_origin',
        message: 'GET /v1/acme/channels?per_page=3: next page link points to another origin, refused',
      },
    });
    expect(ids(part)).toEqual(['ch-1', 'ch-2', 'ch-3']);
    expect(other.received).toEqual([]);
    expect(s.received).toHaveLength(1);
  });

  it('refuses a redirect to another origin: the other origin receives nothing', async () => {
    const other = await serve((_req, res) => json(res, 200, { data: CHANNELS }));
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: `${other.origin}/v1/acme/channels` });
      res.end();
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part).toMatchObject({
      state: 'failed',
      error: {
        reason: 'cross_origin',
        message: 'GET /v1/acme/channels?per_page=100: 302 redirect to another origin refused',
      },
    });
    expect(other.received.filter((r) => r.headers['authorization'] !== undefined)).toEqual([]);
    expect(other.received).toEqual([]);
    expect(s.received).toHaveLength(1); // not retried either
  });

  it('refuses a redirect from a later page to another origin, keeping the first page', async () => {
    const other = await serve((_req, res) => json(res, 200, { data: CHANNELS.slice(3) }));
    let origin = '';
    const s = await serve((req, res) => {
      const { page } = pageOf(req);
      if (page === 2) {
        res.writeHead(307, { location: `${other.origin}${req.url}` });
        res.end();
        return;
      }
      linkPaged((o, p) => `${o}/v1/acme/channels?page=${p + 1}`)(() => origin)(req, res);
    });
    origin = s.origin;
    const part = await client(origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'cross_origin' } });
    expect(ids(part)).toEqual(['ch-1', 'ch-2', 'ch-3']);
    expect(other.received).toEqual([]);
  });

  it('follows a same-origin redirect, but not endlessly', async () => {
    const s = await serve((req, res) => {
      if (req.url?.startsWith('/old/')) {
        res.writeHead(301, { location: req.url.replace('/old/', '/') });
        res.end();
      } else if (req.url?.startsWith('/loop')) {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else json(res, 200, { data: CHANNELS });
    });
    const ok = await client(`${s.origin}/old/`).fetchChannels(ACME);
    expect(ok.state).toBe('complete');
    expect(s.received.map((r) => r.url).slice(0, 2)).toEqual([
      '/old/v1/acme/channels?per_page=100',
      '/v1/acme/channels?per_page=100',
    ]);
    expect(s.received[1]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);

    const looping = await client(`${s.origin}/loop/`, {
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    }).fetchChannels(ACME);
    expect(looping).toMatchObject({
      state: 'failed',
      error: { reason: 'redirect', message: 'GET /loop: more than 3 redirects' },
    });
  });

  it('stops at a next link that points back to a page already read', async () => {
    let origin = '';
    const s = await serve(linkPaged((o) => `${o}/v1/acme/channels?per_page=3`)(() => origin));
    origin = s.origin;
    const part = await client(origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
    expect(part.state !== 'complete' && part.error.message).toContain('points back to a page already read');
    expect(s.received).toHaveLength(1);
  });

  it('stops after max_pages', async () => {
    let origin = '';
    const s = await serve(linkPaged((o, p) => `${o}/v1/acme/channels?page=${p + 1}`)(() => origin));
    origin = s.origin;
    const part = await client(origin, { maxPages: 2, shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
    expect(part.state !== 'complete' && part.error.message).toContain('more than max_pages (2) pages');
    expect(ids(part)).toHaveLength(6);
  });

  it('marks a list whose totals say more than was read as incomplete', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, { data: CHANNELS.slice(0, 3), total: 7, has_more: false }),
    );
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
    expect(part.state !== 'complete' && part.error.message).toContain('last page reached after 3 of 7 items');
  });

  it('keeps the pages read when a later page fails after retries', async () => {
    let origin = '';
    const s = await serve((req, res) => {
      if (pageOf(req).page === 3) return json(res, 500, { error: { code: 'internal', message: 'boom' } });
      linkPaged((o, p) => `${o}/v1/acme/channels?page=${p + 1}`)(() => origin)(req, res);
    });
    origin = s.origin;
    const part = await client(origin, { shape: { perPage: 3 } }).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'http_5xx' } });
    expect(ids(part)).toHaveLength(6);
    expect(s.received).toHaveLength(2 + 3);
  });

  it('fails a list whose first page is unreadable', async () => {
    const s = await serve((_req, res) => json(res, 200, { something: 'else' }));
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'schema' } });
  });
});

describe('normalization and drift', () => {
  it('makes a list with an unusable record incomplete, keeping the others', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, { data: [channel(1), { name: 'no id' }, channel(3)] }),
    );
    const drift: DriftIssue[] = [];
    const part = await client(s.origin, { observer: { onDrift: (i) => drift.push(i) } }).fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'schema' } });
    expect(ids(part)).toEqual(['ch-1', 'ch-3']);
    expect(drift).toEqual([
      expect.objectContaining({ org: 'acme', endpoint: 'channels', field: 'channel.id', fatal: true }),
    ]);
  });

  it('reports non-fatal drift to the observer on every read and logs it once', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, {
        data: [
          { ...channel(1), name: 42 },
          { ...channel(2), name: 43 },
        ],
      }),
    );
    const drift: DriftIssue[] = [];
    const c = client(s.origin, { observer: { onDrift: (i) => drift.push(i) } });
    const before = logs
      .text()
      .split('\n')
      .filter((l) => l.includes('"schema drift"')).length;
    const first = await c.fetchChannels(ACME);
    const second = await c.fetchChannels(ACME);
    expect(first.state).toBe('complete');
    expect(second.state).toBe('complete');
    expect(first.state === 'complete' && first.value[0]?.name).toBe('42');
    expect(drift.map((d) => d.field)).toEqual(['channel.name', 'channel.name']);
    const lines = logs
      .text()
      .split('\n')
      .filter((l) => l.includes('"schema drift"'));
    expect(lines.length - before).toBe(1);
    expect(lines.at(-1)).toContain('"field":"channel.name"');
  });
});

describe('session filters', () => {
  const window = { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 8) };
  const sessions = [
    { id: 's1', channel_id: 'ch-1', status: 'live', scheduled_at: '2026-01-02T10:00:00Z' },
    { id: 's2', channel_id: 'ch-1', status: 'ended', scheduled_at: '2026-01-02T08:00:00Z' },
  ];

  it.each([
    ['iso', 'from=2026-01-01T00%3A00%3A00.000Z&to=2026-01-08T00%3A00%3A00.000Z'],
    ['epoch_s', 'from=1767225600&to=1767830400'],
    ['epoch_ms', 'from=1767225600000&to=1767830400000'],
  ] as const)('sends the window in %s format', async (format, query) => {
    const s = await serve((_req, res) => json(res, 200, { sessions }));
    const c = client(s.origin, {
      filters: {
        status_param: 'status',
        from_param: 'from',
        to_param: 'to',
        time_format: format,
        status_separator: ',',
        send_status: false,
      },
    });
    const part = await c.fetchSessions(ACME, 'ch-1', { window });
    expect(part).toMatchObject({ state: 'complete', window });
    expect(s.received[0]?.url).toBe(`/v1/acme/channels/ch-1/sessions?${query}&per_page=100`);
  });

  it('sends statuses joined with the separator under the configured names when asked to', async () => {
    const s = await serve((_req, res) => json(res, 200, { sessions: sessions.slice(0, 1) }));
    const c = client(s.origin, {
      filters: {
        status_param: 'state',
        from_param: 'since',
        to_param: 'until',
        time_format: 'epoch_s',
        status_separator: '|',
        send_status: true,
      },
    });
    const part = await c.fetchSessions(ACME, 'ch-1', { window, statuses: ['live', 'scheduled'] });
    expect(part.state).toBe('complete');
    expect(s.received[0]?.url).toBe(
      '/v1/acme/channels/ch-1/sessions?since=1767225600&until=1767830400&state=live%7Cscheduled&per_page=100',
    );
  });

  it('applies statuses after reading when they are not sent', async () => {
    const s = await serve((_req, res) => json(res, 200, { sessions }));
    const part = await client(s.origin).fetchSessions(ACME, 'ch-1', { window, statuses: ['live'] });
    expect(s.received[0]?.url).not.toContain('status=');
    expect(part.state === 'complete' && part.value.map((x) => x.id)).toEqual(['s1']);
  });

  it('uses the configured window around now by default', async () => {
    const s = await serve((_req, res) => json(res, 200, { sessions: [] }));
    const before = Date.now();
    const part = await client(s.origin, { window: { pastMs: 3_600_000, futureMs: 7_200_000 } }).fetchSessions(
      ACME,
      'ch 1',
    );
    expect(part.window.to - part.window.from).toBe(10_800_000);
    expect(part.window.from).toBeGreaterThanOrEqual(before - 3_600_000);
    expect(s.received[0]?.url.startsWith('/v1/acme/channels/ch%201/sessions?from=')).toBe(true);
  });
});

describe('offset and limit paging, with no config', () => {
  const MANY = Array.from({ length: 57 }, (_, i) => channel(i + 1));

  it.each<[string, (offset: number, items: unknown[]) => unknown]>([
    [
      'offset, limit and total at the top',
      (offset, items) => ({ data: items, offset, limit: 20, total: 57 }),
    ],
    ['in meta, no total', (offset, items) => ({ items, meta: { offset, limit: 20 } })],
    [
      'in pagination with has_more',
      (offset, items) => ({ results: items, pagination: { offset, has_more: offset + 20 < 57 } }),
    ],
    ['skip and count', (offset, items) => ({ data: items, skip: offset, total_count: 57 })],
  ])('%s', async (_name, body) => {
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const offset = Number(url.searchParams.get('offset') ?? url.searchParams.get('skip') ?? 0);
      json(res, 200, body(offset, MANY.slice(offset, offset + 20)));
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(MANY.map((c) => c.id));
    expect(s.received).toHaveLength(3);
  });

  it('a server that ignores the page parameter is read by offset instead, nothing counted twice', async () => {
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      json(res, 200, { data: MANY.slice(offset, offset + 20), total: 57 });
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(MANY.map((c) => c.id));
  });

  it('a server that answers the same page whatever is asked is incomplete, never a loop', async () => {
    const s = await serve((_req, res) => json(res, 200, { data: MANY.slice(0, 20), total: 57 }));
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('incomplete');
    expect(ids(part)).toEqual(MANY.slice(0, 20).map((c) => c.id));
    if (part.state === 'incomplete') expect(part.error.message).toMatch(/ignores the paging parameter/);
    expect(s.received.length).toBeLessThanOrEqual(3);
  });
});
