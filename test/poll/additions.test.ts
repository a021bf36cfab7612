/**
 * Mass additions are suspect (src/poll/additions.ts): a read that adds a mass share of a
 * list is held until a later read shows it again, then reported as one summarised event.
 */
import { describe, expect, it } from 'vitest';
import { AdditionCheck, BULK_SAMPLE } from '../../src/poll/additions.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type { Member, OrgSnapshot } from '../../src/snapshot/model.js';
import { emptySnapshot } from '../../src/snapshot/model.js';

const T0 = Date.UTC(2030, 0, 1);
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function withTeam(at: number, members: string[], role = 'member'): OrgSnapshot {
  const value: Member[] = members.map((id) => ({ id, name: id.toUpperCase(), role }));
  return { ...emptySnapshot('acme', at), team: { state: 'complete', at, value } };
}

/** Feeds reads of the team list through one check; returns what each read reported and kept. */
function reads(lists: OrgSnapshot[]) {
  const check = new AdditionCheck();
  let current = lists[0]!;
  const out: { events: ChangeEvent[]; size: number; reread: number }[] = [];
  for (const next of lists.slice(1)) {
    const r = check.review('team', diff(current, next), current, next, next.takenAt);
    current = r.next;
    out.push({
      events: r.events,
      size: current.team?.state === 'complete' ? current.team.value.length : -1,
      reread: r.reread.length,
    });
  }
  return { out, check };
}

describe('AdditionCheck', () => {
  const base = ids('m', 30);

  it('holds 70 000 additions to a list of 30, then reports them as one event once a later read confirms them', () => {
    const big = [...base, ...ids('x', 70_000)];
    const { out } = reads([
      withTeam(T0, base),
      withTeam(T0 + 1000, big),
      withTeam(T0 + 2000, big),
      withTeam(T0 + 3000, big),
    ]);
    // Held: no event, the list as it was, read again at once.
    expect(out[0]).toEqual({ events: [], size: 30, reread: 1 });
    // Confirmed: one event with the count and a sample; the items are in the list.
    expect(out[1]!.events).toHaveLength(1);
    const e = out[1]!.events[0]!;
    expect(e).toMatchObject({
      kind: 'member.added_bulk',
      org: 'acme',
      entity: { kind: 'org', id: 'acme' },
      to: 70_000,
    });
    expect(e.labels['count']).toBe('70000');
    expect(e.labels['sample']!.split(', ')).toHaveLength(BULK_SAMPLE);
    expect(out[1]!.size).toBe(70_030);
    // Then nothing more.
    expect(out[2]!.events).toEqual([]);
  });

  it('forgets a mass addition a later read does not repeat: nothing reported, ever', () => {
    const big = [...base, ...ids('x', 5000)];
    const { out } = reads([
      withTeam(T0, base),
      withTeam(T0 + 1000, big),
      withTeam(T0 + 2000, base),
      withTeam(T0 + 3000, base),
    ]);
    expect(out.map((r) => r.events)).toEqual([[], [], []]);
    expect(out.map((r) => r.size)).toEqual([30, 30, 30]);
  });

  it('reports the other changes of a held list at the read that confirms it', () => {
    const big = [...base, ...ids('x', 200)];
    const promoted = (s: OrgSnapshot): OrgSnapshot => ({
      ...s,
      team: {
        state: 'complete',
        at: s.takenAt,
        value: (s.team as { value: Member[] }).value.map((m) =>
          m.id === 'm0' ? { ...m, role: 'admin' } : m,
        ),
      },
    });
    const { out } = reads([
      withTeam(T0, base),
      promoted(withTeam(T0 + 1000, big)),
      promoted(withTeam(T0 + 2000, big)),
    ]);
    expect(out[0]!.events).toEqual([]);
    expect(out[1]!.events.map((e) => `${e.kind} ${e.entity.id}`).sort()).toEqual([
      'member.added_bulk acme',
      'member.role_changed m0',
    ]);
  });

  it('takes ordinary additions at once, one event each', () => {
    const { out } = reads([withTeam(T0, base), withTeam(T0 + 1000, [...base, ...ids('x', 20)])]);
    expect(out[0]!.events).toHaveLength(20);
    expect(out[0]!.events.every((e) => e.kind === 'member.added')).toBe(true);
    // A small list that grows past its size by fewer than 100 items is no mass either.
    const small = reads([withTeam(T0, ['a']), withTeam(T0 + 1000, ['a', ...ids('x', 99)])]);
    expect(small.out[0]!.events).toHaveLength(99);
  });

  it('gives a confirmed mass addition the same id when the same reads come again (a restart)', () => {
    const big = [...base, ...ids('x', 300)];
    const lists = [withTeam(T0, base), withTeam(T0 + 1000, big), withTeam(T0 + 2000, big)];
    const a = reads(lists).out[1]!.events[0]!.id;
    const b = reads(lists).out[1]!.events[0]!.id;
    expect(a).toBe(b);
  });
});
