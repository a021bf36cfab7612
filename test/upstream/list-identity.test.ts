/**
 * Lists whose records must stay told apart: ids beyond 2^53 sent as numbers, ids that
 * repeat, paging that does not advance or loops back. Real loopback servers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { captureIO } from '../helpers/io.js';
import { json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-ids-5e1f';
const ORG = { slug: 'acme', token: TOKEN };

const { serve, client } = loopbackSuite({ secret: TOKEN });

/** Sends a JSON text as is (numbers a JSON.stringify could not write). */
function raw(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const ids = (part: { state: string; value?: { id: string }[] }) => part.value?.map((c) => c.id);

describe('ids beyond 2^53 sent as JSON numbers', () => {
  it('stay distinct, exact and complete, and the session list is read under the exact id', async () => {
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/v1/acme/channels') {
        return raw(
          res,
          '{"channels":[{"id":1462947128391651330,"name":"Alpha","status":"live"},' +
            '{"id":1462947128391651331,"name":"Beta","status":"idle"}],"total":2}',
        );
      }
      if (url.pathname === '/v1/acme/channels/1462947128391651331/sessions') {
        return raw(res, '{"sessions":[{"id":1462947128391660003,"status":"scheduled"}]}');
      }
      res.writeHead(404).end();
    });
    const c = client(s.origin);
    const channels = await c.fetchChannels(ORG);
    expect(channels.state).toBe('complete');
    expect(ids(channels)).toEqual(['1462947128391651330', '1462947128391651331']);
    const sessions = await c.fetchSessions(ORG, '1462947128391651331');
    expect(sessions.state).toBe('complete');
    expect(ids(sessions)).toEqual(['1462947128391660003']);
  });
});

const channel = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `c${i}`,
  name: `Chan ${i}`,
  status: 'idle',
  visibility: 'public',
  ...extra,
});
const FIVE = [1, 2, 3, 4, 5].map((i) => channel(i));

function observed(): { drift: DriftIssue[]; observer: { onDrift: (i: DriftIssue) => void } } {
  const drift: DriftIssue[] = [];
  return { drift, observer: { onDrift: (i) => drift.push(i) } };
}

describe('ids that repeat in one list', () => {
  it('identical repeats: one record kept per id, a note, and the list stays complete', async () => {
    const s = await serve((_req, res) => json(res, 200, { data: [...FIVE, FIVE[1], FIVE[3]] }));
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(drift).toEqual([
      expect.objectContaining({
        org: 'acme',
        endpoint: 'channels',
        field: 'channel.id',
        problem: expect.stringMatching(/^2 records have the same id as an earlier, identical record/),
        fatal: false,
      }),
    ]);
  });

  it('differing repeats: the first kept, and the list incomplete so nothing is inferred from it', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, { data: [...FIVE, channel(2, { name: 'Not the same', status: 'live' })] }),
    );
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part).toMatchObject({
      state: 'incomplete',
      error: {
        reason: 'schema',
        message: 'GET /v1/acme/channels: 1 record(s) have the same id as a different record of the list',
      },
    });
    expect(part.state === 'incomplete' && part.value.find((c) => c.id === 'c2')?.name).toBe('Chan 2');
    expect(ids(part)).toHaveLength(5);
    expect(drift).toEqual([
      expect.objectContaining({ endpoint: 'channels', field: 'channel.id', fatal: true }),
    ]);
    expect(JSON.stringify(drift)).not.toContain('Not the same');
  });

  it('rounded ids are no longer a cause: snowflakes sent as numbers stay apart', async () => {
    const s = await serve((_req, res) =>
      raw(res, '[{"id":1462947128391651330,"status":"idle"},{"id":1462947128391651331,"status":"idle"}]'),
    );
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(new Set(ids(part)).size).toBe(2);
    expect(drift).toEqual([]);
  });
});

/**
 * A Google-style server: `{results, next_page_token}`, two records a page, the token taken
 * only as `pageToken` (anything else reads as the first page), and a counter that changes
 * in every answer.
 */
function googleStyle(all: readonly Record<string, unknown>[], accepts: readonly string[]) {
  let served = 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = accepts.map((k) => url.searchParams.get(k)).find((v) => v !== null);
    const off = token ? Number(Buffer.from(token, 'base64url').toString()) : 0;
    served += 1;
    const body: Record<string, unknown> = {
      results: all.slice(off, off + 2).map((r) => ({ ...r, listeners: served })),
    };
    if (off + 2 < all.length) body['next_page_token'] = Buffer.from(String(off + 2)).toString('base64url');
    json(res, 200, body);
  };
}

describe('paging that does not advance', () => {
  it('a cursor the server takes only as pageToken: tried under that name, learned, and the list is whole', async () => {
    const s = await serve(googleStyle(FIVE, ['pageToken']));
    const { drift, observer } = observed();
    const c = client(s.origin, { observer });
    const part = await c.fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    const asked = s.received.map((r) => new URL(r.url, 'http://x').searchParams);
    // page 1, page 2 as cursor (page 1 again), as page_token (again), as pageToken, page 3
    expect(asked.map((p) => [...p.keys()].filter((k) => k !== 'per_page').join())).toEqual([
      '',
      'cursor',
      'page_token',
      'pageToken',
      'pageToken',
    ]);
    expect(drift).toEqual([]);
    expect(c.memory.get('acme', 'channels')).toMatchObject({ cursorParam: 'pageToken' });

    // Learned: the next read sends pageToken at once.
    const before = s.received.length;
    const again = await c.fetchChannels(ORG);
    expect(again.state).toBe('complete');
    expect(ids(again)).toHaveLength(5);
    expect(s.received.length - before).toBe(3);
  });

  it('a name that worked is kept when one read stalls under every name', async () => {
    let accepts = ['pageToken'];
    const handler = googleStyle(FIVE, ['pageToken']);
    const s = await serve((req, res) =>
      accepts.length > 0 ? handler(req, res) : googleStyle(FIVE, [])(req, res),
    );
    const c = client(s.origin);
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    accepts = [];
    const stalled = await c.fetchChannels(ORG);
    expect(stalled.state).toBe('incomplete');
    expect(c.memory.get('acme', 'channels')).toEqual({ cursorParam: 'pageToken' });
    accepts = ['pageToken'];
    const before = s.received.length;
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    expect(s.received.length - before).toBe(3);
  });

  it('a cursor the server takes under no name: stops at once, incomplete, each record once, never 1000 of them', async () => {
    const s = await serve(googleStyle(FIVE, []));
    const { drift, observer } = observed();
    const c = client(s.origin, { observer, maxPages: 500 });
    const part = await c.fetchChannels(ORG);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
    expect(part.state === 'incomplete' && part.error.message).toMatch(
      /ignores the paging parameter \(cursor, page_token, pageToken, next_page_token, nextPageToken\)$/,
    );
    expect(ids(part)).toEqual(['c1', 'c2']);
    expect(s.received).toHaveLength(6);
    expect(drift).toEqual([expect.objectContaining({ endpoint: 'channels', field: 'paging', fatal: false })]);
    // Names the parameters tried, never the token or a URL.
    expect(drift[0]?.problem).toBe(
      'the next page repeats records already read with the paging parameter sent as cursor, page_token, pageToken, next_page_token, nextPageToken; the list is read as incomplete',
    );

    // Remembered: a later read does not try every name again.
    const before = s.received.length;
    const later = await c.fetchChannels(ORG);
    expect(later.state).toBe('incomplete');
    expect(s.received.length - before).toBe(2);
  });

  it('a next link that loops back to the first page under another spelling: stops, each record once', async () => {
    let origin = '';
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      const next = page === 1 ? 2 : 1;
      json(res, 200, {
        data: FIVE.slice((page - 1) * 3, page * 3),
        links: { next: `${origin}/v1/acme/channels?page=${next}` },
      });
    });
    origin = s.origin;
    const { drift, observer } = observed();
    const part = await client(origin, { observer }).fetchChannels(ORG);
    expect(part).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
    expect(part.state === 'incomplete' && part.error.message).toBe(
      'GET /v1/acme/channels?page=1: next page points back to a page already read',
    );
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(s.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels?page=2',
      '/v1/acme/channels?page=1',
    ]);
    expect(drift).toEqual([expect.objectContaining({ endpoint: 'channels', field: 'paging' })]);
  });

  it('a server counting pages from 0 is not taken for a loop: page=1 is its second page', async () => {
    let origin = '';
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 0);
      const next = page === 0 ? `${origin}/v1/acme/channels?page=1` : undefined;
      json(res, 200, { data: FIVE.slice(page * 3, page * 3 + 3), ...(next ? { links: { next } } : {}) });
    });
    origin = s.origin;
    const part = await client(origin).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
  });

  it('pages that overlap by a record identical on both: kept once, complete; totals count records', async () => {
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      // The server's list shifted by one between the pages: c3 comes again.
      const items = page === 1 ? FIVE.slice(0, 3) : FIVE.slice(2, 5);
      json(res, 200, { data: items, page, total_pages: 2, total: 5 });
    });
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer, shape: { perPage: 3 } }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(drift).toEqual([expect.objectContaining({ field: 'channel.id', fatal: false })]);
  });
});

describe('a null list beside a positive total', () => {
  it('is a failed read with drift naming the contradiction, not an empty list', async () => {
    const s = await serve((_req, res) => json(res, 200, { channels: null, total: 5 }));
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'schema' } });
    expect(part.state === 'failed' && part.error.message).toContain(
      "the list at 'channels' is null, yet the response counts 5 items",
    );
    expect(drift).toEqual([
      expect.objectContaining({ endpoint: 'channels', field: 'envelope', fatal: true }),
    ]);
  });
});

describe('tally once against a channel list whose next link loops', () => {
  it('reports 5 channels read incompletely, and reads each channel’s sessions once', async () => {
    let origin = '';
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const p = url.pathname;
      if (p === '/v1/acme') return json(res, 200, { slug: 'acme', name: 'Acme', plan: 'pro' });
      if (p === '/v1/acme/subscription') return json(res, 200, { plan: 'pro', limits: { channels: 10 } });
      if (p === '/v1/acme/team')
        return json(res, 200, { data: [{ id: 'm1', name: 'Owner', role: 'owner' }] });
      if (p === '/v1/acme/channels') {
        const page = Number(url.searchParams.get('page') ?? 1);
        const next = `${origin}/v1/acme/channels?page=${page === 1 ? 2 : 1}`;
        return json(res, 200, { data: FIVE.slice((page - 1) * 3, page * 3), links: { next } });
      }
      if (/^\/v1\/acme\/channels\/c\d\/sessions$/.test(p)) return json(res, 200, { data: [] });
      json(res, 404, { error: { code: 'not_found', message: 'no such resource' } });
    });
    origin = s.origin;
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-once-loop-'));
    try {
      const file = path.join(dir, 'tally.yaml');
      await writeFile(file, `upstream:\n  base_url: ${origin}\norgs:\n  - slug: acme\n    token: ${TOKEN}\n`);
      const io = captureIO();
      expect(await onceCommand(['--config', file, '--json'], io)).toBe(1);
      const snap = (JSON.parse(io.out()) as { orgs: Record<string, OrgSnapshot> }).orgs['acme']!;
      expect(snap.channels).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
      expect(snap.channels && 'value' in snap.channels && snap.channels.value.map((c) => c.id)).toEqual([
        'c1',
        'c2',
        'c3',
        'c4',
        'c5',
      ]);
      expect(io.err()).toMatch(
        /channels incomplete \(paging\): GET \/v1\/acme\/channels\?page=1: next page points back to a page already read/,
      );
      // Windowed reads only: the first empty list is also read once without the window (the
      // check that the server reads it; client.ts, misreadsWindow).
      const sessionReads = s.received
        .filter((r) => r.url.includes('from='))
        .map((r) => r.url.split('?')[0]!)
        .filter((u) => u.endsWith('/sessions'));
      expect(sessionReads.sort()).toEqual([1, 2, 3, 4, 5].map((i) => `/v1/acme/channels/c${i}/sessions`));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
