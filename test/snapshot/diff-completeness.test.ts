import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import type { OrgSnapshot, Part } from '../../src/snapshot/model.js';
import { twoReads, detailOf, failed, incomplete, T1, type World } from './fixtures.js';

/** A part of a snapshot, how to change it (with a removal wherever the part can have one), and how to set its state. */
interface PartCase {
  part: string;
  change: (w: World) => void;
  set: (s: OrgSnapshot, state: 'incomplete' | 'failed' | 'absent') => void;
}

function degrade<T>(p: Part<T> | undefined, state: 'incomplete' | 'failed'): Part<T> | undefined {
  if (p === undefined || p.state === 'failed') return p;
  return state === 'failed' ? failed(p.at) : incomplete(p.value, p.at);
}

const parts: PartCase[] = [
  {
    part: 'profile',
    change: (w) => {
      w.org.name = 'Other';
      w.org.settings = {};
    },
    set: (s, st) => {
      if (st === 'absent') delete s.profile;
      else s.profile = degrade(s.profile, st)!;
    },
  },
  {
    part: 'team',
    change: (w) => {
      w.team = [{ id: 'm1', name: 'Ada', role: 'owner' }];
    },
    set: (s, st) => {
      if (st === 'absent') delete s.team;
      else s.team = degrade(s.team, st)!;
    },
  },
  {
    part: 'subscription',
    change: (w) => {
      w.subscription = { plan: 'free', limits: {}, usage: {}, funding: { mode: 'unknown' } };
    },
    set: (s, st) => {
      if (st === 'absent') delete s.subscription;
      else s.subscription = degrade(s.subscription, st)!;
    },
  },
  {
    part: 'channels',
    change: (w) => {
      w.channels = [{ id: 'c2', name: 'Night', status: 'offline' }];
    },
    set: (s, st) => {
      if (st === 'absent') delete s.channels;
      else s.channels = degrade(s.channels, st)!;
    },
  },
  {
    part: 'sessions of c1',
    change: (w) => {
      w.sessions['c1'] = [{ id: 's5', channelId: 'c1', status: 'live' }];
    },
    set: (s, st) => {
      const p = s.sessions['c1']!;
      if (st === 'absent') delete s.sessions['c1'];
      else s.sessions['c1'] = { ...degrade(p, st)!, window: p.window };
    },
  },
  {
    part: 'detail of s3',
    change: (w) => {
      const d = detailOf(w, 's3');
      d.questions = { count: 0, items: [{ id: 'q9', text: 'new' }] };
      d.speakers = { count: 0, items: [] };
      d.ai = {};
    },
    set: (s, st) => {
      if (st === 'absent') delete s.details['s3'];
      else s.details['s3'] = degrade(s.details['s3'], st)!;
    },
  },
];

const cases = parts.flatMap((p) =>
  (['incomplete', 'failed', 'absent'] as const).flatMap((state) =>
    (['prev', 'next'] as const).map((side) => ({ ...p, state, side })),
  ),
);

describe('diff: completeness (a part is compared only when complete on both sides)', () => {
  it.each(parts)('the change to $part is seen when both sides are complete', ({ change }) => {
    expect(diff(...twoReads(change)).length).toBeGreaterThan(0);
  });

  it.each(cases)('$part $state in $side: no event at all', ({ change, set, state, side }) => {
    const [prev, next] = twoReads(change);
    set(side === 'prev' ? prev : next, state);
    expect(diff(prev, next)).toEqual([]);
  });

  it('an incomplete next channel list that lost a channel removes nothing and adds nothing', () => {
    const [prev, next] = twoReads((w) => {
      w.channels = [{ id: 'c3', name: 'Jazz', status: 'live' }];
    });
    next.channels = incomplete([{ id: 'c3', name: 'Jazz', status: 'live' }], T1);
    expect(diff(prev, next)).toEqual([]);
  });

  it('a session list that failed and then came back complete compares against the last complete one', () => {
    const [prev, next] = twoReads((w) => {
      w.sessions['c1'] = w.sessions['c1']!.filter((s) => s.id !== 's1');
    });
    // The poller keeps the last complete part; diffing a failed one in between yields nothing either way.
    const failedMiddle = structuredClone(next);
    failedMiddle.sessions['c1'] = { ...failed(T1), window: next.sessions['c1']!.window };
    expect(diff(prev, failedMiddle)).toEqual([]);
    expect(diff(failedMiddle, next)).toEqual([]);
    expect(diff(prev, next).map((e) => e.kind)).toEqual(['session.removed']);
  });

  it('only the complete parts speak when some others are not', () => {
    const [prev, next] = twoReads((w) => {
      w.org.name = 'Renamed';
      w.team = [];
      w.channels = [];
    });
    next.team = incomplete([], T1);
    next.channels = failed(T1);
    expect(diff(prev, next)).toMatchObject([{ kind: 'org.changed', field: 'name', to: 'Renamed' }]);
  });
});
