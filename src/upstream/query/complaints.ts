/**
 * What a server's refusal says of the query it refused (docs/upstream-shapes.md,
 * "Requests that adapt"): which parameters it names, which it does not know, which time
 * it cannot read and in what format it wants it, and the page size it allows. Read
 * clause by clause from the server's own words (UpstreamError.upstreamWords).
 */
import { statedTimeFormat } from './time-formats.js';

/** What {@link readComplaints} needs to know of the request. */
export interface ComplaintContext {
  perPageParam: string;
  timeParams: ReadonlySet<string>;
}

/**
 * Phrases by which a server says it does not know or take a parameter at all (`unknown
 * query parameter: status`, `does not support the query parameter 'per_page'`, `per_page
 * is not supported`, `unrecognised parameter`, `not allowed`).
 */
const UNKNOWN =
  /\b(unknown|unrecogni[sz]ed|not recogni[sz]ed|unsupported|not supported|(does|do) ?n[o']?t (support|accept|allow|recogni[sz]e|know)|not (allowed|permitted|accepted|expected)|unexpected|unpermitted|extraneous|invalid (query )?param|no such (query )?param|not a (valid|known|recogni[sz]ed) (query )?param)/;
/** Phrases about a value that is not a time the server can read. */
const TIME =
  /\b(format|date|datetime|time|timestamp|parse|parsable|parseable|iso|rfc|invalid|malformed|expected)\b/;
/** Phrases about the page size, whatever its parameter is called. */
const PAGE_SIZE = /\b(page[ _-]?size|per[ _-]?page|limit|too (many|large))\b/;

/** What an error says about the parameters of the request it answers. */
export interface Complaints {
  /** Every parameter the words name. */
  named: string[];
  /** Parameters it says it does not know or take. */
  unknown: string[];
  /** Time parameters it says it cannot read. */
  time: string[];
  /** The format it says it expects, per time parameter, when it states one. */
  stated: Map<string, string>;
  /** It speaks of the page size (and not as a parameter it does not know). */
  pageSize: boolean;
  /** The words that speak of the page size, to find a maximum in. */
  pageSizeWords: string;
}

/**
 * Reads what the error says of each parameter, clause by clause (`;`, sentences, one entry
 * of an errors list each): a clause names parameters and says what is wrong with them, so
 * `per_page must be at most 50; unknown parameter: status` shrinks the page size and leaves
 * out `status`. A clause that names no parameter speaks of those named elsewhere.
 */
export function readComplaints(all: string, params: readonly string[], ctx: ComplaintContext): Complaints {
  // What it lists as taken (`allowed: a, b`, src/upstream/transport/http.ts) is no complaint about
  // them; a parameter sent and not in that list is one it does not take.
  const listed = /(?:^|;)\s*allowed: ([^;]*)/.exec(all)?.[1]?.split(/,\s*/);
  const words = all.replace(/(?:^|;)\s*allowed: [^;]*/g, '');
  const clauses = words.split(/;|\.\s|\.$|\n/).filter((c) => c.trim() !== '');
  const namedIn = (c: string) => params.filter((p) => mentions(c, p));
  const named = params.filter((p) => mentions(words, p));
  const loose = clauses.filter((c) => namedIn(c).length === 0);
  const out: Complaints = {
    named,
    unknown: [],
    time: [],
    stated: new Map(),
    pageSize: false,
    pageSizeWords: '',
  };
  const sizeClauses: string[] = [];
  for (const p of named) {
    const own = clauses.filter((c) => namedIn(c).includes(p));
    const about = own.length > 0 ? own : clauses;
    const isSize = p === ctx.perPageParam;
    // A maximum below the size asked for makes it a size the server caps, not a name it refuses.
    const statesMax = isSize && about.some((c) => statedMaximum(c, Number.POSITIVE_INFINITY) !== undefined);
    if (
      !statesMax &&
      (about.some((c) => UNKNOWN.test(c)) ||
        (!own.some((c) => TIME.test(c)) && loose.some((c) => UNKNOWN.test(c))))
    ) {
      out.unknown.push(p);
    } else if (
      ctx.timeParams.has(p) &&
      (about.some((c) => TIME.test(c)) || loose.some((c) => TIME.test(c)))
    ) {
      out.time.push(p);
      const stated = [...about, ...loose].map(statedTimeFormat).find((f) => f !== undefined);
      if (stated !== undefined) out.stated.set(p, stated);
    } else if (isSize) {
      out.pageSize = true;
      sizeClauses.push(...about);
    }
  }
  if (listed !== undefined)
    for (const p of params)
      if (!listed.includes(p.toLowerCase()) && !out.unknown.includes(p)) out.unknown.push(p);
  const sizeWords = clauses.filter((c) => PAGE_SIZE.test(c) && !out.unknown.some((p) => mentions(c, p)));
  if (sizeWords.length > 0 && !out.unknown.includes(ctx.perPageParam)) {
    out.pageSize = true;
    sizeClauses.push(...sizeWords);
  }
  out.pageSizeWords = sizeClauses.join('; ');
  return out;
}

/** Whether `words` name the parameter `p` (as a word, in any quoting). */
export function mentions(words: string, p: string): boolean {
  const escaped = p.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_])${escaped}($|[^a-z0-9_])`).test(words);
}

/**
 * A maximum the error states (`at most 50`, `maximum: 50`, `<= 50`, `between 1 and 50`,
 * `values above 50 are not allowed`), below `current`.
 */
export function statedMaximum(words: string, current: number): number | undefined {
  const patterns = [
    /(?:max(?:imum)?|at most|no more than|not exceed|up to|less than or equal to|<=?)\D{0,20}?(\d{1,6})/,
    /between\s+\d+\s+and\s+(\d{1,6})/,
    /(\d{1,6})\s+(?:or fewer|at most|max(?:imum)?)/,
    // `values above 50 are not allowed`: a bound the server refuses to pass (not a minimum).
    /(?:above|over|greater than|more than|exceeding)\s+(\d{1,6})\b.*\b(?:not|too|cannot|disallowed|refused|rejected)\b/,
  ];
  for (const re of patterns) {
    const m = re.exec(words);
    const n = m ? Number(m[1]) : Number.NaN;
    if (Number.isInteger(n) && n >= 1 && n < current) return n;
  }
  return undefined;
}
