import { describe, expect, it } from 'vitest';
import { DriftEvents } from '../../src/app/drift-events.js';
import { ManualClock } from '../helpers/clock.js';

const issue = (problem: string, org = 'acme') =>
  ({ org, endpoint: 'channels', field: 'channel.status', problem, fatal: false }) as const;

describe('DriftEvents', () => {
  it('announces each distinct problem once, with an id that is the same after a restart', () => {
    const clock = new ManualClock();
    const first = new DriftEvents(clock);
    const e = first.eventFor(issue('status is a number'));
    expect(e).toMatchObject({ kind: 'upstream.schema_drift', org: 'acme', field: 'channels.channel.status' });
    expect(first.eventFor(issue('status is a number'))).toBeUndefined();
    expect(first.eventFor(issue('status is a number', 'globex'))).toBeDefined();
    expect(new DriftEvents(clock).eventFor(issue('status is a number'))?.id).toBe(e?.id);
  });

  it('remembers a bounded number of problems, forgetting the least recently seen first', () => {
    const drift = new DriftEvents(new ManualClock(), 3);
    for (let i = 0; i < 1000; i++) drift.eventFor(issue(`problem ${i}`));
    expect(drift.size).toBe(3);
    // The newest are still remembered; a recent repeat keeps its place.
    expect(drift.eventFor(issue('problem 999'))).toBeUndefined();
    expect(drift.eventFor(issue('problem 997'))).toBeUndefined();
    drift.eventFor(issue('problem new'));
    expect(drift.eventFor(issue('problem 997'))).toBeUndefined();
    expect(drift.eventFor(issue('problem 998'))).toBeDefined();
  });
});
