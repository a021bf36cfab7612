/**
 * The follow-ups counted in the plan (docs/polling.md, "The planner"): the session and
 * detail reads given first, measured over the last minute on the injected clock, take
 * their room before the hot reads and the sweep, so that the sweep's share and its bound
 * are what is really left.
 */
import { describe, expect, it } from 'vitest';
import type { Fetcher } from '../../src/poll/fetcher.js';
import {
  followUpClaim,
  MAX_FOLLOW_SHARE,
  type OrgLoad,
  type PlanIntervals,
  plan,
  ROUND_SHARE,
} from '../../src/poll/planner.js';
import { SpendMeter } from '../../src/poll/spend.js';
import type { OrgAuth } from '../../src/upstream/types.js';
import { ManualClock } from '../helpers/clock.js';

const iv: PlanIntervals = {
  org: 60_000,
  team: 60_000,
  subscription: 60_000,
  channels: 30_000,
  channels_min: 15_000,
  live_sessions: 30_000,
  live_detail: 60_000,
  sweep: 900_000,
};

/** The lively world at 100 channels: 85 hot, 60 details owed. */
const lively: OrgLoad = {
  slug: 'demo',
  channels: 100,
  channelPages: 1,
  hotChannels: 85,
  liveSessions: 60,
  sessionPages: 1,
};

describe('followUpClaim', () => {
  it('counts only what the reserve does not cover, up to its share of the rest', () => {
    expect(followUpClaim(undefined, 24, 240)).toBe(0);
    expect(followUpClaim(10, 24, 240)).toBe(0);
    expect(followUpClaim(65, 24, 240)).toBe(41);
    expect(followUpClaim(400, 24, 240)).toBeCloseTo(216 * MAX_FOLLOW_SHARE, 9);
    expect(followUpClaim(Number.NaN, 24, 240)).toBe(0);
  });
});

describe('plan with the follow-ups measured', () => {
  it('the lively world at 100 channels: 65 follow-ups a minute come out of the plan, not the sweep', () => {
    const without = plan({ budgetPerMinute: 240, intervals: iv, orgs: [lively] });
    const p = plan({ budgetPerMinute: 240, intervals: iv, orgs: [lively], followUpsPerMinute: 65 });
    // The reserve grows to the follow-ups: 65 of 240, 175 left for the plan.
    expect(p.perMinute.reserve).toBeCloseTo(65, 9);
    expect(p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep).toBeCloseTo(175, 5);
    expect(p.notes[0]).toContain('follow-ups take 65/min');
    // The list stays at channels_min: it is what shows a channel going live.
    expect(p.listAtMin).toBe(true);
    expect(p.intervals.channels).toBe(15_000);
    // The hot reads yield further, and still meet the sweep's round.
    expect(p.hotStretch).toBeGreaterThan(without.hotStretch);
    expect(p.sweepBoundMs).toBeGreaterThanOrEqual(p.intervals.live_sessions - 1);
    expect(p.sweepBoundMs).toBeLessThanOrEqual(p.intervals.live_sessions + 1);
    // The bound is one round at ROUND_SHARE of the rate the sweep really has.
    expect(p.sweepBoundMs / 1000).toBeCloseTo((100 / (ROUND_SHARE * p.sweepReadsPerMinute)) * 60, 0);
    expect(p.sweepBoundMs).toBeGreaterThan(without.sweepBoundMs);
    expect(p.sweepReadsPerMinute).toBeLessThan(without.sweepReadsPerMinute);
  });

  it('follow-ups within the reserve change nothing', () => {
    const without = plan({ budgetPerMinute: 240, intervals: iv, orgs: [lively] });
    const p = plan({ budgetPerMinute: 240, intervals: iv, orgs: [lively], followUpsPerMinute: 20 });
    expect(p).toEqual(without);
  });

  it('a storm of follow-ups leaves the sweep its least share and never plans past the budget', () => {
    for (const f of [0, 50, 120, 240, 1000]) {
      const p = plan({ budgetPerMinute: 240, intervals: iv, orgs: [lively], followUpsPerMinute: f });
      const total = p.perMinute.fixed + p.perMinute.hot + p.perMinute.sweep + p.perMinute.reserve;
      expect(total).toBeLessThanOrEqual(240 + 1e-9);
      expect(p.perMinute.reserve).toBeLessThanOrEqual(24 + 216 * MAX_FOLLOW_SHARE + 1e-9);
      expect(p.sweepReadsPerMinute).toBeGreaterThanOrEqual((240 - p.perMinute.reserve) * 0.1 - 1e-9);
    }
  });
});

describe('SpendMeter.givenFirst', () => {
  const auth = { slug: 'demo' } as OrgAuth;
  const fetcher = (): Fetcher => {
    const part = async () => ({ state: 'complete', at: 0, value: [] }) as never;
    return {
      fetchOrg: part,
      fetchTeam: part,
      fetchSubscription: part,
      fetchChannels: part,
      fetchSessions: part,
      fetchSessionDetail: part,
    };
  };

  it('counts session and detail reads at follow or high priority over the last minute', async () => {
    const clock = new ManualClock();
    const meter = new SpendMeter(clock);
    const f = meter.wrap(fetcher());
    await f.fetchSessions(auth, 'ch-1', { priority: 'follow' });
    await f.fetchSessions(auth, 'ch-2', { urgency: { priority: 'high' } as never });
    await f.fetchSessionDetail(auth, 's-1', { priority: 'follow' });
    // Planned reads: the sweep, the hot reads, a live detail, the channel list.
    await f.fetchSessions(auth, 'ch-3', { priority: 'low' });
    await f.fetchSessions(auth, 'ch-4', {});
    await f.fetchSessionDetail(auth, 's-2', { priority: 'normal' });
    await f.fetchChannels(auth, { priority: 'high' });
    expect(meter.givenFirst()).toBe(3);
    clock.advance(30_000);
    await f.fetchSessionDetail(auth, 's-3', { priority: 'high' });
    expect(meter.givenFirst()).toBe(4);
    // The first three are a minute old: forgotten.
    clock.advance(30_000);
    expect(meter.givenFirst()).toBe(1);
    clock.advance(30_000);
    expect(meter.givenFirst()).toBe(0);
    expect(meter.of('demo').follow_up).toBe(0);
  });
});

describe('SpendMeter.givenFirstPeak', () => {
  it('rises at once with a burst of follow-ups and comes down only after 5 calmer minutes', async () => {
    const clock = new ManualClock();
    const meter = new SpendMeter(clock);
    const part = async () => ({ state: 'complete', at: 0, value: [] }) as never;
    const f = meter.wrap({
      fetchOrg: part,
      fetchTeam: part,
      fetchSubscription: part,
      fetchChannels: part,
      fetchSessions: part,
      fetchSessionDetail: part,
    });
    const auth = { slug: 'demo' } as OrgAuth;
    expect(meter.givenFirstPeak()).toBe(0);
    for (let i = 0; i < 40; i++) await f.fetchSessions(auth, `ch-${i}`, { priority: 'follow' });
    expect(meter.givenFirstPeak()).toBe(40);
    // The burst leaves the last minute after 60 s; the plans of the 5 minutes after it keep it.
    for (let k = 0; k < 10; k++) {
      clock.advance(30_000);
      await f.fetchSessionDetail(auth, `s-${k}`, { priority: 'follow' });
      expect(meter.givenFirstPeak()).toBeGreaterThanOrEqual(40);
    }
    // Then only the calm minutes are left: two follow-ups a minute.
    clock.advance(30_000);
    await f.fetchSessionDetail(auth, 's-last', { priority: 'follow' });
    expect(meter.givenFirstPeak()).toBe(2);
  });
});
