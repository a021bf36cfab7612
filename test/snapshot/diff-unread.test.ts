import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import type { SessionDetail, SubResource } from '../../src/snapshot/model.js';
import { detailOf, twoReads } from './fixtures.js';

/** A detail of which `names` could not be read: their values are placeholders. */
function unread(d: SessionDetail, names: SubResource[]): void {
  d.unread = names;
  if (names.includes('questions')) d.questions = { count: 0, items: [] };
  if (names.includes('speakers')) d.speakers = { count: 0, items: [] };
  if (names.includes('reactions')) d.reactions = { count: 0, byKind: {} };
  if (names.includes('ai')) d.ai = {};
}

describe('diff: a sub-resource that could not be read (docs/upstream-shapes.md, "Session detail")', () => {
  it('yields no event when it becomes unread: unknown is not 0', () => {
    const [prev, next] = twoReads((w) =>
      unread(detailOf(w, 's3'), ['questions', 'speakers', 'reactions', 'ai']),
    );
    expect(diff(prev, next)).toEqual([]);
  });

  it('its first read after being unread is a baseline, not news', () => {
    const [prev, next] = twoReads((w) => {
      detailOf(w, 's3').questions = {
        count: 3,
        items: [{ id: 'q1' }, { id: 'q2', text: 'Two' }, { id: 'q3', text: 'Three' }],
      };
      detailOf(w, 's3').reactions = { count: 40, byKind: { clap: 40 } };
    });
    const before = prev.details['s3'];
    if (before?.state !== 'complete') throw new Error('the fixture has a complete detail of s3');
    unread(before.value, ['questions', 'reactions']);
    expect(diff(prev, next)).toEqual([]);
  });

  it('the sub-resources that were read still report their news', () => {
    const [prev, next] = twoReads((w) => {
      const d = detailOf(w, 's3');
      d.questions = { count: 2, items: [...d.questions.items, { id: 'q2', text: 'New' }] };
      unread(d, ['speakers']);
    });
    expect(diff(prev, next).map((e) => [e.kind, e.to])).toEqual([['session.question_added', 'New']]);
  });
});
