/**
 * RFC 8288 `Link` header parsing: several links per header (and several headers),
 * quoted parameters that may contain commas and semicolons, URLs that may contain
 * commas, `rel` holding several space-separated relation types, relative targets.
 */
import { END, type End } from './paging-end.js';

/** One link of a `Link` header. */
export interface LinkValue {
  /** The target as written between `<` and `>`. */
  target: string;
  /** Relation types, lower-cased (`rel="next last"` → `['next', 'last']`). */
  rels: string[];
  /** Other parameters, names lower-cased; the first occurrence of a name wins. */
  params: Record<string, string>;
}

/** Parses a `Link` header value; malformed parts are skipped, never thrown on. */
export function parseLinkHeader(value: string): LinkValue[] {
  const links: LinkValue[] = [];
  let i = 0;
  const n = value.length;
  const skipSpace = (): void => {
    while (i < n && /[\s]/.test(value[i] ?? '')) i++;
  };
  // Moves past the rest of a malformed link: to the next comma outside quotes and brackets.
  const skipToComma = (): void => {
    let quoted = false;
    while (i < n) {
      const c = value[i];
      if (quoted) {
        if (c === '\\') i++;
        else if (c === '"') quoted = false;
      } else if (c === '"') quoted = true;
      else if (c === ',') return;
      i++;
    }
  };
  while (i < n) {
    skipSpace();
    if (value[i] === ',') {
      i++;
      continue;
    }
    if (value[i] !== '<') {
      skipToComma();
      continue;
    }
    const close = value.indexOf('>', i + 1);
    if (close < 0) break;
    const target = value.slice(i + 1, close).trim();
    i = close + 1;
    const params: Record<string, string> = {};
    let rel: string | undefined;
    for (;;) {
      skipSpace();
      if (value[i] !== ';') break;
      i++;
      skipSpace();
      const nameStart = i;
      while (i < n && !/[\s=;,]/.test(value[i] ?? '')) i++;
      const name = value.slice(nameStart, i).toLowerCase();
      skipSpace();
      let paramValue = '';
      if (value[i] === '=') {
        i++;
        skipSpace();
        paramValue = readParamValue();
      }
      if (name === '') continue;
      if (name === 'rel' || name === 'rel*') rel ??= paramValue;
      else if (!Object.hasOwn(params, name)) {
        Object.defineProperty(params, name, { value: paramValue, enumerable: true, writable: true });
      }
    }
    skipToComma();
    links.push({ target, rels: splitRels(rel), params });
  }
  return links;

  function readParamValue(): string {
    if (value[i] !== '"') {
      const start = i;
      while (i < n && !/[;,]/.test(value[i] ?? '')) i++;
      return value.slice(start, i).trim();
    }
    i++;
    let out = '';
    while (i < n && value[i] !== '"') {
      if (value[i] === '\\' && i + 1 < n) i++;
      out += value[i];
      i++;
    }
    i++;
    return out;
  }
}

function splitRels(rel: string | undefined): string[] {
  if (rel === undefined) return [];
  // `rel*=UTF-8''next` (RFC 8187) carries the value after the second quote.
  const plain = rel.replace(/^[\w-]*'[\w-]*'/, '');
  return plain
    .split(/\s+/)
    .map((r) => r.toLowerCase())
    .filter((r) => r !== '');
}

const PAGING_RELS = new Set(['prev', 'previous', 'first', 'last']);

/**
 * The `rel="next"` target of a `Link` header resolved against the request URL; {@link END}
 * when the header has paging links but no next (the last page); undefined otherwise.
 */
export function nextFromLinkHeader(value: string | undefined, base: URL): string | End | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const links = parseLinkHeader(value);
  for (const link of links) {
    if (!link.rels.includes('next')) continue;
    const url = resolveUrl(link.target, base);
    if (url !== undefined) return url;
  }
  return links.some((l) => l.rels.some((r) => PAGING_RELS.has(r) || r === 'next')) ? END : undefined;
}

/** Resolves a possibly relative reference against a base URL; undefined when it is not a URL. */
export function resolveUrl(ref: string, base: URL): string | undefined {
  try {
    const url = new URL(ref, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
