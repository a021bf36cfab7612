/**
 * Everything a list response says about its paging, gathered from the `Link` header,
 * the `X-…` paging headers, the body root and the object holding the list. Deciding
 * what comes next is paging.ts's job; this file only reads.
 */
import type { FoundList } from './envelope.js';
import { getPath, hasOwn, isRecord, type JsonRecord, looseKey } from './json.js';
import { nextFromLinkHeader, resolveUrl } from './link-header.js';
import { parseNumber } from './numbers.js';
import { END, type End } from './paging-end.js';
import { toBool } from './read.js';
import { splitWords } from './words.js';

/** Response headers as Node and undici give them. */
export type Headers = Record<string, string | string[] | undefined>;

/** What one response says about paging; {@link END} means "explicitly no next". */
export interface PagingSignals {
  link?: string | End;
  url?: string | End;
  cursor?: string | End;
  /** The body key the cursor was found under (`next_page_token`), which hints at the parameter it goes back in. */
  cursorKey?: string;
  /** A page number given as the next one (`X-Next-Page`, `next_page: 3`). */
  nextPage?: number | End;
  /** The page number the response says it is. */
  page?: number;
  perPage?: number;
  total?: number;
  /** The total came from a `count` key, which may be the page's own length. */
  totalIsCount?: boolean;
  totalPages?: number;
  hasMore?: boolean;
  /** Offset paging: the offset of this page's first item, and the parameter that sets it. */
  offset?: { value: number; param: string };
}

/** Body keys that may hold the next page's URL (or, for some, a cursor or page number). */
export const NEXT_URL_KEYS = [
  'next',
  'next_url',
  'next_link',
  'next_page_url',
  'next_page',
  'links.next',
  'link.next',
  '_links.next',
  'paging.next',
  'meta.next',
  'meta.next_url',
  'meta.links.next',
  'pagination.next',
  'pagination.next_url',
  'pagination.links.next',
  '@odata.nextLink',
  // OData v3 (JSON verbose-less) writes it without the `@`.
  'odata.nextLink',
  // Salesforce query results: `nextRecordsUrl` beside `done: false`
  // (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query_more_results.htm).
  'next_records_url',
  // Twilio (2010 API): a path under the API's root, `null` on the last page (as the
  // Twilio-compatible https://developer.signalwire.com/compatibility-api/rest/overview/paging
  // documents it); its newer APIs write `meta.next_page_url`.
  'next_page_uri',
  'meta.next_page_url',
];
/** Keys whose opaque string value (not a URL) is a cursor. */
const OPAQUE_NEXT_KEYS = new Set([
  'next',
  'meta.next',
  'pagination.next',
  'paging.next',
  'links.next',
  'link.next',
  'meta.links.next',
  'pagination.links.next',
]);

/** Body keys that hold the next cursor. */
export const CURSOR_KEYS = [
  'next_cursor',
  'cursor.next',
  'cursors.next',
  'meta.next_cursor',
  'meta.cursor.next',
  'pagination.next_cursor',
  'pagination.cursor.next',
  'paging.next_cursor',
  'response_metadata.next_cursor',
  'links.next_cursor',
  'meta.links.next_cursor',
  'meta.pagination.next_cursor',
  'next_page_cursor',
  'meta.next_page_cursor',
  'next_page_token',
  'next_token',
  // X API v2 (`meta.next_token`, https://docs.x.com/x-api/fundamentals/pagination) and
  // response metadata carrying a page token.
  'meta.next_token',
  'meta.next_page_token',
  'continuation_token',
  // HubSpot: `paging.next.after` beside `paging.next.link` (the link is followed when present),
  // https://developers.hubspot.com/docs/api/crm/understanding-the-crm
  'paging.next.after',
];
/**
 * Cursors present on every page, meaningful only when the body also says there is more: a
 * plain `cursor` beside `has_more` is the next page's (a server echoing the one asked for
 * would repeat a page, which the loop check catches).
 */
export const CONDITIONAL_CURSOR_KEYS = [
  'paging.cursors.after',
  'page_info.end_cursor',
  'cursors.after',
  'cursor',
  'meta.cursor',
  'pagination.cursor',
  'links.cursor',
  'meta.pagination.cursor',
  // Zendesk cursor paging: `meta.after_cursor` beside `meta.has_more` (and `links.next`),
  // https://developer.zendesk.com/api-reference/introduction/pagination/
  'meta.after_cursor',
];

export const PAGE_KEYS = [
  'page',
  'current_page',
  'page_number',
  'page.number',
  'page.current',
  'meta.page',
  'meta.current_page',
  'meta.page.number',
  'pagination.page',
  'pagination.current_page',
  'meta.pagination.page',
  'meta.pagination.current_page',
  'paging.page',
];
export const TOTAL_PAGES_KEYS = [
  'total_pages',
  'last_page',
  'pages',
  'page_count',
  'num_pages',
  'page.total_pages',
  'meta.total_pages',
  'meta.last_page',
  'meta.pages',
  'meta.page.total_pages',
  'pagination.total_pages',
  'pagination.last_page',
  'pagination.pages',
  'meta.pagination.total_pages',
  'meta.pagination.last_page',
  'paging.total_pages',
  'paging.pages',
];
export const TOTAL_KEYS = [
  'total',
  'total_count',
  'total_results',
  'total_items',
  'total_entries',
  'total.value',
  'page.total_elements',
  'meta.total',
  'meta.total_count',
  'meta.page.total',
  'pagination.total',
  'pagination.total_count',
  'meta.pagination.total',
  'paging.total',
  'page_info.total_count',
];
/** `count` is the total on most servers but the page's length on some: a weaker total. */
export const COUNT_KEYS = ['count', 'meta.count', 'pagination.count'];
export const PER_PAGE_KEYS = [
  'per_page',
  // Jira: `maxResults` beside `startAt` and `total`.
  'max_results',
  'page_size',
  'limit',
  'page.size',
  'meta.per_page',
  'meta.page_size',
  'meta.limit',
  'meta.page.size',
  'pagination.per_page',
  'pagination.page_size',
  'pagination.limit',
  'meta.pagination.per_page',
  'paging.per_page',
  'paging.limit',
];
export const HAS_MORE_KEYS = [
  'has_more',
  'has_next',
  'has_next_page',
  'more',
  'meta.has_more',
  'meta.has_next',
  'meta.has_next_page',
  'pagination.has_more',
  'pagination.has_next',
  'pagination.has_next_page',
  'paging.has_more',
  'page_info.has_next_page',
];
/**
 * Booleans that say "this is the last page", the other way round from {@link HAS_MORE_KEYS}:
 * Salesforce's `done` (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query_more_results.htm),
 * Jira's `isLast`. Only a JSON boolean counts: `last` or `done` may name other things.
 */
export const IS_LAST_KEYS = ['done', 'is_last', 'is_last_page', 'last'];
/** Body keys of offset paging; the last segment is the query parameter that sets it. */
export const OFFSET_KEYS = [
  'offset',
  'skip',
  'start_index',
  // Jira's `startAt`, sent back as `startAt` (the key as the body writes it).
  'start_at',
  'meta.offset',
  'meta.skip',
  'pagination.offset',
  'pagination.skip',
  'paging.offset',
  'page.offset',
  'meta.pagination.offset',
];
const NEXT_PAGE_KEYS = ['next_page', 'meta.next_page', 'pagination.next_page', 'meta.pagination.next_page'];

/** Header values by lower-cased name; repeated headers are kept in order. */
function headerValues(headers: Headers, name: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) out.push(...v.filter((x): x is string => typeof x === 'string'));
  }
  return out;
}

function headerNumber(headers: Headers, ...names: string[]): number | undefined {
  for (const name of names) {
    const n = parseNumber(headerValues(headers, name)[0]);
    if (n !== undefined && n >= 0) return Math.floor(n);
  }
  return undefined;
}

/** A URL-looking reference: absolute http(s), or a path or query relative to the request. */
function looksLikeUrl(s: string): boolean {
  return /^https?:\/\//i.test(s) || /^(\/|\?|\.\.?\/)/.test(s);
}

/** The first value among paths in the scopes, root first. */
function first<T>(scopes: JsonRecord[], paths: readonly string[], read: (v: unknown) => T | undefined) {
  for (const scope of scopes) {
    for (const path of paths) {
      const v = read(getPath(scope, path));
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

/** Like {@link first}, with the path the value was found at. */
function firstWithKey<T>(
  scopes: JsonRecord[],
  paths: readonly string[],
  read: (v: unknown) => T | undefined,
): { value: T; key: string } | undefined {
  for (const scope of scopes) {
    for (const path of paths) {
      const value = read(getPath(scope, path));
      if (value !== undefined) return { value, key: path };
    }
  }
  return undefined;
}

const count = (v: unknown): number | undefined => {
  const n = parseNumber(v);
  return n !== undefined && n >= 0 && Number.isInteger(n) ? n : undefined;
};

/** Reads every paging signal of one list response. */
export function readSignals(
  found: FoundList,
  body: unknown,
  headers: Headers,
  requestUrl: URL,
): PagingSignals {
  const scopes: JsonRecord[] = [];
  if (isRecord(body)) scopes.push(body);
  if (found.holder !== undefined && found.holder !== body) scopes.push(found.holder);

  const s: PagingSignals = {};
  const link = nextFromLinkHeader(headerValues(headers, 'link').join(', ') || undefined, requestUrl);
  if (link !== undefined) s.link = link;

  const fromBody = bodyNext(scopes, requestUrl);
  if (fromBody.url !== undefined) s.url = fromBody.url;
  if (fromBody.cursor !== undefined) s.cursor = fromBody.cursor;
  if (fromBody.cursorKey !== undefined && typeof s.cursor === 'string') s.cursorKey = fromBody.cursorKey;

  const hasMore = first(scopes, HAS_MORE_KEYS, toBool) ?? first(scopes, IS_LAST_KEYS, notLast);
  if (hasMore !== undefined) s.hasMore = hasMore;
  if (s.cursor === undefined && hasMore === true) {
    const after = firstWithKey(scopes, CONDITIONAL_CURSOR_KEYS, cursorValue);
    if (after !== undefined && after.value !== END) {
      s.cursor = after.value;
      s.cursorKey = after.key;
    }
  }

  if (s.cursor === undefined && hasMore === undefined) {
    const bare = bareCursor(scopes, requestUrl);
    if (bare !== undefined) {
      s.cursor = bare;
      s.cursorKey = 'cursor';
    }
  }

  const nextPage = explicitNextPage(scopes, headers, fromBody.nextPage);
  if (nextPage !== undefined) s.nextPage = nextPage;
  const page = first(scopes, PAGE_KEYS, count) ?? headerNumber(headers, 'x-page', 'x-current-page');
  if (page !== undefined) s.page = page;
  const perPage =
    first(scopes, PER_PAGE_KEYS, count) ?? headerNumber(headers, 'x-per-page', 'x-page-size', 'x-limit');
  if (perPage !== undefined && perPage > 0) s.perPage = perPage;
  const total =
    first(scopes, TOTAL_KEYS, count) ?? headerNumber(headers, 'x-total-count', 'x-total', 'x-total-results');
  if (total !== undefined) s.total = total;
  else {
    const weak = first(scopes, COUNT_KEYS, count);
    if (weak !== undefined) {
      s.total = weak;
      s.totalIsCount = true;
    }
  }
  const totalPages =
    first(scopes, TOTAL_PAGES_KEYS, count) ??
    headerNumber(headers, 'x-total-pages', 'x-pages', 'x-page-count');
  if (totalPages !== undefined) s.totalPages = totalPages;
  const offset = readOffset(scopes, headers);
  if (offset !== undefined) s.offset = offset;
  return s;
}

/** `false` of an "is last" key is "there is more"; only JSON booleans count. */
const notLast = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? !v : undefined);

/**
 * Square's paging: a `cursor` at the top of the body only while there is more
 * (https://developer.squareup.com/docs/working-with-apis/pagination). A server that echoes the
 * cursor it was asked with would repeat its page: a value sent with the request is no next cursor.
 */
function bareCursor(scopes: JsonRecord[], requestUrl: URL): string | undefined {
  const root = scopes[0];
  const v = root === undefined ? undefined : cursorValue(getPath(root, 'cursor'));
  if (typeof v !== 'string') return undefined;
  for (const sent of requestUrl.searchParams.values()) if (sent === v) return undefined;
  return v;
}

function readOffset(scopes: JsonRecord[], headers: Headers): PagingSignals['offset'] {
  for (const scope of scopes) {
    for (const path of OFFSET_KEYS) {
      const v = count(getPath(scope, path));
      if (v !== undefined) return { value: v, param: keyAsWritten(scope, path) };
    }
  }
  const header = headerNumber(headers, 'x-offset');
  return header === undefined ? undefined : { value: header, param: 'offset' };
}

/**
 * The last segment of `path` as `scope` writes it: offset parameters go back under the
 * body's own spelling (Jira's `startAt`, read by the loose key `start_at`).
 */
function keyAsWritten(scope: JsonRecord, path: string): string {
  const dot = path.lastIndexOf('.');
  const holder = dot < 0 ? scope : getPath(scope, path.slice(0, dot));
  const seg = path.slice(dot + 1);
  if (!isRecord(holder) || hasOwn(holder, seg)) return seg;
  const want = looseKey(seg);
  return Object.keys(holder).find((k) => looseKey(k) === want) ?? seg;
}

/** A cursor value: a non-empty string or a number; null, `""` and `false` say "no more". */
function cursorValue(v: unknown): string | End | undefined {
  if (typeof v === 'string') return v.trim() === '' ? END : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (v === null || v === false) return END;
  return undefined;
}

/** Next URL, cursor and page number found under the next-URL and cursor keys. */
function bodyNext(
  scopes: JsonRecord[],
  base: URL,
): { url?: string | End; cursor?: string | End; cursorKey?: string; nextPage?: number | End } {
  const out: { url?: string | End; cursor?: string | End; cursorKey?: string; nextPage?: number | End } = {};
  for (const scope of scopes) {
    for (const path of NEXT_URL_KEYS) {
      const raw = getPath(scope, path);
      if (raw === undefined) continue;
      // HAL's `{ href }`, `{ url }`, HubSpot's `paging.next: { after, link }` (the link only:
      // a record without one is not "no next", its cursor is read below).
      const v = isRecord(raw) ? (getPath(raw, 'href') ?? getPath(raw, 'url') ?? getPath(raw, 'link')) : raw;
      if (v === undefined) continue;
      if (v === null || v === '' || v === false) {
        out.url ??= END;
      } else if (typeof v === 'string' && looksLikeUrl(v.trim())) {
        const url = resolveUrl(v.trim(), base);
        if (url !== undefined && (out.url === undefined || out.url === END)) out.url = url;
      } else if (count(v) !== undefined) {
        out.nextPage ??= count(v) ?? END;
      } else if (typeof v === 'string' && OPAQUE_NEXT_KEYS.has(path)) {
        if (out.cursor === undefined) {
          out.cursor = v;
          out.cursorKey = path;
        }
      }
    }
    for (const path of CURSOR_KEYS) {
      const c = cursorValue(getPath(scope, path));
      if (c !== undefined && (out.cursor === undefined || out.cursor === END)) {
        out.cursor = c;
        out.cursorKey = path;
      }
    }
    const rel = relationNext(scope, base);
    if (rel !== undefined && (out.url === undefined || out.url === END)) out.url = rel;
    if (out.url === undefined && linksWithoutNext(scope)) out.url = END;
  }
  return out;
}

/** Relations that page a list: their presence without a `next` says "last page". */
const PAGING_RELS = ['first', 'last', 'prev', 'previous'];

/**
 * A list of link objects (`links: [{ href, rel }]`, the HATEOAS style of PayPal and of
 * JSON Hyper-Schema) under any key whose words name links: the `next` relation's URL, or
 * the end when the list has paging relations but no `next`.
 */
function relationNext(scope: JsonRecord, base: URL): string | End | undefined {
  for (const [key, value] of Object.entries(scope)) {
    if (!Array.isArray(value) || !splitWords(key).some((w) => w === 'links' || w === 'link')) continue;
    const rels = value
      .filter(isRecord)
      .map((l) => ({ rel: l['rel'], href: l['href'] ?? l['url'] ?? l['uri'] }));
    const next = rels.find((l) => typeof l.rel === 'string' && l.rel.toLowerCase() === 'next');
    if (typeof next?.href === 'string' && next.href.trim() !== '') return resolveUrl(next.href.trim(), base);
    if (rels.some((l) => typeof l.rel === 'string' && PAGING_RELS.includes(l.rel.toLowerCase()))) return END;
  }
  return undefined;
}

/**
 * Link relations without a `next`: HAL's `_links` (which carries `next` whenever there is
 * more), or a `links` object with paging relations (`first`, `last`, `prev`) but no `next`,
 * says this is the last page, whatever page numbers beside it would suggest (a 0-based
 * `page.number` read as 1-based would ask for one more, empty page).
 */
function linksWithoutNext(scope: JsonRecord): boolean {
  const hal = scope['_links'];
  if (isRecord(hal) && !hasOwn(hal, 'next')) return true;
  const links = scope['links'];
  return (
    isRecord(links) &&
    !hasOwn(links, 'next') &&
    ['first', 'last', 'prev', 'previous'].some((rel) => hasOwn(links, rel))
  );
}

/** `X-Next-Page` (GitLab: empty on the last page) or a numeric `next_page` in the body. */
function explicitNextPage(
  scopes: JsonRecord[],
  headers: Headers,
  fromNextKeys: number | End | undefined,
): number | End | undefined {
  const header = headerValues(headers, 'x-next-page')[0];
  if (header !== undefined) {
    if (header.trim() === '') return END;
    const n = count(header.trim());
    if (n !== undefined) return n;
  }
  return fromNextKeys ?? first(scopes, NEXT_PAGE_KEYS, count);
}

/** Segments of a cursor key that say where the cursor goes back, after `next_` is taken off. */
const CURSOR_PARAM_OF_KEY: Readonly<Record<string, string>> = {
  end_cursor: 'after',
  after: 'after',
  next: '',
  cursor: '',
};

/** At most this many other names are tried for a cursor whose parameter the server ignores. */
const MAX_CURSOR_NAMES = 4;

/**
 * Other query parameters a cursor found under `key` may have to go back in, when the
 * server ignores `current` (tally's `cursor`): Google-style APIs answer `next_page_token`
 * and take `pageToken` or `page_token`; `next_token` goes back as `next_token`/`nextToken`
 * or `token`. Derived from the key's last segment: without `next_`, in snake_case and
 * camelCase, then the key itself. Never `current`, at most three.
 */
export function cursorParamNames(key: string, current: string): string[] {
  const seg = key.slice(key.lastIndexOf('.') + 1);
  const mapped = CURSOR_PARAM_OF_KEY[seg];
  const base = mapped ?? seg.replace(/^next_/, '');
  const names = mapped === undefined ? [base, camel(base), seg, camel(seg)] : [base];
  // Notion answers `next_cursor` and takes `start_cursor` (https://developers.notion.com/reference/intro#pagination).
  if (seg.endsWith('cursor') && seg !== 'cursor') names.push('start_cursor');
  // The X API answers `meta.next_token` and takes `pagination_token`
  // (https://docs.x.com/x-api/fundamentals/pagination).
  if (seg === 'next_token') names.push('pagination_token');
  const out: string[] = [];
  for (const n of names) {
    if (n === '' || n === current || out.includes(n)) continue;
    out.push(n);
  }
  return out.slice(0, MAX_CURSOR_NAMES);
}

function camel(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
