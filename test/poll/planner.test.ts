import { describe, expect, it } from 'vitest';
import {
  hotAgainstSweep,
  nextToSweep,
  type OrgLoad,
  type PlanIntervals,
  plan,
  ROUND_SHARE,
  SWEEP_SLACK_MS,
} from '../../src/poll/planner.js';

const iv: PlanIntervals = {
  org: 600_000,
  team: 300_000,
  subscription: 300_000,
  channels: 30_000,
  live_sessions: 30_000,
  live_detail: 60_000,
  sweep: 900_000,
};

const org = (o: Partial<OrgLoad> = {}): OrgLoad => ({
  slug: 'a',
  channels: 100,
  channelPages: 1,
  hotChannels: 0,
  liveSessions: 0,
  sessionPages: 1,
  ...o,
});

describe('plan', () => {
  it.each([
    // name, budget, orgs, expected sweep reads/min, expected bound (s), stretch
    // Fixed reads of one org: 0.1 + 0.2 + 0.2 (profile, team, subscription) + 2 (channel list).
    [
      'one org of 100 channels sweeps with all the budget the other reads leave',
      240,
      [org()],
      240 * 0.9 - 2.5,
      // one round at ROUND_SHARE of that rate: the rest is room for reads given first
      (100 / ((240 * 0.9 - 2.5) * ROUND_SHARE)) * 60,
      1,
    ],
    [
      'a small org is swept no faster than every channel every 15 s',
      240,
      [org({ channels: 8 })],
      8 * 4,
      // the minimum, and a moment for a read due to go out
      15 + SWEEP_SLACK_MS / 1000,
      1,
    ],
    [
      '5000 channels take what is left',
      240,
      [org({ channels: 5000, channelPages: 50 })],
      240 * 0.9 - 100 - 0.5,
      null,
      1,
    ],
    ['no channels: no sweep', 240, [org({ channels: 0 })], 0, 0, 1],
  ])('%s', (_name, budget, orgs, sweep, boundSeconds, stretch) => {
    const p = plan({ budgetPerMinute: budget, intervals: iv, orgs });
    expect(p.sweepReadsPerMinute).toBeCloseTo(sweep, 5);
    if (boundSeconds !== null) expect(p.sweepBoundMs / 1000).toBeCloseTo(boundSeconds, 0);
    expect(p.stretch).toBe(stretch);
    expect(p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep + p.perMinute.reserve).toBeLessThanOrEqual(
      budget,
    );
  });

  it('states the sweep bound when the budget cannot meet the target', () => {
    const p = plan({
      budgetPerMinute: 240,
      intervals: iv,
      orgs: [org({ channels: 5000, channelPages: 50 })],
    });
    // 5000 reads at ROUND_SHARE of (216 - 100.5)/min
    expect(p.sweepBoundMs).toBe(Math.ceil((5000 / ((216 - 100.5) * ROUND_SHARE)) * 60_000));
    expect(p.intervals.sweep).toBe(p.sweepBoundMs);
    expect(p.notes.join()).toContain('every channel within');
  });

  it('stretches hot reads first and keeps the channel list as configured while the fixed reads fit', () => {
    const p = plan({
      budgetPerMinute: 240,
      intervals: iv,
      orgs: [org({ channels: 1000, channelPages: 10, hotChannels: 100, liveSessions: 100 })],
    });
    // room 240·0.9·0.9 = 174.96; fixed 0.1 + 0.2 + 0.2 + 20 = 20.5; hot 200 + 100 = 300
    const room = 240 * 0.9 * 0.9;
    const fit = 300 / (room - 20.5);
    expect(p.stretch).toBe(1);
    expect(p.intervals.channels).toBe(30_000);
    // Fitted, the hot reads would read 100 channels every 52 s and leave the sweep a round
    // of 1000 channels in over an hour: they are stretched on until the two meet.
    const usable = 240 * 0.9;
    const sweepAtHotPace = (1000 * 60_000) / (ROUND_SHARE * 30_000 * fit);
    const further = (room - 20.5 + sweepAtHotPace) / (usable - 20.5);
    expect(p.hotStretch).toBeCloseTo(fit * further, 5);
    expect(p.intervals.live_sessions).toBe(Math.ceil(30_000 * p.hotStretch));
    expect(p.intervals.live_detail).toBe(Math.ceil(60_000 * p.hotStretch));
    expect(p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep).toBeCloseTo(usable, 5);
    expect(p.sweepBoundMs / p.intervals.live_sessions).toBeCloseTo(1, 3);
    expect(p.notes[0]).toContain('channel list kept');
    expect(p.notes[1]).toContain('so that the sweep reads every channel as often');
  });

  it('the lively world at 100 channels: the list at channels_min, hot reads and the sweep meet at one pace', () => {
    // 85 of 100 channels hot (live, or a start at hand), 60 details owed: 170 + 60 = 230 a
    // minute of hot reads, more than the 194 the room has.
    const p = plan({
      budgetPerMinute: 240,
      intervals: { ...iv, channels_min: 15_000 },
      orgs: [org({ hotChannels: 85, liveSessions: 60 })],
    });
    // The list costs 4 of 240 a minute at 15 s: read so although the hot reads are stretched.
    expect(p.listAtMin).toBe(true);
    expect(p.intervals.channels).toBe(15_000);
    expect(p.stretch).toBe(1);
    // One stretch for sessions and details; the sweep's bound is the hot channels' interval.
    expect(p.hotStretch).toBeGreaterThan(230 / (240 * 0.81 - 4.5));
    expect(p.sweepBoundMs).toBeGreaterThanOrEqual(p.intervals.live_sessions - 1);
    expect(p.sweepBoundMs).toBeLessThanOrEqual(p.intervals.live_sessions + 1);
    // Every channel within 90 s, where the hot reads given 90 % of the room left 6.6 minutes.
    expect(p.sweepBoundMs).toBeLessThan(90_000);
    expect(p.sweepReadsPerMinute).toBeGreaterThan(95);
    expect(p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep).toBeCloseTo(240 * 0.9, 5);
  });

  it('hot reads that fit are not stretched, however long the sweep takes', () => {
    const p = plan({
      budgetPerMinute: 240,
      intervals: iv,
      orgs: [org({ channels: 5000, channelPages: 50, hotChannels: 20, liveSessions: 20 })],
    });
    expect(p.hotStretch).toBe(1);
    expect(p.intervals.live_sessions).toBe(30_000);
    expect(p.sweepBoundMs).toBeGreaterThan(60 * 60_000);
  });

  it('stretches the fixed reads too when they do not fit beside a quarter of the room for hot reads', () => {
    const p = plan({
      budgetPerMinute: 60,
      intervals: iv,
      orgs: [org({ channels: 5000, channelPages: 50, hotChannels: 40, liveSessions: 40 })],
    });
    // room 60·0.9·0.9 = 48.6: fixed 100.5 and hot 80 + 40 do not fit; hot keeps a quarter of it
    const room = 60 * 0.9 * 0.9;
    expect(p.hotStretch).toBeCloseTo(120 / (room * 0.25), 5);
    expect(p.stretch).toBeCloseTo(100.5 / (room * 0.75), 5);
    expect(p.intervals.channels).toBe(Math.ceil(30_000 * p.stretch));
    expect(p.sweepReadsPerMinute).toBeCloseTo(60 * 0.9 * 0.1, 5);
    expect(p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep + p.perMinute.reserve).toBeCloseTo(60, 5);
    expect(p.notes[0]).toContain('budget short');
  });

  it('reads a channel list at channels_min while that costs at most 5 % of the budget', () => {
    const withMin = { ...iv, channels_min: 15_000 };
    // 3 pages every 15 s: 12 of 240 requests a minute.
    const cheap = plan({ budgetPerMinute: 240, intervals: withMin, orgs: [org({ channelPages: 3 })] });
    expect(cheap.intervals.channels).toBe(15_000);
    expect(cheap.perMinute.fixed).toBeCloseTo(0.5 + 12, 5);
    // 4 pages (or two orgs of 2) would be 16: the list keeps its own interval.
    expect(
      plan({ budgetPerMinute: 240, intervals: withMin, orgs: [org({ channelPages: 4 })] }).intervals.channels,
    ).toBe(30_000);
    const two = [org({ channelPages: 2 }), org({ slug: 'b', channelPages: 2 })];
    expect(plan({ budgetPerMinute: 240, intervals: withMin, orgs: two }).intervals.channels).toBe(30_000);
    // A smaller budget makes the same list dear; no channels_min, or one at the interval, reads at the interval.
    expect(plan({ budgetPerMinute: 60, intervals: withMin, orgs: [org()] }).intervals.channels).toBe(30_000);
    expect(plan({ budgetPerMinute: 240, intervals: iv, orgs: [org()] }).intervals.channels).toBe(30_000);
    expect(
      plan({ budgetPerMinute: 240, intervals: { ...iv, channels_min: 30_000 }, orgs: [org()] }).intervals
        .channels,
    ).toBe(30_000);
  });

  it('never plans more than the budget, whatever the load', () => {
    for (const budget of [1, 10, 60, 240, 300]) {
      for (const channels of [0, 1, 100, 5000]) {
        const p = plan({
          budgetPerMinute: budget,
          intervals: iv,
          orgs: [
            org({
              channels,
              channelPages: Math.ceil(channels / 100) || 1,
              hotChannels: channels / 10,
              liveSessions: channels / 10,
            }),
          ],
        });
        const total = p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep + p.perMinute.reserve;
        expect(total).toBeLessThanOrEqual(budget + 1e-9);
      }
    }
  });
});

describe('nextToSweep', () => {
  it('takes never-read channels first, then the oldest, deterministically', () => {
    const entries = [
      { org: 'b', channelId: '1', lastReadAt: 50 },
      { org: 'a', channelId: '2', lastReadAt: undefined },
      { org: 'a', channelId: '1', lastReadAt: 10 },
      { org: 'a', channelId: '3', lastReadAt: undefined },
    ];
    expect(nextToSweep(entries, 3).map((e) => `${e.org}/${e.channelId}`)).toEqual(['a/2', 'a/3', 'a/1']);
    expect(nextToSweep(entries, 0)).toEqual([]);
  });
});

describe('hotAgainstSweep', () => {
  it('is 1 while the sweep reads every channel within the hot interval', () => {
    // 100 channels within 30 s take 100 / 0.7 reads every half minute: 285.7 a minute.
    expect(hotAgainstSweep({ hot: 50, room: 400, sweepNeed: 100, hotIntervalMs: 30_000 })).toBe(1);
    expect(hotAgainstSweep({ hot: 0, room: 100, sweepNeed: 100, hotIntervalMs: 30_000 })).toBe(1);
    expect(hotAgainstSweep({ hot: 50, room: 100, sweepNeed: 0, hotIntervalMs: 30_000 })).toBe(1);
  });

  it('splits the room where the stretched hot interval meets the sweep round', () => {
    const o = { hot: 150, room: 200, sweepNeed: 100, hotIntervalMs: 40_000 };
    const k = hotAgainstSweep(o);
    expect(k).toBeGreaterThan(1);
    const hot = o.hot / k;
    const sweep = o.room - hot;
    // the sweep's round at ROUND_SHARE of its rate, in ms, against the hot interval stretched by k
    const round = (o.sweepNeed / (ROUND_SHARE * sweep)) * 60_000;
    expect(round).toBeCloseTo(o.hotIntervalMs * k, 3);
  });
});
