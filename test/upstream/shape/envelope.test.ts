import { describe, expect, it } from 'vitest';
import {
  type Endpoint,
  readListPage,
  readObject,
  SchemaDriftError,
  type ShapeOptions,
} from '../../../src/upstream/shape/index.js';

const url = new URL('https://api.test/v1/acme/channels');
const state = { page: 1, perPage: 100, seen: 0 };
const list = [{ id: 'a' }, { id: 'b' }];
const items = (endpoint: Endpoint, body: unknown, opts: ShapeOptions = {}) =>
  readListPage(endpoint, body, {}, url, opts, state).items;

describe('list envelopes', () => {
  it.each<[string, Endpoint, unknown]>([
    ['bare array', 'channels', list],
    ['data', 'channels', { data: list }],
    ['items', 'channels', { items: list }],
    ['results', 'channels', { results: list }],
    ['records', 'channels', { records: list }],
    ['Data (other case)', 'channels', { Data: list }],
    ['channels', 'channels', { channels: list }],
    ['members', 'team', { members: list }],
    ['team', 'team', { team: list }],
    ['users', 'team', { users: list }],
    ['sessions', 'sessions', { sessions: list }],
    ['broadcasts', 'sessions', { broadcasts: list }],
    ['data.items', 'channels', { data: { items: list, total: 2 } }],
    ['data.channels', 'channels', { data: { channels: list } }],
    ['data.members', 'team', { data: { members: list } }],
    ['data.results', 'sessions', { data: { results: list } }],
    ['resource key before data', 'channels', { channels: list, data: [{ id: 'x' }] }],
    ['list beside paging and meta', 'channels', { meta: { total: 2 }, data: list, links: {} }],
    ['a key tally has no name for, found by its shape', 'channels', { entries: list, total: 2 }],
  ])('%s', (_name, endpoint, body) => {
    expect(items(endpoint, body)).toEqual(list);
  });

  it('takes a null list (a Go nil slice) as an empty list', () => {
    expect(items('channels', { data: null, next_cursor: null })).toEqual([]);
  });

  it('an operator path wins over the built-in keys', () => {
    const body = { data: [{ id: 'wrong' }], payload: { entries: list } };
    expect(items('channels', body, { envelope: { channels: 'payload.entries' } })).toEqual(list);
    expect(items('channels', list, { envelope: { channels: '' } })).toEqual(list);
  });

  it.each<[string, Endpoint, unknown, ShapeOptions, RegExp]>([
    [
      'unknown key',
      'channels',
      { entries: { a: 1 }, total: 2 },
      {},
      /^channels: no list found .*an object with keys entries, total/,
    ],
    ['error body', 'team', { error: { code: 'x', message: 'y' } }, {}, /^team: no list found .*keys error/],
    ['error beside a null list', 'team', { data: null, error: 'boom' }, {}, /^team: no list found/],
    ['string', 'sessions', 'hello', {}, /^sessions: no list found .*a string/],
    ['null', 'channels', null, {}, /^channels: no list found .*null/],
    ['number', 'channels', 42, {}, /a number/],
    ['object in place of the list', 'channels', { data: { id: 1 } }, {}, /keys data/],
    ['empty object', 'channels', {}, {}, /an empty object/],
    [
      'operator path missing',
      'channels',
      { data: list },
      { envelope: { channels: 'x.y' } },
      /'x.y' holds nothing/,
    ],
    [
      'operator path not a list',
      'channels',
      { x: { y: 1 } },
      { envelope: { channels: 'x' } },
      /'x' holds an object/,
    ],
  ])('no list: %s → SchemaDriftError naming the endpoint', (_name, endpoint, body, opts, message) => {
    let err: unknown;
    try {
      readListPage(endpoint, body, {}, url, opts, state);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaDriftError);
    const drift = err as SchemaDriftError;
    expect(drift.message).toMatch(message);
    expect(drift.endpoint).toBe(endpoint);
    expect(drift.field).toBe('envelope');
    expect(drift.reason).toBe('schema');
    expect(drift.retryable).toBe(false);
  });

  it('masks control characters of key names in the message', () => {
    expect(() => items('channels', { 'a\nb': 1 })).toThrow('keys a?b)');
  });

  it('names at most a dozen keys of a large unknown body', () => {
    const body = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    expect(() => items('channels', body)).toThrow(/k11, … 18 more/);
  });
});

describe('object envelopes', () => {
  const org = { slug: 'acme', name: 'Acme' };
  const sub = { plan: 'pro', limits: {} };
  const session = { id: 's1', title: 'T' };
  it.each<[string, Endpoint, unknown, unknown]>([
    ['bare org', 'org', org, org],
    ['data', 'org', { data: org }, org],
    ['organization', 'org', { organization: org }, org],
    ['org', 'org', { org }, org],
    ['data.organization', 'org', { data: { organization: org } }, org],
    ['bare subscription', 'subscription', sub, sub],
    ['subscription key', 'subscription', { subscription: sub }, sub],
    ['data subscription', 'subscription', { data: sub, meta: {} }, sub],
    ['bare session', 'session', session, session],
    ['session key', 'session', { session }, session],
    ['broadcast key', 'session', { broadcast: session }, session],
    [
      'bare record with its own data field',
      'session',
      { id: 's1', data: { x: 1 } },
      { id: 's1', data: { x: 1 } },
    ],
  ])('%s', (_name, endpoint, body, expected) => {
    expect(readObject(endpoint, body, {})).toEqual(expected);
  });

  it('an operator path wins', () => {
    expect(readObject('org', { result: { profile: org } }, { envelope: { org: 'result.profile' } })).toEqual(
      org,
    );
  });

  it.each<[string, Endpoint, unknown, ShapeOptions, RegExp]>([
    ['array', 'org', [org], {}, /^org: expected an object, found an array \(1 item\)/],
    ['null', 'subscription', null, {}, /^subscription: expected an object, found null/],
    ['string', 'session', 'x', {}, /^session: expected an object, found a string/],
    ['empty object', 'org', {}, {}, /an empty object/],
    ['error only', 'org', { error: { code: 'not_found' } }, {}, /keys error/],
    [
      'operator path not an object',
      'org',
      { data: [org] },
      { envelope: { org: 'data' } },
      /'data' holds an array/,
    ],
  ])('no object: %s → SchemaDriftError', (_name, endpoint, body, opts, message) => {
    expect(() => readObject(endpoint, body, opts)).toThrow(SchemaDriftError);
    expect(() => readObject(endpoint, body, opts)).toThrow(message);
  });
});

describe('HAL lists', () => {
  it('finds a list under _embedded and follows _links.next.href', () => {
    const body = {
      _embedded: { channels: list },
      _links: {
        self: { href: '/v1/acme/channels?page=0' },
        next: { href: '/v1/acme/channels?page=1&size=2' },
      },
      page: { size: 2, totalElements: 5, totalPages: 3, number: 0 },
    };
    const page = readListPage('channels', body, {}, url, {}, state);
    expect(page.items).toEqual(list);
    expect(page.next).toEqual({ kind: 'url', url: 'https://api.test/v1/acme/channels?page=1&size=2' });
  });

  it('ends at _links without a next, though a 0-based page number would read as one more page', () => {
    const body = {
      _embedded: { channels: list },
      _links: { self: { href: '/v1/acme/channels?page=0&size=20' } },
      page: { size: 20, totalElements: 2, totalPages: 1, number: 0 },
    };
    expect(readListPage('channels', body, {}, url, {}, state).next).toBeUndefined();
  });

  it('ends at a links object with paging relations but no next', () => {
    const body = {
      data: list,
      links: { self: '/x?page=3', first: '/x?page=1', prev: '/x?page=2' },
      meta: { page: 0 },
    };
    expect(readListPage('channels', body, {}, url, {}, state).next).toBeUndefined();
  });
});
