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

/** Feeds reads of the team list through one check; returns what each read reported. */
function reads(lists: string[][]): { reported: string[][]; rereads: number } {
  const check = new RemovalCheck();
  let current = withTeam(T0, lists[0]!);
  const reported: string[][] = [];
  let rereads = 0;
  lists.slice(1).forEach((ids, i) => {
    const next = withTeam(T0 + (i + 1) * 1000, ids);
    const r = check.review('team', diff(current, next), current, next);
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
});
