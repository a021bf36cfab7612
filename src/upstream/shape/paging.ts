/**
 * One page of a list: its items, and how to ask for the next one. Styles are tried in a
 * fixed order (or forced by `upstream.shape.paging`): `Link` header, a next URL in the
 * body, a cursor in the body, page numbers. `has_more: false` or an empty page ends the
 * list whatever else the response says; a pointer is never invented where the response
 * gives no sign of more.
 */
import { SchemaDriftError } from './drift.js';
import type { Endpoint } from './endpoints.js';
import { findList } from './envelope.js';
import { parseNumber } from './numbers.js';
import { pagingOptions, type PagingOptions, type ShapeOptions } from './options.js';
import { END } from './paging-end.js';
import { cursorParamNames, type Headers, type PagingSignals, readSignals } from './paging-signals.js';

/**
 * How to ask for the next page: a full URL (already resolved against the request URL;
 * the caller checks its origin), or query parameters to set on the current request's URL.
 */
export type NextPage =
  | { kind: 'url'; url: string }
  | { kind: 'params'; params: Record<string, string> }
  /**
   * The page says there is more and gives no pointer: the next page is asked for after the
   * last record's id (Stripe's `starting_after`, https://docs.stripe.com/api/pagination), under
   * a parameter name the list reader finds out (src/upstream/lists/keyset.ts).
   */
  | { kind: 'keyset' };

/** The paging style a page was read with; `none` when the response shows no paging. */
export type PagingStyle = 'link' | 'url' | 'cursor' | 'page' | 'offset' | 'keyset' | 'none';

/** One page of a list response. */
export interface ListPage {
  items: unknown[];
  /** Absent on the last page. */
  next?: NextPage;
  /** Total number of items, when the response says it (for a completeness check). */
  total?: number;
  /** Total number of pages, when the response says it. */
  totalPages?: number;
  /** The style the next pointer (or the end) was decided by; always set by {@link readListPage}. */
  style?: PagingStyle;
  /** A reason to doubt the end of the list (a full page without any paging sign), for a log line. */
  note?: string;
  /** Where in the body the list was found (`""` for a bare array). */
  listPath?: string;
  /**
   * Other query parameters the cursor of a `params` next may go back in, should the
   * server ignore the cursor parameter (from the key it came under: `next_page_token` →
   * `page_token`, `pageToken`); absent when there is none to try.
   */
  cursorNames?: string[];
}

/** Where the caller is in the list. */
export interface PageState {
  /** Number of this page as requested, 1 for the first. */
  page: number;
  /** Page size asked for. */
  perPage: number;
  /** Items read on the earlier pages, not counting this one. */
  seen: number;
}

type Decision = { next?: NextPage; style: PagingStyle; note?: string };

/** Finds the items and the next-page pointer of one list response; throws SchemaDriftError when no list can be found. */
export function readListPage(
  endpoint: Endpoint,
  body: unknown,
  headers: Headers,
  requestUrl: URL,
  opts: ShapeOptions,
  state: PageState,
): ListPage {
  const found = findList(endpoint, body, opts);
  const signals = readSignals(found, body, headers ?? {}, requestUrl);
  // `null` reads as an empty list (Go's nil slices), but not beside a total saying there are
  // items this page should have held: that body contradicts itself, and nothing of it is usable.
  if (found.wasNull === true && signals.total !== undefined && signals.total > state.seen) {
    throw new SchemaDriftError(
      endpoint,
      'envelope',
      `the list at '${found.path}' is null, yet the response counts ${signals.total} items` +
        (state.seen > 0 ? ` and ${state.seen} were read before it` : ''),
    );
  }
  const po = pagingOptions(opts);
  const decision = decide(signals, found.items.length, po, requestUrl, state);
  const page: ListPage = { items: found.items, style: decision.style, listPath: found.path };
  if (decision.next !== undefined) page.next = decision.next;
  if (decision.note !== undefined) page.note = decision.note;
  if (decision.style === 'cursor' && decision.next !== undefined && signals.cursorKey !== undefined) {
    const names = cursorParamNames(signals.cursorKey, po.cursorParam);
    if (names.length > 0) page.cursorNames = names;
  }
  // A `count` equal to the page's length may be that length, not a total: do not report it as one.
  const ambiguous = signals.totalIsCount === true && signals.total === found.items.length;
  if (signals.total !== undefined && !ambiguous) page.total = signals.total;
  if (signals.totalPages !== undefined) page.totalPages = signals.totalPages;
  return page;
}

/** Query params to add to the first request of a list (e.g. per_page) */
export function firstPageParams(opts: ShapeOptions): Record<string, string> {
  const po = pagingOptions(opts);
  if (po.paging === 'none') return {};
  return { [po.perPageParam]: String(po.perPage) };
}

function decide(s: PagingSignals, count: number, po: PagingOptions, url: URL, state: PageState): Decision {
  const mode = po.paging;
  if (mode === 'none') return { style: 'none' };
  // An empty page ends a list unless the server insists there is more.
  const stop = s.hasMore === false || (count === 0 && s.hasMore !== true);

  if (mode === 'auto' || mode === 'link') {
    if (typeof s.link === 'string')
      return stop ? { style: 'link' } : { style: 'link', next: urlNext(s.link) };
    if (typeof s.url === 'string') return stop ? { style: 'url' } : { style: 'url', next: urlNext(s.url) };
  }
  if (mode === 'auto' || mode === 'cursor') {
    if (typeof s.cursor === 'string') {
      return stop ? { style: 'cursor' } : { style: 'cursor', next: params(po.cursorParam, s.cursor) };
    }
  }
  if (mode === 'auto' || mode === 'page') {
    if (typeof s.nextPage === 'number') {
      return stop ? { style: 'page' } : { style: 'page', next: params(po.pageParam, String(s.nextPage)) };
    }
  }
  if (mode === 'link') return { style: s.url === END ? 'url' : 'link' };
  if (mode === 'cursor') {
    const note = s.hasMore === true ? 'the response says it has more but carries no cursor' : undefined;
    return note === undefined ? { style: 'cursor' } : { style: 'cursor', note };
  }
  if (mode === 'auto') {
    // An explicit "no next" of a pointer style outranks page arithmetic.
    if (s.link === END) return { style: 'link' };
    if (s.url === END) return { style: 'url' };
    if (s.cursor === END) return { style: 'cursor' };
  }
  if (s.nextPage === END) return { style: 'page' };
  if (mode === 'auto' && s.offset !== undefined && s.page === undefined)
    return offsetArithmetic(s, s.offset, count, stop, po, url, state);
  // "More", and nothing to ask for it by (no pointer, no page number): after the last record.
  // (A request that asked by page number is answered by page number.)
  if (
    mode === 'auto' &&
    s.hasMore === true &&
    s.page === undefined &&
    s.totalPages === undefined &&
    requestedPage(url, po) === undefined
  )
    return { style: 'keyset', next: { kind: 'keyset' } };
  const numbered = s.page !== undefined || s.total !== undefined || s.totalPages !== undefined;
  if (mode === 'auto' && !numbered && s.hasMore === undefined) return noSigns(count, po, url, state);
  if (stop) return { style: 'page' };
  return pageArithmetic(s, count, po, url, state);
}

/** Page numbers: totals, `has_more`, or (without either) a full page means there is more. */
function pageArithmetic(
  s: PagingSignals,
  count: number,
  po: PagingOptions,
  url: URL,
  state: PageState,
): Decision {
  const requested = requestedPage(url, po);
  // The later of the reported and the requested page: a server counting from 0 in its
  // body but from 1 in its parameter, or one ignoring the parameter, never makes the next
  // pointer repeat the current request.
  const current =
    s.page !== undefined && requested !== undefined
      ? Math.max(s.page, requested)
      : (s.page ?? requested ?? state.page);
  const note =
    s.page !== undefined && requested !== undefined && s.page !== requested
      ? `the response says page ${s.page} but page ${requested} was asked for`
      : undefined;
  const more: Decision = { style: 'page', next: params(po.pageParam, String(current + 1)) };
  const next = note === undefined ? more : { ...more, note };
  const end: Decision = note === undefined ? { style: 'page' } : { style: 'page', note };
  if (s.hasMore === true) return next;
  // A `count` equal to this full page's length may be the page's own length, not the total: go on.
  const countIsPageLength = s.totalIsCount === true && s.total === count && s.totalPages === undefined;
  if (!countIsPageLength && (s.total !== undefined || s.totalPages !== undefined)) {
    const byTotal = s.total !== undefined && state.seen + count < s.total;
    const byPages = s.totalPages !== undefined && current < s.totalPages;
    return byTotal || byPages ? next : end;
  }
  return count >= perPageOf(s, po, url, state) ? next : end;
}

/**
 * Offset and limit: the next page starts where this one ends. Totals, `has_more` or
 * (without either) a full page say whether there is one.
 */
function offsetArithmetic(
  s: PagingSignals,
  offset: { value: number; param: string },
  count: number,
  stop: boolean,
  po: PagingOptions,
  url: URL,
  state: PageState,
): Decision {
  const end: Decision = { style: 'offset' };
  if (stop) return end;
  const nextOffset = offset.value + count;
  const more: Decision = { style: 'offset', next: params(offset.param, String(nextOffset)) };
  if (s.hasMore === true) return more;
  if (s.total !== undefined && !(s.totalIsCount === true && s.total === count)) {
    return nextOffset < s.total ? more : end;
  }
  return count >= perPageOf(s, po, url, state) ? more : end;
}

/** No paging sign at all: the list ends here; a full page is worth a note. */
function noSigns(count: number, po: PagingOptions, url: URL, state: PageState): Decision {
  const perPage = perPageOf({}, po, url, state);
  if (count < perPage) return { style: 'none' };
  return {
    style: 'none',
    note: `page holds ${count} items (the page size) but shows no paging; set upstream.shape.paging if the list is longer`,
  };
}

function perPageOf(s: PagingSignals, po: PagingOptions, url: URL, state: PageState): number {
  return (
    s.perPage ??
    positive(url.searchParams.get(po.perPageParam)) ??
    (state.perPage > 0 ? state.perPage : po.perPage)
  );
}

function requestedPage(url: URL, po: PagingOptions): number | undefined {
  const n = parseNumber(url.searchParams.get(po.pageParam) ?? undefined);
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function positive(v: string | null): number | undefined {
  const n = parseNumber(v ?? undefined);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

function urlNext(url: string): NextPage {
  return { kind: 'url', url };
}

function params(name: string, value: string): NextPage {
  return { kind: 'params', params: { [name]: value } };
}
