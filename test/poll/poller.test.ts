import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { JumpingClock } from '../helpers/clock.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { Fetcher } from '../../src/poll/fetcher.js';
import { Poller } from '../../src/poll/poller.js';
import { diff } from '../../src/snapshot/diff.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { emptySnapshot, type Channel, type Session } from '../../src/snapshot/model.js';
import { SessionList } from '../../src/snapshot/session-list.js';

// The subject is which channels the poller's sweep picks, tick after tick, so the reads
// are answered in memory under fake timers instead of over loopback.

const START = Date.UTC(2026, 10, 1, 12, 0, 0);
const HOUR = 3_600_000;

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Poller options but the orgs: reads every few seconds, a window of an hour each way. */
const QUICK = {
  intervals: {
    org: 60_000,
    team: 60_000,
    subscription: 60_000,
    channels: 60_000,
    live_sessions: 1000,
    live_detail: 2000,
    sweep: 4000,
    jitter: 0,
  },
  window: { past: HOUR, future: HOUR },
  perPage: 100,
  capacity: () => 300,
};

/** An org of idle channels whose reads always succeed; remembers whose sessions were read. */
function idleOrg(clock: Clock, channels: Channel[], sessionReads: string[]): Fetcher {
  const at = () => clock.now();
  return {
    fetchOrg: async () => ({ state: 'complete', at: at(), value: { slug: 'demo', settings: {} } }),
    fetchTeam: async () => ({ state: 'complete', at: at(), value: [] }),
    fetchSubscription: async () => ({
      state: 'complete',
      at: at(),
      value: { limits: {}, usage: {}, funding: { mode: 'unknown' } },
    }),
    fetchChannels: async () => ({ state: 'complete', at: at(), value: channels }),
    fetchSessions: async (_org, channelId) => {
      sessionReads.push(channelId);
      const now = at();
      return { state: 'complete', at: now, value: [], window: { from: now - HOUR, to: now + HOUR } };
    },
    fetchSessionDetail: async () => ({
      state: 'failed',
      at: at(),
      error: { reason: 'not_found', message: 'none' },
    }),
  };
}

describe('Poller sweep', () => {
  it('reads every channel again after the clock is set back, not only those read since', async () => {
    const clock = new JumpingClock();
    const channels = ['ch-a', 'ch-b', 'ch-c', 'ch-d'].map((id) => ({ id, status: 'idle' }));
    const reads: string[] = [];
    const poller = new Poller(
      {
        orgs: [{ auth: { slug: 'demo', token: 't' } }],
        ...QUICK,
      },
      {
        fetcher: idleOrg(clock, channels, reads),
        clock,
        logger: silentLogger(),
        diff,
        onUpdate: () => undefined,
      },
    );
    poller.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(new Set(reads)).toEqual(new Set(['ch-a', 'ch-b', 'ch-c', 'ch-d']));

    clock.jump(-HOUR);
    reads.length = 0;
    await vi.advanceTimersByTimeAsync(10_000);
    // About one sweep round per 4 s: every channel is read again within 10 s, each a few times.
    expect(new Set(reads)).toEqual(new Set(['ch-a', 'ch-b', 'ch-c', 'ch-d']));
    const counts = channels.map((c) => reads.filter((id) => id === c.id).length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);

    const stopping = poller.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
  });
});

describe('Poller hot reads', () => {
  it('skip a live channel whose sessions were read less than sweep_min (or half their interval) ago, by any read', async () => {
    // One live channel among idle ones: the sweep reads it too (every channel is stale
    // after sweep_min), and a hot read right after a sweep read would read nothing new.
    const channels = [{ id: 'live', status: 'live' }, ...['a', 'b'].map((id) => ({ id, status: 'idle' }))];
    const reads: string[] = [];
    const at: number[] = [];
    const fetcher = idleOrg({ now: () => Date.now() } as Clock, channels, reads);
    const counted: Fetcher = {
      ...fetcher,
      fetchSessions: async (org, id, o) => {
        if (id === 'live') at.push(Date.now());
        return fetcher.fetchSessions(org, id, o);
      },
    };
    const poller = new Poller(
      {
        orgs: [{ auth: { slug: 'demo', token: 't' } }],
        ...QUICK,
        intervals: {
          ...QUICK.intervals,
          live_sessions: 30_000,
          live_detail: 60_000,
          sweep: 60_000,
          sweep_min: 15_000,
        },
      },
      { fetcher: counted, clock: systemClock, logger: silentLogger(), diff, onUpdate: () => undefined },
    );
    poller.start();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    const stopping = poller.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps.length).toBeGreaterThan(10);
    // Every read of it, hot or sweep, at least sweep_min (here also half the hot interval)
    // after the one before.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(15_000);
  });
});

describe('Poller and the snapshots it resumes from', () => {
  it('keeps no stored session list once its org poller holds the list compactly', async () => {
    vi.useRealTimers();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const clock = new JumpingClock();
    const stored = (): { poller: Poller; list: WeakRef<Session[]> } => {
      const value: Session[] = [
        { id: 's1', channelId: 'ch-a', status: 'scheduled', scheduledAt: START + HOUR },
      ];
      const initial = emptySnapshot('demo', START);
      initial.sessions['ch-a'] = {
        state: 'complete',
        at: START,
        value,
        window: { from: START - HOUR, to: START + HOUR },
      };
      const poller = new Poller(
        {
          orgs: [{ auth: { slug: 'demo', token: 't' }, initial }],
          ...QUICK,
        },
        { fetcher: idleOrg(clock, [], []), clock, logger: silentLogger(), diff, onUpdate: () => undefined },
      );
      return { poller, list: new WeakRef(value) };
    };
    const { poller, list } = stored();
    const held = poller.orgs().get('demo')!.snapshot().sessions['ch-a']!;
    expect(held.state === 'complete' && held.value).toBeInstanceOf(SessionList);
    // The weak reference is cleared only by a collection after the task that made it.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(list.deref()).toBeUndefined();
  });
});
