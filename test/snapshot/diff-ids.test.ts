import { describe, expect, it } from 'vitest';
import { DiffError, diff, isEndedStatus, isLiveStatus } from '../../src/snapshot/diff.js';
import { EVENT_ID_LENGTH, type EventIdInput, eventId } from '../../src/snapshot/event-id.js';
import type { Session, SessionsPart } from '../../src/snapshot/model.js';
import {
  twoReads,
  detailOf,
  emptySnapshotAt,
  HOUR,
  MIN,
  sessionOf,
  snapshotOf,
  T0,
  T1,
  windowAt,
  world,
} from './fixtures.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

const everything = () =>
  twoReads((w) => {
    w.org.settings['locale'] = 'fr';
    w.team.push({ id: 'm0', name: 'Zed' });
    w.subscription.usage['channels'] = 9;
    w.channels.push({ id: 'c0', status: 'live' });
    w.channels[0]!.status = 'live';
    sessionOf(w, 's1').status = 'live';
    sessionOf(w, 's3').title = 'Later show';
    w.sessions['c1']!.push({ id: 's0', channelId: 'c1', status: 'scheduled', scheduledAt: T1 });
    detailOf(w, 's3').questions.items.push({ id: 'q2', text: 'x' });
    detailOf(w, 's3').ai.status = 'done';
  });

describe('diff: ids', () => {
  it('the same snapshots give the same events with the same ids', () => {
    const [prev, next] = everything();
    const first = diff(prev, next);
    expect(first.length).toBeGreaterThan(8);
    expect(diff(structuredClone(prev), structuredClone(next))).toEqual(first);
  });

  it('ids are unique within one diff and look like short base32', () => {
    const events = diff(...everything());
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const e of events) expect(e.id).toMatch(new RegExp(`^[a-z2-7]{${EVENT_ID_LENGTH}}$`));
  });

  const base: EventIdInput = {
    org: 'acme',
    kind: 'channel.status_changed',
    entity: { kind: 'channel', id: 'c1' },
    field: 'status',
    from: 'offline',
    to: 'live',
    since: T0,
  };
  it.each([
    { name: 'org', change: { org: 'other' } },
    { name: 'kind', change: { kind: 'channel.visibility_changed' as const } },
    { name: 'entity', change: { entity: { kind: 'channel' as const, id: 'c2' } } },
    { name: 'field', change: { field: 'visibility' } },
    { name: 'key', change: { key: 'q1' } },
    { name: 'from', change: { from: 'idle' } },
    { name: 'to', change: { to: 'on_air' } },
    { name: 'since', change: { since: T0 + 1 } },
    { name: 'a boundary between fields', change: { from: 'offlin', to: 'elive' } },
  ])('a different $name gives a different id', ({ change }) => {
    expect(eventId({ ...base, ...change })).not.toBe(eventId(base));
    expect(eventId({ ...base })).toBe(eventId(base));
  });

  it('a re-read of the same change against the same older part keeps its id (crash between log and save)', () => {
    const [prev, next] = everything();
    const later = structuredClone(next);
    // The same world read again later: every part has a newer fetch time.
    for (const key of ['profile', 'team', 'subscription', 'channels'] as const) later[key]!.at += 5 * MIN;
    for (const part of Object.values(later.sessions)) part.at += 5 * MIN;
    for (const part of Object.values(later.details)) part.at += 5 * MIN;
    const first = diff(prev, next);
    const again = diff(prev, later);
    expect(again.map((e) => e.id)).toEqual(first.map((e) => e.id));
    expect(again.map((e) => e.at)).not.toEqual(first.map((e) => e.at));
  });

  it('the same transition seen again from a newer base gets a new id', () => {
    const [prev, next] = everything();
    const moved = structuredClone(prev);
    moved.channels!.at += MIN;
    const a = diff(prev, next).filter((e) => e.entity.kind === 'channel');
    const b = diff(moved, next).filter((e) => e.entity.kind === 'channel');
    expect(b.length).toBe(a.length);
    expect(b.map((e) => e.id)).not.toEqual(a.map((e) => e.id));
  });

  it('newId replaces the deterministic ids', () => {
    let n = 0;
    const events = diff(...everything(), { newId: () => `id-${++n}` });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `id-${i + 1}`));
  });

  it('refuses snapshots of two different orgs', () => {
    expect(() => diff(emptySnapshotAt('acme', T0), emptySnapshotAt('other', T1))).toThrow(DiffError);
  });

  it('an empty snapshot before anything was read is a baseline: no events', () => {
    expect(diff(emptySnapshotAt('acme', T0), snapshotOf(world(), T1))).toEqual([]);
  });
});

describe('diff: order', () => {
  it('orders by part, then by entity id, whatever the input order', () => {
    const [prev, next] = everything();
    const events = diff(prev, next);
    expect(events.map((e) => `${e.kind} ${e.entity.id}`)).toEqual([
      'org.changed acme',
      'member.added m0',
      'subscription.usage_changed acme',
      'channel.added c0',
      'channel.status_changed c1',
      'session.added s0',
      'session.status_changed s1',
      'session.started s1',
      'session.renamed s3',
      'session.question_added s3',
      'session.ai_status_changed s3',
    ]);
    const shuffled = structuredClone(next);
    if (shuffled.team?.state === 'complete') shuffled.team.value.reverse();
    if (shuffled.channels?.state === 'complete') shuffled.channels.value.reverse();
    const c1 = shuffled.sessions['c1'];
    if (c1?.state === 'complete') c1.value = sessionArray(c1.value).toReversed();
    shuffled.sessions = Object.fromEntries(Object.entries(shuffled.sessions).reverse());
    expect(diff(prev, shuffled)).toEqual(events);
  });
});

describe('diff: unknown status values', () => {
  it.each([
    ['live', true, false],
    ['on_air', true, false],
    ['streaming', true, false],
    ['broadcasting', true, false],
    ['ended', false, true],
    ['finished', false, true],
    ['completed', false, true],
    ['done', false, true],
    ['failed', false, true],
    ['cancelled', false, true],
    ['canceled', false, true],
    ['aborted', false, true],
    ['error', false, true],
    ['scheduled', false, false],
    ['paused', false, false],
    ['LIVE', true, false],
    ['On Air', true, false],
    ['timed_out', false, true],
  ])('%s: live=%s ended=%s', (status, live, ended) => {
    expect(isLiveStatus(status)).toBe(live);
    expect(isEndedStatus(status)).toBe(ended);
  });

  it('unknown channel and session statuses are carried verbatim and derive nothing', () => {
    const [prev, next] = twoReads((w) => {
      w.channels[0]!.status = 'maintenance';
      sessionOf(w, 's3').status = 'intermission';
    });
    expect(diff(prev, next)).toMatchObject([
      { kind: 'channel.status_changed', from: 'offline', to: 'maintenance' },
      { kind: 'session.status_changed', from: 'live', to: 'intermission' },
    ]);
  });

  it('going live again after a pause is a new start; ending twice is not', () => {
    const w = world();
    const a = snapshotOf(w, T0);
    sessionOf(w, 's3').status = 'paused';
    const b = snapshotOf(w, T1);
    sessionOf(w, 's3').status = 'live';
    const c = snapshotOf(w, T1 + MIN);
    Object.assign(sessionOf(w, 's3'), { status: 'ended' });
    const d = snapshotOf(w, T1 + 2 * MIN);
    sessionOf(w, 's3').endedAt = T1 + 2 * MIN;
    const e = snapshotOf(w, T1 + 3 * MIN);
    const kinds = [diff(a, b), diff(b, c), diff(c, d), diff(d, e)].map((evs) => evs.map((x) => x.kind));
    expect(kinds).toEqual([
      ['session.status_changed'],
      ['session.status_changed', 'session.started'],
      ['session.status_changed', 'session.ended'],
      [],
    ]);
  });
});

describe('diff: a large org', () => {
  it('diffs 10 000 sessions over 100 channels and counts right', () => {
    const channels = 100;
    const perChannel = 100;
    const build = (at: number, edit: (s: Session, ch: number, i: number) => Session | undefined) => {
      const snap = emptySnapshotAt('big', at);
      for (let ch = 0; ch < channels; ch++) {
        const list: Session[] = [];
        for (let i = 0; i < perChannel; i++) {
          const s = edit(
            { id: `s${ch}-${i}`, channelId: `c${ch}`, status: 'scheduled', scheduledAt: T0 + (i % 50) * MIN },
            ch,
            i,
          );
          if (s) list.push(s);
        }
        if (ch % 2 === 0)
          list.push({ id: `new${ch}`, channelId: `c${ch}`, status: 'scheduled', scheduledAt: T0 });
        const part: SessionsPart = { state: 'complete', at, value: list, window: windowAt(at) };
        snap.sessions[`c${ch}`] = part;
      }
      return snap;
    };
    const prev = build(T0, (s) => s);
    // Drop the new ones from prev, so next adds 50; remove one per channel; start three per channel.
    for (const part of Object.values(prev.sessions)) {
      if (part.state === 'complete')
        part.value = sessionArray(part.value).filter((s) => !s.id.startsWith('new'));
    }
    const next = build(T1, (s, _ch, i) => {
      if (i === 0) return undefined;
      if (i <= 3) return { ...s, status: 'live', startedAt: T1 - HOUR / 2 };
      return s;
    });
    const started = performance.now();
    const events = diff(prev, next);
    const ms = performance.now() - started;
    const count = (k: string) => events.filter((e) => e.kind === k).length;
    expect(count('session.removed')).toBe(100);
    expect(count('session.added')).toBe(50);
    expect(count('session.status_changed')).toBe(300);
    expect(count('session.started')).toBe(300);
    expect(events.length).toBe(750);
    expect(ms).toBeLessThan(2000);
  });
});
