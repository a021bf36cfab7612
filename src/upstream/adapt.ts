/**
 * Requests that adapt (docs/upstream-shapes.md, "Requests that adapt"). The query of a
 * list's first page is tally's choice: a page size, session filters, a time format. A
 * server that refuses one of them answers 400 or 422; tally then reads what the error
 * says (a parameter it names, a maximum it states, or nothing) and asks again with a
 * safer query: the named maximum or half the page size down to a floor, then without the
 * parameters the server refuses; for a time it cannot parse, ISO 8601 with a numeric
 * offset, then epoch seconds. What
 * worked is remembered per org and endpoint (and kept in the state directory by the
 * caller), tried first on the next read, and learned again when it stops working. A page
 * size set in the config is never changed. 401 and 403 never adapt anything.
 */
import type { UpstreamError } from './errors.js';

/** What was learned about one org's endpoint. */
export interface Learned {
  /** A page size the server takes (smaller than asked for). */
  perPage?: number;
  /** Query parameters the server refuses; they are left out. */
  drop?: string[];
  /** Time parameters to send as epoch seconds. */
  epoch?: string[];
  /** Time parameters to send as ISO 8601 with a numeric offset (`+00:00`) instead of `Z`. */
  isoOffset?: string[];
  /** Filters the server takes but does not apply (`window`, `status`): tally filters itself. */
  ignored?: string[];
  /**
   * The query parameter list cursors go back in, when the server ignores `cursor` and
   * takes the name its cursor key suggests (`next_page_token` → `pageToken`).
   */
  cursorParam?: string;
  /** The server ignored every name tried for its cursor: later reads try no other name. */
  cursorStuck?: boolean;
  /**
   * Even the safest query was refused: later reads send it once, without adapting again,
   * until it is answered (then this is cleared).
   */
  refused?: boolean;
}

/** The smallest page size tried before the page-size parameter is left out altogether. */
export const PER_PAGE_FLOOR = 10;
/** Safer queries tried for one read before it fails. */
export const MAX_ADAPTATIONS = 6;

/** What {@link saferQuery} knows of the request besides its URL. */
export interface AdaptContext {
  perPageParam: string;
  /** Parameters that are paging, not filters (cursor, page). */
  pagingParams: ReadonlySet<string>;
  /** Parameters holding a time (the window's from and to). */
  timeParams: ReadonlySet<string>;
  /** The page size is set in the config: never changed. */
  fixedPerPage: boolean;
  /**
   * Filter parameters whose name or time format the config sets (anything but the
   * defaults): never left out or reformatted. A server that refuses them fails the read.
   */
  fixedParams?: ReadonlySet<string> | undefined;
}

/** Whether the config fixes parameter `p`. */
const fixed = (ctx: AdaptContext, p: string): boolean => ctx.fixedParams?.has(p) === true;

/** Remembers what worked per org and endpoint; `onChange` persists it. */
export class QueryMemory {
  private readonly learned = new Map<string, Learned>();

  constructor(private readonly onChange?: (all: Record<string, Learned>) => void) {}

  /** What was learned for `org`'s `endpoint`. */
  get(org: string, endpoint: string): Learned | undefined {
    return this.learned.get(key(org, endpoint));
  }

  /** Records what worked; unchanged knowledge is not written again. */
  set(org: string, endpoint: string, l: Learned): void {
    const k = key(org, endpoint);
    if (JSON.stringify(this.learned.get(k)) === JSON.stringify(l)) return;
    this.learned.set(k, l);
    this.onChange?.(this.toJSON());
  }

  /** Records filters the server answered without applying (kept with what else was learned). */
  noteIgnored(org: string, endpoint: string, filters: readonly string[]): void {
    const l = this.get(org, endpoint) ?? {};
    const all = [...new Set([...(l.ignored ?? []), ...filters])].sort();
    if (all.length !== (l.ignored ?? []).length) this.set(org, endpoint, { ...l, ignored: all });
  }

  /** Forgets what stopped working. */
  forget(org: string, endpoint: string): void {
    if (this.learned.delete(key(org, endpoint))) this.onChange?.(this.toJSON());
  }

  /** Everything learned, `org endpoint` → learned. */
  toJSON(): Record<string, Learned> {
    return Object.fromEntries(this.learned);
  }

  /** Takes what a previous run stored; anything malformed is ignored. */
  load(data: unknown): void {
    if (data === null || typeof data !== 'object') return;
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      const l = sanitize(v);
      if (l && k.includes(' ')) this.learned.set(k, l);
    }
  }
}

function key(org: string, endpoint: string): string {
  return `${org} ${endpoint}`;
}

function sanitize(v: unknown): Learned | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const out: Learned = {};
  if (o['refused'] === true) out.refused = true;
  if (o['cursorStuck'] === true) out.cursorStuck = true;
  if (typeof o['cursorParam'] === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(o['cursorParam']))
    out.cursorParam = o['cursorParam'];
  if (typeof o['perPage'] === 'number' && Number.isInteger(o['perPage']) && o['perPage'] >= 1)
    out.perPage = o['perPage'];
  for (const f of ['drop', 'epoch', 'isoOffset', 'ignored'] as const) {
    const list = o[f];
    if (Array.isArray(list) && list.every((x) => typeof x === 'string')) out[f] = list as string[];
  }
  return out;
}

/** `url` with what was learned applied. */
export function applyLearned(url: URL, l: Learned | undefined, ctx: AdaptContext): URL {
  if (!l) return url;
  const out = new URL(url);
  if (l.perPage !== undefined && !ctx.fixedPerPage && out.searchParams.has(ctx.perPageParam)) {
    out.searchParams.set(ctx.perPageParam, String(l.perPage));
  }
  for (const p of l.drop ?? []) if (!fixed(ctx, p)) out.searchParams.delete(p);
  for (const p of l.isoOffset ?? []) {
    if ((l.epoch ?? []).includes(p) || fixed(ctx, p)) continue;
    const v = out.searchParams.get(p);
    const ms = v === null ? Number.NaN : Date.parse(v);
    if (Number.isFinite(ms))
      out.searchParams.set(p, new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00'));
  }
  for (const p of l.epoch ?? []) {
    if (fixed(ctx, p)) continue;
    const v = out.searchParams.get(p);
    const ms = v === null ? Number.NaN : /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v);
    if (Number.isFinite(ms)) out.searchParams.set(p, String(Math.floor(ms / 1000)));
  }
  return out;
}

/**
 * The next query to try after `err` (a 400 or 422) answered `url`, with what it changes,
 * or undefined when nothing safer is left to try.
 */
export function saferQuery(
  url: URL,
  err: UpstreamError,
  learned: Learned,
  ctx: AdaptContext,
): { url: URL; learned: Learned } | undefined {
  // Only the server's own words: tally's message names the request, and with it every parameter.
  const words = (err.upstreamWords ?? '').toLowerCase();
  const params = [...url.searchParams.keys()];
  const named = params.filter((p) => mentions(words, p));
  const filters = params.filter((p) => p !== ctx.perPageParam && !ctx.pagingParams.has(p));
  const perPage = Number(url.searchParams.get(ctx.perPageParam));
  const canShrink = !ctx.fixedPerPage && Number.isFinite(perPage) && url.searchParams.has(ctx.perPageParam);
  // "unknown parameter per_page, from": the server does not know these names at all; no size will do.
  const unknownNames =
    named.length > 0 &&
    /\b(unknown|unrecogni[sz]ed|unsupported|not (allowed|supported|permitted)|unexpected|invalid (query )?param)/.test(
      words,
    );
  const aboutPageSize =
    !unknownNames &&
    (named.includes(ctx.perPageParam) ||
      /\b(page[ _-]?size|per[ _-]?page|limit|too (many|large))\b/.test(words));

  // 1. A time the server cannot parse: the same time with a numeric offset, then in epoch seconds.
  const times = named.filter(
    (p) => ctx.timeParams.has(p) && !(learned.epoch ?? []).includes(p) && !fixed(ctx, p),
  );
  if (times.length > 0 && /\b(format|date|time|timestamp|parse|invalid)\b/.test(words)) {
    const fresh = times.filter((p) => !(learned.isoOffset ?? []).includes(p));
    if (fresh.length > 0) {
      const next = { ...learned, isoOffset: [...(learned.isoOffset ?? []), ...fresh] };
      return { url: applyLearned(url, { isoOffset: fresh }, ctx), learned: next };
    }
    const next = { ...learned, epoch: [...(learned.epoch ?? []), ...times] };
    return { url: applyLearned(url, { epoch: times }, ctx), learned: next };
  }
  // 2. The page size: the maximum the error states, else half, down to the floor.
  if (canShrink && (aboutPageSize || named.length === 0)) {
    const max = statedMaximum(words, perPage);
    const size = max ?? Math.floor(perPage / 2);
    const out = new URL(url);
    if (size >= PER_PAGE_FLOOR || (max !== undefined && max >= 1)) {
      out.searchParams.set(ctx.perPageParam, String(size));
      return { url: out, learned: { ...learned, perPage: size } };
    }
    // Below the floor: leave the page size to the server.
    out.searchParams.delete(ctx.perPageParam);
    return { url: out, learned: { ...learned, drop: [...(learned.drop ?? []), ctx.perPageParam] } };
  }
  // 3. Parameters the server names, or, when it names none, every filter tally chose.
  const drop = (named.length > 0 ? named.filter((p) => !ctx.pagingParams.has(p)) : filters).filter(
    (p) => !(ctx.fixedPerPage && p === ctx.perPageParam) && !fixed(ctx, p),
  );
  if (drop.length > 0) {
    const out = new URL(url);
    for (const p of drop) out.searchParams.delete(p);
    return { url: out, learned: { ...learned, drop: [...new Set([...(learned.drop ?? []), ...drop])] } };
  }
  return undefined;
}

/** Whether `words` name the parameter `p` (as a word, in any quoting). */
function mentions(words: string, p: string): boolean {
  const escaped = p.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_])${escaped}($|[^a-z0-9_])`).test(words);
}

/** A maximum the error states (`at most 50`, `maximum: 50`, `<= 50`, `between 1 and 50`), below `current`. */
function statedMaximum(words: string, current: number): number | undefined {
  const patterns = [
    /(?:max(?:imum)?|at most|no more than|not exceed|up to|less than or equal to|<=?)\D{0,20}?(\d{1,6})/,
    /between\s+\d+\s+and\s+(\d{1,6})/,
    /(\d{1,6})\s+(?:or fewer|at most|max(?:imum)?)/,
  ];
  for (const re of patterns) {
    const m = re.exec(words);
    const n = m ? Number(m[1]) : Number.NaN;
    if (Number.isInteger(n) && n >= 1 && n < current) return n;
  }
  return undefined;
}
