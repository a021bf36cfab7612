import { describe, expect, it } from 'vitest';
import { normalizeSessionDetail } from '../../../src/upstream/shape/index.js';

describe('sub-resource item ids by their words', () => {
  it('reads an item id under any id spelling (uid, uuid, guid), with no drift', () => {
    const raw = {
      id: 's1',
      status: 'live',
      questions: [{ uid: 'q1', text: 'Why?' }],
      announcements: [{ uuid: 'a1', text: 'Welcome' }],
      speakers: [{ guid: 'u1', name: 'Ann' }],
      reactions: 0,
    };
    const r = normalizeSessionDetail(raw, 's1', {});
    expect(r.value?.questions?.items.map((i) => i.id)).toEqual(['q1']);
    expect(r.value?.announcements?.items.map((i) => i.id)).toEqual(['a1']);
    expect(r.value?.speakers?.items.map((i) => i.id)).toEqual(['u1']);
    expect(r.drift.filter((d) => /usable id/.test(d.problem))).toEqual([]);
  });

  it('an item id named after another record (author_id) is not the item id: the item is known by content', () => {
    const raw = { id: 's1', status: 'live', questions: [{ author_id: 'p9', text: 'Why?' }], reactions: 0 };
    const r = normalizeSessionDetail(raw, 's1', {});
    const ids = r.value?.questions?.items.map((i) => i.id) ?? [];
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe('p9');
    expect(ids[0]).toMatch(/^~/);
  });
});
