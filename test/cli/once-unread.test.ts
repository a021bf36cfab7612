import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/cli/once.js';
import { detailOf, snapshotOf, T0, world } from '../snapshot/fixtures.js';

describe('tally once: a sub-resource that could not be read', () => {
  it('shows ? for its count, never 0', () => {
    const w = world();
    const d = detailOf(w, 's3');
    d.questions = { count: 0, items: [] };
    d.unread = ['questions'];
    const text = summarize({ acme: snapshotOf(w, T0) });
    expect(text).toContain('? questions, 0 announcements, 10 reactions, 1 speakers');
  });
});
