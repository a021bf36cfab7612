import { describe, expect, it } from 'vitest';
import { RemovalCheck } from '../../src/poll/removals.js';
import { diff } from '../../src/snapshot/diff.js';
import type { Member, OrgSnapshot } from '../../src/snapshot/model.js';
import { emptySnapshot } from '../../src/snapshot/model.js';

const T0 = Date.UTC(2030, 0, 1);

function withTeam(at: number, ids: string[]): OrgSnapshot {
  const value: Member[] = ids.map((id) => ({ id, name: id.toUpperCase(), role: 'member' }));
  return { ...emptySnapshot('acme', at), team: { state: 'complete', at, value } };
}

/** Feeds reads of the team list, `stepMs` apart, through one check; returns what each read reported. */
function reads(lists: string[][], stepMs = 1000): { reported: string[][]; rereads: number } {
  const check = new RemovalCheck();
  let current = withTeam(T0, lists[0]!);
  const reported: string[][] = [];
  let rereads = 0;
  lists.slice(1).forEach((ids, i) => {
    const at = T0 + (i + 1) * stepMs;
    const next = withTeam(at, ids);
    const r = check.review('team', diff(current, next), current, next, at);
    reported.push(r.events.map((e) => `${e.kind} ${e.entity.id}`));
    rereads += r.reread.length;
    current = r.next;
  });
  return { reported, rereads };
}

describe('RemovalCheck', () => {
  it('holds a removal until a second read confirms it, then reports it once', () => {
    expect(reads([['a', 'b'], ['a'], ['a'], ['a']])).toEqual({
      reported: [[], ['member.removed b'], []],
      rereads: 1,
    });
  });

  it('reports nothing for an item missing from one answer only', () => {
    expect(reads([['a', 'b'], ['a'], ['a', 'b'], ['a', 'b']])).toEqual({
      reported: [[], [], []],
      rereads: 1,
    });
  });

  it('starts over for an item that was back in between', () => {
    expect(reads([['a', 'b'], ['a'], ['a', 'b'], ['a'], ['a']])).toEqual({
      reported: [[], [], [], ['member.removed b']],
      rereads: 2,
    });
  });

  it('reports every other change of the same read at once', () => {
    expect(
      reads([
        ['a', 'b'],
        ['a', 'c'],
        ['a', 'c'],
      ]),
    ).toEqual({
      reported: [['member.added c'], ['member.removed b']],
      rereads: 1,
    });
  });

  it('keeps the held item in the snapshot, so the confirming read measures from the first', () => {
    const check = new RemovalCheck();
    const current = withTeam(T0, ['a', 'b']);
    const next = withTeam(T0 + 1000, ['a']);
    const r = check.review('team', diff(current, next), current, next);
    expect(r.next.team?.state === 'complete' && r.next.team.value.map((m) => m.id)).toEqual(['a', 'b']);
    expect(r.reread).toEqual(['team']);
    expect(check.waiting).toBe(1);
  });

  describe('suspect reads (evidence before removal)', () => {
    const ten = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const removed = (ids: string[]) => ids.map((id) => `member.removed ${id}`);

    it('holds an emptied list through three reads and two minutes, then reports the mass deletion once', () => {
      const r = reads([ten, [], [], [], [], []], 60_000);
      // Reads at 1, 2, 3 min: the third read missing them, two minutes after the first, confirms.
      expect(r.reported).toEqual([[], [], removed(ten), [], []]);
      expect(r.rereads).toBe(1);
    });

    it('reports nothing when the list comes back after a suspect read', () => {
      expect(reads([ten, [], [], ten, ten, ten], 60_000).reported).toEqual([[], [], [], [], []]);
    });

    it('needs the time as well as the reads: three quick reads confirm nothing', () => {
      const quick = reads([ten, [], [], [], []], 1000);
      expect(quick.reported).toEqual([[], [], [], []]);
    });

    it('treats a mass loss (at least half, at least three) as suspect, a small loss as usual', () => {
      const mass = reads([ten, ['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']], 1000);
      expect(mass.reported).toEqual([[], []]);
      const small = reads([ten, ten.slice(0, 8), ten.slice(0, 8)], 1000);
      expect(small.reported).toEqual([[], removed(['i', 'j'])]);
    });

    it('empties a one-member team only with the same evidence', () => {
      expect(reads([['a'], [], []], 1000).reported).toEqual([[], []]);
      expect(reads([['a'], [], [], []], 120_000).reported).toEqual([[], [], removed(['a'])]);
    });

    it('says what it holds, by list', () => {
      const check = new RemovalCheck();
      const before = withTeam(T0, ten);
      const after = withTeam(T0 + 1000, []);
      check.review('team', diff(before, after), before, after, T0 + 1000);
      expect(check.held()).toEqual([{ list: 'team', count: 10, suspect: true, since: T0 + 1000 }]);
    });
  });
});
