import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/snapshot/model.js';
import {
  findSession,
  holdable,
  idAt,
  indexOfId,
  scheduledAt,
  SessionList,
  sessionArray,
  sessionOf,
  statusAt,
  wantedIn,
} from '../../src/snapshot/session-list.js';

// Times as a server gives them (milliseconds or whole seconds, near now or far apart) and
// any double a stored file may hold; a list's times are of one kind or mixed.
const NOW = Date.UTC(2026, 10, 27);
const times = [
  fc.integer({ min: NOW - 2 ** 33, max: NOW + 2 ** 33 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map((s) => NOW + s * 1000),
  fc.constantFrom(NOW, NOW + 0xffff_fffe, NOW + 0xffff_ffff, -0, 0, -1000),
  fc.double({ noNaN: true }),
];
const session = (channel: fc.Arbitrary<string>, time: fc.Arbitrary<number>) =>
  fc
    .record({
      id: fc.string(),
      channelId: channel,
      status: fc.constantFrom('scheduled', 'live', 'ended', 'unknown', 'cancelled', 'Über'),
      title: fc.option(fc.string(), { nil: undefined }),
      scheduledAt: fc.option(time, { nil: undefined }),
      scheduledEndAt: fc.option(time, { nil: undefined }),
      startedAt: fc.option(time, { nil: undefined }),
      endedAt: fc.option(time, { nil: undefined }),
    })
    // In the model's order; absent fields are left out, never undefined (snapshot/model.ts).
    .map(
      (s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as unknown as Session,
    );

const lists = fc
  .constantFrom(...times, fc.oneof(...times))
  .chain((time) =>
    fc.oneof(
      fc.array(session(fc.constant('c1'), time), { maxLength: 30 }),
      fc.array(session(fc.constantFrom('c1', 'c2', ''), time), { maxLength: 30 }),
    ),
  );

describe('SessionList', () => {
  it('gives back every session exactly as it was held: fields, absent fields, order, channel', () => {
    fc.assert(
      fc.property(lists, (sessions) => {
        const list = SessionList.of(sessions);
        expect(list.length).toBe(sessions.length);
        expect(list.toArray()).toStrictEqual(sessions);
        expect([...list]).toStrictEqual(sessions);
        expect(JSON.stringify(list)).toBe(JSON.stringify(sessions));
        for (let i = 0; i < sessions.length; i++) {
          expect(idAt(list, i)).toBe(sessions[i]!.id);
          expect(statusAt(list, i)).toBe(sessions[i]!.status);
          expect(scheduledAt(list, i)).toBe(sessions[i]!.scheduledAt);
          expect(list.at(i)).toStrictEqual(sessions[i]);
        }
      }),
    );
  });

  it('keeps times exactly: milliseconds, whole seconds, spans past 49 days and 136 years, fractions, -0', () => {
    const at = (...ts: (number | undefined)[]): Session[] =>
      ts.map((t, i) => sessionOf(`s${i}`, 'c1', 'ended', undefined, t, t, undefined));
    const cases = [
      at(NOW, NOW + 0xffff_fffe, undefined), // milliseconds, the widest span held in two code units
      at(NOW, NOW + 0xffff_ffff), // one past it
      at(NOW, NOW + 0xffff_fffe * 1000 - 1000, undefined), // whole seconds, far apart
      at(-8.64e15, 8.64e15 - 1), // the ends of what a Date holds
      at(NOW + 0.5, NOW),
      at(-0, 5),
      at(undefined, undefined),
    ];
    for (const sessions of cases) {
      const list = SessionList.of(sessions);
      expect(list.toArray()).toStrictEqual(sessions);
      for (let i = 0; i < sessions.length; i++) expect(scheduledAt(list, i)).toBe(sessions[i]!.scheduledAt);
    }
  });

  it('answers the same questions about an array and about the list holding it', () => {
    fc.assert(
      fc.property(lists, fc.string(), (sessions, id) => {
        const list = SessionList.of(sessions);
        const wanted = sessions[0]?.id ?? id;
        expect(indexOfId(list, wanted)).toBe(indexOfId(sessions, wanted));
        expect(indexOfId(list, wanted)).toBe(sessions.findIndex((s) => s.id === wanted));
        expect(findSession(list, wanted)).toStrictEqual(findSession(sessions, wanted));
        expect(sessionArray(list)).toStrictEqual(sessionArray(sessions));
      }),
    );
  });

  it('finds the sessions of wanted ids, few or many, as a filter of the array finds them', () => {
    fc.assert(
      fc.property(lists, fc.array(fc.string(), { maxLength: 12 }), fc.nat(12), (sessions, others, taken) => {
        const wanted = new Set([...sessions.slice(0, taken).map((s) => s.id), ...others]);
        const expected = sessions.flatMap((s, i) => (wanted.has(s.id) ? [i] : []));
        expect(wantedIn(SessionList.of(sessions), wanted)).toEqual(expected);
        expect(wantedIn(sessions, wanted)).toEqual(expected);
      }),
    );
  });

  it('hands out ids and titles that do not keep the whole list alive', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: string[] = [];
    const keep = () => {
      for (let k = 0; k < 1000; k++) {
        const list = SessionList.of(
          Array.from({ length: 200 }, (_, i) => ({
            id: `session-${k}-${i}-abcdefgh`,
            channelId: 'c1',
            status: 'live',
            title: `A title long enough to be viewed ${k} ${i}`,
          })),
        );
        kept.push(list.idAt(7), list.at(9)!.title!);
      }
    };
    gc();
    const before = process.memoryUsage().heapUsed;
    keep();
    gc();
    const perString = (process.memoryUsage().heapUsed - before) / kept.length;
    // A string of its own is some 100 bytes; a view would keep 200 ids or titles (~8 KB).
    expect(perString).toBeLessThan(1000);
    expect(kept[0]).toBe('session-0-7-abcdefgh');
    expect(kept[1]).toBe('A title long enough to be viewed 0 9');
  });

  it('makes a new object at each ask, so no caller can change what the snapshot holds', () => {
    const list = SessionList.of([
      { id: 's1', channelId: 'c1', status: 'live', startedAt: 1_790_000_000_000 },
    ]);
    const a = list.at(0)!;
    a.status = 'ended';
    expect(list.at(0)).not.toBe(a);
    expect(list.at(0)!.status).toBe('live');
  });

  it('reads an index as an array does (Array.prototype.at): from the end when negative, whole numbers only', () => {
    fc.assert(
      fc.property(lists, fc.oneof(fc.integer({ min: -40, max: 40 }), fc.double()), (sessions, i) => {
        expect(SessionList.of(sessions).at(i)).toStrictEqual(sessions.at(i));
      }),
    );
  });

  it('holds a list once: a list already held is taken as it is', () => {
    const list = SessionList.of([{ id: 's1', channelId: 'c1', status: 'ended' }]);
    expect(SessionList.of(list)).toBe(list);
    expect(SessionList.of([]).length).toBe(0);
    expect(sessionArray([])).toEqual([]);
  });

  it('holds only arrays of objects: anything else a stored file may hold is left as it was', () => {
    expect(holdable([])).toBe(true);
    expect(holdable([{ id: 's1', channelId: 'c1', status: 'live' }])).toBe(true);
    const ok = { id: 's1', channelId: 'c1', status: 'live' };
    expect(holdable([ok, { ...ok, title: '', scheduledAt: 1, startedAt: 2, endedAt: 3 }])).toBe(true);
    for (const odd of [
      undefined,
      null,
      'x',
      {},
      [null],
      [7],
      [[]],
      [ok, 'x'],
      [{ status: 'live', channelId: 'c1' }],
      [{ ...ok, id: 5 }],
      [{ ...ok, channelId: null }],
      [{ ...ok, status: undefined }],
      [{ ...ok, title: 7 }],
      [{ ...ok, startedAt: '2026-11-26T12:00:00Z' }],
    ])
      expect(holdable(odd)).toBe(false);
  });
});
