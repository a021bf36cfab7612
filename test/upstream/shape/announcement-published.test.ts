/**
 * Announcements dated by a bare `published` (field-aliases.ts, `announcement.at`): ISO 8601
 * with or without fraction and offset, epoch seconds or milliseconds, as numbers or digit
 * strings, all read as the same instant, from the detail body alone and through the client.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import { normalizeSessionDetail } from '../../../src/upstream/shape/index.js';
import { json, type Loopback, loopbackSuite } from '../loopback.js';

const suite = loopbackSuite();

const T = Date.UTC(2024, 0, 15, 10, 0, 0);
const detail = (announcement: Record<string, unknown>) => ({
  id: 's1',
  status: 'live',
  questions: [],
  speakers: [],
  reactions: 0,
  ai: {},
  announcements: [announcement],
});

describe('announcement.at from `published`', () => {
  it.each<[string, unknown, number]>([
    ['ISO 8601 in UTC', '2024-01-15T10:00:00Z', T],
    ['ISO 8601 with a fraction', '2024-01-15T10:00:00.250Z', T + 250],
    ['ISO 8601 with an offset', '2024-01-15T12:00:00+02:00', T],
    ['ISO 8601 with a fraction and an offset', '2024-01-15T05:00:00.5-05:00', T + 500],
    ['epoch seconds', T / 1000, T],
    ['epoch milliseconds', T, T],
    ['epoch seconds as a string', String(T / 1000), T],
  ])('reads %s', (_what, published, at) => {
    const r = normalizeSessionDetail(detail({ id: 'a1', text: 'Welcome', published }), 's1', {});
    expect(r.value.announcements).toEqual({ count: 1, items: [{ id: 'a1', text: 'Welcome', at }] });
    expect(r.drift).toEqual([]);
  });

  it('prefers `published_at` to a bare `published` when both are there', () => {
    const r = normalizeSessionDetail(
      detail({ id: 'a1', text: 'x', published_at: T / 1000, published: T / 1000 + 60 }),
      's1',
      {},
    );
    expect(r.value.announcements.items[0]?.at).toBe(T);
  });

  it('reads a camelCase `publishedAt` like `published_at`', () => {
    const r = normalizeSessionDetail(
      detail({ id: 'a1', text: 'x', publishedAt: '2024-01-15T10:00:00Z' }),
      's1',
      {},
    );
    expect(r.value.announcements.items[0]?.at).toBe(T);
  });

  it('a `published` that is not a time is reported as drift, never read as a time', () => {
    const r = normalizeSessionDetail(detail({ id: 'a1', text: 'x', published: 'soon' }), 's1', {});
    expect(r.value.announcements.items).toEqual([{ id: 'a1', text: 'x' }]);
    expect(r.drift).toEqual([
      expect.objectContaining({ endpoint: 'session', field: 'announcement.at', fatal: false }),
    ]);
  });
});

describe('a session detail with `published` announcements, through the client', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  it('normalizes every announcement to its instant', async () => {
    server = await suite.serve((req, res) => {
      if (req.url !== '/v1/acme/sessions/s1') return json(res, 404, {});
      json(res, 200, {
        data: {
          ...detail({}),
          announcements: [
            { id: 'a1', message: 'one', published: '2024-01-15T11:00:00+01:00' },
            { id: 'a2', message: 'two', published: T / 1000 + 60 },
            { id: 'a3', message: 'three', published: T + 120_000 },
          ],
        },
      });
    });
    client = suite.client(server.origin);
    const part = await client.fetchSessionDetail({ slug: 'acme', token: 'tok-published-01' }, 's1');
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.announcements.items).toEqual([
      { id: 'a1', text: 'one', at: T },
      { id: 'a2', text: 'two', at: T + 60_000 },
      { id: 'a3', text: 'three', at: T + 120_000 },
    ]);
  });
});
