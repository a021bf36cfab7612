/**
 * Requests that adapt (docs/upstream-shapes.md, "Requests that adapt"). The query of a
 * list's first page is tally's choice: a page size, session filters, a time format. A
 * server that refuses one of them answers 400 or 422; tally then reads what the error
 * says (a parameter it names, a maximum it states, or nothing) and asks again with a
 * safer query: the named maximum or half the page size down to a floor, then without the
 * parameters the server refuses; for a time it cannot parse, the format the error states,
 * else the format the other time parameter was found to take, else ISO 8601 with a
 * numeric offset, then epoch seconds, then without it (tally filters the window itself).
 * What was learned is remembered per org and endpoint (and
 * kept in the state directory by the caller) at every step, whether the read ends
 * answered, refused, or out of safer queries to try: the next read starts from the best
 * query known, and goes on from there when that is refused too. A list whose every safer
 * query was refused is asked again only now and then (REFUSED_RETRY_MS, doubling), one
 * request at a time, until it is answered. A page size set in the config is never
 * changed. 401 and 403 never adapt anything.
 */
import { readComplaints, statedMaximum } from './complaints.js';
import type { UpstreamError } from '../errors.js';
import { PagerLedger } from '../lists/keyset.js';
import { type EvidenceOptions, RefusalEvidence } from './evidence.js';
import {
  type FilterNames,
  type FilterStyle,
  nextStyle,
  restyle,
  restyleable,
  sanitizeStyle,
  styleParams,
  withStyleTimes,
} from './filter-styles.js';
import { ProbeLedger, type SilentPages, silentPagesOf } from '../lists/silent-pages.js';
import { formatTime, granularityMs, isTimeFormat, parseSentTime, TIME_LADDER } from './time-formats.js';

/** What was learned about one org's endpoint. */
export interface Learned {
  /** A page size the server takes (smaller than asked for). */
  perPage?: number;
  /** Query parameters the server refuses; they are left out. */
  drop?: string[];
  /**
   * Time parameters sent in another format than tally's own, parameter → format
   * (`iso_offset`, `epoch_s`, `epoch_ms` or a pattern such as `YYYY-MM-DD HH:mm:ss`:
   * time-formats.ts). A parameter left out has none.
   */
  times?: Record<string, string>;
  /** How the server wants the session filters written, when not as tally's own parameters (filter-styles.ts). */
  filterStyle?: FilterStyle;
  /** Filters the server takes but does not apply (`window`, `status`): tally filters itself. */
  ignored?: string[];
  /**
   * The window was dropped because the server misread it (its windowed lists came back
   * empty): lists read with it were wrong, not only lists read without it right
   * (client.ts, misreadsWindow; SessionsPart.unwindowed).
   */
  windowMisread?: boolean;
  /**
   * The query parameter list cursors go back in, when the server ignores `cursor` and
   * takes the name its cursor key suggests (`next_page_token` → `pageToken`).
   */
  cursorParam?: string;
  /** The server ignored every name tried for its cursor: later reads try no other name. */
  cursorStuck?: boolean;
  /**
   * The query parameter that asks for the page after a page that says "more" and gives no
   * pointer (`starting_after`, `after`, `page` …: src/upstream/lists/keyset.ts), once one worked.
   */
  moreBy?: string;
  /**
   * The server pages this list without showing it (no next pointer, totals or "more"
   * flag): how (by page number, offset or the last record's id) and at what size
   * (src/upstream/lists/silent-pages.ts, `SilentPages`).
   */
  silentPages?: SilentPages;
  /**
   * The most records a first page without paging signs held when nothing was found after
   * it: a later first page holding fewer is whole (silent-pages.ts).
   */
  wholeUpTo?: number;
  /** Asked for page 1 after page 2, the server answered its first page: its pages count from 1. */
  countsFrom1?: boolean;
  /** The page size asked for (0: none) when `silentPages`, `wholeUpTo` and `countsFrom1` were learned; they hold for it only. */
  pagedAs?: number;
  /**
   * No query with this was answered yet: it is the best known, but the server refused the
   * last one tried. The next read starts from it and adapts further when it is refused
   * too; once nothing safer is left, reads wait for {@link QueryMemory.refusal}. Cleared by
   * the first answer.
   */
  refused?: boolean;
  /** When what refusals taught (page size, parameters left out, time formats) was learned (ms). */
  learnedAt?: number;
  /** When the server last refused tally's own query again, confirming it (ms; query/evidence.ts). */
  confirmedAt?: number;
}

/** The parts of {@link Learned} that refusals teach, re-tried and dropped when no longer refused. */
const QUERY_KEYS = [
  'perPage',
  'drop',
  'times',
  'filterStyle',
  'refused',
  'learnedAt',
  'confirmedAt',
] as const;

/** Whether `l` holds anything refusals taught. */
export function hasQueryKnowledge(l: Learned | undefined): boolean {
  return (
    l?.perPage !== undefined ||
    l?.filterStyle !== undefined ||
    (l?.drop?.length ?? 0) > 0 ||
    Object.keys(l?.times ?? {}).length > 0
  );
}

/** `l` without what refusals taught (what was found of paging, cursors and ignored filters stays). */
export function withoutQueryKnowledge(l: Learned): Learned {
  const out: Learned = { ...l };
  for (const k of QUERY_KEYS) delete out[k];
  return out;
}

/** The smallest page size tried before the page-size parameter is left out altogether. */
export const PER_PAGE_FLOOR = 10;
/**
 * Safer queries tried for one read before it fails; the next read goes on from the last.
 * Enough for the longest ladder one server is likely to need in one read: the page size
 * halved to the floor (4), both time parameters through their formats to being left out
 * (3 or 4 each), and a filter.
 */
export const MAX_ADAPTATIONS = 12;
/** After every safer query was refused: the wait before a read asks again, doubling per refusal. */
export const REFUSED_RETRY_MS = 5 * 60_000;
/** The longest wait between two reads of a list whose every query is refused. */
export const REFUSED_RETRY_MAX_MS = 60 * 60_000;

/** A list whose every safer query was refused: when to ask again, and what the server said. */
export interface Refusal {
  /** Reads before this time fail at once, without a request. */
  retryAt: number;
  /** Refusals in a row, for the doubling wait. */
  times: number;
  /** The server's last refusal. */
  error: UpstreamError;
}

/** What {@link saferQuery} knows of the request besides its URL. */
export interface AdaptContext {
  perPageParam: string;
  /** Parameters that are paging, not filters (cursor, page). */
  pagingParams: ReadonlySet<string>;
  /** Parameters holding a time (the window's from and to). */
  timeParams: ReadonlySet<string>;
  /** Time parameters that end the window: a coarser format rounds them up, not down. */
  endParams?: ReadonlySet<string> | undefined;
  /** The page size is set in the config: never changed. */
  fixedPerPage: boolean;
  /**
   * Filter parameters whose name or time format the config sets (anything but the
   * defaults): never left out or reformatted. A server that refuses them fails the read.
   */
  fixedParams?: ReadonlySet<string> | undefined;
  /** Tally's names of the session filters, which may be written in another style (filter-styles.ts); absent: never restyled. */
  filterNames?: FilterNames | undefined;
}

/** Whether the config fixes parameter `p`. */
const fixed = (ctx: AdaptContext, p: string): boolean => ctx.fixedParams?.has(p) === true;

/** Remembers what worked per org and endpoint; `onChange` persists it. */
export class QueryMemory {
  private readonly learned = new Map<string, Learned>();
  /** Changes per key, so that a read can tell another read learned something meanwhile. */
  private readonly versions = new Map<string, number>();
  /** Lists whose every safer query was refused (not persisted: a restart asks once again). */
  private readonly refusals = new Map<string, Refusal>();
  /** What reads asking after lists that show no paging noted (silent-pages.ts; not persisted). */
  readonly probes = new ProbeLedger();
  /** Lists whose every way of asking for a next page was refused (src/upstream/lists/keyset.ts; not persisted). */
  readonly pagers = new PagerLedger();
  /** How often each list's first query was refused lately, and when what it learned is re-tried. */
  private readonly evidence: RefusalEvidence;
  /** What reads refused lately got to, not learned yet (see {@link tentative}; not persisted). */
  private readonly provisional = new Map<string, Learned>();

  constructor(
    private readonly onChange?: (all: Record<string, Learned>) => void,
    evidence: EvidenceOptions = {},
  ) {
    this.evidence = new RefusalEvidence(evidence);
  }

  /**
   * Where a read of `org`'s `endpoint` at `now` starts: from what was learned, or, when
   * what refusals taught is due to be put to the test again (query/evidence.ts), from
   * tally's own query (`retrial`). A list waiting after refusals, or whose window the
   * server misread (client.ts, misreadsWindow), is not re-tried this way. While refusals
   * are tallied, reads start where a refused read was answered (`provisional`), all but
   * one a minute, which asks the query known to work again (`RefusalEvidence.probeDue`).
   */
  begin(
    org: string,
    endpoint: string,
    now: number,
  ): { learned: Learned | undefined; retrial: boolean; provisional?: true } {
    const k = key(org, endpoint);
    const l = this.learned.get(k);
    const p = this.provisional.get(k);
    const settled = l?.refused !== true && l?.windowMisread !== true;
    if (settled && p !== undefined && p.refused !== true && !this.evidence.probeDue(k, now)) {
      const taught = Object.entries(p).filter(([f]) => (QUERY_KEYS as readonly string[]).includes(f));
      const learned: Learned = { ...withoutQueryKnowledge(l ?? {}), ...Object.fromEntries(taught) };
      return { learned, retrial: false, provisional: true };
    }
    if (l === undefined || !hasQueryKnowledge(l) || l.refused === true || l.windowMisread === true)
      return { learned: l, retrial: false };
    if (!this.evidence.retrialDue(k, l.confirmedAt, now)) return { learned: l, retrial: false };
    return { learned: withoutQueryKnowledge(l), retrial: true };
  }

  /** A read's first query was refused at `now` (one more refusal towards teaching). */
  noteRefusal(org: string, endpoint: string, now: number): void {
    this.evidence.refused(key(org, endpoint), now);
  }

  /** A read's first query was answered: the refusals before it were a passing burst. */
  noteAnswer(org: string, endpoint: string): void {
    const k = key(org, endpoint);
    this.evidence.answered(k);
    this.provisional.delete(k);
  }

  /**
   * Where the last read refused since the list's query was last answered got to on its
   * ladder, while the refusals do not teach yet: a read whose first query is refused again
   * goes on from there (one request more, not the whole ladder again).
   */
  tentative(org: string, endpoint: string): Learned | undefined {
    return this.provisional.get(key(org, endpoint));
  }

  /** Whether refusals of `org`'s `endpoint` have repeated enough, over long enough, to teach. */
  teaches(org: string, endpoint: string): boolean {
    return this.evidence.teaches(key(org, endpoint));
  }

  /**
   * Learns `l`, reached by a read's ladder of safer queries, when the refusals that led
   * there teach (query/evidence.ts); otherwise it held for that read only. Returns whether
   * it was learned.
   */
  teach(org: string, endpoint: string, l: Learned, now: number): boolean {
    const k = key(org, endpoint);
    if (!this.evidence.teaches(k)) {
      this.provisional.set(k, l);
      return false;
    }
    this.provisional.delete(k);
    const prev = this.learned.get(k);
    const same = prev !== undefined && queryOf(prev) === queryOf(l);
    this.set(org, endpoint, { ...l, learnedAt: same ? (prev.learnedAt ?? now) : now, confirmedAt: now });
    return true;
  }

  /**
   * Tally's own query, re-tried, was refused at `now`: what was learned holds, confirmed.
   * Returns it (undefined when nothing is held any more).
   */
  confirm(org: string, endpoint: string, now: number): Learned | undefined {
    const k = key(org, endpoint);
    const l = this.learned.get(k);
    if (l === undefined || !hasQueryKnowledge(l)) return undefined;
    this.evidence.confirmed(k, now);
    const out = { ...l, learnedAt: l.learnedAt ?? now, confirmedAt: now };
    this.set(org, endpoint, out);
    return out;
  }

  /** Tally's own query, re-tried, was answered: what refusals taught is dropped. */
  unlearn(org: string, endpoint: string): void {
    const k = key(org, endpoint);
    const l = this.learned.get(k);
    this.evidence.answered(k);
    this.provisional.delete(k);
    if (l !== undefined && hasQueryKnowledge(l)) this.set(org, endpoint, withoutQueryKnowledge(l));
  }

  /** What was learned for `org`'s `endpoint`. */
  get(org: string, endpoint: string): Learned | undefined {
    return this.learned.get(key(org, endpoint));
  }

  /** How often what is known of `org`'s `endpoint` changed (in this process). */
  version(org: string, endpoint: string): number {
    return this.versions.get(key(org, endpoint)) ?? 0;
  }

  /** Records what was learned; unchanged knowledge is not written again. An answer ends a refusal. */
  set(org: string, endpoint: string, l: Learned): void {
    const k = key(org, endpoint);
    if (l.refused !== true) this.refusals.delete(k);
    if (JSON.stringify(this.learned.get(k)) === JSON.stringify(l)) return;
    this.learned.set(k, l);
    this.versions.set(k, (this.versions.get(k) ?? 0) + 1);
    this.onChange?.(this.toJSON());
  }

  /** The refusal of every safer query of `org`'s `endpoint`, while reads wait for it. */
  refusal(org: string, endpoint: string): Refusal | undefined {
    return this.refusals.get(key(org, endpoint));
  }

  /**
   * Notes that every safer query was refused at `now` (again): reads wait
   * {@link REFUSED_RETRY_MS}, doubled per refusal in a row, at most {@link REFUSED_RETRY_MAX_MS}
   * — once the refusals teach (query/evidence.ts); before that, nothing waits.
   */
  refuse(org: string, endpoint: string, error: UpstreamError, now: number): Refusal | undefined {
    const k = key(org, endpoint);
    // A burst of refusals that has not repeated over minutes does not stop reads.
    if (!this.evidence.teaches(k)) return undefined;
    const times = (this.refusals.get(k)?.times ?? 0) + 1;
    const wait = Math.min(REFUSED_RETRY_MAX_MS, REFUSED_RETRY_MS * 2 ** Math.min(times - 1, 20));
    const r = { retryAt: now + wait, times, error };
    this.refusals.set(k, r);
    return r;
  }

  /**
   * Whether a read of a refused list may ask now: it may when the wait is over, and then
   * the next one waits again (so that reads at the same time send one request, not many).
   */
  claimRetry(org: string, endpoint: string, now: number): boolean {
    const r = this.refusals.get(key(org, endpoint));
    if (!r) return true;
    if (now < r.retryAt) return false;
    r.retryAt = now + Math.min(REFUSED_RETRY_MAX_MS, REFUSED_RETRY_MS * 2 ** Math.min(r.times - 1, 20));
    return true;
  }

  /** Records filters the server answered without applying (kept with what else was learned). */
  noteIgnored(org: string, endpoint: string, filters: readonly string[]): void {
    const l = this.get(org, endpoint) ?? {};
    const all = [...new Set([...(l.ignored ?? []), ...filters])].sort();
    if (all.length !== (l.ignored ?? []).length) this.set(org, endpoint, { ...l, ignored: all });
  }

  /** Forgets what stopped working. */
  forget(org: string, endpoint: string): void {
    const k = key(org, endpoint);
    this.refusals.delete(k);
    this.evidence.forget(k);
    this.provisional.delete(k);
    if (this.learned.delete(k)) {
      this.versions.set(k, (this.versions.get(k) ?? 0) + 1);
      this.onChange?.(this.toJSON());
    }
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

/** What `l` says of the query itself (not of paging, nor when it was learned), to compare. */
function queryOf(l: Learned): string {
  return JSON.stringify([l.perPage, l.drop, l.times, l.filterStyle]);
}

function sanitize(v: unknown): Learned | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const out: Learned = {};
  if (o['refused'] === true) out.refused = true;
  if (o['cursorStuck'] === true) out.cursorStuck = true;
  if (o['windowMisread'] === true) out.windowMisread = true;
  if (o['countsFrom1'] === true) out.countsFrom1 = true;
  const sp = silentPagesOf(o['silentPages']);
  if (sp !== undefined) out.silentPages = sp;
  // Stored since forgetting came in; older state has neither (then as old as the process that loads it).
  for (const f of ['learnedAt', 'confirmedAt'] as const) {
    const n = o[f];
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) out[f] = n;
  }
  for (const f of ['wholeUpTo', 'pagedAs'] as const) {
    const n = o[f];
    if (typeof n === 'number' && Number.isInteger(n) && n >= (f === 'pagedAs' ? 0 : 1)) out[f] = n;
  }
  if (typeof o['cursorParam'] === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(o['cursorParam']))
    out.cursorParam = o['cursorParam'];
  if (typeof o['moreBy'] === 'string' && /^[A-Za-z0-9_.[\]-]{1,64}$/.test(o['moreBy']))
    out.moreBy = o['moreBy'];
  const style = sanitizeStyle(o['filterStyle']);
  if (style !== undefined) out.filterStyle = style;
  if (typeof o['perPage'] === 'number' && Number.isInteger(o['perPage']) && o['perPage'] >= 1)
    out.perPage = o['perPage'];
  for (const f of ['drop', 'ignored'] as const) {
    const list = o[f];
    if (Array.isArray(list) && list.every((x) => typeof x === 'string')) out[f] = list as string[];
  }
  const times: Record<string, string> = {};
  const t = o['times'];
  if (t !== null && typeof t === 'object' && !Array.isArray(t))
    for (const [p, f] of Object.entries(t)) if (isTimeFormat(f)) times[p] = f;
  // Written by earlier versions: lists of parameters sent with a numeric offset or in epoch seconds.
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  for (const p of strings(o['isoOffset'])) times[p] ??= 'iso_offset';
  for (const p of strings(o['epoch']))
    if (times[p] === undefined || times[p] === 'iso_offset') times[p] = 'epoch_s';
  for (const p of out.drop ?? []) delete times[p];
  if (Object.keys(times).length > 0) out.times = times;
  return out;
}

/**
 * How far a server's reading of the window may lie outside tally's, for the formats
 * learned: coarser formats are rounded outwards by up to a step, and a server may read
 * an end as the whole of its step (`to=2026-12-03` up to that day's end), so sessions
 * within two steps of the window are not a sign that the server ignores it.
 */
export function windowSlackMs(l: Learned | undefined): number {
  let step = 0;
  for (const f of Object.values(l?.times ?? {})) step = Math.max(step, granularityMs(f));
  return 2 * step;
}

/** `url` with what was learned applied. */
export function applyLearned(url: URL, l: Learned | undefined, plainCtx: AdaptContext): URL {
  if (!l) return url;
  const ctx = withStyleTimes(plainCtx, l.filterStyle);
  const out = new URL(url);
  if (l.perPage !== undefined && !ctx.fixedPerPage && out.searchParams.has(ctx.perPageParam)) {
    out.searchParams.set(ctx.perPageParam, String(l.perPage));
  }
  for (const p of l.drop ?? []) if (!fixed(ctx, p)) out.searchParams.delete(p);
  if (l.filterStyle !== undefined && restyleable(ctx)) {
    restyle(out, undefined, l.filterStyle, ctx.filterNames!);
    for (const p of l.drop ?? []) out.searchParams.delete(p);
  }
  for (const [p, format] of Object.entries(l.times ?? {})) {
    if (fixed(ctx, p)) continue;
    const v = out.searchParams.get(p);
    const ms = v === null ? Number.NaN : parseSentTime(v);
    if (Number.isFinite(ms)) out.searchParams.set(p, formatTime(ms, format, ctx.endParams?.has(p) === true));
  }
  return out;
}

/**
 * The next query to try after `err` (a 400 or 422) answered `url`, with what it changes,
 * or undefined when nothing safer is left to try. Everything the error complains of is
 * changed at once: parameters it does not know are left out, a time it cannot parse gets
 * the next format, a page size it names shrinks.
 */
export function saferQuery(
  url: URL,
  err: UpstreamError,
  learned: Learned,
  plainCtx: AdaptContext,
  /** Formats already tried per time parameter in this read; updated with the ones chosen. */
  tried: Map<string, Set<string>> = new Map(),
): { url: URL; learned: Learned } | undefined {
  // The times of the style the filters are written in adapt as tally's own do.
  const ctx = withStyleTimes(plainCtx, learned.filterStyle);
  // Only the server's own words: tally's message names the request, and with it every parameter.
  const words = (err.upstreamWords ?? '').toLowerCase();
  const params = [...url.searchParams.keys()];
  const said = readComplaints(words, params, ctx);
  const perPage = Number(url.searchParams.get(ctx.perPageParam));
  const canShrink = !ctx.fixedPerPage && Number.isFinite(perPage) && url.searchParams.has(ctx.perPageParam);
  const droppable = (p: string) =>
    !ctx.pagingParams.has(p) && !fixed(ctx, p) && !(ctx.fixedPerPage && p === ctx.perPageParam);
  const out = new URL(url);
  let next: Learned = learned;
  const drop = (ps: readonly string[]) => {
    const gone = ps.filter(droppable);
    for (const p of gone) out.searchParams.delete(p);
    if (gone.length === 0) return;
    next = { ...next, drop: [...new Set([...(next.drop ?? []), ...gone])] };
    // A parameter left out has no size and no format: what was learned of it goes.
    if (gone.includes(ctx.perPageParam) && next.perPage !== undefined) {
      const { perPage: _size, ...rest } = next;
      next = rest;
    }
    if (gone.some((p) => next.times?.[p] !== undefined)) {
      const times = Object.fromEntries(Object.entries(next.times ?? {}).filter(([p]) => !gone.includes(p)));
      const { times: _old, ...rest } = next;
      next = Object.keys(times).length > 0 ? { ...rest, times } : rest;
    }
  };

  // 0. Filters the server says it wants written another way: in that style (filter-styles.ts).
  const style = nextStyle(url, err, said, next, ctx, tried);
  if (style !== undefined) {
    const current = styleParams(next.filterStyle, ctx.filterNames!);
    restyle(out, next.filterStyle, style, ctx.filterNames!);
    next = { ...next, filterStyle: style };
    said.unknown = said.unknown.filter((p) => !current.includes(p));
    said.time = said.time.filter((p) => !current.includes(p));
  }
  // 1. Parameters the server does not know or take at all: left out, whatever their value.
  drop(said.unknown);
  // 2. A time it cannot parse: the next format for it (the one the error states, the one
  //    the other time parameter takes, ISO 8601 with an offset, epoch seconds), and when
  //    none is left, without it: tally keeps only what lies in the window itself.
  const exhausted: string[] = [];
  for (const p of said.time) {
    if (fixed(ctx, p)) continue;
    const format = nextTimeFormat(p, said.stated.get(p), next, params, tried);
    if (format === undefined) {
      exhausted.push(p);
      continue;
    }
    const ms = parseSentTime(out.searchParams.get(p) ?? '');
    if (!Number.isFinite(ms)) {
      exhausted.push(p);
      continue;
    }
    out.searchParams.set(p, formatTime(ms, format, ctx.endParams?.has(p) === true));
    next = { ...next, times: { ...next.times, [p]: format } };
  }
  drop(exhausted);
  // 3. The page size it names: the maximum the error states, else half, down to the floor.
  if (said.pageSize && canShrink) shrink();
  if (next !== learned) return { url: out, learned: next };

  // Nothing it names could be changed. With no parameter named at all: a smaller page
  // size, down to the floor, then every filter tally chose. Else the parameters it names.
  if (said.named.length === 0) {
    if (canShrink) shrink();
    else drop(params.filter((p) => p !== ctx.perPageParam));
  } else {
    drop(said.named);
  }
  return next === learned ? undefined : { url: out, learned: next };

  function shrink(): void {
    const max = statedMaximum(said.pageSizeWords, perPage);
    const size = max ?? Math.floor(perPage / 2);
    if (size >= PER_PAGE_FLOOR || (max !== undefined && max >= 1)) {
      out.searchParams.set(ctx.perPageParam, String(size));
      next = { ...next, perPage: size };
    } else {
      // Below the floor: leave the page size to the server.
      drop([ctx.perPageParam]);
    }
  }
}

/**
 * The next format to send time parameter `p` in, or undefined when every one was tried:
 * the format the error states (unless just tried), else the first not yet tried of the
 * format another time parameter takes and {@link TIME_LADDER}, after the one now sent.
 */
function nextTimeFormat(
  p: string,
  stated: string | undefined,
  learned: Learned,
  params: readonly string[],
  tried: Map<string, Set<string>>,
): string | undefined {
  const current = learned.times?.[p];
  const seen = tried.get(p) ?? new Set<string>();
  tried.set(p, seen);
  if (current !== undefined) seen.add(current);
  const sibling = params.map((q) => (q === p ? undefined : learned.times?.[q])).find((f) => f !== undefined);
  const order = [...new Set([sibling, ...TIME_LADDER].filter((f): f is string => f !== undefined))];
  // What was sent before this read (a restart, a read that ran out of tries) comes after
  // the formats before it in the order.
  const at = current === undefined ? -1 : order.indexOf(current);
  const choice =
    stated !== undefined && !seen.has(stated) ? stated : order.find((f, i) => i > at && !seen.has(f));
  if (choice !== undefined) seen.add(choice);
  return choice;
}
