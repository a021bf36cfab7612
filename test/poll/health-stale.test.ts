import { describe, expect, it } from 'vitest';
import { STALE_FACTOR, staleLists } from '../../src/poll/health.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';

// A list not read completely for longer than its interval × STALE_FACTOR is stale.

const NOW = Date.UTC(2026, 10, 1, 12);
const S = 1000;
const iv = { org: 60 * S, team: 60 * S, subscription: 60 * S, channels: 30 * S, sessions: 120 * S };
const complete = <T>(at: number, value: T) => ({ state: 'complete' as const, at, value }) as never;
const snapshot = (over: Partial<OrgSnapshot>): OrgSnapshot => ({
  version: 1,
  org: 'acme',
  takenAt: NOW,
  sessions: {},
  details: {},
  ...over,
});
const channel = (id: string) => ({ id, name: id, status: 'offline', visibility: 'public' }) as never;

describe('staleLists', () => {
  it('names the lists read longer ago than their interval × 3, and no other', () => {
    const s = snapshot({
      profile: complete(NOW - 60 * S * STALE_FACTOR, {} as never),
      team: complete(NOW - 60 * S * STALE_FACTOR - 1, [] as never),
      channels: complete(NOW - 91 * S, [channel('c1'), channel('c2'), channel('c3')]),
      sessions: {
        c1: complete(NOW - 361 * S, []),
        c2: complete(NOW - 359 * S, []),
        // A channel no longer listed is nobody's concern.
        gone: complete(NOW - 9999 * S, []),
      },
    });
    expect(staleLists(s, iv, NOW)).toEqual(['team', 'channels', 'sessions:c1']);
  });

  it('a list never read completely is unread, not stale; a failed part is not a read', () => {
    const failed = {
      state: 'failed' as const,
      at: NOW - 9999 * S,
      error: { reason: 'http_4xx', message: 'x' },
    };
    const s = snapshot({ channels: failed as never, profile: complete(NOW, {} as never) });
    expect(staleLists(s, iv, NOW)).toEqual([]);
  });

  it('names at most twenty session lists and counts the rest', () => {
    const ids = Array.from({ length: 25 }, (_, i) => `c${i}`);
    const s = snapshot({
      channels: complete(NOW, ids.map(channel)),
      sessions: Object.fromEntries(ids.map((id) => [id, complete(NOW - 10_000 * S, [])])),
    });
    const out = staleLists(s, iv, NOW);
    expect(out).toHaveLength(21);
    expect(out.at(-1)).toBe('… and 5 more');
  });
});
