import { describe, expect, it } from 'vitest';
import {
  type Endpoint,
  firstPageParams,
  type ListPage,
  readListPage,
  type ShapeOptions,
} from '../../../src/upstream/shape/index.js';
import { ENVELOPES, type Envelope, serve, type StyleDef } from './fake-pages.js';
import { BODY_STYLES, HEADER_STYLES } from './paging-styles.js';

const SIZES = [0, 1, 2, 3, 4, 6, 7];
const PER_PAGE = 3;

/** Follows next pointers from the first page to the end, like the transport's page loop. */
function collect(
  endpoint: Endpoint,
  envelope: Envelope,
  style: StyleDef,
  all: readonly unknown[],
  opts: ShapeOptions,
): { items: unknown[]; requests: number; last: ListPage } {
  const url = new URL(`http://api.test/v1/acme/${endpoint === 'team' ? 'team' : 'channels'}`);
  for (const [k, v] of Object.entries(firstPageParams(opts))) url.searchParams.set(k, v);
  const items: unknown[] = [];
  const requested = new Set<string>();
  let current = url;
  for (let page = 1; page <= 20; page++) {
    if (requested.has(current.href)) throw new Error(`repeated request ${current.href}`);
    requested.add(current.href);
    const res = serve(all, endpoint, envelope, style, current);
    const lp = readListPage(endpoint, res.body, res.headers, current, opts, {
      page,
      perPage: opts.perPage ?? 100,
      seen: items.length,
    });
    items.push(...lp.items);
    if (lp.next === undefined) return { items, requests: page, last: lp };
    if (lp.next.kind === 'url') current = new URL(lp.next.url);
    else if (lp.next.kind === 'keyset') {
      // "More" and no pointer: the list reader asks after the last record, then by page
      // number among its other candidates (src/upstream/lists/keyset.ts); these servers page by number.
      current = new URL(current.href);
      current.searchParams.set('page', String(page + 1));
    } else {
      current = new URL(current.href);
      for (const [k, v] of Object.entries(lp.next.params)) current.searchParams.set(k, v);
    }
  }
  throw new Error('more than 20 pages');
}

const records = (n: number): unknown[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `r${i + 1}` }));

const cases: [Envelope, StyleDef, Endpoint][] = [];
for (const envelope of ENVELOPES) {
  for (const style of [...HEADER_STYLES, ...BODY_STYLES]) {
    if (envelope === 'bare' && style.body) continue;
    cases.push([envelope, style, 'channels']);
  }
}
// Resource keys of the other list endpoints.
for (const endpoint of ['team', 'sessions'] as const) {
  for (const envelope of ['key', 'data.key'] as const) {
    for (const style of [HEADER_STYLES[1]!, BODY_STYLES[8]!, BODY_STYLES[17]!])
      cases.push([envelope, style, endpoint]);
  }
}

describe('reassembling a list by following next pointers', () => {
  it.each(cases.map(([e, s, ep]) => [e, s.name, ep, s] as const))(
    '%s envelope, %s (%s)',
    (envelope, _n, endpoint, style) => {
      const opts: ShapeOptions = { perPage: PER_PAGE };
      for (const n of SIZES) {
        const all = records(n);
        const { items, requests } = collect(endpoint, envelope, style, all, opts);
        expect(items, `${n} items`).toEqual(all);
        // At most one extra (empty) request beyond the pages the list needs.
        const pages = style.all ? 1 : Math.max(1, Math.ceil(n / PER_PAGE));
        expect(requests, `${n} items`).toBeLessThanOrEqual(pages + 1);
        expect(requests, `${n} items`).toBeGreaterThanOrEqual(pages);
      }
    },
  );
});

describe('forced paging modes and custom parameter names', () => {
  const blind: StyleDef = { name: 'no signs at all, page numbers honoured', body: false };

  it('auto mode does not invent a next page when the response shows no paging, but notes a full page', () => {
    const { items, requests, last } = collect('channels', 'data', blind, records(7), { perPage: PER_PAGE });
    expect(items).toHaveLength(3);
    expect(requests).toBe(1);
    expect(last.note).toMatch(/page size/);
  });

  it.each(SIZES)('paging: page follows full pages without any sign (%i items)', (n) => {
    const all = records(n);
    const { items } = collect('channels', 'bare', blind, all, { perPage: PER_PAGE, paging: 'page' });
    expect(items).toEqual(all);
  });

  it.each(SIZES)('custom cursor, page and per-page parameter names (%i items)', (n) => {
    const all = records(n);
    const cursorStyle: StyleDef = { ...BODY_STYLES[8]!, cursorParam: 'after', perPageParam: 'limit' };
    const opts: ShapeOptions = {
      perPage: PER_PAGE,
      cursorParam: 'after',
      perPageParam: 'limit',
      paging: 'cursor',
    };
    expect(collect('channels', 'data', cursorStyle, all, opts).items).toEqual(all);
    const pageStyle: StyleDef = { ...BODY_STYLES[17]!, pageParam: 'p', perPageParam: 'size' };
    const opts2: ShapeOptions = { perPage: PER_PAGE, pageParam: 'p', perPageParam: 'size', paging: 'page' };
    expect(collect('channels', 'items', pageStyle, all, opts2).items).toEqual(all);
  });

  it('paging: none sends no page size and reads only the first page even when the server offers more', () => {
    const all = records(7);
    expect(firstPageParams({ paging: 'none' })).toEqual({});
    const { items, requests } = collect('channels', 'bare', HEADER_STYLES[1]!, all, { paging: 'none' });
    expect(requests).toBe(1);
    expect(items).toEqual(all.slice(0, 3)); // the fake server's default page size
  });

  it('paging: link ignores a body cursor; paging: cursor ignores a Link header', () => {
    const both: StyleDef = {
      name: 'both',
      body: true,
      meta: (c) => ({ next_cursor: c.more ? 'x' : null }),
      headers: HEADER_STYLES[1]!.headers!,
    };
    const all = records(7);
    expect(collect('channels', 'data', both, all, { perPage: PER_PAGE, paging: 'link' }).items).toEqual(all);
    const url = new URL('http://api.test/v1/acme/channels?per_page=3');
    const res = serve(all, 'channels', 'data', both, url);
    const lp = readListPage(
      'channels',
      res.body,
      res.headers,
      url,
      { paging: 'cursor' },
      { page: 1, perPage: 3, seen: 0 },
    );
    expect(lp.next).toEqual({ kind: 'params', params: { cursor: 'x' } });
  });
});
