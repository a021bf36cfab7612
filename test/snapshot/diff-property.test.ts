import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type {
  Channel,
  DetailItem,
  Member,
  Org,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  Subscription,
} from '../../src/snapshot/model.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

// Small pools so two random snapshots share ids; `constructor` checks that inherited keys never leak in.
const id = fc.constantFrom('a', 'b', 'c', 'd', 'constructor');
const time = fc.integer({ min: 0, max: 100 });
const status = fc.constantFrom('live', 'on_air', 'ended', 'failed', 'scheduled', 'paused', 'weird');
const scalar = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(Number.NaN),
);
const text = fc.string({ maxLength: 3 });

function part<T>(value: fc.Arbitrary<T>): fc.Arbitrary<Part<T>> {
  return fc.oneof(
    fc.record({ state: fc.constant('complete' as const), at: time, value }),
    fc.record({
      state: fc.constant('incomplete' as const),
      at: time,
      value,
      error: fc.constant({ reason: 'paging', message: 'page refused' }),
    }),
    fc.record({
      state: fc.constant('failed' as const),
      at: time,
      error: fc.constant({ reason: 'timeout', message: 't' }),
    }),
  );
}

const record = <T>(arb: fc.Arbitrary<T>) => fc.dictionary(id, arb, { maxKeys: 4 });
// Keys left out of `requiredKeys` are sometimes omitted, the way the model leaves absent values out.
const org: fc.Arbitrary<Org> = fc.record(
  { slug: fc.constant('acme'), name: text, plan: text, settings: record(scalar) },
  { requiredKeys: ['slug', 'settings'] },
);
const member: fc.Arbitrary<Member> = fc.record(
  { id, name: text, email: text, role: text },
  { requiredKeys: ['id'] },
);
const subscription: fc.Arbitrary<Subscription> = fc.record(
  {
    plan: text,
    limits: record(fc.integer({ min: 0, max: 5 })),
    usage: record(fc.integer({ min: 0, max: 5 })),
    funding: fc.oneof(
      fc.record(
        { mode: fc.constant('wallet' as const), balance: time, currency: text },
        { requiredKeys: ['mode'] },
      ),
      fc.record(
        { mode: fc.constant('byok' as const), provider: text, keyStatus: text },
        { requiredKeys: ['mode'] },
      ),
      fc.record({ mode: fc.constant('unknown' as const), raw: text }, { requiredKeys: ['mode'] }),
    ),
  },
  { requiredKeys: ['limits', 'usage', 'funding'] },
);
const channel: fc.Arbitrary<Channel> = fc.record(
  { id, name: text, status, visibility: text },
  { requiredKeys: ['id', 'status'] },
);
const session = (channelId: string): fc.Arbitrary<Session> =>
  fc.record(
    {
      id,
      channelId: fc.constant(channelId),
      title: text,
      status,
      scheduledAt: time,
      startedAt: time,
      endedAt: time,
    },
    { requiredKeys: ['id', 'channelId', 'status'] },
  );
const window = fc.tuple(time, time).map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) }));
const sessionsPart = (channelId: string): fc.Arbitrary<SessionsPart> =>
  fc
    .tuple(part(fc.array(session(channelId), { maxLength: 5 })), window)
    .map(([p, w]) => ({ ...p, window: w }));
const item: fc.Arbitrary<DetailItem> = fc.record({ id, text, at: time }, { requiredKeys: ['id'] });
const group = fc.record({ count: fc.integer({ min: 0, max: 6 }), items: fc.array(item, { maxLength: 4 }) });
const detail = (sessionId: string): fc.Arbitrary<SessionDetail> =>
  fc.record(
    {
      id: fc.constant(sessionId),
      title: text,
      questions: group,
      announcements: group,
      reactions: fc.record({
        count: fc.integer({ min: 0, max: 9 }),
        byKind: record(fc.integer({ min: 0, max: 9 })),
      }),
      speakers: group,
      ai: fc.record({ status: text, enabled: fc.boolean() }, { requiredKeys: [] }),
    },
    { requiredKeys: ['id', 'questions', 'announcements', 'reactions', 'speakers', 'ai'] },
  );

/** A record with some of `keys`, each value drawn for its key. */
function byKey<T>(keys: string[], arb: (key: string) => fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> {
  return fc.tuple(...keys.map((k) => fc.option(arb(k), { nil: undefined }))).map((values) => {
    const out: Record<string, T> = {};
    keys.forEach((k, i) => {
      const v = values[i];
      if (v !== undefined) out[k] = v;
    });
    return out;
  });
}

const snapshot: fc.Arbitrary<OrgSnapshot> = fc
  .record(
    {
      profile: part(org),
      team: part(fc.array(member, { maxLength: 4 })),
      subscription: part(subscription),
      channels: part(fc.array(channel, { maxLength: 4 })),
      sessions: byKey(['a', 'b', 'constructor'], sessionsPart),
      details: byKey(['a', 'b', 'c', 'constructor'], (k) => part(detail(k))),
      takenAt: time,
    },
    { requiredKeys: ['sessions', 'details', 'takenAt'] },
  )
  .map((s) => ({ version: 1 as const, org: 'acme', ...s }));

/**
 * The part of `snap` an event came from. A session list event comes from the list of its
 * channel, except on the older side for a session that moved: then from the list it was in.
 */
function partOf(snap: OrgSnapshot, e: ChangeEvent, older = false): Part<unknown> | undefined {
  if (e.kind === 'org.changed') return snap.profile;
  if (e.kind.startsWith('member.')) return snap.team;
  if (e.kind.startsWith('subscription.') || e.kind === 'wallet.balance_changed') return snap.subscription;
  if (e.kind.startsWith('channel.')) return snap.channels;
  const fromDetail = /^(questions|announcements|reactions|speakers|ai\.)/.test(e.field ?? '');
  if (fromDetail) return Object.hasOwn(snap.details, e.entity.id) ? snap.details[e.entity.id] : undefined;
  const ch = e.labels['channel_id'] ?? '';
  if (older) {
    const listed = Object.entries(snap.sessions).filter(
      ([, p]) => p.state !== 'failed' && sessionArray(p.value).some((x) => x.id === e.entity.id),
    );
    const was = listed.find(([k]) => k === ch) ?? listed.sort(([x], [y]) => (x < y ? -1 : 1))[0];
    if (was) return was[1];
  }
  return Object.hasOwn(snap.sessions, ch) ? snap.sessions[ch] : undefined;
}

const REMOVALS = new Set(['member.removed', 'channel.removed', 'session.removed', 'session.speaker_left']);

describe('diff: properties', () => {
  it('told which session list a poll read, gives the same events as when it looks at every list', () => {
    fc.assert(
      fc.property(
        snapshot,
        fc.constantFrom('a', 'b', 'constructor'),
        fc.option(sessionsPart('a'), { nil: undefined }),
        (prev, channel, list) => {
          // One list read again (or gone), every other part shared, as a poll commits it.
          const sessions: Record<string, SessionsPart> = { ...prev.sessions };
          if (list === undefined) delete sessions[channel];
          else
            Object.defineProperty(sessions, channel, {
              value: { ...list },
              enumerable: true,
              writable: true,
              configurable: true,
            });
          const next: OrgSnapshot = { ...prev, sessions };
          expect(diff(prev, next, { changedLists: [channel] })).toEqual(diff(prev, next));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a snapshot never differs from itself (or from its copy)', () => {
    fc.assert(
      fc.property(snapshot, (s) => {
        expect(diff(s, s)).toEqual([]);
        expect(diff(s, structuredClone(s))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('every event comes from a part complete on both sides, at the newer part’s time', () => {
    fc.assert(
      fc.property(snapshot, snapshot, (prev, next) => {
        for (const e of diff(prev, next)) {
          const a = partOf(prev, e, true);
          const b = partOf(next, e);
          expect(a?.state).toBe('complete');
          expect(b?.state).toBe('complete');
          expect(e.at).toBe(b?.at);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('no removal when the newer part is not complete', () => {
    const degrade = <T>(p: Part<T> | undefined, to: 'incomplete' | 'failed'): Part<T> | undefined => {
      if (p?.state !== 'complete') return p;
      return to === 'failed'
        ? { state: 'failed', at: p.at, error: { reason: 'timeout', message: 't' } }
        : { ...p, state: 'incomplete', error: { reason: 'paging', message: 'p' } };
    };
    fc.assert(
      fc.property(
        snapshot,
        snapshot,
        fc.constantFrom('incomplete' as const, 'failed' as const),
        (prev, next, to) => {
          const worse: OrgSnapshot = { ...next, sessions: {}, details: {} };
          for (const k of ['profile', 'team', 'subscription', 'channels'] as const) {
            const p = degrade(next[k] as Part<unknown> | undefined, to);
            if (p) (worse as unknown as Record<string, unknown>)[k] = p;
          }
          for (const [k, p] of Object.entries(next.sessions))
            worse.sessions[k] = { ...degrade(p, to)!, window: p.window };
          for (const [k, p] of Object.entries(next.details)) worse.details[k] = degrade(p, to)!;
          const events = diff(prev, worse);
          expect(events.filter((e) => REMOVALS.has(e.kind))).toEqual([]);
          expect(events).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the order of a session list changes nothing that is reported', () => {
    // A list read again usually lists the same sessions in the same order, which the diff
    // compares pair by pair; any other order takes the general path. Both must agree.
    const unique = (list: Session[]) => list.filter((x, i) => list.findIndex((y) => y.id === x.id) === i);
    const dedupe = (snap: OrgSnapshot): OrgSnapshot => ({
      ...snap,
      sessions: Object.fromEntries(
        Object.entries(snap.sessions).map(([k, p]) => [
          k,
          p.state === 'failed' ? p : { ...p, value: unique([...sessionArray(p.value)]) },
        ]),
      ),
    });
    const reversed = (snap: OrgSnapshot): OrgSnapshot => ({
      ...snap,
      sessions: Object.fromEntries(
        Object.entries(snap.sessions).map(([k, p]) => [
          k,
          p.state === 'failed' ? p : { ...p, value: [...p.value].reverse() },
        ]),
      ),
    });
    // `next` lists the same sessions as `prev`, in the same order, with other values.
    const sameIds = (prev: OrgSnapshot, values: OrgSnapshot): OrgSnapshot => ({
      ...values,
      sessions: Object.fromEntries(
        Object.entries(prev.sessions).map(([k, p]) => {
          const other = Object.hasOwn(values.sessions, k) ? values.sessions[k] : undefined;
          if (p.state === 'failed' || other === undefined || other.state === 'failed') return [k, p];
          const theirs = sessionArray(other.value);
          const value = sessionArray(p.value).map((x, i) => ({
            ...(theirs[i] ?? x),
            id: x.id,
            channelId: x.channelId,
          }));
          return [k, { ...other, value }];
        }),
      ),
    });
    fc.assert(
      fc.property(snapshot, snapshot, (a, b) => {
        const prev = dedupe(a);
        const next = sameIds(prev, dedupe(b));
        const events = diff(prev, next);
        expect(diff(prev, reversed(next))).toEqual(events);
        expect(diff(reversed(prev), next)).toEqual(events);
      }),
      { numRuns: 500 },
    );
  });
});
