import { describe, expect, it } from 'vitest';
import { type PendingEntry, PendingSet } from '../../src/notify/pending.js';
import { firingNotification } from './helpers/fixtures.js';

function entry(
  id: string,
  createdAt: number,
  over: Partial<PendingEntry> = {},
  group = 'g1',
  receiver = 'ops',
): PendingEntry {
  return {
    id,
    notification: firingNotification({ id, groupKey: group, receiver }),
    createdAt,
    attempts: 0,
    nextAttemptAt: createdAt,
    lastError: undefined,
    inFlight: false,
    ...over,
  };
}

describe('PendingSet', () => {
  it.each([
    ['oldest first across groups', [entry('a', 1, {}, 'g1'), entry('b', 2, {}, 'g2')], 10, ['a', 'b']],
    ['one per group: a newer one waits behind an older one', [entry('a', 1), entry('b', 2)], 10, ['a']],
    [
      'waits behind an older one that is not due yet',
      [entry('a', 1, { nextAttemptAt: 50 }), entry('b', 2)],
      10,
      [],
    ],
    ['waits behind one in flight', [entry('a', 1, { inFlight: true }), entry('b', 2)], 10, []],
    [
      'same group, other receiver: independent',
      [entry('a', 1), entry('b', 2, {}, 'g1', 'chat')],
      10,
      ['a', 'b'],
    ],
    ['limit', [entry('a', 1, {}, 'g1'), entry('b', 2, {}, 'g2'), entry('c', 3, {}, 'g3')], 2, ['a', 'b']],
    ['not due yet', [entry('a', 1, { nextAttemptAt: 11 }, 'g1'), entry('b', 2, {}, 'g2')], 10, ['b']],
  ])('due(): %s', (_name, entries, limit, expected) => {
    const set = new PendingSet();
    for (const e of entries) set.add(e);
    expect(set.due(10, limit).map((e) => e.id)).toEqual(expected);
  });

  it('keeps one entry per id, reports the next due time, expiry and backlog', () => {
    const set = new PendingSet();
    expect(set.add(entry('a', 100, { nextAttemptAt: 500 }))).toBe(true);
    expect(set.add(entry('a', 100))).toBe(false);
    set.add(entry('b', 300, { nextAttemptAt: 400, inFlight: true }, 'g2', 'chat'));
    expect(set.nextDueAt()).toBe(500);
    expect(set.olderThan(200).map((e) => e.id)).toEqual(['a']);
    expect(set.olderThan(400).map((e) => e.id)).toEqual(['a']); // in flight: not expired under its feet
    expect(Object.fromEntries(set.backlog(1000, ['ops', 'chat', 'idle']))).toEqual({
      ops: { depth: 1, oldestAgeMs: 900 },
      chat: { depth: 1, oldestAgeMs: 700 },
      idle: { depth: 0, oldestAgeMs: 0 },
    });
    set.remove('a');
    expect(set.size).toBe(1);
    expect(set.inFlight).toBe(1);
  });
});
