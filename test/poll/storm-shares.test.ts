/**
 * A storm that outlasts the budget: one org's channels change on every list read, so its
 * follow-ups alone would take more than the whole budget. Follow-ups still go first, but
 * the periodic reads of every org (profile, team, subscription, live channels and
 * details) and the sweep keep being read about at their intervals: requests passed over
 * in the budget for a while compete one class higher (budget.ts, aging).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import type { Fetcher, FetchOptions, OrgAuth } from '../../src/poll/fetcher.js';
import { Poller } from '../../src/poll/poller.js';
import { diff } from '../../src/snapshot/diff.js';
import type { SessionDetail } from '../../src/snapshot/model.js';
import { RequestBudget } from '../../src/upstream/transport/budget.js';
import { priorityOf } from '../../src/upstream/types.js';
import { ManualClock } from '../helpers/clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Org `storm` has 300 channels, `changing` of which flip between live and offline at
 * every read of its list (three pages); org `calm` has 10 quiet channels, one of them
 * live with a live session. Every read waits in `budget` and takes 200 ms.
 */
function world(clock: ManualClock, budget: RequestBudget, changing: number) {
  const lastRead = new Map<string, number>();
  const sent = { high: 0, follow: 0, normal: 0, low: 0 };
  let stormLists = 0;
  const read = async (what: string, o: FetchOptions | undefined) => {
    const release = await budget.acquire(o?.urgency ?? priorityOf(o), o?.signal);
    sent[priorityOf(o)] += 1;
    lastRead.set(what, clock.now());
    await clock.sleep(200);
    release();
  };
  const at = () => clock.now();
  const detail = (id: string): SessionDetail => ({
    id,
    channelId: 'c0',
    status: 'live',
    questions: { count: 0, items: [] },
    announcements: { count: 0, items: [] },
    reactions: { count: 0, byKind: {} },
    speakers: { count: 0, items: [] },
    ai: {},
  });
  const fetcher: Fetcher = {
    fetchOrg: async (a: OrgAuth, o) => {
      await read(`${a.slug} profile`, o);
      return { state: 'complete', at: at(), value: { slug: a.slug, settings: {} } };
    },
    fetchTeam: async (a, o) => {
      await read(`${a.slug} team`, o);
      return { state: 'complete', at: at(), value: [] };
    },
    fetchSubscription: async (a, o) => {
      await read(`${a.slug} subscription`, o);
      return {
        state: 'complete',
        at: at(),
        value: { limits: {}, usage: {}, funding: { mode: 'unknown' } },
      };
    },
    fetchChannels: async (a, o) => {
      if (a.slug === 'storm') {
        for (let page = 0; page < 3; page++) await read('storm channels', o);
        stormLists += 1;
        const value = Array.from({ length: 300 }, (_, i) => ({
          id: `s${String(i).padStart(3, '0')}`,
          status: i < changing && stormLists % 2 === 0 ? 'live' : 'offline',
        }));
        return { state: 'complete', at: at(), value };
      }
      await read('calm channels', o);
      const value = Array.from({ length: 10 }, (_, i) => ({
        id: `c${i}`,
        status: i === 0 ? 'live' : 'offline',
      }));
      return { state: 'complete', at: at(), value };
    },
    fetchSessions: async (a, ch, o) => {
      const asked = priorityOf(o);
      await read(`${a.slug} sessions ${asked}`, o);
      const now = at();
      const value =
        a.slug === 'calm' && ch === 'c0'
          ? [{ id: 'live-1', channelId: 'c0', status: 'live', startedAt: now - HOUR }]
          : [];
      return { state: 'complete', at: now, value, window: { from: now - HOUR, to: now + HOUR } };
    },
    fetchSessionDetail: async (a, id, o) => {
      await read(`${a.slug} detail`, o);
      return { state: 'complete', at: at(), value: detail(id) };
    },
  };
  return { fetcher, lastRead, sent };
}

describe('a storm that outlasts the budget', () => {
  it('keeps every org’s periodic reads and the sweep going, follow-ups first', async () => {
    const clock = new ManualClock();
    const budget = new RequestBudget({ perMinute: 240, clock, burst: 20, maxInFlight: 4 });
    // 150 channels changing at every list read: some 300 follow-ups a minute against 240.
    const w = world(clock, budget, 150);
    const intervals = {
      org: 10 * MINUTE,
      team: 5 * MINUTE,
      subscription: 5 * MINUTE,
      channels: 30_000,
      channels_min: 15_000,
      live_sessions: 30_000,
      live_detail: MINUTE,
      sweep: 15 * MINUTE,
      sweep_min: 15_000,
      jitter: 0,
    };
    const poller = new Poller(
      {
        orgs: [{ auth: { slug: 'storm', token: 't' } }, { auth: { slug: 'calm', token: 't' } }],
        intervals,
        window: { past: HOUR, future: HOUR },
        perPage: 100,
        capacity: () => budget.capacityPerMinute(),
        reserveForHigh: (n) => budget.reserveForHigh(n),
        spare: () => budget.spare(Math.ceil(budget.effective() / 60)),
      },
      { fetcher: w.fetcher, clock, logger: silentLogger(), diff, onUpdate: () => undefined, rng: () => 0.5 },
    );
    poller.start();
    const start = clock.now();
    const ages: Record<string, number> = {};
    const worst = (what: string) => {
      const at = w.lastRead.get(what);
      ages[what] = Math.max(ages[what] ?? 0, at === undefined ? clock.now() - start : clock.now() - at);
    };
    for (let s = 0; s < 20 * 60; s++) {
      await clock.tick(1000);
      // From the sixth minute on, the storm is in full swing and the first reads are done.
      if (s < 5 * 60) continue;
      for (const what of ['profile', 'team', 'subscription', 'channels', 'detail', 'sessions normal'])
        worst(`calm ${what}`);
    }
    const queued = budget.stats().queued;
    const stopping = poller.stop(1000);
    for (let i = 0; i < 5; i++) await clock.tick(1000);
    await stopping;
    // The storm really outlasted the budget: follow-ups were still waiting at the end.
    expect(queued.follow).toBeGreaterThan(50);
    expect(w.sent.follow).toBeGreaterThan(0.8 * (w.sent.high + w.sent.follow + w.sent.normal + w.sent.low));
    // The calm org's reads each stay within their interval and a minute of waiting.
    expect(ages['calm profile']).toBeLessThan(intervals.org + MINUTE);
    expect(ages['calm team']).toBeLessThan(intervals.team + MINUTE);
    expect(ages['calm subscription']).toBeLessThan(intervals.subscription + MINUTE);
    expect(ages['calm channels']).toBeLessThan(intervals.channels + 15_000);
    expect(ages['calm sessions normal']).toBeLessThan(intervals.live_sessions + MINUTE);
    expect(ages['calm detail']).toBeLessThan(intervals.live_detail + MINUTE);
    // And the sweep still moves.
    expect(w.sent.low).toBeGreaterThan(20 * 3);
  });
});
