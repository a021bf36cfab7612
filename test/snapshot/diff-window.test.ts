import { describe, expect, it } from 'vitest';
import { diff, inWindow, sessionSpan } from '../../src/snapshot/diff.js';
import type { OrgSnapshot, Session, TimeWindow } from '../../src/snapshot/model.js';
import { complete, HOUR, MIN, sessionsPart, snapshotOf, T0, T1, windowAt, world } from './fixtures.js';

const INF = Number.POSITIVE_INFINITY;
const s = (extra: Partial<Session>): Session => ({ id: 'x', channelId: 'c1', status: 'scheduled', ...extra });

describe('sessionSpan', () => {
  it.each([
    { name: 'scheduled only', session: s({ scheduledAt: 100 }), span: { from: 100, to: INF } },
    {
      name: 'scheduled wins over started',
      session: s({ scheduledAt: 100, startedAt: 90 }),
      span: { from: 100, to: INF },
    },
    { name: 'started only', session: s({ status: 'live', startedAt: 90 }), span: { from: 90, to: INF } },
    {
      name: 'ended with an end time',
      session: s({ status: 'ended', startedAt: 90, endedAt: 150 }),
      span: { from: 90, to: 150 },
    },
    {
      name: 'ended without an end time ends at its latest known time',
      session: s({ status: 'cancelled', scheduledAt: 100, startedAt: 120 }),
      span: { from: 100, to: 120 },
    },
    {
      name: 'unknown status with an end time',
      session: s({ status: 'zzz', scheduledAt: 1, endedAt: 5 }),
      span: { from: 1, to: 5 },
    },
    { name: 'no times, not over: everywhere', session: s({ status: 'live' }), span: { from: -INF, to: INF } },
    { name: 'no times, over: nowhere', session: s({ status: 'ended' }), span: { from: -INF, to: -INF } },
    {
      name: 'end before start shrinks to the start',
      session: s({ scheduledAt: 100, endedAt: 50 }),
      span: { from: 100, to: 100 },
    },
  ])('$name', ({ session, span }) => {
    expect(sessionSpan(session)).toEqual(span);
  });
});

describe('inWindow (both ends inclusive)', () => {
  const w: TimeWindow = { from: 1000, to: 2000 };
  it.each([
    {
      name: 'ends exactly at the window start',
      session: s({ scheduledAt: 500, endedAt: 1000 }),
      inside: true,
    },
    {
      name: 'ends 1 ms before the window start',
      session: s({ scheduledAt: 500, endedAt: 999 }),
      inside: false,
    },
    { name: 'starts exactly at the window end', session: s({ scheduledAt: 2000 }), inside: true },
    { name: 'starts 1 ms after the window end', session: s({ scheduledAt: 2001 }), inside: false },
    { name: 'spans the whole window', session: s({ startedAt: 0, status: 'live' }), inside: true },
    { name: 'no times and still running', session: s({ status: 'streaming' }), inside: true },
    { name: 'no times and over', session: s({ status: 'done' }), inside: false },
  ])('$name → $inside', ({ session, inside }) => {
    expect(inWindow(session, w)).toBe(inside);
  });
});

/** Two snapshots of the reference org whose c1 lists hold `prevList` / `nextList` for the given windows. */
function lists(prevList: Session[], nextList: Session[], prevWindow: TimeWindow, nextWindow: TimeWindow) {
  const prev = snapshotOf(world(), T0);
  const next = snapshotOf(world(), T1);
  prev.sessions['c1'] = sessionsPart(prevList, T0, prevWindow);
  next.sessions['c1'] = sessionsPart(nextList, T1, nextWindow);
  return [prev, next] as const;
}

const kinds = (prev: OrgSnapshot, next: OrgSnapshot) =>
  diff(prev, next).map((e) => `${e.kind} ${e.entity.id}`);

describe('diff: the window rule', () => {
  const ended = s({ id: 'old', status: 'ended', startedAt: T0 - 2 * HOUR, endedAt: T0 - 30 * MIN });
  const prevWindow = windowAt(T0);

  it.each([
    { name: 'aged out: ended before the next window starts', nextFrom: ended.endedAt! + 1, out: [] },
    {
      name: 'still inside by its last millisecond: removed',
      nextFrom: ended.endedAt!,
      out: ['session.removed old'],
    },
    { name: 'well inside: removed', nextFrom: T0 - HOUR, out: ['session.removed old'] },
  ])('a session missing from the next list: $name', ({ nextFrom, out }) => {
    const [prev, next] = lists([ended], [], prevWindow, { from: nextFrom, to: nextFrom + 2 * HOUR });
    expect(kinds(prev, next)).toEqual(out);
  });

  it('a session the previous window did not cover is not removed', () => {
    const early = s({ id: 'early', status: 'ended', startedAt: T0 - 5 * HOUR, endedAt: T0 - 4 * HOUR });
    const [prev, next] = lists([early], [], prevWindow, { from: T0 - 5 * HOUR, to: T0 + HOUR });
    expect(kinds(prev, next)).toEqual([]);
  });

  it('an over session without an end time ages out at its last known time', () => {
    const cancelled = s({ id: 'cx', status: 'cancelled', scheduledAt: T0 - 50 * MIN });
    const [prev, next] = lists([cancelled], [], prevWindow, { from: T0 - 40 * MIN, to: T0 + HOUR });
    expect(kinds(prev, next)).toEqual([]);
  });

  it('a session still running never ages out', () => {
    const running = s({ id: 'run', status: 'live', startedAt: T0 - 10 * HOUR });
    const [prev, next] = lists([running], [], prevWindow, windowAt(T1));
    expect(kinds(prev, next)).toEqual(['session.removed run']);
  });

  it.each([
    { name: 'scheduled 1 ms after the old window: entered, not added', at: prevWindow.to + 1, out: [] },
    { name: 'scheduled at the old window end: added', at: prevWindow.to, out: ['session.added new'] },
    { name: 'scheduled well inside the old window: added', at: T0, out: ['session.added new'] },
  ])('a session new in the next list: $name', ({ at, out }) => {
    const fresh = s({ id: 'new', scheduledAt: at });
    const [prev, next] = lists([], [fresh], prevWindow, {
      from: prevWindow.from + MIN,
      to: prevWindow.to + MIN,
    });
    expect(kinds(prev, next)).toEqual(out);
  });

  it('a session entering with the window is silent and then tracked like any other', () => {
    const fresh = s({ id: 'new', scheduledAt: windowAt(T0).to + 10_000, title: 'Soon' });
    const [prev, next] = lists([], [fresh], prevWindow, windowAt(T1));
    expect(kinds(prev, next)).toEqual([]);
    const later = structuredClone(next);
    later.sessions['c1'] = sessionsPart([{ ...fresh, title: 'Soon!' }], T1 + 1000, windowAt(T1 + 1000));
    expect(kinds(next, later)).toEqual(['session.renamed new']);
  });

  it('a session that moved to another channel is compared, not removed and added', () => {
    const moving = s({ id: 'mv', scheduledAt: T0, title: 'Moving' });
    const prev = snapshotOf(world(), T0);
    const next = snapshotOf(world(), T1);
    prev.sessions['c1'] = sessionsPart([moving], T0);
    next.sessions['c1'] = sessionsPart([], T1);
    next.sessions['c2'] = sessionsPart(
      [
        ...(next.sessions['c2']!.state === 'complete' ? next.sessions['c2']!.value : []),
        { ...moving, channelId: 'c2', status: 'live' },
      ],
      T1,
    );
    expect(diff(prev, next)).toMatchObject([
      {
        kind: 'session.status_changed',
        entity: { id: 'mv' },
        labels: { channel_id: 'c2', channel: 'Night' },
      },
      { kind: 'session.started', entity: { id: 'mv' } },
    ]);
  });

  it.each([1, 5, 40])(
    '%i sessions moving between channels at once are compared, never removed or added',
    (n) => {
      // Past a handful of look-ups the diff indexes every list instead of scanning them.
      const moving = Array.from({ length: n }, (_, i) =>
        s({ id: `mv${i}`, scheduledAt: T0, title: `Moving ${i}` }),
      );
      const prev = snapshotOf(world(), T0);
      const next = snapshotOf(world(), T1);
      const c2 = next.sessions['c2']!.state === 'complete' ? [...next.sessions['c2']!.value] : [];
      prev.sessions['c1'] = sessionsPart(moving, T0);
      next.sessions['c1'] = sessionsPart([], T1);
      next.sessions['c2'] = sessionsPart([...c2, ...moving.map((m) => ({ ...m, channelId: 'c2' }))], T1);
      expect(diff(prev, next)).toEqual([]);
      next.sessions['c2'] = sessionsPart(c2, T1);
      expect(diff(prev, next).map((e) => e.kind)).toEqual(Array(n).fill('session.removed'));
    },
  );

  it('a session present before only in an incomplete list is neither added nor compared', () => {
    const x = s({ id: 'x1', scheduledAt: T0 });
    const prev = snapshotOf(world(), T0);
    const next = snapshotOf(world(), T1);
    prev.sessions['c1'] = {
      state: 'incomplete',
      at: T0,
      value: [x],
      window: windowAt(T0),
      error: { reason: 'paging', message: 'page 3' },
    };
    prev.sessions['c2'] = sessionsPart([], T0);
    next.sessions['c1'] = sessionsPart([], T1);
    next.sessions['c2'] = sessionsPart([{ ...x, channelId: 'c2', status: 'live' }], T1);
    expect(kinds(prev, next)).toEqual([]);
  });

  it('a channel seen for the first time has no list to compare: its sessions are a baseline', () => {
    const prev = snapshotOf(world(), T0);
    const next = snapshotOf(world(), T1);
    next.sessions['c7'] = sessionsPart([s({ id: 'n1', channelId: 'c7', status: 'live' })], T1);
    expect(kinds(prev, next)).toEqual([]);
  });
});

describe('diff: a session gone from its list while its detail is still read', () => {
  function gone(detailAt: number, change: boolean) {
    const w = world();
    const prev = snapshotOf(w, T0);
    w.sessions['c2'] = [];
    if (change) w.details['s3']!.questions.items.push({ id: 'q2', text: 'Still here?' });
    const next = snapshotOf(w, T1);
    const d = next.details['s3']!;
    if (d.state === 'complete') next.details['s3'] = complete(d.value, detailAt);
    return [prev, next] as const;
  }

  // The diff reports what the list shows; whether the session's own detail outweighs the
  // list is weighed by the poller before the removal is confirmed (poll/removals.ts): a
  // diff that dropped the event would drop the session from the snapshot with it.
  it('reports the removal and the detail’s own changes, whenever the detail was read', () => {
    const [prev, next] = gone(T1 + 1000, true);
    expect(kinds(prev, next)).toEqual(['session.removed s3', 'session.question_added s3']);
    const [older, newer] = gone(T0, false);
    expect(kinds(older, newer)).toEqual(['session.removed s3']);
  });
});
