/**
 * Lists and objects found by their shape (docs/upstream-shapes.md, "Envelopes"): the array
 * of records wherever it sits, known names breaking ties only, ties left reported.
 */
import { describe, expect, it } from 'vitest';
import {
  type Endpoint,
  readListPage,
  readObject,
  SchemaDriftError,
} from '../../../src/upstream/shape/index.js';
import { findList } from '../../../src/upstream/shape/envelope.js';
import { Shape, shapeOf } from '../../../src/upstream/shape/structure.js';

const url = new URL('https://api.test/v1/acme/channels');
const state = { page: 1, perPage: 100, seen: 0 };
const list = [
  { id: 'a', name: 'A' },
  { id: 'b', name: 'B' },
];

function driftOf(f: () => unknown): SchemaDriftError {
  try {
    f();
  } catch (e) {
    if (e instanceof SchemaDriftError) return e;
    throw e;
  }
  throw new Error('no drift raised');
}

describe('shapeOf', () => {
  it.each<[string, unknown[], number]>([
    ['records with ids', list, Shape.IdRecords],
    [
      'records with `_id`',
      [
        { _id: 1, x: 1 },
        { _id: 2, x: 2 },
      ],
      Shape.IdRecords,
    ],
    ['records with `@id`', [{ '@id': '/a', x: 1 }], Shape.IdRecords],
    ['records without ids', [{ name: 'a' }, { name: 'b' }], Shape.Records],
    ['scalars', ['a', 'b'], Shape.Other],
    ['link objects', [{ href: '/a', rel: 'next' }], Shape.Other],
    ['records sharing no key', [{ a: 1 }, { b: 2 }, { c: 3 }], Shape.Other],
    ['empty', [], Shape.Empty],
  ])('%s', (_name, items, shape) => {
    expect(shapeOf(items)).toBe(shape);
  });
});

describe('a list found by its shape', () => {
  it.each<[string, Endpoint, unknown, string]>([
    ['OData `value`', 'channels', { '@odata.context': 'x', value: list }, 'value'],
    ['LinkedIn `elements`', 'team', { elements: list, paging: { start: 0 } }, 'elements'],
    ['Solr `response.docs`', 'sessions', { response: { numFound: 2, docs: list } }, 'response.docs'],
    [
      'HAL with a resource name unknown to tally',
      'channels',
      { _embedded: { streams: list } },
      '_embedded.streams',
    ],
    [
      'JSON:API: `data`, not `included`',
      'channels',
      { data: list, included: [{ id: 'u', type: 'user' }] },
      'data',
    ],
    ['three keys down', 'channels', { result: { page: { rows: list } } }, 'result.page.rows'],
    ['errors are never the list', 'channels', { errors: [{ id: 'e', code: 1 }], payload: list }, 'payload'],
    [
      'links are never the list',
      'channels',
      { links: [{ href: '/x', rel: 'next' }], entries: list },
      'entries',
    ],
    ['records win over scalars under a known name', 'channels', { items: ['a'], rows: list }, 'rows'],
    ['a sole empty array under an unknown key', 'channels', { value: [], count: 0 }, 'value'],
  ])('%s', (name, endpoint, body, path) => {
    const page = readListPage(endpoint, body, {}, url, {}, state);
    expect(page.listPath).toBe(path);
    expect(page.items).toHaveLength(name.startsWith('a sole empty') ? 0 : 2);
  });

  it('reports the holder of a nested list, for paging', () => {
    const body = { response: { docs: list, nextCursor: 'c2' } };
    expect(findList('sessions', body, {}).holder).toBe(body.response);
  });

  it('a known name breaks a tie between two arrays of records', () => {
    const body = { featured: [{ id: 'f' }], channels: list };
    expect(readListPage('channels', body, {}, url, {}, state).listPath).toBe('channels');
  });

  it('two equally good arrays with no known name: drift naming both, not a guess', () => {
    const e = driftOf(() => readListPage('channels', { streams: list, rooms: list }, {}, url, {}, state));
    expect(e.field).toBe('envelope');
    expect(e.message).toMatch(/^channels: ambiguous: 2 arrays could each be the list \('streams', 'rooms'\)/);
  });

  it('records with ids win over records without, whatever their names', () => {
    const body = { data: [{ label: 'x' }], records2: list };
    expect(readListPage('channels', body, {}, url, {}, state).listPath).toBe('records2');
  });
});

describe('an object found by what it carries', () => {
  it('a profile under a key tally has no name for', () => {
    const body = { meta: { requestId: 'r1' }, result: { name: 'Acme', plan: 'pro' } };
    expect(readObject('org', body, {})).toEqual({ name: 'Acme', plan: 'pro' });
  });

  it('a session detail two keys down', () => {
    const session = { id: 's1', title: 'T', status: 'live', questions: [] };
    expect(readObject('session', { response: { item: session } }, {})).toBe(session);
  });

  it('the known name wins a tie', () => {
    const sub = { plan: 'pro', limits: {} };
    expect(readObject('subscription', { subscription: sub, other: { plan: 'x', limits: {} } }, {})).toBe(sub);
  });

  it('two other objects that tie: drift naming both', () => {
    const e = driftOf(() =>
      readObject('org', { a: { name: 'A', plan: 'p' }, b: { name: 'B', plan: 'q' } }, {}),
    );
    expect(e.message).toMatch(/^org: ambiguous: 2 objects could each be the record \('a', 'b'\)/);
  });
});
