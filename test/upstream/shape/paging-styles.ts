/** The paging styles of real servers, as the fake list server implements them. */
import { cursorOf, type PageCtx, pageUrl, type StyleDef } from './fake-pages.js';

const rel = (u: URL): string => `${u.pathname}${u.search}`;
const when = <T>(cond: boolean, v: T): T | undefined => (cond ? v : undefined);
const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Paging styles carried in headers only: they work with a bare array too. */
export const HEADER_STYLES: StyleDef[] = [
  { name: 'none (everything at once)', body: false, all: true },
  {
    name: 'Link absolute',
    body: false,
    headers: (c) => (c.more ? { link: `<${pageUrl(c, c.page + 1).href}>; rel="next"` } : {}),
  },
  {
    name: 'Link relative with first/prev/last',
    body: false,
    headers: (c) => {
      const last = Math.max(1, Math.ceil(c.n / c.perPage));
      const parts = [`<${rel(pageUrl(c, 1))}>; rel="first"`];
      if (c.page > 1) parts.push(`<${rel(pageUrl(c, c.page - 1))}>; rel="prev"`);
      if (c.more) parts.push(`<${rel(pageUrl(c, c.page + 1))}>; rel="next"`);
      parts.push(`<${rel(pageUrl(c, last))}>; rel="last"`);
      return { Link: parts.join(', ') };
    },
  },
  {
    name: 'Link as repeated headers, rel with several types',
    body: false,
    headers: (c) =>
      c.more
        ? {
            LINK: [
              `<${pageUrl(c, 1).href}>; rel=first`,
              `<${pageUrl(c, c.page + 1).href}>; title="a, b"; rel="next nofollow"`,
            ],
          }
        : { LINK: [`<${pageUrl(c, 1).href}>; rel=first`] },
  },
  {
    name: 'X-Total-Count',
    body: false,
    headers: (c) => ({ 'X-Total-Count': String(c.n) }),
  },
  {
    name: 'X-Total',
    body: false,
    headers: (c) => ({ 'x-total': String(c.n) }),
  },
  {
    name: 'X-Page + X-Total-Pages + X-Per-Page',
    body: false,
    headers: (c) => ({
      'X-Page': String(c.page),
      'X-Per-Page': String(c.perPage),
      'X-Total-Pages': String(Math.ceil(c.n / c.perPage)),
    }),
  },
  {
    name: 'X-Next-Page (empty on the last page)',
    body: false,
    headers: (c) => ({ 'X-Next-Page': c.more ? String(c.page + 1) : '', 'X-Page': String(c.page) }),
  },
];

/** Paging styles carried in the body. */
export const BODY_STYLES: StyleDef[] = [
  {
    name: 'next: absolute URL, null at the end',
    body: true,
    meta: (c) => ({ next: c.more ? pageUrl(c, c.page + 1).href : null }),
  },
  {
    name: 'next_url: relative path',
    body: true,
    meta: (c) => defined({ next_url: when(c.more, rel(pageUrl(c, c.page + 1))) }),
  },
  {
    name: 'links.next: query only',
    body: true,
    meta: (c) => ({
      links: defined({ self: c.url.href, next: when(c.more, pageUrl(c, c.page + 1).search) }),
    }),
  },
  {
    name: 'paging.next (offset URL)',
    body: true,
    meta: (c) => ({
      paging: defined({ next: when(c.more, `${c.url.pathname}?offset=${c.end}&per_page=${c.perPage}`) }),
    }),
  },
  {
    name: 'meta.next',
    body: true,
    meta: (c) => ({ meta: { next: c.more ? pageUrl(c, c.page + 1).href : null } }),
  },
  {
    name: '_links.next.href (HAL)',
    body: true,
    meta: (c) => ({
      _links: defined({
        self: { href: c.url.href },
        next: when(c.more, { href: pageUrl(c, c.page + 1).href }),
      }),
    }),
  },
  {
    name: 'next_page_url (Laravel)',
    body: true,
    meta: (c) => ({ current_page: c.page, next_page_url: c.more ? pageUrl(c, c.page + 1).href : null }),
  },
  {
    name: '@odata.nextLink',
    body: true,
    meta: (c) => defined({ '@odata.nextLink': when(c.more, pageUrl(c, c.page + 1).href) }),
  },
  {
    name: 'next_cursor + has_more (canonical)',
    body: true,
    meta: (c) => ({ next_cursor: c.more ? cursorOf(c.end) : null, has_more: c.more }),
  },
  {
    name: 'nextCursor (camel)',
    body: true,
    meta: (c) => defined({ nextCursor: when(c.more, cursorOf(c.end)) }),
  },
  {
    name: 'cursor.next',
    body: true,
    meta: (c) => ({ cursor: defined({ next: when(c.more, cursorOf(c.end)) }) }),
  },
  {
    name: 'meta.next_cursor',
    body: true,
    meta: (c) => ({ meta: { next_cursor: c.more ? cursorOf(c.end) : null } }),
  },
  {
    name: 'pagination.next_cursor',
    body: true,
    meta: (c) => ({ pagination: { next_cursor: c.more ? cursorOf(c.end) : '' } }),
  },
  {
    name: 'paging.cursors.after + hasMore (after on every page)',
    body: true,
    meta: (c) => ({
      paging: { cursors: { before: cursorOf(c.offset), after: cursorOf(c.end) } },
      hasMore: c.more,
    }),
  },
  {
    name: 'response_metadata.next_cursor (empty at the end)',
    body: true,
    meta: (c) => ({ response_metadata: { next_cursor: c.more ? cursorOf(c.end) : '' } }),
  },
  {
    name: 'next_page_token',
    body: true,
    meta: (c) => defined({ nextPageToken: when(c.more, cursorOf(c.end)) }),
  },
  {
    name: 'next: opaque cursor',
    body: true,
    meta: (c) => ({ next: c.more ? cursorOf(c.end) : null }),
  },
  {
    name: 'links.next: opaque cursor',
    body: true,
    meta: (c) => ({ links: { self: c.url.href, next: c.more ? cursorOf(c.end) : null } }),
  },
  {
    name: 'links.next_cursor',
    body: true,
    meta: (c) => ({ links: defined({ next_cursor: when(c.more, cursorOf(c.end)) }) }),
  },
  {
    name: 'meta.cursor + meta.has_more (cursor on every page)',
    body: true,
    meta: (c) => ({ meta: { cursor: cursorOf(c.end), has_more: c.more } }),
  },
  {
    name: 'pagination.links.next: opaque cursor',
    body: true,
    meta: (c) => ({ pagination: { links: defined({ next: when(c.more, cursorOf(c.end)) }) } }),
  },
  {
    name: 'page + total_pages (canonical)',
    body: true,
    meta: (c) => ({ page: c.page, per_page: c.perPage, total: c.n, total_pages: Math.ceil(c.n / c.perPage) }),
  },
  {
    name: 'current_page + last_page',
    body: true,
    meta: (c) => ({ current_page: c.page, last_page: Math.max(1, Math.ceil(c.n / c.perPage)) }),
  },
  {
    name: 'page + pages',
    body: true,
    meta: (c) => ({ page: c.page, pages: Math.ceil(c.n / c.perPage) }),
  },
  {
    name: 'total + per_page (no page number)',
    body: true,
    meta: (c) => ({ total: c.n, per_page: c.perPage }),
  },
  {
    name: 'totalCount (camel)',
    body: true,
    meta: (c) => ({ totalCount: c.n }),
  },
  {
    name: 'count (total)',
    body: true,
    meta: (c) => ({ count: c.n }),
  },
  {
    name: 'has_more only',
    body: true,
    meta: (c) => ({ has_more: c.more }),
  },
  {
    name: 'meta.pagination { current_page, total_pages }',
    body: true,
    meta: (c) => ({
      meta: { pagination: { current_page: c.page, total_pages: Math.ceil(c.n / c.perPage) } },
    }),
  },
  {
    name: 'page only (full page means more)',
    body: true,
    meta: (c) => ({ page: c.page, per_page: c.perPage }),
  },
  {
    name: 'Spring page object, zero-based',
    body: true,
    zeroBased: true,
    meta: (c: PageCtx) => ({
      page: {
        number: c.page - 1,
        size: c.perPage,
        totalPages: Math.ceil(c.n / c.perPage),
        totalElements: c.n,
      },
    }),
  },
];
