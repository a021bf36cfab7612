import { describe, expect, it } from 'vitest';
import { goneItems, newItems } from '../../src/snapshot/diff-detail.js';
import type { DetailItem } from '../../src/snapshot/model.js';

const item = (id: string, at?: number): DetailItem => (at === undefined ? { id } : { id, at });
const ids = (items: DetailItem[]) => items.map((i) => i.id);

describe('newItems', () => {
  it.each([
    {
      name: 'a full list: every unseen id, in the newer order',
      a: { count: 1, items: [item('q1')] },
      b: { count: 3, items: [item('q1'), item('q3'), item('q2')] },
      out: ['q3', 'q2'],
    },
    {
      name: 'a repeated id counts once',
      a: { count: 0, items: [] },
      b: { count: 2, items: [item('q1'), item('q1')] },
      out: ['q1'],
    },
    {
      name: 'nothing new when items only disappear',
      a: { count: 2, items: [item('q1'), item('q2')] },
      b: { count: 1, items: [item('q2')] },
      out: [],
    },
    {
      name: 'an older page: items older than the newest seen were only off the page',
      a: { count: 30, items: [item('q29', 290), item('q30', 300)] },
      b: { count: 31, items: [item('q10', 100), item('q30', 300), item('q31', 310)] },
      out: ['q31'],
    },
    {
      name: 'an older page without times: no more than the count grew by',
      a: { count: 30, items: [item('q29'), item('q30')] },
      b: { count: 31, items: [item('q30'), item('q31'), item('q5')] },
      out: ['q31'],
    },
    {
      name: 'an older page, count unchanged: a reshuffled page is not news',
      a: { count: 30, items: [item('q1'), item('q2')] },
      b: { count: 30, items: [item('q7'), item('q8')] },
      out: [],
    },
  ])('$name', ({ a, b, out }) => {
    expect(ids(newItems(a, b))).toEqual(out);
  });
});

describe('goneItems', () => {
  it.each([
    {
      name: 'full lists: every id no longer shown',
      a: { count: 2, items: [item('sp1'), item('sp2')] },
      b: { count: 1, items: [item('sp2')] },
      out: ['sp1'],
    },
    {
      name: 'the newer list is only a page: nobody is known to have left',
      a: { count: 2, items: [item('sp1'), item('sp2')] },
      b: { count: 5, items: [item('sp2')] },
      out: [],
    },
  ])('$name', ({ a, b, out }) => {
    expect(ids(goneItems(a, b))).toEqual(out);
  });
});
