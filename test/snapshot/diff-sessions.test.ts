import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameInstant } from '../../src/snapshot/diff-context.js';
import { diff } from '../../src/snapshot/diff.js';
import { MIN, sessionOf, snapshotOf, T0, T1, twoReads, world } from './fixtures.js';

describe('session times: a new precision is not a change', () => {
  it('a scheduled time written once with milliseconds and once in whole seconds is no reschedule (precision)', () => {
    const withMs = twoReads((w) => {
      sessionOf(w, 's1').scheduledAt = T0 + 10 * MIN + 956;
    });
    expect(diff(...withMs)).toEqual([]);
    const back = twoReads((w) => {
      sessionOf(w, 's1').scheduledAt = T0 + 10 * MIN + 956;
    }).reverse() as typeof withMs;
    expect(diff(...back)).toEqual([]);
  });

  it('a move of a second or more, or between two times that both carry milliseconds, is a reschedule', () => {
    const second = twoReads((w) => {
      sessionOf(w, 's1').scheduledAt = T0 + 10 * MIN + 1000;
    });
    expect(diff(...second)).toMatchObject([{ kind: 'session.rescheduled', to: T0 + 10 * MIN + 1000 }]);
    expect(sameInstant(T0 + 250, T0 + 750)).toBe(false);
  });

  it('a moved planned end is a reschedule of its own field; the same end in another precision is none', () => {
    const w = world();
    const s = sessionOf(w, 's1');
    s.scheduledEndAt = T0 + 60 * MIN;
    const prev = snapshotOf(w, T0);
    s.scheduledEndAt = T0 + 60 * MIN + 400;
    expect(diff(prev, snapshotOf(w, T1))).toEqual([]);
    s.scheduledEndAt = T0 + 75 * MIN;
    expect(diff(prev, snapshotOf(w, T1))).toMatchObject([
      { kind: 'session.rescheduled', field: 'scheduled_end_at', from: T0 + 60 * MIN, to: T0 + 75 * MIN },
    ]);
    // Both ends moved: two events, told apart by their field (and so by their ids).
    s.scheduledAt = T0 + 15 * MIN;
    const both = diff(prev, snapshotOf(w, T1));
    expect(both.map((e) => e.field).sort()).toEqual(['scheduled_at', 'scheduled_end_at']);
    expect(new Set(both.map((e) => e.id)).size).toBe(2);
  });

  it('start and end times that only change precision start or end nothing', () => {
    const w = world();
    const s = sessionOf(w, 's1');
    s.status = 'ended';
    s.startedAt = T0;
    s.endedAt = T0 + 5 * MIN;
    const prev = snapshotOf(w, T0);
    s.startedAt = T0 + 120;
    s.endedAt = T0 + 5 * MIN + 999;
    expect(diff(prev, snapshotOf(w, T1))).toEqual([]);
  });

  it('sameInstant is symmetric and holds only within the whole second a time names', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: -3000, max: 3000 }), (a, d) => {
        const b = a + d;
        expect(sameInstant(a, b)).toBe(sameInstant(b, a));
        if (sameInstant(a, b)) expect(Math.abs(d)).toBeLessThan(1000);
        if (d === 0) expect(sameInstant(a, b)).toBe(true);
      }),
    );
    expect(sameInstant(undefined, T0)).toBe(false);
    expect(sameInstant(undefined, undefined)).toBe(true);
  });
});
