/**
 * The planner's decisions on a fake clock (docs/polling.md): idle budget goes to the
 * sweep, the per-channel minimum interval holds, what is worth most is read first
 * (never read, hinted, due, recently changed, weighted), follow-ups are all urgent, and
 * the budget's reserves are shares that do not leave it idle.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { Fetcher } from '../../src/poll/fetcher.js';
import { RequestBudget } from '../../src/upstream/transport/budget.js';
import type { FetchOptions } from '../../src/upstream/types.js';
import { Poller } from '../../src/poll/poller.js';
import { nextToSweep, type PlanIntervals, type SweepEntry, sweepScore } from '../../src/poll/planner.js';
import { diff } from '../../src/snapshot/diff.js';
import type { Channel, Session } from '../../src/snapshot/model.js';

const START = Date.UTC(2026, 10, 1, 12, 0, 0);
const HOUR = 3_600_000;
const NOW = START + HOUR;
const policy = { now: NOW, minEveryMs: 15_000 };
const entry = (channelId: string, o: Partial<SweepEntry> = {}): SweepEntry => ({
  org: 'demo',
  channelId,
  lastReadAt: NOW - 60_000,
  ...o,
});

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('what the sweep reads first', () => {
  it('never-read channels first, live ones before the rest (a fast first baseline)', () => {
    const picked = nextToSweep(
      [
        entry('old', { lastReadAt: NOW - HOUR }),
        entry('new'),
        entry('new-live', { lastReadAt: undefined, live: true }),
        entry('new-idle', { lastReadAt: undefined }),
      ],
      3,
      policy,
    ).map((e) => e.channelId);
    expect(picked).toEqual(['new-live', 'new-idle', 'old']);
  });

  it('a moved channel-list hint beats staleness; a planned start at hand beats plain staleness', () => {
    const picked = nextToSweep(
      [
        entry('stale', { lastReadAt: NOW - 10 * 60_000 }),
        entry('hinted', { lastReadAt: NOW - 20_000, hinted: true }),
        entry('due', { lastReadAt: NOW - 5 * 60_000, dueAt: NOW + 10_000 }),
      ],
      3,
      policy,
    ).map((e) => e.channelId);
    expect(picked).toEqual(['hinted', 'due', 'stale']);
  });

  it('a channel read within the minimum interval is not read again, hinted or not', () => {
    expect(sweepScore(entry('a', { lastReadAt: NOW - 5_000 }), policy)).toBe(Number.NEGATIVE_INFINITY);
    expect(sweepScore(entry('a', { lastReadAt: NOW - 5_000, hinted: true }), policy)).toBe(
      Number.NEGATIVE_INFINITY,
    );
    expect(nextToSweep([entry('a', { lastReadAt: NOW - 5_000 })], 5, policy)).toEqual([]);
  });

  it('recently changed channels weigh more at equal staleness; so does a heavier org; a live one not again', () => {
    const base = sweepScore(entry('x'), policy);
    expect(sweepScore(entry('x', { changedAt: NOW - 60_000 }), policy)).toBeGreaterThan(base);
    // Live channels are read at their own (hot) interval; the sweep does not add to it.
    expect(sweepScore(entry('x', { live: true }), policy)).toBe(base);
    expect(sweepScore(entry('x', { weight: 3 }), policy)).toBe(base * 3);
    // A change long ago no longer counts.
    expect(sweepScore(entry('x', { changedAt: NOW - 2 * HOUR }), policy)).toBe(base);
  });

  it('a channel close to the stated bound goes before hints, planned starts and recent changes; a first read still first', () => {
    const bound = { ...policy, boundMs: 100_000 };
    const picked = nextToSweep(
      [
        entry('hinted', { lastReadAt: NOW - 20_000, hinted: true }),
        entry('due', { lastReadAt: NOW - 30_000, dueAt: NOW + 10_000 }),
        entry('changed', { lastReadAt: NOW - 80_000, changedAt: NOW - 60_000, live: true }),
        // 90 % of the bound has passed: at risk.
        entry('stale', { lastReadAt: NOW - 90_000 }),
        entry('staler', { lastReadAt: NOW - 95_000 }),
        entry('never', { lastReadAt: undefined }),
      ],
      6,
      bound,
    ).map((e) => e.channelId);
    expect(picked).toEqual(['never', 'staler', 'stale', 'hinted', 'due', 'changed']);
    // Below 90 % of the bound a channel waits its turn by staleness × weight.
    expect(sweepScore(entry('x', { lastReadAt: NOW - 89_000 }), bound)).toBe(
      sweepScore(entry('x', { lastReadAt: NOW - 89_000 }), policy),
    );
    // Reads that take 20 s to be answered (waiting in a busy budget) make it 20 s earlier,
    // but never before half the bound.
    const lead = (leadMs: number, ageMs: number) =>
      sweepScore(entry('x', { lastReadAt: NOW - ageMs }), { ...bound, leadMs }) >
      sweepScore(entry('x', { lastReadAt: NOW - ageMs, hinted: true }), bound);
    expect(lead(20_000, 71_000)).toBe(true);
    expect(lead(20_000, 69_000)).toBe(false);
    expect(lead(80_000, 51_000)).toBe(true);
    expect(lead(80_000, 49_000)).toBe(false);
  });

  it('a due session long past is no longer a reason', () => {
    const base = sweepScore(entry('x'), policy);
    expect(sweepScore(entry('x', { dueAt: NOW - 10 * 60_000 }), policy)).toBe(base);
  });
});

/** An org whose channels are idle and whose session lists hold `sessions(channelId)`. */
function org(channels: Channel[], reads: string[], sessions: (ch: string) => Session[] = () => []): Fetcher {
  const at = () => Date.now();
  return {
    fetchOrg: async () => ({ state: 'complete', at: at(), value: { slug: 'demo', settings: {} } }),
    fetchTeam: async () => ({ state: 'complete', at: at(), value: [] }),
    fetchSubscription: async () => ({
      state: 'complete',
      at: at(),
      value: { limits: {}, usage: {}, funding: { mode: 'unknown' } },
    }),
    // Each list read a copy, as a server's answer is.
    fetchChannels: async () => ({ state: 'complete', at: at(), value: channels.map((c) => ({ ...c })) }),
    fetchSessions: async (_org, channelId) => {
      reads.push(channelId);
      const now = at();
      return {
        state: 'complete',
        at: now,
        value: sessions(channelId),
        window: { from: now - HOUR, to: now + HOUR },
      };
    },
    fetchSessionDetail: async () => ({
      state: 'failed',
      at: at(),
      error: { reason: 'not_found', message: 'none' },
    }),
  };
}

/** Poller options for one org `demo`, channel list and org parts hourly unless overridden. */
function pollerOf(
  fetcher: Fetcher,
  o: {
    capacity: () => number;
    spare?: () => number;
    intervals?: Partial<PlanIntervals & { jitter: number }>;
    reserveForHigh?: (requests: number) => void;
  },
): Poller {
  return new Poller(
    {
      orgs: [{ auth: { slug: 'demo', token: 't' } }],
      intervals: {
        org: HOUR,
        team: HOUR,
        subscription: HOUR,
        channels: HOUR,
        live_sessions: 30_000,
        live_detail: 60_000,
        sweep: 15 * 60_000,
        sweep_min: 15_000,
        jitter: 0,
        ...o.intervals,
      },
      window: { past: HOUR, future: HOUR },
      perPage: 100,
      capacity: o.capacity,
      ...(o.spare ? { spare: o.spare } : {}),
      ...(o.reserveForHigh ? { reserveForHigh: o.reserveForHigh } : {}),
    },
    { fetcher, clock: systemClock, logger: silentLogger(), diff, onUpdate: () => undefined },
  );
}

function poller(fetcher: Fetcher, spare: () => number, sweepMs = 15 * 60_000, capacity = 12): Poller {
  // A tiny planned share: what the sweep reads beyond it is idle budget.
  return pollerOf(fetcher, { capacity: () => capacity, spare, intervals: { sweep: sweepMs } });
}

/** A poller with the default live intervals and a channel list every 30 s. */
function listPoller(
  fetcher: Fetcher,
  o: { capacity: number; spare: number; channelsMin?: number | undefined },
): Poller {
  return pollerOf(fetcher, {
    capacity: () => o.capacity,
    spare: () => o.spare,
    intervals: { channels: 30_000, ...(o.channelsMin === undefined ? {} : { channels_min: o.channelsMin }) },
  });
}

describe('idle budget is spent', () => {
  const channels = Array.from({ length: 40 }, (_, i) => ({
    id: `ch-${String(i).padStart(2, '0')}`,
    status: 'idle',
  }));

  it('reads far beyond the planned pace while the budget is idle, never a channel twice within sweep_min', async () => {
    const reads: string[] = [];
    const p = poller(org(channels, reads), () => 8);
    p.start();
    await vi.advanceTimersByTimeAsync(30_000);
    await p.stop(1000);
    // Planned: 12/min minus fixed reads, a few reads in 30 s. Idle: every channel, twice.
    expect(new Set(reads).size).toBe(40);
    expect(reads.length).toBeGreaterThanOrEqual(80);
    const byChannel = new Map<string, number>();
    for (const id of reads) byChannel.set(id, (byChannel.get(id) ?? 0) + 1);
    // 30 s with a 15 s minimum: at most 2 (3 counting the read at the very start).
    expect(Math.max(...byChannel.values())).toBeLessThanOrEqual(3);
  });

  it('keeps to the planned pace when nothing is spare', async () => {
    const reads: string[] = [];
    const p = poller(org(channels, reads), () => 0);
    p.start();
    await vi.advanceTimersByTimeAsync(30_000);
    await p.stop(1000);
    expect(reads.length).toBeLessThan(20);
  });
});

describe('predictive reads', () => {
  it('reads a channel again around the planned start of its scheduled session', async () => {
    const reads: string[] = [];
    const readAt: [string, number][] = [];
    const startsAt = START + 10 * 60_000;
    const channels = [
      { id: 'ch-due', status: 'idle' },
      ...Array.from({ length: 150 }, (_, i) => ({ id: `ch-${i}`, status: 'idle' })),
    ];
    const sessions = (ch: string): Session[] =>
      ch === 'ch-due' ? [{ id: 's1', channelId: ch, status: 'scheduled', scheduledAt: startsAt }] : [];
    // One spare read per tick: the sweep must choose.
    const fetcher = org(channels, reads, sessions);
    const inner = fetcher.fetchSessions;
    fetcher.fetchSessions = (o, ch, x) => {
      readAt.push([ch, Date.now()]);
      return inner(o, ch, x);
    };
    const p = poller(fetcher, () => 1, HOUR);
    p.start();
    await vi.advanceTimersByTimeAsync(startsAt + 60_000 - START);
    await p.stop(1000);
    // As the planned start nears, the channel is read (hot path and due sweep) ahead of 150 staler ones.
    const due = readAt.filter(
      ([ch, t]) => ch === 'ch-due' && t >= startsAt - 30_000 && t <= startsAt - 13_000,
    );
    expect(due.length).toBeGreaterThan(0);
    // Without the planned start it would wait its turn: about one read per 150 s.
    expect(readAt.filter(([ch]) => ch === 'ch-due').length).toBeGreaterThan(2);
  });
});

describe('what the planner spends on', () => {
  it('counts every read of the last minute per org and purpose', async () => {
    const reads: string[] = [];
    const channels = Array.from({ length: 5 }, (_, i) => ({ id: `ch-${i}`, status: 'idle' }));
    const p = poller(org(channels, reads), () => 4);
    p.start();
    await vi.advanceTimersByTimeAsync(20_000);
    const spend = p.spend.of('demo');
    await p.stop(1000);
    expect(spend.channel_list).toBeGreaterThanOrEqual(1);
    expect(spend.org_parts).toBeGreaterThanOrEqual(2);
    expect(spend.sweep).toBe(reads.length);
    expect(spend.sweep).toBeGreaterThan(5);
    expect(p.spend.of('other').sweep).toBe(0);
  });
});

describe('the channel list has a share, and nobody holds budget they do not use', () => {
  it('1000 channels, 20 live: every list read on time and whole, the rest of the budget spent', async () => {
    const budget = new RequestBudget({ perMinute: 240, clock: systemClock, burst: 20 });
    const channels = Array.from({ length: 1000 }, (_, i) => ({
      id: `ch-${String(i).padStart(4, '0')}`,
      status: i < 20 ? 'live' : 'idle',
    }));
    const reads: string[] = [];
    const inner = org(channels, reads);
    const lists: [number, number][] = [];
    let granted = 0;
    const cost = async (n: number, o: FetchOptions | undefined) => {
      for (let i = 0; i < n; i++) {
        const release = await budget.acquire(o?.urgency ?? o?.priority ?? 'normal', o?.signal);
        granted++;
        release();
      }
    };
    // Every read costs the budget what it would over HTTP: the list one request per page.
    const paid =
      <A extends unknown[], R>(n: number, read: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        await cost(n, args.at(-1) as FetchOptions | undefined);
        return read(...args);
      };
    const fetcher: Fetcher = {
      fetchOrg: paid(1, inner.fetchOrg),
      fetchTeam: paid(1, inner.fetchTeam),
      fetchSubscription: paid(1, inner.fetchSubscription),
      fetchChannels: async (a, o) => {
        const from = Date.now();
        await cost(10, o);
        lists.push([from, Date.now()]);
        return inner.fetchChannels(a, o);
      },
      fetchSessions: paid(1, inner.fetchSessions),
      fetchSessionDetail: paid(1, inner.fetchSessionDetail),
    };
    const p = new Poller(
      {
        orgs: [{ auth: { slug: 'demo', token: 't' } }],
        intervals: {
          org: 60_000,
          team: 60_000,
          subscription: 60_000,
          channels: 30_000,
          live_sessions: 30_000,
          live_detail: 60_000,
          sweep: 15 * 60_000,
          sweep_min: 15_000,
          jitter: 0,
        },
        window: { past: HOUR, future: HOUR },
        perPage: 100,
        capacity: () => budget.capacityPerMinute(),
        reserveForHigh: (n) => budget.reserveForHigh(n),
        spare: () => budget.spare(4),
      },
      { fetcher, clock: systemClock, logger: silentLogger(), diff, onUpdate: () => undefined },
    );
    p.start();
    await vi.advanceTimersByTimeAsync(60_000);
    const before = granted;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    const used = (granted - before) / (5 * 240);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    // The list's share (2 reads of 10 pages a minute, and 10) is not a hole: ≥ 94 % is
    // spent (the issue asks 90 %; 94.8–95.3 % here, by where the minutes fall).
    expect(used).toBeGreaterThanOrEqual(0.94);
    expect(used).toBeLessThanOrEqual(1);
    // And the list still finds its pages free: every read whole within 5 s, one per 30 s.
    const steady = lists.filter(([from]) => from >= START + 60_000 && from < START + 6 * 60_000);
    expect(steady.length).toBeGreaterThanOrEqual(9);
    for (const [from, to] of steady) expect(to - from).toBeLessThanOrEqual(5000);
  });
});

describe('the first baseline', () => {
  it('re-reads live channels only every fourth hot round until every channel was read once, then every round', async () => {
    const channels = Array.from({ length: 40 }, (_, i) => ({
      id: `ch-${String(i).padStart(2, '0')}`,
      status: i < 3 ? 'live' : 'idle',
    }));
    const reads: string[] = [];
    let spare = 0;
    const p = poller(org(channels, reads), () => spare);
    p.start();
    // The planned pace alone (a few reads a minute) keeps the baseline going for minutes.
    await vi.advanceTimersByTimeAsync(150_000);
    const live = (id: string) => reads.filter((r) => r === id).length;
    expect(new Set(reads).size).toBeLessThan(40);
    // Read first, then once more after four hot intervals (2 minutes): not every 30 s.
    expect(live('ch-00')).toBeLessThanOrEqual(2);
    // Spare budget completes the baseline; from then on every hot round reads them.
    spare = 8;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(new Set(reads).size).toBe(40);
    const before = live('ch-00');
    spare = 0;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(live('ch-00') - before).toBeGreaterThanOrEqual(4);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
  });

  it('reads no live session details until the baseline is complete, then every detail interval', async () => {
    const channels = Array.from({ length: 40 }, (_, i) => ({
      id: `ch-${String(i).padStart(2, '0')}`,
      status: i < 3 ? 'live' : 'idle',
    }));
    const reads: string[] = [];
    const details: string[] = [];
    const liveSession = (ch: string): Session[] =>
      ch < 'ch-03'
        ? [{ id: `s-${ch}`, channelId: ch, status: 'live', startedAt: Date.now() - HOUR / 2 }]
        : [];
    const inner = org(channels, reads, liveSession);
    const fetcher: Fetcher = {
      ...inner,
      fetchSessionDetail: async (a, id, o) => {
        details.push(id);
        return inner.fetchSessionDetail(a, id, o);
      },
    };
    let spare = 0;
    const p = poller(fetcher, () => spare);
    p.start();
    await vi.advanceTimersByTimeAsync(150_000);
    // The live channels were read (first), the baseline is not done: their details wait.
    expect(reads).toContain('ch-00');
    expect(new Set(reads).size).toBeLessThan(40);
    expect(details).toEqual([]);
    spare = 8;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(new Set(reads).size).toBe(40);
    spare = 0;
    await vi.advanceTimersByTimeAsync(120_000);
    // Then each live session's detail at the detail interval (1 minute): about twice.
    for (const id of ['s-ch-00', 's-ch-01', 's-ch-02'])
      expect(details.filter((d) => d === id).length).toBeGreaterThanOrEqual(2);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
  });
});

describe('follow-ups in the first baseline', () => {
  it.each([
    [240, 'waits for the sweep: the first reads left take under 5 minutes', 1],
    [60, 'is read at once: the first reads left take longer', 2],
  ])(
    'at %i requests a minute, a change of a channel already read %s',
    async (capacity, _what, readsAfter) => {
      const channels: Channel[] = Array.from({ length: 400 }, (_, i) => ({
        id: `ch-${String(i).padStart(3, '0')}`,
        status: 'idle',
      }));
      const reads: string[] = [];
      const fetcher = org(channels, reads);
      const p = pollerOf(fetcher, {
        capacity: () => capacity,
        intervals: { channels: 30_000 },
      });
      p.start();
      await vi.advanceTimersByTimeAsync(20_000);
      const first = reads[0]!;
      expect(new Set(reads).size).toBeLessThan(400);
      channels[channels.findIndex((c) => c.id === first)] = { id: first, status: 'offline' };
      // The next list read shows the change.
      await vi.advanceTimersByTimeAsync(11_000);
      expect(new Set(reads).size).toBeLessThan(400);
      expect(reads.filter((r) => r === first)).toHaveLength(readsAfter);
      const stopping = p.stop(1000);
      await vi.advanceTimersByTimeAsync(2000);
      await stopping;
    },
  );
});

describe('what waits for the first baseline waits at most 5 minutes', () => {
  it('a waited change and a put-off detail are read while a slow baseline still goes on', async () => {
    // 600 channels, a budget that says the first reads left take 3 minutes, but an upstream
    // that answers in 10 s: the baseline takes some 12 minutes.
    const channels: Channel[] = Array.from({ length: 600 }, (_, i) => ({
      id: `ch-${String(i).padStart(3, '0')}`,
      status: i === 0 ? 'live' : 'idle',
    }));
    const reads: string[] = [];
    const details: string[] = [];
    const start = Date.now();
    // A session on the live channel starts 15 s in, after its first read.
    const sessions = (ch: string): Session[] =>
      ch === 'ch-000' && Date.now() - start >= 15_000
        ? [{ id: 's-new', channelId: ch, status: 'live', startedAt: start + 15_000 }]
        : ch === 'ch-000'
          ? [{ id: 's-new', channelId: ch, status: 'scheduled', scheduledAt: start + 15_000 }]
          : [];
    const inner = org(channels, reads, sessions);
    const fetcher: Fetcher = {
      ...inner,
      // A slow upstream: ten seconds a list, so the sweep's reads in flight hold it to a few a second.
      fetchSessions: async (a, ch, o) => {
        await new Promise((r) => setTimeout(r, 10_000));
        return inner.fetchSessions(a, ch, o);
      },
      fetchSessionDetail: async (a, id, o) => {
        details.push(id);
        return inner.fetchSessionDetail(a, id, o);
      },
    };
    const p = pollerOf(fetcher, { capacity: () => 240, spare: () => 0, intervals: { channels: 30_000 } });
    p.start();
    await vi.advanceTimersByTimeAsync(20_000);
    const changed = reads.find((r) => r !== 'ch-000')!;
    channels[channels.findIndex((c) => c.id === changed)] = { id: changed, status: 'offline' };
    await vi.advanceTimersByTimeAsync(11_000);
    const changedAt = reads.length;
    const unread = () => p.orgs().get('demo')!.unreadChannels();
    // It waits for the sweep, and the session that starts meanwhile for its detail.
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(reads.slice(changedAt)).not.toContain(changed);
    expect(details).toEqual([]);
    // Five minutes on (the start is seen at the live channel's next read, 2 minutes in, and
    // details are read every minute), the baseline still under way, both are read.
    await vi.advanceTimersByTimeAsync(5.5 * 60_000);
    expect(unread()).toBeGreaterThan(0);
    expect(reads.slice(changedAt)).toContain(changed);
    expect(details).toContain('s-new');
    // Reads in flight take their 10 s.
    const stopping = p.stop(20_000);
    await vi.advanceTimersByTimeAsync(15_000);
    await stopping;
  });
});

describe('the bound the planner states', () => {
  it('holds for every channel while a third of them move their hint at every list read', async () => {
    // 100 idle channels; 30 of them show new activity in every channel list (read every
    // 30 s), so they ask to be read first far more often than the sweep's rate allows.
    let listReads = 0;
    const channels = (): Channel[] =>
      Array.from({ length: 100 }, (_, i) => ({
        id: `ch-${String(i).padStart(3, '0')}`,
        status: 'idle',
        ...(i < 30 ? { activityAt: START + listReads * 1000 } : { activityAt: START }),
      }));
    const readAt = new Map<string, number[]>();
    const reads: string[] = [];
    const inner = org([], reads);
    const fetcher: Fetcher = {
      ...inner,
      fetchChannels: async () => {
        listReads++;
        return { state: 'complete', at: Date.now(), value: channels() };
      },
      fetchSessions: async (a, ch, o) => {
        readAt.set(ch, [...(readAt.get(ch) ?? []), Date.now()]);
        return inner.fetchSessions(a, ch, o);
      },
    };
    const p = listPoller(fetcher, { capacity: 60, spare: 0 });
    p.start();
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    const bound = p.plan().sweepBoundMs;
    // About 52 sweep reads a minute; one round of 100 at 70 % of that: about 165 s.
    expect(bound).toBeGreaterThan(150_000);
    expect(bound).toBeLessThan(180_000);
    const from = Date.now();
    await vi.advanceTimersByTimeAsync(12 * 60_000);
    const to = Date.now();
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    let worst = 0;
    for (const [, times] of readAt) {
      const inside = times.filter((t) => t >= from && t <= to);
      let prev = times.filter((t) => t < from).at(-1) ?? from;
      for (const t of inside) {
        worst = Math.max(worst, t - prev);
        prev = t;
      }
      worst = Math.max(worst, to - prev);
    }
    expect(readAt.size).toBe(100);
    expect(worst).toBeLessThanOrEqual(bound);
    // The hints are still read first with what the bound leaves: more often than the rest.
    const count = (id: string) => (readAt.get(id) ?? []).filter((t) => t >= from && t <= to).length;
    expect(count('ch-000')).toBeGreaterThan(count('ch-099'));
  });

  it('a channel held back by the minimum interval is read again when it has passed, not a tick later', async () => {
    const channels = Array.from({ length: 4 }, (_, i) => ({ id: `ch-${i}`, status: 'idle' }));
    const starts = new Map<string, number[]>();
    const inner = org(channels, []);
    const fetcher: Fetcher = {
      ...inner,
      // Each read takes 300 ms to answer.
      fetchSessions: async (a, ch, o) => {
        starts.set(ch, [...(starts.get(ch) ?? []), Date.now()]);
        await new Promise((r) => setTimeout(r, 300));
        return inner.fetchSessions(a, ch, o);
      },
    };
    const p = poller(fetcher, () => 8);
    p.start();
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    for (const ch of channels) {
      const t = starts.get(ch.id) ?? [];
      expect(t.length).toBeGreaterThanOrEqual(8);
      for (let i = 1; i < t.length; i++) {
        // Never sooner than the minimum, and not the 16 s a whole-second tick after the
        // answer would make it.
        expect(t[i]! - t[i - 1]!).toBeGreaterThanOrEqual(15_000);
        expect(t[i]! - t[i - 1]!).toBeLessThan(15_100);
      }
    }
  });
});

describe('the first baseline starts with the channel list', () => {
  it('a small org has every channel read within moments of the first list, not at the next ticks', async () => {
    const channels = Array.from({ length: 12 }, (_, i) => ({ id: `ch-${i}`, status: 'idle' }));
    const first = new Map<string, number>();
    const inner = org(channels, []);
    const fetcher: Fetcher = {
      ...inner,
      fetchChannels: async (a, o) => {
        await new Promise((r) => setTimeout(r, 50));
        return inner.fetchChannels(a, o);
      },
      fetchSessions: async (a, ch, o) => {
        if (!first.has(ch)) first.set(ch, Date.now());
        await new Promise((r) => setTimeout(r, 20));
        return inner.fetchSessions(a, ch, o);
      },
    };
    const p = poller(fetcher, () => 20);
    p.start();
    await vi.advanceTimersByTimeAsync(5000);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    expect(first.size).toBe(12);
    // The list arrives at 50 ms; eight slots, then the rest as each first read ends.
    expect(Math.max(...first.values()) - START).toBeLessThan(200);
  });
});

describe('periodic reads are spread', () => {
  it('a round of live details goes out over most of the detail interval, each session once a round', async () => {
    const channels = Array.from({ length: 20 }, (_, i) => ({
      id: `ch-${String(i).padStart(2, '0')}`,
      status: 'live',
    }));
    const live = (ch: string): Session[] => [
      { id: `s-${ch}`, channelId: ch, status: 'live', startedAt: START - HOUR / 2 },
    ];
    const inner = org(channels, [], live);
    const details: [string, number][] = [];
    const fetcher: Fetcher = {
      ...inner,
      fetchSessionDetail: async (a, id, o) => {
        details.push([id, Date.now()]);
        return inner.fetchSessionDetail(a, id, o);
      },
    };
    // Budget enough for every live read at its interval (nothing stretched).
    const p = poller(fetcher, () => 20, 15 * 60_000, 240);
    p.start();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    // Rounds of 20 details, spread over 0.8 of the 60 s interval (2.4 s apart), not in one burst.
    expect(details.length).toBeGreaterThanOrEqual(60);
    const times = details.map(([, t]) => t).sort((a, b) => a - b);
    for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(2000);
    // Each session keeps its period: about a minute between two reads of one detail.
    const one = details.filter(([id]) => id === 's-ch-05').map(([, t]) => t);
    for (let i = 2; i < one.length; i++) expect(Math.abs(one[i]! - one[i - 1]! - 60_000)).toBeLessThan(5000);
  });
});

describe('the channel list on idle budget', () => {
  const run = async (channelsMin: number | undefined, spare: number, capacity = 240) => {
    const channels = Array.from({ length: 12 }, (_, i) => ({ id: `ch-${i}`, status: 'idle' }));
    const lists: number[] = [];
    const inner = org(channels, []);
    const fetcher: Fetcher = {
      ...inner,
      fetchChannels: async (a, o) => {
        lists.push(Date.now());
        return inner.fetchChannels(a, o);
      },
    };
    const p = listPoller(fetcher, { capacity, spare, channelsMin });
    p.start();
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    return lists;
  };

  it('is read as often as channels_min allows while budget idles, never sooner', async () => {
    const lists = await run(15_000, 20);
    // 3 minutes: every 15 s instead of every 30 s.
    expect(lists.length).toBeGreaterThanOrEqual(11);
    for (let i = 1; i < lists.length; i++) expect(lists[i]! - lists[i - 1]!).toBeGreaterThanOrEqual(15_000);
  });

  it('is read at channels_min when that costs at most 5 % of the budget, idle or not', async () => {
    // One page every 15 s: 4 of 240 requests a minute.
    const lists = await run(15_000, 0);
    expect(lists.length).toBeGreaterThanOrEqual(11);
    for (let i = 1; i < lists.length; i++) expect(lists[i]! - lists[i - 1]!).toBeGreaterThanOrEqual(15_000);
  });

  it('keeps its interval when reading it at channels_min costs more and no budget is idle, or without channels_min', async () => {
    // 4 of 60 requests a minute is more than 5 %.
    expect((await run(15_000, 0, 60)).length).toBeLessThanOrEqual(7);
    expect((await run(undefined, 20)).length).toBeLessThanOrEqual(7);
    // A minimum at or above the interval turns early reads off, and holds back no regular one.
    const slow = await run(60_000, 20);
    expect(slow.length).toBeGreaterThanOrEqual(6);
    expect(slow.length).toBeLessThanOrEqual(7);
  });
});

describe('the channel list interval follows what the list costs', () => {
  /** A poller of one org of `n` idle channels; counts reads of the list and of the profile. */
  const start = (n: number, capacity: () => number, jitter = 0) => {
    const channels = Array.from({ length: n }, (_, i) => ({ id: `ch-${i}`, status: 'idle' }));
    const reads = { channels: [] as number[], org: [] as number[] };
    const inner = org(channels, []);
    const fetcher: Fetcher = {
      ...inner,
      fetchChannels: async (a, o) => {
        reads.channels.push(Date.now());
        return inner.fetchChannels(a, o);
      },
      fetchOrg: async (a, o) => {
        reads.org.push(Date.now());
        return inner.fetchOrg(a, o);
      },
    };
    const reserves: number[] = [];
    const p = pollerOf(fetcher, {
      capacity,
      reserveForHigh: (r) => reserves.push(r),
      intervals: { org: 60_000, channels: 30_000, channels_min: 15_000, jitter },
    });
    p.start();
    const stop = async () => {
      const stopping = p.stop(1000);
      await vi.advanceTimersByTimeAsync(2000);
      await stopping;
    };
    return { p, reads, reserves, stop };
  };

  it('a list of 10 pages, first planned as one unknown page, is read every 30 s once it is known', async () => {
    const { p, reads, reserves, stop } = start(1000, () => 240, 0.1);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    await stop();
    expect(p.plan().listAtMin).toBe(false);
    expect(p.plan().intervals.channels).toBe(30_000);
    // 10 pages every 30 s is 20 a minute: some 10 reads in 5 minutes, not 20.
    expect(reads.channels.length).toBeLessThanOrEqual(12);
    expect(reserves.at(-1)).toBe(10 * 2 + 10);
  });

  it('a cheap list is read at channels_min while hot reads are stretched, and they yield to the sweep', async () => {
    // The lively world's shape: 85 of 100 channels live, a live session each, so the hot
    // reads ask 85 × 2 + 85 = 255 a minute of the 194 the room has.
    const channels = Array.from({ length: 100 }, (_, i) => ({
      id: `ch-${String(i).padStart(3, '0')}`,
      status: i < 85 ? 'live' : 'idle',
    }));
    const lists: number[] = [];
    const inner = org(channels, [], (ch) =>
      Number(ch.slice(3)) < 85
        ? [{ id: `s-${ch}`, channelId: ch, status: 'live', scheduledAt: START, startedAt: START } as Session]
        : [],
    );
    const fetcher: Fetcher = {
      ...inner,
      fetchChannels: async (a, o) => {
        lists.push(Date.now());
        return inner.fetchChannels(a, o);
      },
    };
    const p = pollerOf(fetcher, {
      capacity: () => 240,
      intervals: { channels: 30_000, channels_min: 15_000 },
    });
    p.start();
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    const plan = p.plan();
    const stopping = p.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    await stopping;
    expect(plan.listAtMin).toBe(true);
    expect(plan.intervals.channels).toBe(15_000);
    // 3 minutes at 15 s, not at 30 s (7).
    expect(lists.length).toBeGreaterThanOrEqual(11);
    for (let i = 1; i < lists.length; i++) expect(lists[i]! - lists[i - 1]!).toBeGreaterThanOrEqual(15_000);
    // Stretched past fitting (255 / 189.9 = 1.34) until the hot interval meets the sweep's bound.
    expect(plan.hotStretch).toBeGreaterThan(2);
    expect(plan.notes.join()).toContain('so that the sweep reads every channel as often');
    expect(plan.sweepReadsPerMinute).toBeGreaterThan(90);
  });

  it('under a short budget that moves a little every minute, the other reads keep their schedule', async () => {
    const t0 = Date.now();
    const { reads, stop } = start(5000, () => 120 + (Date.now() - t0) / 60_000);
    await vi.advanceTimersByTimeAsync(40_000);
    const before = { channels: reads.channels.length, org: reads.org.length };
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await stop();
    // The list every 30 s or a little more (stretched), the profile every minute or so.
    expect(reads.channels.length - before.channels).toBeGreaterThanOrEqual(15);
    expect(reads.org.length - before.org).toBeGreaterThanOrEqual(8);
  });
});
