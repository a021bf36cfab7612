/**
 * An in-memory list server for paging tests: answers a request URL with one page of a
 * list, in a chosen envelope and paging style, the way a real server would.
 */
import type { Endpoint } from '../../../src/upstream/shape/index.js';

export type Envelope = 'bare' | 'data' | 'items' | 'results' | 'records' | 'key' | 'data.items' | 'data.key';

export const ENVELOPES: readonly Envelope[] = [
  'bare',
  'data',
  'items',
  'results',
  'records',
  'key',
  'data.items',
  'data.key',
];

/** Where the server is in the list when answering one request. */
export interface PageCtx {
  url: URL;
  offset: number;
  perPage: number;
  n: number;
  /** Offset after this page. */
  end: number;
  more: boolean;
  /** 1-based page number of this page. */
  page: number;
}

/** One paging style as a server implements it. */
export interface StyleDef {
  name: string;
  /** Paging carried in the body (impossible with a bare array). */
  body: boolean;
  /** Everything in one response. */
  all?: boolean;
  /** Page numbers start at 0 (Spring). */
  zeroBased?: boolean;
  /** Query parameter names the server reads. */
  cursorParam?: string;
  pageParam?: string;
  perPageParam?: string;
  meta?(c: PageCtx): Record<string, unknown>;
  headers?(c: PageCtx): Record<string, string | string[]>;
}

export const RESOURCE_KEY: Record<Endpoint, string> = {
  org: 'organization',
  team: 'members',
  subscription: 'subscription',
  channels: 'channels',
  sessions: 'sessions',
  session: 'session',
};

export const cursorOf = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');
const offsetOf = (cursor: string): number => Number(Buffer.from(cursor, 'base64url').toString().slice(2));

/** Absolute URL of page `page` (1-based unless the style is zero-based) of the same list. */
export function pageUrl(c: PageCtx, page: number, style?: StyleDef): URL {
  const u = new URL(c.url.href);
  u.search = '';
  u.searchParams.set(style?.pageParam ?? 'page', String(page));
  u.searchParams.set(style?.perPageParam ?? 'per_page', String(c.perPage));
  return u;
}

/** Answers one request. */
export function serve(
  all: readonly unknown[],
  endpoint: Endpoint,
  envelope: Envelope,
  style: StyleDef,
  url: URL,
): { body: unknown; headers: Record<string, string | string[]> } {
  const q = url.searchParams;
  const perPage = Number(q.get(style.perPageParam ?? 'per_page') ?? 3);
  const cursor = q.get(style.cursorParam ?? 'cursor');
  const pageParam = q.get(style.pageParam ?? 'page');
  let offset = 0;
  if (cursor !== null) offset = offsetOf(cursor);
  else if (q.get('offset') !== null) offset = Number(q.get('offset'));
  else if (pageParam !== null) offset = (Number(pageParam) - (style.zeroBased ? 0 : 1)) * perPage;
  const end = style.all ? all.length : Math.min(all.length, offset + perPage);
  const c: PageCtx = {
    url,
    offset,
    perPage,
    n: all.length,
    end,
    more: end < all.length,
    page: Math.floor(offset / perPage) + 1,
  };
  const slice = all.slice(offset, end);
  const meta = style.meta?.(c) ?? {};
  const headers = style.headers?.(c) ?? {};
  const key = RESOURCE_KEY[endpoint];
  const body = wrap(envelope, key, slice, meta);
  return { body, headers };
}

function wrap(envelope: Envelope, key: string, slice: unknown[], meta: Record<string, unknown>): unknown {
  switch (envelope) {
    case 'bare':
      return slice;
    case 'data':
    case 'items':
    case 'results':
    case 'records':
      return { [envelope]: slice, ...meta };
    case 'key':
      return { [key]: slice, ...meta };
    case 'data.items':
      // Paging beside the list, inside `data`.
      return { data: { items: slice, ...meta } };
    case 'data.key':
      return { data: { [key]: slice }, ...meta };
  }
}
