/**
 * Where a list's pages lead and where they end: the URL of the next page, and what says
 * a last page is not the end (totals, a `Link: rel="last"`, a "has more" flag). The paging
 * loop (lists/read-list.ts) asks these when it decides whether a list was read whole.
 */
import type { JsonResponse } from '../transport/http.js';
import { type ListPage, parseLinkHeader, type ShapeOptions } from '../shape/index.js';

/** Sets `params` on a copy of `url`. */
export function withParams(url: URL, params: Record<string, string>): URL {
  const out = new URL(url);
  for (const [k, v] of Object.entries(params)) out.searchParams.set(k, v);
  return out;
}

/** The URL of the next page, or undefined when the pointer is not usable. */
export function nextUrl(current: URL, page: ListPage): URL | undefined {
  const next = page.next!;
  if (next.kind === 'params') return withParams(current, next.params);
  if (next.kind === 'keyset') return undefined;
  try {
    return new URL(next.url, current);
  } catch {
    return undefined;
  }
}

/** Why the last page is not the end according to the totals it carries, if it is not. */
export function shortOfTotals(page: ListPage, seen: number, pageNo: number): string | undefined {
  if (page.total !== undefined && seen < page.total) {
    return `last page reached after ${seen} of ${page.total} items`;
  }
  if (page.totalPages !== undefined && pageNo < page.totalPages) {
    return `last page reached at page ${pageNo} of ${page.totalPages}`;
  }
  return undefined;
}

/**
 * A `Link: rel="last"` naming a later page than this one means the list goes on, even
 * when the server forgot the `next` link (a page cut short).
 */
export function shortOfLastLink(
  headers: JsonResponse['headers'],
  current: URL,
  shape: ShapeOptions,
  pageNo: number,
): string | undefined {
  const raw = headers['link'];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!value) return undefined;
  const last = parseLinkHeader(value).find((l) => l.rels.includes('last'));
  if (!last) return undefined;
  const param = shape.pageParam ?? 'page';
  let lastPage: number;
  try {
    lastPage = Number(new URL(last.target, current).searchParams.get(param));
  } catch {
    return undefined;
  }
  const here = Number(current.searchParams.get(param) ?? pageNo);
  if (!Number.isInteger(lastPage) || lastPage <= 0 || !Number.isFinite(here)) return undefined;
  return lastPage > here ? `no next page link at page ${here}, but the last page is ${lastPage}` : undefined;
}

/** Where servers say "there is more": the body root and the usual paging objects. */
const HAS_MORE_SCOPES = ['', 'meta', 'pagination', 'paging', 'page_info', 'pageInfo'];
const HAS_MORE_KEYS = ['has_more', 'hasMore', 'has_next', 'hasNext', 'has_next_page', 'hasNextPage'];

/** Whether the body explicitly says the list goes on (checked only when no next page was found). */
export function saysHasMore(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  for (const scope of HAS_MORE_SCOPES) {
    const holder = scope === '' ? body : (body as Record<string, unknown>)[scope];
    if (holder === null || typeof holder !== 'object') continue;
    for (const key of HAS_MORE_KEYS) {
      const v = (holder as Record<string, unknown>)[key];
      if (v === true || v === 'true') return true;
    }
  }
  return false;
}
