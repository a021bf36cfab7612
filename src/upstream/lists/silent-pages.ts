/**
 * Lists that show no paging (docs/upstream-shapes.md, "Paging"): a
 * first page with no next pointer, totals or "more" flag may still be all a server gives
 * at once. What a read asks after such a page, and what it learns, is decided here, as
 * pure steps; the loop that sends the requests is lists/read-list.ts, and what is learned is
 * kept per org and endpoint with the queries learned (adapt.ts, `Learned`).
 *
 * A first page is whole by what is known when it holds fewer records than a page the
 * server is known to cut at, or than the most a list was found whole with (a page cut
 * short holds as many records as the server cuts at, at least as many as any whole list
 * it gave). A first page holding more is asked after; one holding as many, now and then
 * (it may be a cut page of a list that grew, but a stable list is that long every time).
 */
import { createHash } from 'node:crypto';
import type { Learned } from '../query/adapt.js';
import { KEYSET_PARAMS } from './keyset.js';

/**
 * No server is taken to cut its pages at fewer records than this: a first page of one
 * record is whole. (Every channel holding one session, read at every sweep, would
 * otherwise cost two requests a read.)
 */
export const LEAST_CUT = 2;

/**
 * How a server pages a list it shows no paging for: pages of `size` records, the next one
 * asked for by page number (counted from `base`, 1 unless the server counts from 0), by
 * offset, or by the last record's id under `param` (`keyset`, one of keyset.ts
 * `KEYSET_PARAMS`). A page shorter than `size` is the last.
 */
export type SilentPages =
  | { by: 'page' | 'offset'; size: number; base?: 0 }
  | { by: 'keyset'; size: number; param: string };

/** How `sp` asks for the page after, in words. */
export function silentWay(sp: SilentPages): string {
  if (sp.by === 'keyset') return `${sp.param}=<the last record's id>`;
  return sp.by === 'page' ? 'page number' : 'offset';
}

/** `v` as stored {@link SilentPages}, or undefined when malformed. */
export function silentPagesOf(v: unknown): SilentPages | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const sp = v as Record<string, unknown>;
  const size = sp['size'];
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) return undefined;
  if (sp['by'] === 'keyset')
    return KEYSET_PARAMS.includes(sp['param'] as string)
      ? { by: 'keyset', size, param: sp['param'] as string }
      : undefined;
  if (sp['by'] !== 'page' && sp['by'] !== 'offset') return undefined;
  return { by: sp['by'], size, ...(sp['base'] === 0 ? { base: 0 as const } : {}) };
}

/** How a read goes on after a first page without paging signs. */
export interface Blind {
  /**
   * How the next page is asked for: by page number, by offset, or by the last record's id
   * under `param` (`keyset`).
   */
  by: 'page' | 'offset' | 'keyset';
  /** By `keyset`: the parameter that takes the last record's id. */
  param?: string | undefined;
  /** Parameters the first request already sends (a window named `after`): never asked with the last id. */
  skip?: readonly string[] | undefined;
  /** While finding out, the page number or the offset answered the first page again: the server ignores what it does not take. */
  lenient?: boolean | undefined;
  /** Records on a full page: a page that holds fewer is the last. */
  size: number;
  /** Finding out whether there is a page after the first: nothing is learned yet in this read. */
  probing: boolean;
  /** The page number asked for next, by page. */
  nextPage: number;
  /** The server is known to count pages from 1: page 1 need not be asked for. */
  from1?: boolean | undefined;
  /** Reading on by what was learned, the next page is the one after the first. */
  afterFirst?: boolean | undefined;
  /**
   * Page 1 is asked for once, since a server counting pages from 0 has its second page
   * there: after page 2 brought records (`after: 'records'`, `lastWasShort`: page 2 was
   * the last by its size), or after it was empty or missing (`after: 'end'`).
   */
  baseCheck?: { after: 'records' | 'end'; lastWasShort: boolean } | undefined;
}

/** What was learned of a list without paging signs, when it was learned under the page size asked now. */
export type SilentKnowledge = Pick<Learned, 'silentPages' | 'wholeUpTo' | 'countsFrom1'>;

/** The part of `l` that holds for reads asking `asked` records a page (0: no page size sent). */
export function silentKnowledge(l: Learned | undefined, asked: number): SilentKnowledge {
  if (l === undefined || (l.pagedAs ?? 0) !== asked) return {};
  return {
    ...(l.silentPages === undefined ? {} : { silentPages: l.silentPages }),
    ...(l.wholeUpTo === undefined ? {} : { wholeUpTo: l.wholeUpTo }),
    ...(l.countsFrom1 === true ? { countsFrom1: true } : {}),
  };
}

/**
 * What follows a first page of `count` records without paging signs: `whole` when the
 * page is the whole list by what is known; else a {@link Blind} that reads on (the server
 * is known to page without showing it) or finds out (`probing`); `first` when nothing is
 * known of the list yet, `atMost` when the page holds exactly as many records as the
 * most found whole.
 */
export function afterFirstPage(
  k: SilentKnowledge,
  count: number,
): { whole: true } | { whole: false; blind: Blind; first: boolean; atMost: boolean } {
  if (count < LEAST_CUT) return { whole: true };
  const sp = k.silentPages;
  if (sp !== undefined) {
    if (count < sp.size) return { whole: true };
    const blind: Blind =
      sp.by === 'keyset'
        ? { by: 'keyset', param: sp.param, size: count, probing: false, nextPage: 2, afterFirst: true }
        : { by: sp.by, size: count, probing: false, nextPage: sp.base === 0 ? 1 : 2, afterFirst: true };
    return { whole: false, blind, first: false, atMost: false };
  }
  const most = k.wholeUpTo ?? 0;
  if (count < most) return { whole: true };
  const blind: Blind = {
    by: 'page',
    size: count,
    probing: true,
    nextPage: 2,
    from1: k.countsFrom1 === true,
  };
  return {
    whole: false,
    blind,
    first: k.wholeUpTo === undefined,
    atMost: count === most,
  };
}

/** A finding about a list's paging (see {@link withFinding}). */
export type Finding = ({ silentPages: SilentPages } | { wholeUpTo: number } | { forget: true }) & {
  countsFrom1?: boolean;
};

/**
 * What `learned` becomes with a finding under page size `asked`. A server found to cut
 * pages stays so (a read finding a list whole at the same time does not undo it) until a
 * read finds otherwise (`forget`: everything learned of the list's paging is dropped, to
 * be found out afresh); whole lists raise `wholeUpTo`; what was learned under another
 * page size is replaced.
 */
export function withFinding(learned: Learned, asked: number, finding: Finding): Learned {
  const k = silentKnowledge(learned, asked);
  const { silentPages: _s, wholeUpTo: _w, countsFrom1: _c, pagedAs: _p, ...base } = learned;
  const rest = finding.countsFrom1 || k.countsFrom1 ? { ...base, countsFrom1: true } : base;
  if ('forget' in finding) return base;
  if ('silentPages' in finding) return { ...rest, pagedAs: asked, silentPages: finding.silentPages };
  if (k.silentPages !== undefined) return learned;
  return {
    ...rest,
    pagedAs: asked,
    wholeUpTo: Math.max(finding.wholeUpTo, k.wholeUpTo ?? 0),
  };
}

/** What the server answered to a page asked for (see {@link step}). */
export type Answer =
  | { kind: 'error'; status: number | undefined; words?: string | undefined }
  | {
      kind: 'page';
      /** Records on the page. */
      count: number;
      /** Of them, records with an id not read before in this list. */
      fresh: number;
      /** Every record has an id (pages are told apart by them). */
      allIds: boolean;
      /** The page shows paging of its own: a next pointer (`next`), or only signs (totals, prev/first/last links). */
      signs: 'none' | 'next' | 'end';
      /** The ids are those of the page read before, all of them. */
      samePageAgain: boolean;
    };

/** What the loop does next (see {@link step}). */
export interface Step {
  /** Take the page's records into the list. */
  take?: boolean;
  /** Learn this (and end the read's finding out). */
  learn?: Finding;
  /** How the read ends: `whole`, `cut` (incomplete), or `asBefore` (the first page stands, and no read asks again for a while). */
  end?: 'whole' | 'cut' | 'asBefore';
  /** Why it is `cut`. */
  why?: string;
  /** Otherwise, the next request: the state to go on with. */
  next?: Blind;
  /** The page's doubt (a full page without paging) is answered. */
  clearNote?: boolean;
  /**
   * The page taken lies before the page taken before it (page 1 of a server counting from
   * 0, read after its third page): that one stays the last of the list read so far, the
   * page a server answers again for a page past its end.
   */
  earlier?: boolean;
  /**
   * Every parameter that takes the last record's id was refused or answered the first page
   * again: the server ignores them all, whatever the list's length (one it takes answers
   * an empty page after a whole list), and later reads of the endpoint skip them for a
   * while ({@link ProbeLedger.ignoresKeyset}).
   */
  keysetIgnored?: boolean;
}

const REPEATS = 'a page asked for past one that showed no paging repeats records read earlier';

/**
 * One step of reading past a first page without paging signs: what to make of `a`, the
 * answer to the request `b` described.
 */
export function step(b: Blind, a: Answer): Step {
  if (b.baseCheck !== undefined) return baseStep(b, b.baseCheck, a);
  if (b.probing && b.by === 'keyset') {
    const ignored = probeKeyset(b, a);
    if (ignored !== undefined) return ignored;
  }
  if (a.kind === 'error') {
    const refused = a.status === 400 || a.status === 422;
    if (b.probing) {
      if (refused && b.by === 'page') return { next: { ...b, by: 'offset' } };
      if (refused) return b.lenient ? nextWay(b) : nextWay(strictly(b, a.words));
      if (a.status === 404) return b.by === 'page' ? afterPage2(b, 'end', true) : wholeAfter(b);
      return { end: 'asBefore' };
    }
    if (a.status === 404) return { end: 'whole', clearNote: true };
    return { end: 'cut', why: `the page after a full one was refused (${a.status ?? 'no answer'})` };
  }
  if (a.count === 0 || (a.signs === 'end' && a.fresh === 0)) {
    if (!b.probing) return { end: 'whole', clearNote: true };
    return b.by === 'page' ? afterPage2(b, 'end', true) : wholeAfter(b);
  }
  if (!a.allIds)
    return { end: 'cut', why: 'a page asked for past one that showed no paging has records without ids' };
  // While finding out, the first page again says the parameter is ignored, whatever
  // paging that page shows (a server may page only when asked to).
  if (a.signs !== 'none' && !(b.probing && a.fresh === 0))
    return {
      end: 'cut',
      why: 'a page asked for past one that showed no paging shows paging; set upstream.shape.paging',
    };
  if (a.fresh === 0) {
    if (b.probing) {
      // The first page again: the page number is ignored (ask by offset); by offset, the
      // last record's id is asked after (nextWay).
      if (b.by === 'page') return { next: { ...b, by: 'offset', lenient: true } };
      return nextWay({ ...b, lenient: true });
    }
    // The last page answered again for a page past it. Right after the first page, the
    // server may no longer page as it did: what was learned is found out afresh.
    if (a.samePageAgain)
      return { end: 'whole', clearNote: true, ...(b.afterFirst ? { learn: { forget: true } } : {}) };
    return { end: 'cut', why: REPEATS };
  }
  if (a.fresh * 2 < a.count) return { end: 'cut', why: REPEATS };
  // A page after the first that holds more records than it: the first was not cut at
  // its length (a server that answered short once): nothing to learn, read again later.
  if (b.probing && a.count > b.size)
    return { end: 'cut', why: 'the page after the first holds more records than it: the first was short' };
  const last = a.count < b.size;
  if (b.probing && b.by === 'page') return { take: true, clearNote: true, ...afterPage2(b, 'records', last) };
  const learn: Step = b.probing ? { learn: { silentPages: foundWay(b) }, clearNote: true } : {};
  if (last) return { ...learn, take: true, end: 'whole', clearNote: true };
  return {
    ...learn,
    take: true,
    next: { ...b, probing: false, afterFirst: false, nextPage: b.nextPage + 1 },
  };
}

/** The way `b` asks by, as learned (by page number: counted from 1). */
function foundWay(b: Blind): SilentPages {
  if (b.by === 'keyset') return { by: 'keyset', size: b.size, param: b.param! };
  return { by: b.by, size: b.size };
}

/**
 * While finding out by the last record's id: a refusal (400, 422), a 404 (a server may
 * answer an id it does not take so) or the first page again (the parameter is ignored)
 * moves on to the next parameter; another failure tells nothing. Anything else is read
 * as any page asked for is ({@link step}): undefined.
 */
function probeKeyset(b: Blind, a: Answer): Step | undefined {
  if (a.kind === 'error') {
    const told = a.status === 400 || a.status === 404 || a.status === 422;
    return told ? nextWay(b) : { end: 'asBefore' };
  }
  return a.count > 0 && a.fresh === 0 ? nextWay(b) : undefined;
}

/**
 * `b` for a server that refused both the page number and the offset: it refuses what it
 * does not take, so only the parameters taking the last id that its words name are asked
 * (none named: none, and the list is whole as answered, as before they were tried).
 */
function strictly(b: Blind, words: string | undefined): Blind {
  const named = new Set((words ?? '').match(/[A-Za-z_]+/g) ?? []);
  return { ...b, skip: [...new Set([...(b.skip ?? []), ...KEYSET_PARAMS.filter((p) => !named.has(p))])] };
}

/**
 * Page number and offset (then each parameter before) repeated the first page or were
 * refused: the next parameter that takes the last record's id (keyset.ts,
 * `KEYSET_PARAMS`), but one the first request already sends. When none is left, the server
 * gives all it has at once: the list is whole as answered.
 */
function nextWay(b: Blind): Step {
  const from = b.by === 'keyset' ? KEYSET_PARAMS.indexOf(b.param!) + 1 : 0;
  const param = KEYSET_PARAMS.slice(from).find((p) => !b.skip?.includes(p));
  if (param === undefined)
    return {
      learn: { wholeUpTo: b.size },
      end: 'whole',
      ...(b.by === 'keyset' ? { keysetIgnored: true } : {}),
    };
  return { next: { ...b, by: 'keyset', param } };
}

function baseCheck(b: Blind, after: 'records' | 'end', lastWasShort: boolean): Blind {
  return { ...b, baseCheck: { after, lastWasShort } };
}

/** After page 2 brought records (`records`) or was past the end: page 1 is asked for unless pages are known to count from 1. */
function afterPage2(b: Blind, after: 'records' | 'end', lastWasShort: boolean): Step {
  if (!b.from1) return { next: baseCheck(b, after, lastWasShort) };
  if (after === 'end') return wholeAfter(b);
  const learn: Finding = { silentPages: { by: 'page', size: b.size } };
  if (lastWasShort) return { learn, end: 'whole', clearNote: true };
  return { learn, clearNote: true, next: { ...b, probing: false, nextPage: 3 } };
}

function wholeAfter(b: Blind): Step {
  return { learn: { wholeUpTo: b.size }, end: 'whole', clearNote: true };
}

/**
 * Page 1, asked for once: records mostly not read before mean the server counts pages
 * from 0 (they are its second page, and page 2 was its third); the records page 2
 * brought, again, that it counts from 0 and answered its last page, page 1, for page 2
 * past its end (the list is whole); the first page again, or a refusal, that it counts
 * from 1.
 */
function baseStep(b: Blind, check: NonNullable<Blind['baseCheck']>, a: Answer): Step {
  const rest: Blind = { ...b, baseCheck: undefined, probing: false, nextPage: 3 };
  const found = (base0: boolean): Finding => ({
    silentPages: { by: 'page', size: b.size, ...(base0 ? { base: 0 as const } : {}) },
  });
  const fromZero =
    a.kind === 'page' &&
    a.count > 0 &&
    a.allIds &&
    a.signs === 'none' &&
    a.fresh * 2 >= a.count &&
    a.fresh > 0;
  if (a.kind === 'error' && !(a.status === 400 || a.status === 404 || a.status === 422)) {
    // Nothing told: after records, the list is longer than read; after an end, the first
    // page stands.
    return check.after === 'records'
      ? {
          end: 'cut',
          why: `page 1 asked for to tell how pages are counted failed (${a.status ?? 'no answer'})`,
        }
      : { end: 'asBefore' };
  }
  // The first page again says pages count from 1; an empty page 1 says nothing of it (a
  // server counting from 0 whose list fits one page has none there either).
  const answered = a.kind === 'page' && a.count > 0;
  if (check.after === 'end') {
    if (!fromZero)
      return {
        learn: { wholeUpTo: b.size, countsFrom1: answered },
        end: 'whole',
        clearNote: true,
      };
    // Page 2 (its third) was past the end: page 1 was the last.
    return { take: true, learn: found(true), end: 'whole', clearNote: true };
  }
  if (fromZero)
    return {
      take: true,
      earlier: true,
      learn: found(true),
      ...(check.lastWasShort ? { end: 'whole' } : { next: rest }),
    };
  // The records page 2 brought, again: they are the server's second page and its last,
  // which it also answered for page 2, past its end.
  if (a.kind === 'page' && a.count > 0 && a.allIds && a.signs === 'none' && a.fresh === 0 && a.samePageAgain)
    return { learn: found(true), end: 'whole', clearNote: true };
  return {
    learn: { ...found(false), countsFrom1: answered },
    ...(check.lastWasShort ? { end: 'whole' } : { next: rest }),
  };
}

/** A list as the {@link ProbeLedger} tells lists apart: its org, endpoint and path. */
export interface ListAt {
  org: string;
  endpoint: string;
  path: string;
}

/** Lists whose last first page at the most found whole is remembered (see {@link ProbeLedger.sameAtMost}). */
const MAX_AT_MOST_PAGES = 20_000;
/** How often a list whose first page holds the same records at the most found whole is asked after. */
export const PROBE_AGAIN_MS = 10 * 60_000;
/** After asking for a page a list does not show failed (a 5xx, a timeout): no read asks again for this long. */
export const PROBE_BACKOFF_MS = 10 * 60_000;
/** A read finding that out that never ended (aborted) stops holding others back after this long. */
export const PROBE_OPEN_MS = 60_000;
/** After an endpoint ignored every parameter taking the last record's id, reads skip them this long. */
export const KEYSET_AGAIN_MS = 60 * 60_000;

/**
 * What reads asking after lists that show no paging note, in memory only (a restart asks
 * afresh): which org's endpoint a read is finding out for, when that last failed, and per
 * list the records of its last first page at the most found whole. Held by QueryMemory.
 */
export class ProbeLedger {
  /** Reads finding out, by org and endpoint, by start. */
  private readonly probing = new Map<string, number>();
  /** Their ends, for reads held back meanwhile ({@link finding}). */
  private readonly ends = new Map<string, { ended: Promise<void>; end: () => void }>();
  /** When an endpoint was found to ignore every parameter taking the last record's id. */
  private readonly noKeyset = new Map<string, number>();
  /** When finding out last failed, by org and endpoint. */
  private readonly failed = new Map<string, number>();
  /**
   * Per list, the ids of its last first page asked after or at the most found whole (a
   * digest), and when the page after it was last asked for.
   */
  private readonly atMostPages = new Map<string, { digest: string; checkedAt: number | undefined }>();

  /**
   * Whether the list's first page, holding as many records as the most found whole, holds
   * the records (`digest` of their ids) its last such page held; notes it for next time.
   * A page whose records changed at that length is asked after at once: a list that grew
   * past the cut shows other records on its first page (records pushed off it would
   * otherwise read as removed); the same records again are asked after only now and then
   * ({@link mayProbe}).
   */
  sameAtMost(at: ListAt, digest: string): boolean {
    const k = listKey(at);
    const was = this.atMostPages.get(k);
    this.atMostPages.delete(k);
    this.atMostPages.set(k, { digest, checkedAt: was?.checkedAt });
    if (this.atMostPages.size > MAX_AT_MOST_PAGES)
      this.atMostPages.delete(this.atMostPages.keys().next().value!);
    return was?.digest === digest;
  }

  /**
   * Whether a read of the list may ask for the page after a first page without paging
   * signs now, and if so notes that it does: not for {@link PROBE_BACKOFF_MS} after such a
   * request of the org's endpoint failed without telling anything; while nothing is known
   * of the endpoint's lists yet (`first`), one read at a time; for a first page holding
   * the same records as the list's last one at the most found whole (`atMost`), not
   * within {@link PROBE_AGAIN_MS} of the list's last such request. Ended by
   * {@link endProbe}; one never ended stops counting after {@link PROBE_OPEN_MS}.
   */
  mayProbe(at: ListAt, now: number, o: { first: boolean; atMost: boolean }): boolean {
    if (!this.due(at, now, o)) return false;
    const k = endpointKey(at);
    this.probing.set(k, now);
    if (!this.ends.has(k)) {
      let end = () => {};
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      this.ends.set(k, { ended, end });
    }
    const page = this.atMostPages.get(listKey(at));
    if (page !== undefined) page.checkedAt = now;
    return true;
  }

  /**
   * Whether the list's first page, holding as many records as the most found whole, would
   * be asked after now (see {@link mayProbe}): then a copy held for a 304 is not asked
   * for, so the read can see the page.
   */
  atMostDue(at: ListAt, now: number): boolean {
    return this.due(at, now, { first: false, atMost: true });
  }

  /** A read has found out (see {@link mayProbe}); `failed`: it could not tell. */
  endProbe(at: ListAt, now: number, failed: boolean): void {
    const k = endpointKey(at);
    this.probing.delete(k);
    if (failed) this.failed.set(k, now);
    else this.failed.delete(k);
    this.ends.get(k)?.end();
    this.ends.delete(k);
  }

  /**
   * While a read finds out for the list's endpoint and nothing is known of it yet: its
   * end, which a read held back waits for, to go on by what it found (a list read then
   * as its first page alone would stay short until the next sweep, quietly).
   */
  finding(at: ListAt, now: number): Promise<void> | undefined {
    const k = endpointKey(at);
    const t = this.probing.get(k);
    if (t === undefined || now < t || now - t >= PROBE_OPEN_MS) return undefined;
    return this.ends.get(k)?.ended;
  }

  /** The endpoint ignored every parameter taking the last record's id (see {@link Step.keysetIgnored}). */
  keysetIgnored(at: ListAt, now: number): void {
    this.noKeyset.set(endpointKey(at), now);
  }

  /** Whether reads skip the parameters taking the last record's id: within {@link KEYSET_AGAIN_MS} of finding them ignored. */
  ignoresKeyset(at: ListAt, now: number): boolean {
    const t = this.noKeyset.get(endpointKey(at));
    return t !== undefined && now >= t && now - t < KEYSET_AGAIN_MS;
  }

  private due(at: ListAt, now: number, o: { first: boolean; atMost: boolean }): boolean {
    const k = endpointKey(at);
    const within = (t: number | undefined, ms: number) => t !== undefined && now >= t && now - t < ms;
    if (within(this.failed.get(k), PROBE_BACKOFF_MS)) return false;
    if (o.first && within(this.probing.get(k), PROBE_OPEN_MS)) return false;
    return !(o.atMost && within(this.atMostPages.get(listKey(at))?.checkedAt, PROBE_AGAIN_MS));
  }
}

const endpointKey = (at: ListAt) => `${at.org} ${at.endpoint}`;
const listKey = (at: ListAt) => `${at.org} ${at.endpoint} ${at.path}`;

/** A short digest of a set of record ids, in no particular order. */
export function digestOf(ids: ReadonlySet<string>): string {
  return createHash('sha1')
    .update([...ids].sort().join('\u0000'))
    .digest('base64');
}

/** What `Learned` holds of a list that shows no paging, not of its query. */
export const PAGING_KEYS = ['silentPages', 'wholeUpTo', 'countsFrom1', 'pagedAs'] as const;

/** The part of `l` about a list that shows no paging ({@link PAGING_KEYS}). */
export function pickPaging(l: Learned): Learned {
  const out: Learned = {};
  for (const k of PAGING_KEYS) if (l[k] !== undefined) Object.assign(out, { [k]: l[k] });
  return out;
}
