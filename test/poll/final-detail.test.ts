import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { OrgPoller, type OrgPollerDeps } from '../../src/poll/org-poller.js';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot, type OrgSnapshot, type Part, type SessionDetail } from '../../src/snapshot/model.js';
import { ManualClock } from '../helpers/clock.js';

const detail = (id: string, at: number): Part<SessionDetail> => ({
  state: 'complete',
  at,
  value: {
    id,
    channelId: 'c1',
    questions: { count: 0, items: [] },
    announcements: { count: 0, items: [] },
    reactions: { count: 0, byKind: {} },
    speakers: { count: 0, items: [] },
    ai: {},
  },
});

/** A snapshot saved after `ended` ended and before its final detail read. */
function stored(at: number): OrgSnapshot {
  return {
    ...emptySnapshot('demo', at),
    channels: { state: 'complete', at, value: [{ id: 'c1', status: 'offline' }] },
    sessions: {
      c1: {
        state: 'complete',
        at,
        window: { from: at - 86_400_000, to: at + 86_400_000 },
        value: [
          { id: 'ended', channelId: 'c1', status: 'ended', startedAt: at - 3_600_000, endedAt: at - 1000 },
          { id: 'live', channelId: 'c1', status: 'live', startedAt: at - 60_000 },
          {
            id: 'done',
            channelId: 'c1',
            status: 'ended',
            startedAt: at - 7_200_000,
            endedAt: at - 3_600_000,
          },
        ],
      },
    },
    details: { ended: detail('ended', at - 5000), live: detail('live', at - 5000) },
  };
}

function poller(initial: OrgSnapshot, fetchSessionDetail: OrgPollerDeps['fetcher']['fetchSessionDetail']) {
  const clock = new ManualClock();
  return new OrgPoller({ slug: 'demo', token: 't' }, undefined, initial, {
    fetcher: { fetchSessionDetail } as unknown as OrgPollerDeps['fetcher'],
    clock,
    logger: silentLogger(),
    diff: (a, b, o) => diff(a, b, o),
    window: { past: 86_400_000, future: 86_400_000 },
    onUpdate: () => undefined,
    perPage: 100,
    signal: new AbortController().signal,
  });
}

describe('the final detail read of an ended session', () => {
  it('survives a restart: an ended session whose detail was stored is read once more', () => {
    const p = poller(stored(Date.now()), async () => ({
      state: 'failed',
      at: 0,
      error: { reason: 'network', message: 'x' },
    }));
    // `done` has no stored detail: its final read was made before the save.
    expect(p.detailTargets().sort()).toEqual(['ended', 'live']);
  });

  it('is tried again after a failure that may pass, not after one that will not', async () => {
    const signal = new AbortController().signal;
    let reason = 'timeout';
    const p = poller(stored(Date.now()), async () => ({
      state: 'failed',
      at: Date.now(),
      error: { reason, message: reason },
    }));
    await p.readDetail('ended', 'normal', signal);
    expect(p.detailTargets()).toContain('ended');
    reason = 'not_found';
    await p.readDetail('ended', 'normal', signal, true);
    expect(p.detailTargets()).not.toContain('ended');
  });
});
