/**
 * Servers in general, not the named dialects: random combinations of every facet a server
 * may vary (envelope, paging, case, ids, times, words, money, page caps, strictness,
 * filters, error bodies) behind one frozen world. With no overrides, tally reads the same
 * organization from each as from the canonical shape.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Dialect, DIALECTS } from '../../src/sim/dialect.js';
import { startSimulator } from '../../src/sim/index.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import { channelClass, statusClass, visibilityClass } from '../../src/snapshot/vocabulary.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogger, clientOptions } from './loopback.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

const WORDS: Record<string, string>[] = [
  {},
  { live: 'on_air', scheduled: 'upcoming', ended: 'finished', cancelled: 'canceled', failed: 'errored' },
  { live: 'Broadcasting', ended: 'Completed', scheduled: 'Pending', idle: 'Standby', failed: 'Aborted' },
  {
    live: 'LIVE',
    idle: 'IDLE',
    offline: 'OFFLINE',
    public: 'PUBLIC',
    private: 'PRIVATE',
    unlisted: 'UNLISTED',
  },
  { live: 'in-progress', offline: 'off-air', ended: 'done', private: 'members only', unlisted: 'link-only' },
];

const dialect: fc.Arbitrary<Dialect> = fc.record({
  name: fc.constant('random'),
  description: fc.constant('random facets'),
  style: fc.record({
    envelope: fc.constantFrom('bare', 'data', 'items', 'key', 'hal' as const),
    paging: fc.constantFrom('none', 'cursor', 'link', 'pages', 'offset', 'next', 'hal' as const),
    fieldCase: fc.constantFrom('snake', 'camel' as const),
    pageSize: fc.constantFrom(3, 7, 50),
  }),
  ids: fc.constantFrom('string', 'number' as const),
  times: fc.constantFrom('iso', 'iso_offset', 'epoch_s', 'epoch_ms' as const),
  words: fc.constantFrom(...WORDS),
  money: fc.constantFrom('major', 'decimal_string', 'minor_nested', 'minor_exponent', 'scaled' as const),
  errors: fc.constantFrom('json', 'problem', 'text' as const),
  maxPageSize: fc.constantFrom(undefined, 5, 20),
  strict: fc.boolean(),
  filters: fc.boolean(),
}) as fc.Arbitrary<Dialect>;

function facts(s: OrgSnapshot) {
  const v = <T>(p: { state: string; value?: T } | undefined) =>
    p && p.state !== 'failed' ? p.value : undefined;
  const channels = v(s.channels) ?? [];
  const sessions = Object.values(s.sessions).flatMap((p) => sessionArray(v(p) ?? []));
  const sub = v(s.subscription);
  const sorted = (xs: string[]) => [...xs].sort();
  return {
    complete: [s.profile, s.team, s.subscription, s.channels, ...Object.values(s.sessions)].every(
      (p) => p?.state === 'complete',
    ),
    plan: v(s.profile)?.plan,
    members: v(s.team)?.length,
    channels: sorted(channels.map((c) => `${channelClass(c.status)}/${visibilityClass(c.visibility ?? '')}`)),
    sessions: sorted(
      // To the second: epoch-seconds servers say no more.
      sessions.map((x) =>
        [statusClass(x.status), sec(x.scheduledAt), sec(x.startedAt), sec(x.endedAt)].join('/'),
      ),
    ),
    balance:
      sub?.funding.mode === 'wallet' ? Math.round((sub.funding.balance ?? Number.NaN) * 100) : undefined,
  };
}

const sec = (ms: number | undefined) => (ms === undefined ? '-' : String(Math.floor(ms / 1000)));

async function readWith(d: Dialect, now: number): Promise<ReturnType<typeof facts>> {
  // One time line for every server: the same world at the same instant.
  const sim = await startSimulator({
    orgs: ['demo'],
    channels: 5,
    sessionsPerChannel: 6,
    seed: 21,
    frozen: true,
    dialect: d,
    clock: new ManualClock(now),
  });
  const client = new UpstreamClient({
    ...clientOptions(sim.url, captureLogger().logger),
    maxBodyBytes: 1 << 20,
    clock: { ...clientOptions(sim.url, captureLogger().logger).clock, now: () => now },
  });
  try {
    return facts(await client.readAll({ slug: 'demo', token: 'demo-token' }));
  } finally {
    await client.close();
    await sim.close();
  }
}

describe('random server facets, no overrides', () => {
  it('read the same organization as the canonical shape', async () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const canonical = await readWith(DIALECTS['default']!, now);
    expect(canonical.complete).toBe(true);
    await fc.assert(
      fc.asyncProperty(dialect, async (d) => {
        expect(await readWith(d, now)).toEqual(canonical);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
