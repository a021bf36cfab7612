/** The bench's judge of the stalest channel against the bound stated at each moment. */
import { describe, expect, it } from 'vitest';
import { stalestAgainstBound } from '../../bench/lib/stalest.js';

describe('stalestAgainstBound', () => {
  const bounds = [
    { at: 0, boundMs: 100 },
    { at: 50, boundMs: 100 },
    // The bound comes down at 100: a channel already 90 old is judged against it.
    { at: 100, boundMs: 60 },
    { at: 200, boundMs: 60 },
  ];

  it('judges every moment against the bound of that moment, the lower one between two points', () => {
    const r = stalestAgainstBound({
      reads: new Map([
        ['a', [10, 95]],
        ['b', [40, 90, 140, 190]],
      ]),
      channelIds: ['a', 'b'],
      from: 0,
      end: 200,
      bounds,
    });
    // a: read at 95, then not again: 105 old at the end against 60.
    expect(r.maxRatio).toBeCloseTo(105 / 60);
    expect(r.channelsOver).toBe(1);
    // b's gaps of 50 stay under 60; its first, from the start, is 40 against 100.
    const onlyB = stalestAgainstBound({
      reads: new Map([['b', [40, 90, 140, 190]]]),
      channelIds: ['b'],
      from: 0,
      end: 200,
      bounds,
    });
    expect(onlyB.channelsOver).toBe(0);
    // 50 against 60 at 140 (between 100 and 200 the bound is 60).
    expect(onlyB.maxRatio).toBeCloseTo(50 / 60);
  });

  it('a cold start counts from the first read; no bound known judges nothing', () => {
    const reads = new Map([['a', [80, 130]]]);
    expect(
      stalestAgainstBound({ reads, channelIds: ['a'], from: 0, end: 150, bounds, fromFirstRead: true })
        .maxRatio,
    ).toBeCloseTo(50 / 60);
    expect(stalestAgainstBound({ reads, channelIds: ['a'], from: 0, end: 150, bounds: [] }).maxRatio).toBe(0);
  });
});
