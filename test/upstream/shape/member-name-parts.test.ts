import { describe, expect, it } from 'vitest';
import { normalizeMember } from '../../../src/upstream/shape/index.js';

describe('a member name split into given and family names', () => {
  it.each([
    [{ id: 'm1', given_name: 'Ann', family_name: 'Lee' }],
    [{ id: 'm1', firstName: 'Ann', lastName: 'Lee' }],
    [{ id: 'm1', 'first-name': 'Ann', surname: 'Lee' }],
  ])('joins %o given first, with no drift', (raw) => {
    const r = normalizeMember(raw, {});
    expect(r.value?.name).toBe('Ann Lee');
    expect(r.drift).toEqual([]);
  });

  it('a whole name wins over the parts', () => {
    const r = normalizeMember({ id: 'm1', name: 'Ann B. Lee', first_name: 'Ann', last_name: 'Lee' }, {});
    expect(r.value?.name).toBe('Ann B. Lee');
  });

  it('one part alone is read as it is, nothing joined to it', () => {
    expect(normalizeMember({ id: 'm1', first_name: 'Ann' }, {}).value?.name).toBe('Ann');
  });
});
