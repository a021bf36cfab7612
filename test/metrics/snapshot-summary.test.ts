import { describe, expect, it } from 'vitest';
import { summarize, SummaryMemo } from '../../src/metrics/snapshot-summary.js';
import { emptySnapshot, type OrgSnapshot, type Session } from '../../src/snapshot/model.js';

const window = { from: 0, to: 10 };
// A planned start: a session without any time is not counted in the window (docs/upstream-shapes.md, "Blindness is loud").
const session = (id: string, channelId: string, status: string): Session => ({
  id,
  channelId,
  status,
  scheduledAt: 1000,
});

function org(lists: Record<string, string[]>): OrgSnapshot {
  const snap = emptySnapshot('acme', 1);
  snap.channels = {
    state: 'complete',
    at: 1,
    value: Object.keys(lists).map((id) => ({ id, status: 'offline' })),
  };
  for (const [id, statuses] of Object.entries(lists)) {
    snap.sessions[id] = {
      state: 'complete',
      at: 1,
      value: statuses.map((s, i) => session(`${id}-${i}`, id, s)),
      window,
    };
  }
  return snap;
}

describe('summarize', () => {
  it('counts no session without any time in the window, unless it is live', () => {
    const snap = org({ a: ['scheduled', 'ended', 'live'] });
    const part = snap.sessions['a'];
    if (part?.state !== 'complete') throw new Error('no list');
    part.value = ['scheduled', 'ended', 'live'].map((status, i) => ({
      id: `a-${i}`,
      channelId: 'a',
      status,
    }));
    const summary = summarize(snap, new SummaryMemo());
    expect([...summary.sessionsByStatus]).toEqual([['live', 1]]);
    expect(summary.liveSessions.map((r) => r.id)).toEqual(['a-2']);
  });

  it('shares one map of counts between lists that count alike, and counts each list right', () => {
    const summary = summarize(
      org({
        a: ['ended', 'scheduled', 'ended'],
        b: ['scheduled', 'ended', 'ended'],
        c: ['ended', 'live'],
      }),
      new SummaryMemo(),
    );
    const [a, b, c] = summary.channels!;
    expect([...a!.sessionsByStatus!]).toEqual([
      ['ended', 2],
      ['scheduled', 1],
    ]);
    expect(b!.sessionsByStatus).toBe(a!.sessionsByStatus);
    expect([...c!.sessionsByStatus!]).toEqual([
      ['ended', 1],
      ['live', 1],
    ]);
    expect([...summary.sessionsByStatus].sort()).toEqual([
      ['ended', 5],
      ['live', 1],
      ['scheduled', 2],
    ]);
    expect(summary.liveSessions.map((s) => s.id)).toEqual(['c-1']);
  });
});
