/** A list key holding null: an empty list, unless the body counts items it should hold. */
import { describe, expect, it } from 'vitest';
import { driftReason } from '../../../src/upstream/shape/drift.js';
import { readListPage, SchemaDriftError } from '../../../src/upstream/shape/index.js';

describe('readListPage: a null list', () => {
  const url = new URL('https://api.test/v1/o/channels');

  it('beside a total of items not read is drift naming the contradiction', () => {
    const read = () =>
      readListPage('channels', { channels: null, total: 5 }, {}, url, {}, { page: 1, perPage: 100, seen: 0 });
    expect(read).toThrow(SchemaDriftError);
    expect(read).toThrow("channels: the list at 'channels' is null, yet the response counts 5 items");
    let err: SchemaDriftError | undefined;
    try {
      read();
    } catch (e) {
      err = e as SchemaDriftError;
    }
    expect(err?.field).toBe('envelope');
    expect(driftReason({ endpoint: 'channels', field: err!.field, problem: err!.message, fatal: true })).toBe(
      'no_list',
    );
  });

  it('is an empty page when the total is zero or was read already (a Go server past the end)', () => {
    expect(
      readListPage('channels', { data: null, total: 0 }, {}, url, {}, { page: 1, perPage: 100, seen: 0 })
        .items,
    ).toEqual([]);
    expect(
      readListPage('channels', { data: null, total: 5 }, {}, url, {}, { page: 2, perPage: 5, seen: 5 }).items,
    ).toEqual([]);
    expect(
      readListPage('channels', { data: null }, {}, url, {}, { page: 1, perPage: 100, seen: 0 }).items,
    ).toEqual([]);
  });

  it('beside a total larger than what earlier pages held is drift too', () => {
    expect(() =>
      readListPage('channels', { data: null, total: 9 }, {}, url, {}, { page: 2, perPage: 5, seen: 5 }),
    ).toThrow('and 5 were read before it');
  });
});
