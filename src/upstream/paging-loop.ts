/**
 * Reads every page of a list. The shape layer says where the items and the next page
 * are; this loop follows them and decides whether what was read is the whole list.
 * Anything short of the last page — an error after retries, a page limit, a next link
 * to another origin, a loop, totals that say more than was read — makes the list
 * incomplete, with the items read so far; it is never returned as complete.
 */
import {
  type AdaptContext,
  applyLearned,
  type Learned,
  MAX_ADAPTATIONS,
  type QueryMemory,
  sameQuery,
  saferQuery,
  waiting,
} from './adapt.js';
import { UpstreamError } from './errors.js';
import { describePath, type JsonResponse, type Validators, validatorsOf } from './http.js';
import type { RequestContext, Requester } from './requester.js';
import {
  type DriftIssue,
  type Endpoint,
  firstPageParams,
  type ListPage,
  readListPage,
  recordId,
  SchemaDriftError,
  type ShapeOptions,
} from './shape/index.js';
import { fingerprint } from './fingerprint.js';
import { nextUrl, saysHasMore, shortOfLastLink, shortOfTotals, withParams } from './page-end.js';
import { pagingOptions } from './shape/options.js';
import {
  afterFirstPage,
  type Answer,
  type Blind,
  digestOf,
  type ListAt,
  PAGING_KEYS,
  pickPaging,
  silentKnowledge,
  type Step,
  step,
  withFinding,
} from './silent-pages.js';

/** Page size asked for when the shape options do not say. */
const DEFAULT_PER_PAGE = 100;

/** The outcome of reading a list: the raw items, and why they are not all of it when not. */
export interface ListRead {
  items: unknown[];
  /** Pages read successfully. */
  pages: number;
  /** Set when the list is not complete. */
  error?: UpstreamError;
  /** A doubt about the end of the list the shape layer raised (e.g. a full page without paging). */
  note?: string;
  /** The server answered 304 to the validators sent: the copy held is current. */
  notModified?: boolean;
  /** Validators of the first page, when the whole list was that one page. */
  validators?: Validators;
  /** Paging that did not advance or looped back, as drift (field `paging`); never values or URLs. */
  drift: DriftIssue[];
  /** Not asked: every safer query of the list was refused, and its wait is not over. */
  notSent?: boolean;
}

/** What {@link readList} needs besides the requester. */
export interface ListRequest extends RequestContext {
  endpoint: Endpoint;
  url: URL;
  shape: ShapeOptions;
  maxPages: number;
  /** Records in the copy `validators` stand for (see silent-pages.ts): a list that may be cut is asked plainly when due. */
  heldCount?: number | undefined;
  /** Adapts the first page's query to what the server takes (adapt.ts); absent: never. */
  adapt?: { memory: QueryMemory; ctx: AdaptContext; now: () => number } | undefined;
  /** Told of each safer query tried and of what was learned. */
  onAdapt?: ((what: string, change: Learned) => void) | undefined;
}

/**
 * How the URL of a page was made from the page before: the parameter tally set, and the
 * other ways to ask for the same page should the server ignore it (offsets instead of a
 * page number; another name for a cursor).
 */
interface Via {
  param: string;
  kind: 'page' | 'cursor' | 'offset';
  others: { param: string; value: string; kind: 'cursor' | 'offset' }[];
  /** The parameters asked with before this one, for the message when none works. */
  tried: string[];
}

/**
 * Reads every page of the list at `req.url`. Resolves with what was read; rejects only
 * when the request's signal is aborted.
 *
 * Pages are told apart by the ids of their records (the ids the normalizer will read). A
 * page after the first that brings no new id, or mostly ids already read, means the
 * paging does not advance: the server ignores the parameter tally sent, answers a cursor
 * page again, or links back to a page already read. tally then asks for the same page
 * another way when it has one (by offset instead of page number; the cursor under the
 * name its key suggests, `next_page_token` → `page_token`, `pageToken`), and otherwise
 * stops: the list is incomplete, keeping each record once, with a drift note.
 */
export async function readList(requester: Requester, req: ListRequest): Promise<ListRead> {
  const adapt = req.adapt;
  // What was learned, or now and then tally's own query again (query-evidence.ts).
  const begun = adapt?.memory.begin(req.org, req.endpoint, adapt.now());
  const remembered = begun?.learned;
  let retrial = begun?.retrial === true;
  const first = withParams(req.url, firstPageParams(req.shape));
  let url = adapt ? applyLearned(first, remembered, adapt.ctx) : first;
  let learned: Learned = remembered ?? {};
  let adaptations = 0;
  const perPageParam = req.shape.perPageParam || 'per_page';
  const pageParam = req.shape.pageParam || 'page';
  const cursorParam = req.shape.cursorParam || 'cursor';
  // A cursor parameter the config names is never renamed.
  const renameCursor = cursorParam === 'cursor';
  /** The name the cursor goes back in, when the server was found to ignore `cursor`. */
  let cursorName = renameCursor ? remembered?.cursorParam : undefined;
  /** Time formats tried per parameter in this read (adapt.ts). */
  const tried = new Map<string, Set<string>>();
  /** The version of the memory this read has taken into account (adapt.ts). */
  let known = adapt?.memory.version(req.org, req.endpoint) ?? 0;
  /**
   * `l`, a query learned on the adaptation ladder, with what the memory holds now of the
   * list's paging (silent-pages.ts): another read may have learned it meanwhile.
   */
  const withPaging = (l: Learned): Learned => {
    const now = adapt?.memory.get(req.org, req.endpoint) ?? {};
    const out: Learned = { ...l };
    for (const k of PAGING_KEYS) delete out[k];
    return { ...out, ...pickPaging(now) };
  };
  const remember = (l: Learned) => {
    adapt?.memory.set(req.org, req.endpoint, l);
    known = adapt?.memory.version(req.org, req.endpoint) ?? 0;
  };
  /** What a refusal taught: kept when refusals repeated over minutes, else for this read only. */
  const teach = (l: Learned) => {
    if (adapt?.memory.teach(req.org, req.endpoint, l, adapt.now()))
      known = adapt.memory.version(req.org, req.endpoint);
  };
  // Every safer query was refused: the list is asked again only when its wait is over.
  if (adapt && learned.refused === true && !adapt.memory.claimRetry(req.org, req.endpoint, adapt.now())) {
    const r = adapt.memory.refusal(req.org, req.endpoint)!;
    return { items: [], pages: 0, drift: [], notSent: true, error: waiting(`GET ${describePath(url)}`, r) };
  }
  const perPage = Number(url.searchParams.get(perPageParam)) || (req.shape.perPage ?? DEFAULT_PER_PAGE);
  // A copy held for a 304 hides whether a list as long as the most found whole grew past
  // its first page: when such a list is due to be asked after (silent-pages.ts), it is
  // asked for plainly.
  /** This list, as what is noted of lists that show no paging tells them apart. */
  const list: ListAt = { org: req.org, endpoint: req.endpoint, path: url.pathname };
  let conditional = req.validators !== undefined;
  if (conditional && adapt && req.heldCount !== undefined) {
    const k = silentKnowledge(remembered, Number(url.searchParams.get(perPageParam)) || 0);
    const most = k.silentPages === undefined ? k.wholeUpTo : undefined;
    if (most !== undefined && req.heldCount >= most && adapt.memory.probes.atMostDue(list, adapt.now()))
      conditional = false;
  }
  const items: unknown[] = [];
  const drift: DriftIssue[] = [];
  /** Exact URLs read, and the same with implicit parameters left out (page 1, offset 0, the page size). */
  const visited = new Set<string>();
  const visitedKeys = new Set<string>();
  /** Ids of the records read so far, and how many records had none. */
  const seenIds = new Set<string>();
  let unidentified = 0;
  const state = { page: 1, perPage, seen: 0 };
  let note: string | undefined;
  let pages = 0;
  /** The first item of the last page, to spot a repeated page whose records have no ids. */
  let lastFirst: string | undefined;
  let byOffset = false;
  let via: Via | undefined;
  /** The URL about to be read is a page already read, up to implicit parameters. */
  let again = false;
  let validators: Validators | undefined;
  /**
   * After a first page that shows no paging at all: how the read goes on, asking for
   * pages the list does not show (silent-pages.ts); the ids of the page before (the last
   * of the list read so far), to tell a server answering its last page again.
   */
  let blind: Blind | undefined;
  let before = new Set<string>();
  /** The page size the answered first request asked for (0: none): what is learned of the list's paging holds for it. */
  let asked = 0;
  /** This read holds the claim to find out (ProbeLedger.mayProbe, silent-pages.ts). */
  let probeOpen = false;
  const blindUrl = (b: Blind): URL => {
    if (b.by === 'page') return withParams(url, { [pageParam]: String(b.baseCheck ? 1 : b.nextPage) });
    const next = new URL(url);
    next.searchParams.delete(pageParam);
    return withParams(next, { offset: String(seenIds.size + unidentified) });
  };
  /** How to go on after a first page of `count` records without paging signs; undefined: it is the whole list. */
  const startBlind = (count: number): Blind | undefined => {
    if (!adapt || pagingOptions(req.shape).paging !== 'auto' || req.maxPages < 2) return undefined;
    asked = Number(url.searchParams.get(perPageParam)) || 0;
    const next = afterFirstPage(silentKnowledge(adapt.memory.get(req.org, req.endpoint), asked), count);
    if (next.whole) return undefined;
    if (next.blind.probing) {
      // At the most found whole, only the same records as last time wait their turn (the
      // records are noted at any length asked after: a list found whole is that long).
      const same = adapt.memory.probes.sameAtMost(list, digestOf(seenIds));
      const atMost = next.atMost && same;
      if (!adapt.memory.probes.mayProbe(list, adapt.now(), { first: next.first, atMost })) return undefined;
      probeOpen = true;
    }
    // A page read on past, or asked after, is not the copy a 304 stands for: its ETag
    // would not change when the list grows past it.
    validators = undefined;
    return next.blind;
  };
  /**
   * Applies a step of reading past the first page (silent-pages.ts `step`) to the answer
   * at `what`: returns the read when it ends, else sets `url` to the next page.
   */
  const apply = (st: Step, what: string, take?: () => void): ListRead | undefined => {
    if (st.take) take?.();
    if (st.clearNote) note = undefined;
    if (st.learn !== undefined && adapt) {
      remember(withFinding(adapt.memory.get(req.org, req.endpoint) ?? {}, asked, st.learn));
      if ('silentPages' in st.learn)
        drift.push({
          endpoint: req.endpoint,
          field: 'paging',
          problem:
            `the list shows no paging, but a page of ${st.learn.silentPages.size} records has more after it ` +
            `(asked for by ${st.learn.silentPages.by === 'page' ? 'page number' : 'offset'}); later pages are read that way`,
          fatal: false,
        });
    }
    const stop =
      st.end === 'cut'
        ? done(incomplete(what, st.why ?? 'the list is longer than read'))
        : st.end !== undefined
          ? done()
          : pages >= req.maxPages
            ? done(incomplete(what, `more than max_pages (${req.maxPages}) pages`))
            : undefined;
    if (stop !== undefined || st.learn !== undefined) {
      if (probeOpen && adapt) adapt.memory.probes.endProbe(list, adapt.now(), st.end === 'asBefore');
      probeOpen = false;
    }
    if (stop !== undefined) return stop;
    blind = st.next;
    url = blindUrl(blind!);
    return undefined;
  };
  const done = (error?: UpstreamError): ListRead => ({
    items,
    pages,
    drift,
    ...(error ? { error } : {}),
    ...(note === undefined ? {} : { note }),
    ...(validators !== undefined && pages === 1 && !error ? { validators } : {}),
  });
  /**
   * The page just read (at `what`) did not advance the list: asks for it another way when
   * there is one left (and returns undefined, `url` set), else stops, keeping `fresh` (the
   * records it brought first), with a drift note.
   */
  const notAdvancing = (what: string, fresh: readonly unknown[]): ListRead | undefined => {
    const other = via?.others.shift();
    if (via !== undefined && other !== undefined) {
      const retry = new URL(url);
      retry.searchParams.delete(via.param);
      retry.searchParams.set(other.param, other.value);
      if (other.kind === 'offset') byOffset = true;
      via = { ...via, param: other.param, kind: other.kind, tried: [...via.tried, via.param] };
      url = retry;
      return undefined;
    }
    items.push(...fresh);
    // No name ever worked: later reads stop at the first repeated page instead of trying
    // them all again. A name that worked before is kept (a list that shifted while it was
    // read repeats records under any name).
    if (via?.kind === 'cursor' && adapt && renameCursor && cursorName === undefined) {
      const now = adapt.memory.get(req.org, req.endpoint) ?? {};
      remember({ ...now, cursorStuck: true });
    }
    const names = via === undefined ? [] : [...via.tried, via.param];
    drift.push({
      endpoint: req.endpoint,
      field: 'paging',
      problem:
        via === undefined
          ? 'a next page link leads back to records already read; the list is read as incomplete'
          : `the next page repeats records already read with the paging parameter sent as ${names.join(', ')}; the list is read as incomplete`,
      fatal: false,
    });
    const why =
      via !== undefined
        ? `the server answers the same page again: it ignores the paging parameter (${names.join(', ')})`
        : again
          ? 'next page points back to a page already read'
          : 'next page repeats records already read: the paging does not advance';
    return done(incomplete(what, why));
  };
  for (;;) {
    const what = `GET ${describePath(url)}`;
    let page: ListPage;
    let res: JsonResponse;
    try {
      // Validators go with the first request only: they describe the whole (one-page) list.
      res = await requester.getJson(
        url,
        pages === 0 && adaptations === 0 && conditional ? req : { ...req, validators: undefined },
      );
      if (res.status === 304 && pages === 0) return { items: [], pages: 0, notModified: true, drift: [] };
      if (pages === 0) validators = validatorsOf(res.headers);
      page = readListPage(req.endpoint, res.body, res.headers, url, req.shape, state);
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason;
      const e = asUpstreamError(err, what);
      if (blind !== undefined) {
        const stop = apply(step(blind, { kind: 'error', status: e.status }), what);
        if (stop !== undefined) return stop;
        continue;
      }
      // Another way of asking for a page, refused: as if it had answered the same page again.
      if (pages > 0 && via !== undefined && via.tried.length > 0 && (e.status === 400 || e.status === 422)) {
        const stop = notAdvancing(what, []);
        if (stop !== undefined) return stop;
        continue;
      }
      // A refused first query: ask again with a safer one (adapt.ts).
      if (pages === 0 && adapt && (e.status === 400 || e.status === 422)) {
        if (retrial && adaptations === 0) {
          // Tally's own query, re-tried, is still refused: what was learned holds.
          retrial = false;
          const held = adapt.memory.confirm(req.org, req.endpoint, adapt.now());
          known = adapt.memory.version(req.org, req.endpoint);
          if (held !== undefined) {
            adaptations += 1;
            url = applyLearned(first, held, adapt.ctx);
            learned = held;
            state.perPage = Number(url.searchParams.get(perPageParam)) || state.perPage;
            continue;
          }
        } else if (adaptations === 0) adapt.memory.noteRefusal(req.org, req.endpoint, adapt.now());
        // Another read learned something meanwhile: go on from what it knows.
        const theirs = adapt.memory.get(req.org, req.endpoint);
        const version = adapt.memory.version(req.org, req.endpoint);
        // Refused lately, not learned yet: go on from where the last refused read got to.
        const tentative = adaptations === 0 ? adapt.memory.tentative(req.org, req.endpoint) : undefined;
        const adopt =
          tentative !== undefined && !sameQuery(tentative, learned)
            ? tentative
            : version !== known && theirs !== undefined && !sameQuery(theirs, learned)
              ? theirs
              : undefined;
        known = version;
        const next = adopt
          ? { url: applyLearned(first, adopt, adapt.ctx), learned: adopt }
          : saferQuery(url, e, learned, adapt.ctx, tried);
        if (next && adaptations < MAX_ADAPTATIONS) {
          adaptations += 1;
          req.onAdapt?.(`${what}: ${e.status}; trying ${describePath(next.url)}`, next.learned);
          url = next.url;
          learned = next.learned;
          // Remembered before it is tried, once refusals teach: a read that starts meanwhile,
          // or after a restart, starts from here instead of the top of the ladder.
          teach(withPaging({ ...learned, refused: true }));
          state.perPage = Number(url.searchParams.get(perPageParam)) || state.perPage;
          continue;
        }
        if (next) {
          // Out of tries for this read: the next read goes on from the next query.
          teach(withPaging({ ...next.learned, refused: true }));
        } else {
          // Nothing safer is left: the safest query is remembered as refused, and reads wait
          // before they ask again (one request, not the whole ladder), once refusals teach.
          teach(withPaging({ ...learned, refused: true }));
          adapt.memory.refuse(req.org, req.endpoint, e, adapt.now());
        }
      }
      return done(e);
    }
    if (pages === 0 && adapt) {
      const { refused: _answered, ...works } = learned;
      if (adaptations === 0) adapt.memory.noteAnswer(req.org, req.endpoint);
      // Tally's own query, re-tried, was answered: what refusals taught is dropped.
      if (adaptations === 0 && retrial) adapt.memory.unlearn(req.org, req.endpoint);
      else if (adaptations > 0) teach(withPaging(works));
      else if (learned.refused === true) remember(withPaging(works));
    }
    const ids = page.items.map((item) => recordId(req.endpoint, item, req.shape));
    const fresh = freshRecords(page.items, ids, seenIds);
    const identified = ids.filter((id) => id !== undefined).length;
    const head = page.items.length > 0 ? fingerprint(page.items[0]) : undefined;
    if (blind !== undefined) {
      const pageIds = ids.filter((id): id is string => id !== undefined);
      const answer: Answer = {
        kind: 'page',
        count: page.items.length,
        fresh: fresh.count,
        allIds: pageIds.length === page.items.length,
        signs: page.style === 'none' ? 'none' : page.next === undefined ? 'end' : 'next',
        samePageAgain: pageIds.length > 0 && pageIds.every((id) => before.has(id)),
      };
      const st = step(blind, answer);
      const stop = apply(st, what, () => {
        pages += 1;
        for (const id of pageIds) seenIds.add(id);
        items.push(...page.items);
        state.seen += page.items.length;
        if (!st.earlier) before = new Set(pageIds);
      });
      if (stop !== undefined) return stop;
      continue;
    }
    const stuck =
      pages > 0 &&
      page.items.length > 0 &&
      (identified > 0 ? fresh.count * 2 < identified : again || (head !== undefined && head === lastFirst));
    if (stuck) {
      const stop = notAdvancing(what, fresh.items);
      if (stop !== undefined) return stop;
      continue;
    }
    // Another name for the cursor worked: it is used for the rest of this list, and remembered.
    if (via?.kind === 'cursor' && via.tried.length > 0) {
      cursorName = via.param;
      if (adapt) {
        const { cursorStuck: _old, ...now } = adapt.memory.get(req.org, req.endpoint) ?? {};
        remember({ ...now, cursorParam: via.param });
      }
    }
    lastFirst = head;
    req.shape.trace?.page(req.endpoint, {
      url,
      listPath: page.listPath ?? '',
      style: page.style ?? 'none',
      items: page.items.length,
      first: pages === 0,
    });
    pages += 1;
    visited.add(url.href);
    visitedKeys.add(pageKey(url, req.shape));
    for (const id of ids) {
      if (id === undefined) unidentified += 1;
      else seenIds.add(id);
    }
    if (page.note !== undefined) note = page.note;
    items.push(...page.items);
    state.seen += page.items.length;

    if (page.next === undefined) {
      // Totals count records, not repeats of them.
      const short =
        shortOfTotals(page, seenIds.size + unidentified, state.page) ??
        shortOfLastLink(res.headers, url, req.shape, state.page) ??
        (saysHasMore(res.body) ? 'the response says it has more but gives no next page' : undefined);
      if (short) return done(incomplete(what, short));
      // Only a list whose records all have ids: pages are told apart by them.
      blind =
        pages === 1 && page.style === 'none' && identified === page.items.length
          ? startBlind(page.items.length)
          : undefined;
      if (blind === undefined) return done();
      before = new Set(seenIds);
      url = blindUrl(blind);
      continue;
    }
    if (pages >= req.maxPages) {
      return done(incomplete(what, `more than max_pages (${req.maxPages}) pages`));
    }
    let next: URL | undefined;
    via = undefined;
    if (page.next.kind === 'params' && byOffset) {
      next = withParams(url, { offset: String(state.seen) });
    } else if (page.next.kind === 'params') {
      const params = { ...page.next.params };
      const cursor = params[cursorParam];
      const base = new URL(url);
      if (cursor !== undefined) {
        // The cursor goes back under one name: the one that works, else tally's.
        const names = [cursorParam, ...(page.cursorNames ?? [])];
        if (cursorName !== undefined) names.push(cursorName);
        for (const n of names) base.searchParams.delete(n);
        const current = cursorName ?? cursorParam;
        if (current !== cursorParam) {
          delete params[cursorParam];
          params[current] = cursor;
        }
        const stuckBefore =
          learned.cursorStuck === true || adapt?.memory.get(req.org, req.endpoint)?.cursorStuck;
        const others = renameCursor && stuckBefore !== true ? names.filter((n) => n !== current) : [];
        via = {
          param: current,
          kind: 'cursor',
          others: [...new Set(others)].map((n) => ({ param: n, value: cursor, kind: 'cursor' as const })),
          tried: [],
        };
      } else if (params[pageParam] !== undefined) {
        via = {
          param: pageParam,
          kind: 'page',
          others: [{ param: 'offset', value: String(state.seen), kind: 'offset' }],
          tried: [],
        };
      }
      next = withParams(base, params);
    } else {
      next = nextUrl(url, page);
    }
    if (next === undefined) return done(incomplete(what, 'next page link is not a valid URL'));
    if (next.origin !== requester.origin) {
      // The token never goes there: the list stays incomplete instead.
      return done(
        new UpstreamError(`${what}: next page link points to another origin, refused`, {
          reason: 'cross_origin',
        }),
      );
    }
    if (visited.has(next.href)) {
      drift.push({
        endpoint: req.endpoint,
        field: 'paging',
        problem: 'a next page link leads back to a page already read; the list is read as incomplete',
        fatal: false,
      });
      return done(incomplete(what, 'next page points back to a page already read'));
    }
    // The same page but for implicit parameters (`?page=1` after `?per_page=100`): read it,
    // and let its ids say whether it is (a server counting pages from 0 means page 2 by it).
    again = visitedKeys.has(pageKey(next, req.shape));
    url = next;
    state.page += 1;
  }
}

/** The records of a page whose ids were not read before (nor earlier on the page), and how many. */
function freshRecords(
  page: readonly unknown[],
  ids: readonly (string | undefined)[],
  seen: ReadonlySet<string>,
): { items: unknown[]; count: number } {
  const here = new Set<string>();
  const out: unknown[] = [];
  page.forEach((item, i) => {
    const id = ids[i];
    if (id === undefined || seen.has(id) || here.has(id)) return;
    here.add(id);
    out.push(item);
  });
  return { items: out, count: out.length };
}

/** Query parameters that say "the first page" when they hold these values, as if absent. */
const IMPLICIT_FIRST: Readonly<Record<string, readonly string[]>> = {
  offset: ['0'],
  skip: ['0'],
  start_index: ['0'],
};

/**
 * A page's URL with what does not tell pages apart left out: the page size, and the
 * parameters of the first page (`page=1` or `page=0`, `offset=0`), sorted. Two URLs with
 * the same key ask for the same page, unless the server counts pages from 0 and `page=1`
 * is its second page, which is why a key match is confirmed by the page's ids.
 */
export function pageKey(url: URL, shape: ShapeOptions): string {
  const perPageParam = shape.perPageParam || 'per_page';
  const pageParam = shape.pageParam || 'page';
  const kept = [...url.searchParams.entries()].filter(([k, v]) => {
    if (k === perPageParam) return false;
    if (k === pageParam) return v !== '1' && v !== '0';
    return !(IMPLICIT_FIRST[k] ?? []).includes(v);
  });
  kept.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return `${url.origin}${url.pathname}?${new URLSearchParams(kept).toString()}`;
}

function incomplete(what: string, why: string): UpstreamError {
  return new UpstreamError(`${what}: ${why}`, { reason: 'paging' });
}

function asUpstreamError(err: unknown, what: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof SchemaDriftError) {
    return new UpstreamError(`${what}: ${err.message}`, { reason: 'schema', cause: err });
  }
  return new UpstreamError(`${what}: ${err instanceof Error ? err.message : String(err)}`, {
    reason: 'malformed',
    cause: err,
  });
}
