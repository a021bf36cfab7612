import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import {
  carryChannels,
  carryDetail,
  carryProfile,
  carrySessions,
  carrySubscription,
} from '../../src/snapshot/carry.js';
import {
  emptySnapshot,
  type OrgSnapshot,
  type SessionDetail,
  type SubResource,
  type Subscription,
} from '../../src/snapshot/model.js';
import { normalizeSession } from '../../src/upstream/shape/normalize-session.js';

const AT = Date.UTC(2026, 10, 1);
const FULL: Subscription = {
  plan: 'pro',
  limits: { channels: 10, members: 5 },
  usage: { channels: 3 },
  funding: { mode: 'wallet', balance: 12.5, currency: 'USD' },
};

function snap(subscription: Subscription, at = AT): OrgSnapshot {
  return {
    org: 'acme',
    takenAt: at,
    subscription: { state: 'complete', at, value: subscription },
    sessions: {},
    details: {},
  } as unknown as OrgSnapshot;
}

describe('absent is not changed', () => {
  it.each<[string, Subscription]>([
    ['no plan', { ...FULL, plan: undefined } as unknown as Subscription],
    ['no limits group', { ...FULL, limits: {} }],
    ['no usage group', { ...FULL, usage: {} }],
    ['no funding at all', { ...FULL, funding: { mode: 'unknown' } }],
    ['a wallet without its balance', { ...FULL, funding: { mode: 'wallet', currency: 'USD' } }],
    ['nothing but the plan', { plan: 'pro', limits: {}, usage: {}, funding: { mode: 'unknown' } }],
  ])('a subscription read with %s keeps the last known values and gives no event', (_name, partial) => {
    const next = carrySubscription(FULL, partial);
    expect(next).toEqual(FULL);
    expect(diff(snap(FULL), snap(next, AT + 1000))).toEqual([]);
  });

  it('a real change after an absence is reported against the last known value', () => {
    const gap = carrySubscription(FULL, { ...FULL, plan: undefined } as unknown as Subscription);
    const back = carrySubscription(gap, { ...FULL, plan: 'free' });
    const events = diff(snap(gap), snap(back, AT + 2000));
    expect(events.map((e) => [e.kind, e.from, e.to])).toEqual([['subscription.plan_changed', 'pro', 'free']]);
  });

  it('keeps what the read did say: a new balance, a new mode, a limit that changed', () => {
    expect(carrySubscription(FULL, { ...FULL, funding: { mode: 'wallet', balance: 3 } }).funding).toEqual({
      mode: 'wallet',
      balance: 3,
      currency: 'USD',
    });
    expect(carrySubscription(FULL, { ...FULL, funding: { mode: 'byok', provider: 'x' } }).funding).toEqual({
      mode: 'byok',
      provider: 'x',
    });
    expect(carrySubscription(FULL, { ...FULL, limits: { channels: 20 } }).limits).toEqual({ channels: 20 });
  });

  it('a profile read without name, plan or settings keeps them', () => {
    const prev = { slug: 'acme', name: 'Acme', plan: 'pro', settings: { language: 'en' } };
    expect(carryProfile(prev, { slug: 'acme', settings: {} })).toEqual(prev);
    expect(carryProfile(prev, { slug: 'acme', name: 'Acme Radio', settings: { language: 'de' } })).toEqual({
      slug: 'acme',
      name: 'Acme Radio',
      plan: 'pro',
      settings: { language: 'de' },
    });
  });
});

describe('lists: what a record leaves out keeps its last known value', () => {
  it('keeps a channel’s name, visibility and status when a record has none', () => {
    const prev = [
      { id: 'a', name: 'News', status: 'offline', visibility: 'public' },
      { id: 'b', name: 'Sport', status: 'live', visibility: 'private' },
    ];
    const next = [
      { id: 'b', status: 'unknown' }, // reordered, and says nothing
      { id: 'a', name: 'World News', status: 'live' }, // renamed and live; visibility left out
      { id: 'c', status: 'unknown' }, // new: nothing to carry
    ];
    expect(carryChannels(prev, next)).toEqual([
      { id: 'b', name: 'Sport', status: 'live', visibility: 'private' },
      { id: 'a', name: 'World News', status: 'live', visibility: 'public' },
      { id: 'c', status: 'unknown' },
    ]);
  });

  it('returns the very same list when nothing was left out', () => {
    const prev = [{ id: 'a', name: 'News', status: 'offline' }];
    const next = [{ id: 'a', name: 'News', status: 'live' }];
    expect(carryChannels(prev, next)).toBe(next);
    expect(carrySessions([], [])).toEqual([]);
  });

  it('keeps a session’s title, times and status, unless its status rules a time out', () => {
    const T = AT;
    const prev = [
      { id: 's1', channelId: 'c', title: 'Morning', status: 'live', scheduledAt: T, startedAt: T + 1 },
      { id: 's2', channelId: 'c', title: 'Late', status: 'ended', startedAt: T, endedAt: T + 9 },
      { id: 's3', channelId: 'c', status: 'live', startedAt: T },
    ];
    const next = [
      { id: 's1', channelId: 'c', status: 'unknown' }, // everything left out
      { id: 's2', channelId: 'c', title: 'Late', status: 'live', startedAt: T }, // on air again: no end
      { id: 's3', channelId: 'c', status: 'scheduled' }, // back to scheduled: no start
    ];
    expect(carrySessions(prev, next)).toEqual([
      { id: 's1', channelId: 'c', title: 'Morning', status: 'live', scheduledAt: T, startedAt: T + 1 },
      { id: 's2', channelId: 'c', title: 'Late', status: 'live', startedAt: T },
      { id: 's3', channelId: 'c', status: 'scheduled' },
    ]);
  });
});

describe('a status guessed from the times', () => {
  const T = AT;
  const record = (over: Record<string, unknown>) =>
    normalizeSession(
      { id: 's1', title: 'Morning', scheduled_at: new Date(T).toISOString(), ...over },
      'c',
      {},
    ).value!;

  it('gives way to the status last known, unless a time new to the record implies it', () => {
    const live = record({ status: 'live', started_at: new Date(T + 60_000).toISOString() });
    // The next answer sends neither status nor start: the times alone say scheduled.
    const lean = record({ status: null, started_at: null });
    expect(lean.status).toBe('scheduled');
    expect(carrySessions([live], [lean])).toEqual([live]);
    // An end that was not there before: it ended, whatever was known.
    const ended = record({ status: null, started_at: null, ended_at: new Date(T + 3_600_000).toISOString() });
    expect(carrySessions([live], [ended])[0]).toMatchObject({ status: 'ended', startedAt: T + 60_000 });
    // A status the record gives is taken as it is.
    const said = record({ status: 'scheduled' });
    expect(carrySessions([live], [said])[0]!.status).toBe('scheduled');
  });
});

describe('carryDetail: a sub-resource that could not be read keeps its last known value', () => {
  const read = (): SessionDetail => ({
    id: 's1',
    questions: { count: 2, items: [{ id: 'q1' }, { id: 'q2' }] },
    announcements: { count: 0, items: [] },
    reactions: { count: 5, byKind: { clap: 5 } },
    speakers: { count: 1, items: [{ id: 'sp1' }] },
    ai: { status: 'idle' },
  });
  const unreadOf = (names: SubResource[]): SessionDetail => {
    const d: SessionDetail = { ...read(), unread: names };
    if (names.includes('questions')) d.questions = { count: 0, items: [] };
    if (names.includes('reactions')) d.reactions = { count: 0, byKind: {} };
    if (names.includes('ai')) d.ai = {};
    return d;
  };

  it('takes the last known value of what was read before; the rest stays unread', () => {
    const prev = { ...read(), unread: ['ai'] as SubResource[] };
    const out = carryDetail(prev, unreadOf(['questions', 'reactions', 'ai']));
    expect(out.questions).toEqual(read().questions);
    expect(out.reactions).toEqual(read().reactions);
    expect(out.unread).toEqual(['ai']);
  });

  it('a detail with everything read is returned as it is', () => {
    const next = read();
    expect(carryDetail(unreadOf(['questions']), next)).toBe(next);
  });

  it('a later read reports what changed while the sub-resource could not be read', () => {
    const first = read();
    const gap = carryDetail(first, unreadOf(['questions']));
    expect(gap.unread).toBeUndefined();
    const back = { ...read(), questions: { count: 3, items: [...read().questions.items, { id: 'q3' }] } };
    const at = (value: SessionDetail, t: number) => ({
      ...emptySnapshot('acme', t),
      details: { s1: { state: 'complete' as const, at: t, value } },
    });
    expect(diff(at(first, 1), at(gap, 2))).toEqual([]);
    expect(diff(at(gap, 2), at(back, 3)).map((e) => e.kind)).toEqual(['session.question_added']);
  });
});
