/** One record per id: reading a record's id, and keeping the first of each. */
import { describe, expect, it } from 'vitest';
import { dedupeById } from '../../src/upstream/parts.js';
import { driftReason } from '../../src/upstream/shape/drift.js';
import { recordId } from '../../src/upstream/shape/index.js';

describe('recordId', () => {
  it('reads the id the normalizer reads, silently', () => {
    expect(recordId('channels', { id: 7, name: 'x' }, {})).toBe('7');
    expect(recordId('channels', { uuid: ' u-1 ' }, {})).toBe('u-1');
    expect(recordId('channels', { type: 'channel', id: 'c9', attributes: { name: 'n' } }, {})).toBe('c9');
    expect(recordId('team', { email: 'a@b.test' }, {})).toBe('a@b.test');
    expect(recordId('sessions', { broadcast_id: 'b1' }, {})).toBe('b1');
    expect(recordId('channels', { liveId: 'L' }, { fields: { 'channel.id': ['liveId'] } })).toBe('L');
    expect(recordId('channels', { name: 'no id' }, {})).toBeUndefined();
    expect(recordId('channels', 'c1', {})).toBeUndefined();
    expect(recordId('org', { id: 'o' }, {})).toBeUndefined();
  });

  it('tells --explain nothing', () => {
    const told: string[] = [];
    const trace = { field: (_e: string, k: string) => told.push(k), keys: () => {}, page: () => {} };
    recordId('channels', { id: 'c1' }, { trace });
    expect(told).toEqual([]);
  });
});

describe('dedupeById', () => {
  const a = { id: 'a', name: 'A' };
  const b = { id: 'b', name: 'B' };

  it('leaves a list without repeats as it is, with no drift', () => {
    expect(dedupeById('channels', [a, b])).toEqual({ items: [a, b], drift: [], conflicting: 0 });
  });

  it('keeps the first of identical records with a note that counts them, never naming ids', () => {
    const r = dedupeById('channels', [a, b, { ...a }, { ...a }, { ...b }]);
    expect(r.items).toEqual([a, b]);
    expect(r.conflicting).toBe(0);
    expect(r.drift).toEqual([
      {
        endpoint: 'channels',
        field: 'channel.id',
        problem:
          '3 records have the same id as an earlier, identical record of the list; the first of each was kept',
        fatal: false,
      },
    ]);
    expect(driftReason(r.drift[0]!)).toBe('duplicate_id');
    expect(JSON.stringify(r.drift)).not.toMatch(/"A"|"B"|'a'|'b'/);
  });

  it('keeps the first of differing records, and says the list cannot be complete', () => {
    const r = dedupeById('sessions', [a, { id: 'a', name: 'Other' }, b, { ...b }]);
    expect(r.items).toEqual([a, b]);
    expect(r.conflicting).toBe(1);
    expect(r.drift).toEqual([
      expect.objectContaining({ field: 'session.id', fatal: false }),
      {
        endpoint: 'sessions',
        field: 'session.id',
        problem:
          '1 record has the same id as an earlier, different record of the list; the first of each was kept and the list is incomplete',
        fatal: true,
      },
    ]);
    expect(r.drift.map(driftReason)).toEqual(['duplicate_id', 'conflicting_id']);
  });
});
