/**
 * Envelopes, paging and field case: how a canonical body goes on the wire in the style
 * the simulator serves right now (docs/upstream-api.md lists them all). Also the one
 * broken-server behaviour that lives in paging: a truncated page.
 */
import { toCamel } from './case.js';
import { badRequest } from './errors.js';
import { indexAfterOrd } from './model.js';
import { MAX_PAGE_SIZE } from './options.js';
import type { SimStyle } from './types.js';

/** A response before it is written. */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Name of a list under the `key` envelope. */
export type ListKey = 'members' | 'channels' | 'sessions';
/** Name of a single object under the `key` envelope. */
export type ObjectKey = 'organization' | 'subscription' | 'session';

/** What paging needs to know about the request. */
export interface ListContext {
  style: SimStyle;
  query: URLSearchParams;
  /** Origin the client used (`http://host:port`), for absolute links. */
  origin: string;
  pathname: string;
  /** Cut the page short and drop the way to the next page (a fault). */
  truncate: boolean;
  /** When set, a `Link: rel="next"` pointing at this other origin is added (a fault). */
  foreignOrigin: string | null;
}

function finish(style: SimStyle, r: Rendered): Rendered {
  return style.fieldCase === 'camel' ? { ...r, body: toCamel(r.body) } : r;
}

/** A single object in the current envelope and case. */
export function renderObject(style: SimStyle, key: ObjectKey, obj: object): Rendered {
  const body = style.envelope === 'data' ? { data: obj } : style.envelope === 'key' ? { [key]: obj } : obj;
  return finish(style, { status: 200, headers: {}, body });
}

function positiveInt(name: string, raw: string | null, fallback: number, max: number): number {
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw badRequest(`${name} must be a positive integer`);
  return Math.min(Number(raw), max);
}

function encodeCursor(ord: number): string {
  return Buffer.from(`after:${ord}`).toString('base64url');
}

function decodeCursor(raw: string): number {
  const m = /^after:(\d{1,15})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (m === null) throw badRequest('cursor is not valid');
  return Number(m[1]);
}

function pageUrl(ctx: ListContext, origin: string, page: number, perPage: number): string {
  const q = new URLSearchParams(ctx.query);
  for (const k of ['page', 'per_page', 'perPage', 'cursor', 'limit']) q.delete(k);
  q.set('page', String(page));
  q.set('per_page', String(perPage));
  return `${origin}${ctx.pathname}?${q.toString()}`;
}

/** The effective paging style: `bare` cannot carry a cursor, so it falls back to `link`. */
export function effectivePaging(style: SimStyle): SimStyle['paging'] {
  const inBody =
    style.paging === 'cursor' ||
    style.paging === 'offset' ||
    style.paging === 'next' ||
    style.paging === 'hal';
  return inBody && style.envelope === 'bare' ? 'link' : style.paging;
}

/** A page in Spring Data REST's style (`hal`): 0-based `page` and `size`, absolute `_links`, a `page` object. */
function halPage<T>(
  items: readonly T[],
  ctx: ListContext,
): { page: readonly T[]; extra: Record<string, unknown> } {
  const extra: Record<string, unknown> = {};
  const size = positiveInt(
    'size',
    ctx.query.get('size') ?? ctx.query.get('per_page'),
    ctx.style.pageSize,
    MAX_PAGE_SIZE,
  );
  const rawPage = ctx.query.get('page');
  if (rawPage !== null && !/^\d{1,9}$/.test(rawPage)) throw badRequest('page must be a non-negative integer');
  const number = rawPage === null ? 0 : Number(rawPage);
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  const page = items.slice(number * size, (number + 1) * size);
  const href = (n: number) => {
    const q = new URLSearchParams(ctx.query);
    for (const k of ['page', 'size', 'per_page']) q.delete(k);
    q.set('page', String(n));
    q.set('size', String(size));
    return { href: `${ctx.origin}${ctx.pathname}?${q.toString()}` };
  };
  extra._links = { self: href(number), ...(number + 1 < totalPages ? { next: href(number + 1) } : {}) };
  extra.page = { size, total_elements: items.length, total_pages: totalPages, number };
  return { page, extra };
}

/** A page by opaque cursor (`cursor`): `next_cursor` anchors on the last item's `ord`. */
function cursorPage<T extends { ord: number }>(
  items: readonly T[],
  ctx: ListContext,
): { page: readonly T[]; extra: Record<string, unknown> } {
  const extra: Record<string, unknown> = {};
  const limit = positiveInt(
    'limit',
    ctx.query.get('limit') ?? ctx.query.get('per_page'),
    ctx.style.pageSize,
    MAX_PAGE_SIZE,
  );
  const cursor = ctx.query.get('cursor');
  const from = cursor === null || cursor === '' ? 0 : indexAfterOrd(items, decodeCursor(cursor));
  const page = items.slice(from, from + limit);
  const hasMore = from + limit < items.length;
  extra.next_cursor = hasMore && page.length > 0 ? encodeCursor(page[page.length - 1]!.ord) : null;
  extra.has_more = hasMore;
  return { page, extra };
}

/**
 * One page of a list, wrapped in the current envelope, with the current paging style's
 * body fields or headers. `items` must be in ascending `ord` (cursors anchor on it).
 */
export function renderList<T extends { ord: number }>(
  items: readonly T[],
  toJson: (item: T) => object,
  key: ListKey,
  ctx: ListContext,
): Rendered {
  const { style, query } = ctx;
  const paging = effectivePaging(style);
  const headers: Record<string, string> = {};
  let extra: Record<string, unknown> = {};
  let page: readonly T[];
  let links: string[] = [];
  const perPageAsked = () =>
    positiveInt('per_page', query.get('per_page') ?? query.get('perPage'), style.pageSize, MAX_PAGE_SIZE);
  if (paging === 'none') {
    page = items;
  } else if (paging === 'silent') {
    // A server that cuts pages at its page size, whatever is asked, and says nothing of it:
    // `page` and `offset` are honoured, no total, link or flag shows there is more.
    const size = Math.min(perPageAsked(), style.pageSize);
    const from = query.has('offset')
      ? Number(query.get('offset')) || 0
      : (positiveInt('page', query.get('page'), 1, Number.MAX_SAFE_INTEGER) - 1) * size;
    page = items.slice(from, from + size);
  } else if (paging === 'offset') {
    const limit = positiveInt(
      'limit',
      query.get('limit') ?? query.get('per_page'),
      style.pageSize,
      MAX_PAGE_SIZE,
    );
    const rawOffset = query.get('offset');
    if (rawOffset !== null && !/^\d{1,9}$/.test(rawOffset))
      throw badRequest('offset must be a non-negative integer');
    const offset = rawOffset === null ? 0 : Number(rawOffset);
    page = items.slice(offset, offset + limit);
    extra.meta = { offset, limit, total: items.length };
  } else if (paging === 'hal') {
    ({ page, extra } = halPage(items, ctx));
  } else if (paging === 'cursor') {
    ({ page, extra } = cursorPage(items, ctx));
  } else {
    const perPage = perPageAsked();
    const pageNo = positiveInt('page', query.get('page'), 1, Number.MAX_SAFE_INTEGER);
    const total = items.length;
    const totalPages = Math.max(1, Math.ceil(total / perPage));
    page = items.slice((pageNo - 1) * perPage, pageNo * perPage);
    if (paging === 'next') {
      const rel = (n: number) => pageUrl(ctx, '', n, perPage);
      extra.links = {
        next: pageNo < totalPages ? rel(pageNo + 1) : null,
        prev: pageNo > 1 ? rel(pageNo - 1) : null,
      };
    } else if (paging === 'pages') {
      const meta = { page: pageNo, per_page: perPage, total, total_pages: totalPages };
      if (style.envelope === 'bare') {
        headers['x-total-count'] = String(total);
        headers['x-page'] = String(pageNo);
        headers['x-per-page'] = String(perPage);
        headers['x-total-pages'] = String(totalPages);
      } else {
        Object.assign(extra, meta);
      }
    } else {
      const at = (n: number, rel: string) => `<${pageUrl(ctx, ctx.origin, n, perPage)}>; rel="${rel}"`;
      links = [at(1, 'first')];
      if (pageNo > 1) links.push(at(Math.min(pageNo - 1, totalPages), 'prev'));
      if (pageNo < totalPages) links.push(at(pageNo + 1, 'next'));
      links.push(at(totalPages, 'last'));
    }
  }
  if (ctx.truncate) {
    // A broken server: half the page, and no way on, while totals (where shown) say more.
    page = page.slice(0, Math.floor(page.length / 2));
    links = links.filter((l) => !l.endsWith('rel="next"'));
    if (paging === 'cursor') {
      extra.next_cursor = null;
      extra.has_more = true;
    }
    if (paging === 'hal') extra._links = { self: (extra._links as { self: unknown }).self };
  }
  if (ctx.foreignOrigin !== null) {
    links = links.filter((l) => !l.endsWith('rel="next"'));
    links.push(`<${pageUrl(ctx, ctx.foreignOrigin, 2, style.pageSize)}>; rel="next"`);
  }
  if (links.length > 0) headers.link = links.join(', ');
  const list = page.map(toJson);
  const body =
    style.envelope === 'bare'
      ? list
      : style.envelope === 'hal'
        ? { _embedded: { [key]: list }, ...extra }
        : { [style.envelope === 'key' ? key : style.envelope]: list, ...extra };
  return finish(style, { status: 200, headers, body });
}
