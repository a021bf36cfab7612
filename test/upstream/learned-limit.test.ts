import { describe, expect, it } from 'vitest';
import { LearnedLimit } from '../../src/upstream/transport/learned-limit.js';

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const MIN = 60_000;

describe('LearnedLimit', () => {
  it('stays at the configured budget while nothing says the address is short', () => {
    const l = new LearnedLimit(240);
    expect(l.at(T0)).toBe(240);
    expect(l.at(T0 + 60 * MIN)).toBe(240);
    expect(l.stats(T0)).toEqual({ perMinute: 240, from: 'configured', decreases: 0 });
  });

  it('goes down to 0.85 × what the server accepted of this process, no deeper than half at once', () => {
    const l = new LearnedLimit(240);
    expect(l.short(T0, 100, T0 + 2000)).toBe(true);
    // 0.85 × 100 = 85 is below half of 240: half it is.
    expect(l.at(T0)).toBe(120);
    const m = new LearnedLimit(240);
    m.short(T0, 200, T0 + 2000);
    expect(m.at(T0)).toBe(170);
    expect(m.stats(T0)).toEqual({ perMinute: 170, from: 'refusals', loweredAt: T0, decreases: 1 });
  });

  it('goes down at most once per window, and a refusal in it postpones the recovery', () => {
    const l = new LearnedLimit(240);
    l.short(T0, 200, T0 + 1000);
    expect(l.short(T0 + 30_000, 10, T0 + 31_000)).toBe(false);
    // What grew from 1 s to 30 s (9.6 a minute) stays; growth stops until the pause is over.
    expect(l.at(T0 + 30_500)).toBeCloseTo(174.64, 6);
    expect(l.at(T0 + 31_000)).toBeCloseTo(174.64, 6);
    expect(l.at(T0 + 31_000 + MIN)).toBeCloseTo(184.24, 6);
    expect(l.short(T0 + 61_000, 100, T0 + 62_000)).toBe(true);
    // 0.85 × min(179.44, 100) = 85, against half of 179.44.
    expect(l.at(T0 + 62_000)).toBeCloseTo(89.72, 6);
    expect(l.stats(T0 + 62_000).decreases).toBe(2);
  });

  it('recovers additively, 4 % of the configured budget a minute, back to it', () => {
    const l = new LearnedLimit(240);
    l.short(T0, 200, T0 + 1000);
    expect(l.at(T0 + 1000)).toBe(170);
    expect(l.at(T0 + 1000 + 2 * MIN)).toBeCloseTo(189.2, 6);
    expect(l.at(T0 + 1000 + 7 * MIN)).toBeCloseTo(237.2, 6);
    expect(l.at(T0 + 1000 + 8 * MIN)).toBe(240);
    expect(l.stats(T0 + 1000 + 8 * MIN)).toMatchObject({ perMinute: 240, from: 'configured' });
  });

  it('never goes below its floor, so a lone process that was starved recovers', () => {
    const l = new LearnedLimit(240);
    for (let i = 0; i < 10; i++) l.short(T0 + i * MIN, 0, T0 + i * MIN);
    expect(l.at(T0 + 9 * MIN)).toBe(24);
    expect(l.at(T0 + 19 * MIN)).toBeCloseTo(120, 6);
    expect(l.at(T0 + 9 * MIN + 100 * MIN)).toBe(240);
  });

  it('says the server taught it when the rate-limit fields lowered it', () => {
    const l = new LearnedLimit(240);
    l.short(T0, 200, T0, 'server');
    expect(l.stats(T0)).toMatchObject({ perMinute: 170, from: 'server' });
    expect(l.stats(T0 + 10 * MIN)).toMatchObject({ perMinute: 240, from: 'configured' });
  });

  it('keeps a lower learned limit across a new configured budget, and caps it at a lower one', () => {
    const l = new LearnedLimit(240);
    l.short(T0, 200, T0);
    l.setConfigured(200, T0);
    expect(l.at(T0)).toBe(170);
    l.setConfigured(100, T0);
    expect(l.at(T0)).toBe(100);
  });

  it('moves its times with a clock set back', () => {
    const l = new LearnedLimit(240);
    l.short(T0, 200, T0 + 1000);
    l.shift(-5 * MIN);
    // Recovery now counts from 5 minutes earlier: 5 minutes' worth (48) is back.
    expect(l.at(T0 + 1000)).toBe(218);
    expect(l.short(T0 - 4 * MIN, 10, T0 - 4 * MIN)).toBe(true);
  });
});
