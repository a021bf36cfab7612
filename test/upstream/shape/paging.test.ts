import { describe, expect, it } from 'vitest';
import {
  firstPageParams,
  type ListPage,
  readListPage,
  type ShapeOptions,
} from '../../../src/upstream/shape/index.js';

const url = new URL('https://api.test/v1/acme/channels?per_page=2');
const two = [{ id: 1 }, { id: 2 }];
const one = [{ id: 1 }];
type Headers = Record<string, string | string[] | undefined>;

function page(
  body: unknown,
  headers: Headers = {},
  opts: ShapeOptions = {},
  st = { page: 1, perPage: 2, seen: 0 },
): ListPage {
  return readListPage('channels', body, headers, url, opts, st);
}
const params = (p: Record<string, string>) => ({ kind: 'params', params: p });
const link = (u: string) => ({ kind: 'url', url: u });

describe('next pointer from one response', () => {
  it.each<[string, unknown, Headers, unknown]>([
    // Link header
    [
      'Link next',
      two,
      { link: '<https://api.test/v1/acme/channels?page=2>; rel="next"' },
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'Link header array',
      two,
      { Link: ['<?page=1>; rel=prev', '<?page=3>; rel=next'] },
      link('https://api.test/v1/acme/channels?page=3'),
    ],
    ['Link without next', two, { link: '<?page=1>; rel="prev"' }, undefined],
    [
      'Link wins over a body cursor',
      { data: two, next_cursor: 'c' },
      { link: '<?page=2>; rel=next' },
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    // next URL in the body
    [
      'next',
      { data: two, next: 'https://api.test/v1/acme/channels?page=2' },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'next relative',
      { data: two, next: '/v1/acme/channels?page=2' },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    ['next_url', { data: two, next_url: '?page=2' }, {}, link('https://api.test/v1/acme/channels?page=2')],
    [
      'nextUrl (camel)',
      { data: two, nextUrl: '?page=2' },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'links.next',
      { data: two, links: { next: '?page=2' } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'links.next.href',
      { data: two, links: { next: { href: '?page=2' } } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'paging.next',
      { data: two, paging: { next: '?page=2' } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'meta.next',
      { data: two, meta: { next: '?page=2' } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      '_links.next.href',
      { data: two, _links: { next: { href: '?page=2' } } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    [
      'next URL inside data',
      { data: { items: two, next: '?page=2' } },
      {},
      link('https://api.test/v1/acme/channels?page=2'),
    ],
    ['next null ends', { data: two, next: null, total: 10 }, {}, undefined],
    [
      'next URL on another origin is returned for the transport to refuse',
      { data: two, next: 'https://evil.test/p2' },
      {},
      link('https://evil.test/p2'),
    ],
    // cursors
    ['next_cursor', { data: two, next_cursor: 'abc' }, {}, params({ cursor: 'abc' })],
    ['a cursor that reads "end"', { data: two, next_cursor: 'end' }, {}, params({ cursor: 'end' })],
    ['numeric cursor', { data: two, next_cursor: 40 }, {}, params({ cursor: '40' })],
    ['nextCursor', { data: two, nextCursor: 'abc' }, {}, params({ cursor: 'abc' })],
    ['cursor.next', { data: two, cursor: { next: 'abc' } }, {}, params({ cursor: 'abc' })],
    ['meta.next_cursor', { data: two, meta: { next_cursor: 'abc' } }, {}, params({ cursor: 'abc' })],
    [
      'pagination.next_cursor',
      { data: two, pagination: { next_cursor: 'abc' } },
      {},
      params({ cursor: 'abc' }),
    ],
    [
      'paging.cursors.after with has_more',
      { data: two, paging: { cursors: { after: 'abc' } }, has_more: true },
      {},
      params({ cursor: 'abc' }),
    ],
    [
      'paging.cursors.after without has_more',
      { data: two, paging: { cursors: { after: 'abc' } } },
      {},
      undefined,
    ],
    [
      'paging.cursors.after with has_more false',
      { data: two, paging: { cursors: { after: 'abc' } }, has_more: false },
      {},
      undefined,
    ],
    [
      'page_info end_cursor (Relay)',
      { data: two, pageInfo: { endCursor: 'abc', hasNextPage: true } },
      {},
      params({ cursor: 'abc' }),
    ],
    [
      'next_cursor with has_more false ends',
      { data: two, next_cursor: 'abc', has_more: false },
      {},
      undefined,
    ],
    ['next_cursor null ends', { data: two, next_cursor: null, has_more: true }, {}, undefined],
    ['next_cursor empty ends', { data: two, next_cursor: '' }, {}, undefined],
    ['opaque next is a cursor', { data: two, next: 'eyJvIjoyfQ' }, {}, params({ cursor: 'eyJvIjoyfQ' })],
    // page numbers
    ['page < total_pages', { data: two, page: 1, total_pages: 3 }, {}, params({ page: '2' })],
    ['page = total_pages', { data: two, page: 3, total_pages: 3 }, {}, undefined],
    ['current_page < last_page', { data: two, current_page: 2, last_page: 3 }, {}, params({ page: '3' })],
    ['currentPage/lastPage (camel)', { data: two, currentPage: 2, lastPage: 3 }, {}, params({ page: '3' })],
    ['page as numeric string', { data: two, page: '1', total_pages: '3' }, {}, params({ page: '2' })],
    ['total beyond what was seen', { data: two, total: 5 }, {}, params({ page: '2' })],
    ['total reached', { data: two, total: 2 }, {}, undefined],
    ['total_count', { data: two, total_count: 5 }, {}, params({ page: '2' })],
    ['count as total', { results: two, count: 5 }, {}, params({ page: '2' })],
    [
      'count equal to a full page may be its length: go on',
      { results: two, count: 2 },
      {},
      params({ page: '2' }),
    ],
    ['count equal to a short page ends', { results: one, count: 1 }, {}, undefined],
    ['total equal to a full page ends', { results: two, total: 2 }, {}, undefined],
    // "More" without a pointer: after the last record (the list reader picks the parameter).
    ['has_more true', { data: two, has_more: true }, {}, { kind: 'keyset' }],
    ['hasMore true', { data: two, hasMore: true }, {}, { kind: 'keyset' }],
    [
      'done false (Salesforce) with its next URL',
      { records: two, done: false, nextRecordsUrl: '/q/01g-2' },
      {},
      { kind: 'url', url: 'https://api.test/q/01g-2' },
    ],
    ['done true ends', { records: two, done: true, total: 9 }, {}, undefined],
    [
      'isLast false (Jira) goes on from startAt',
      { data: two, startAt: 0, maxResults: 2, total: 5, isLast: false },
      {},
      params({ startAt: '2' }),
    ],
    ['isLast true ends', { data: two, startAt: 2, maxResults: 2, total: 9, isLast: true }, {}, undefined],
    [
      'paging.next.link (HubSpot)',
      { results: two, paging: { next: { after: 'NTI1', link: '?after=NTI1' } } },
      {},
      { kind: 'url', url: 'https://api.test/v1/acme/channels?after=NTI1' },
    ],
    [
      'paging.next.after without a link',
      { results: two, paging: { next: { after: 'NTI1' } } },
      {},
      params({ cursor: 'NTI1' }),
    ],
    [
      'next_page_uri (Twilio)',
      { data: two, next_page_uri: '/2010-04-01/Calls.json?Page=1&PageToken=PA1' },
      {},
      { kind: 'url', url: 'https://api.test/2010-04-01/Calls.json?Page=1&PageToken=PA1' },
    ],
    ['next_page_uri null ends', { data: two, next_page_uri: null, page: 0 }, {}, undefined],
    ['a bare cursor (Square) goes on', { data: two, cursor: 'sq-2' }, {}, params({ cursor: 'sq-2' })],
    [
      'response_metadata.next_cursor (Slack)',
      { data: two, response_metadata: { next_cursor: 'dXNl' } },
      {},
      params({ cursor: 'dXNl' }),
    ],
    ['nextPageToken (Google AIP-158)', { channels: two, nextPageToken: 'g2' }, {}, params({ cursor: 'g2' })],
    ['has_more false beats totals', { data: two, has_more: false, total: 10 }, {}, undefined],
    ['page without totals, full page', { data: two, page: 1 }, {}, params({ page: '2' })],
    ['page without totals, short page', { data: one, page: 1 }, {}, undefined],
    ['body per_page decides a full page', { data: two, page: 1, per_page: 3 }, {}, undefined],
    ['next_page number', { data: two, next_page: 2 }, {}, params({ page: '2' })],
    ['next_page null ends', { data: two, next_page: null, page: 1, total_pages: 3 }, {}, undefined],
    ['zero-based page', { data: two, page: 0, total_pages: 3 }, {}, params({ page: '1' })],
    ['X-Total-Count', two, { 'X-Total-Count': '5' }, params({ page: '2' })],
    ['X-Total', two, { 'x-total': '5' }, params({ page: '2' })],
    ['X-Total-Pages with X-Page', two, { 'X-Total-Pages': '3', 'X-Page': '2' }, params({ page: '3' })],
    ['X-Total-Pages reached', two, { 'X-Total-Pages': '2', 'X-Page': '2' }, undefined],
    ['X-Next-Page', two, { 'X-Next-Page': '4' }, params({ page: '4' })],
    ['X-Next-Page empty ends', two, { 'X-Next-Page': '', 'X-Total-Pages': '9' }, undefined],
    // endings
    ['empty page ends, even with a next link', { data: [], next: '?page=2' }, {}, undefined],
    [
      'empty page with has_more true goes on',
      { data: [], next_cursor: 'abc', has_more: true },
      {},
      params({ cursor: 'abc' }),
    ],
    ['nothing at all', two, {}, undefined],
    [
      'unrelated headers',
      two,
      { 'content-type': 'application/json', link: '<https://docs>; rel=help' },
      undefined,
    ],
  ])('%s', (_name, body, headers, next) => {
    expect(page(body, headers).next).toEqual(next);
  });
});

describe('the current page number', () => {
  it('is the one the body reports, else the one in the request URL, else the state', () => {
    const st = { page: 7, perPage: 2, seen: 0 };
    const body = { data: two, has_more: true };
    expect(readListPage('channels', { ...body, page: 4 }, {}, url, {}, st).next).toEqual(
      params({ page: '5' }),
    );
    const u = new URL('https://api.test/v1/acme/channels?page=3');
    expect(readListPage('channels', body, {}, u, {}, st).next).toEqual(params({ page: '4' }));
    // Asked without a page number, "more" alone is answered after the last record.
    expect(readListPage('channels', body, {}, url, {}, st).next).toEqual({ kind: 'keyset' });
  });

  it('never points at the page just requested when the body disagrees with the request', () => {
    const st = { page: 2, perPage: 2, seen: 2 };
    // A server counting from 0 in its body but from 1 in its parameter (Spring one-indexed parameters).
    const u2 = new URL('https://api.test/v1/acme/channels?page=2&per_page=2');
    const spring = readListPage(
      'channels',
      { content: two, page: { number: 1, totalPages: 3 } },
      {},
      u2,
      { envelope: { channels: 'content' } },
      st,
    );
    expect(spring.next).toEqual(params({ page: '3' }));
    expect(spring.note).toBe('the response says page 1 but page 2 was asked for');
    // A server ignoring the page parameter.
    const stale = readListPage('channels', { data: two, page: 1, total_pages: 2 }, {}, u2, {}, st);
    expect(stale.next).toBeUndefined();
    expect(stale.note).toMatch(/says page 1/);
  });

  it('uses the seen count for totals: the last page of 5 after 4 seen ends', () => {
    expect(
      page({ data: [{ id: 5 }], total: 5 }, {}, {}, { page: 3, perPage: 2, seen: 4 }).next,
    ).toBeUndefined();
    expect(page({ data: two, total: 5 }, {}, {}, { page: 2, perPage: 2, seen: 2 }).next).toEqual(
      params({ page: '3' }),
    );
  });
});

describe('totals and style', () => {
  it.each<[string, unknown, Headers, Partial<ListPage>]>([
    ['body totals', { data: two, total: 9, total_pages: 5 }, {}, { total: 9, totalPages: 5, style: 'page' }],
    [
      'header totals',
      two,
      { 'X-Total-Count': '9', 'X-Total-Pages': '5' },
      { total: 9, totalPages: 5, style: 'page' },
    ],
    [
      'nested meta totals',
      { data: two, meta: { pagination: { total: 9, total_pages: 5 } } },
      {},
      { total: 9, totalPages: 5 },
    ],
    ['Link style', two, { link: '<?page=2>; rel=next' }, { style: 'link' }],
    ['URL style', { data: two, next: '?page=2' }, {}, { style: 'url' }],
    ['cursor style', { data: two, next_cursor: 'x' }, {}, { style: 'cursor' }],
    ['no paging', one, {}, { style: 'none' }],
    ['a negative total is ignored', { data: two, total: -1 }, {}, { style: 'none' }],
    ['count as total', { results: two, count: 9 }, {}, { total: 9, style: 'page' }],
  ])('%s', (_name, body, headers, expected) => {
    expect(page(body, headers)).toMatchObject(expected);
  });

  it('a count equal to the page length is not reported as the total', () => {
    expect(page({ results: two, count: 2 }).total).toBeUndefined();
    expect(page({ results: two, total: 2 }).total).toBe(2);
  });

  it('notes a full page that shows no paging', () => {
    expect(page(two).note).toMatch(/2 items \(the page size\)/);
    expect(page(one).note).toBeUndefined();
  });
});

describe('forced modes', () => {
  const body = { data: two, next_cursor: 'c', page: 1, total_pages: 3, next: '?page=2' };
  const headers = { link: '<?page=9>; rel=next' };
  it.each<[NonNullable<ShapeOptions['paging']>, unknown]>([
    ['auto', link('https://api.test/v1/acme/channels?page=9')],
    ['link', link('https://api.test/v1/acme/channels?page=9')],
    ['cursor', params({ cursor: 'c' })],
    ['page', params({ page: '2' })],
    ['none', undefined],
  ])('%s', (paging, next) => {
    expect(page(body, headers, { paging }).next).toEqual(next);
  });

  it('cursor mode notes has_more without a cursor', () => {
    const lp = page({ data: two, has_more: true }, {}, { paging: 'cursor' });
    expect(lp.next).toBeUndefined();
    expect(lp.note).toMatch(/no cursor/);
  });

  it('link mode falls back to a body next URL', () => {
    expect(page({ data: two, next: '?page=2' }, {}, { paging: 'link' }).next).toEqual(
      link('https://api.test/v1/acme/channels?page=2'),
    );
  });
});

describe('firstPageParams', () => {
  it.each<[ShapeOptions, Record<string, string>]>([
    [{}, { per_page: '100' }],
    [{ perPage: 50 }, { per_page: '50' }],
    [{ perPageParam: 'limit', perPage: 25 }, { limit: '25' }],
    [{ perPage: 0 }, { per_page: '100' }],
    [{ perPage: 2.5 }, { per_page: '100' }],
    [{ paging: 'none' }, {}],
  ])('%j', (opts, expected) => {
    expect(firstPageParams(opts)).toEqual(expected);
  });
});
