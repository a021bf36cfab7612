/**
 * Reads every page of a list (docs/upstream-client.md, "Paging"). The shape layer says
 * where the items and the next page are; the reader follows them and decides whether what
 * was read is the whole list. Anything short of the last page — an error after retries, a
 * page limit, a next link to another origin, a loop, totals that say more than was read,
 * a next page no way of asking reaches — makes the list incomplete, with the items read
 * so far; it is never returned as complete.
 *
 * The read is a small machine over one explicit state (state.ts), with one method per
 * event: a page ({@link ListReader.onPage}), a refusal ({@link ListReader.onRefusal},
 * {@link ListReader.onRefusedQuery}), a page that does not advance
 * ({@link ListReader.onNoAdvance}), a step of reading past a page that shows no paging
 * ({@link ListReader.onSilentStep}), a 304 ({@link ListReader.onNotModified}).
 */
import { applyLearned, type Learned } from '../query/adapt.js';
import { UpstreamError } from '../errors.js';
import { fingerprint } from './fingerprint.js';
import { describePath, type JsonResponse, validatorsOf } from '../transport/http.js';
import { nextUrl, saysHasMore, shortOfLastLink, shortOfTotals, withParams } from './page-end.js';
import type { Requester } from '../transport/requester.js';
import { firstPageParams, type ListPage, readListPage, recordId } from '../shape/index.js';
import {
  type Blind,
  type ListAt,
  silentKnowledge,
  silentWay,
  type Step,
  step,
  withFinding,
} from './silent-pages.js';
import { byRefusal, KEYSET_PARAMS, keysetWays } from './keyset.js';
import { saferFirstQuery, withPaging } from './first-query.js';
import { blindUrl, startBlind } from './blind.js';
import {
  asUpstreamError,
  freshRecords,
  incomplete,
  pageKey,
  pagerWaiting,
  untilAborted,
  waiting,
} from './outcomes.js';
import { initialState, type ListState } from './state.js';
import { DEFAULT_PER_PAGE, type ListRead, type ListRequest } from './types.js';

/** What an event's method decides: the read ends with this, or (undefined) goes on at `state.url`. */
type Outcome = ListRead | undefined;

/** One read of one list. */
export class ListReader {
  private readonly s: ListState;
  private readonly first: URL;
  private readonly perPageParam: string;
  private readonly pageParam: string;
  private readonly cursorParam: string;
  /** A cursor parameter the config names is never renamed. */
  private readonly renameCursor: boolean;
  /** This list, as what is noted of lists that show no paging tells them apart. */
  private readonly list: ListAt;

  constructor(
    private readonly requester: Requester,
    private readonly req: ListRequest,
  ) {
    const adapt = req.adapt;
    // What was learned, or now and then tally's own query again (query/evidence.ts).
    const begun = adapt?.memory.begin(req.org, req.endpoint, adapt.now());
    const remembered = begun?.learned;
    this.first = withParams(req.url, firstPageParams(req.shape));
    const url = adapt ? applyLearned(this.first, remembered, adapt.ctx) : this.first;
    this.perPageParam = req.shape.perPageParam || 'per_page';
    this.pageParam = req.shape.pageParam || 'page';
    this.cursorParam = req.shape.cursorParam || 'cursor';
    this.renameCursor = this.cursorParam === 'cursor';
    const perPage =
      Number(url.searchParams.get(this.perPageParam)) || (req.shape.perPage ?? DEFAULT_PER_PAGE);
    const known = adapt?.memory.version(req.org, req.endpoint) ?? 0;
    this.s = initialState(url, remembered ?? {}, perPage, known);
    this.s.cursorName = this.renameCursor ? remembered?.cursorParam : undefined;
    this.s.retrial = begun?.retrial === true;
    this.s.provisional = begun?.provisional === true;
    this.list = { org: req.org, endpoint: req.endpoint, path: url.pathname };
  }

  /** Reads the list. Resolves with what was read; rejects only when the request's signal is aborted. */
  async read(): Promise<ListRead> {
    const { s, req } = this;
    const adapt = req.adapt;
    // Every safer query was refused: the list is asked again only when its wait is over.
    if (adapt && s.learned.refused === true && !adapt.memory.claimRetry(req.org, req.endpoint, adapt.now())) {
      const r = adapt.memory.refusal(req.org, req.endpoint)!;
      return {
        items: [],
        pages: 0,
        drift: [],
        notSent: true,
        error: waiting(`GET ${describePath(s.url)}`, r),
      };
    }
    s.conditional = this.conditional();
    for (;;) {
      if (s.held instanceof Promise) {
        await untilAborted(s.held, req.signal);
        s.held = 'waited';
        const out = this.goBlind(s.items.length);
        if (out !== undefined) return out;
      }
      const what = `GET ${describePath(s.url)}`;
      let page: ListPage;
      let res: JsonResponse;
      try {
        // Validators go with the first request only: they describe the whole (one-page) list.
        const first = s.pages === 0 && s.adaptations === 0 && s.conditional;
        res = await this.requester.getJson(s.url, first ? req : { ...req, validators: undefined });
        if (res.status === 304 && s.pages === 0) return this.onNotModified();
        if (s.pages === 0) s.validators = validatorsOf(res.headers);
        page = readListPage(req.endpoint, res.body, res.headers, s.url, req.shape, s.at);
      } catch (err) {
        if (req.signal?.aborted) {
          this.endProbe(false);
          throw req.signal.reason;
        }
        const out = this.onError(asUpstreamError(err, what), what);
        if (out !== undefined) return out;
        continue;
      }
      const out = this.onPage(page, res, what);
      if (out !== undefined) return out;
    }
  }

  /**
   * Whether the validators of a copy held go with the first request. A copy held for a 304
   * hides whether a list as long as the most found whole grew past its first page: when
   * such a list is due to be asked after (silent-pages.ts), it is asked for plainly.
   */
  private conditional(): boolean {
    const { req, s } = this;
    const adapt = req.adapt;
    if (req.validators === undefined) return false;
    if (!adapt || req.heldCount === undefined) return true;
    const k = silentKnowledge(s.learned, Number(s.url.searchParams.get(this.perPageParam)) || 0);
    const most = k.silentPages === undefined ? k.wholeUpTo : undefined;
    return !(
      most !== undefined &&
      req.heldCount >= most &&
      adapt.memory.probes.atMostDue(this.list, adapt.now())
    );
  }

  /** 304: the copy held is current. */
  private onNotModified(): ListRead {
    return { items: [], pages: 0, notModified: true, drift: [] };
  }

  /** A request failed (after its retries). */
  private onError(e: UpstreamError, what: string): Outcome {
    const { s } = this;
    if (s.blind !== undefined)
      return this.onSilentStep(
        step(s.blind, { kind: 'error', status: e.status, words: e.upstreamWords }),
        what,
      );
    const refused = e.status === 400 || e.status === 422;
    // A way of asking for a page after the first, refused (or, after the last record, not
    // found: a server may answer an id parameter it does not take so): the next way, if any.
    if (s.pages > 0 && s.via !== undefined && (refused || (e.status === 404 && s.via.keyset === true)))
      return this.onRefusal(e, what);
    // A refused first query: ask again with a safer one (adapt.ts).
    if (s.pages === 0 && this.req.adapt && refused) return this.onRefusedQuery(e, what);
    return this.done(e);
  }

  /**
   * The server refused the way a page after the first was asked for: the ways left are
   * reordered by what its words name (keyset.ts), and the next one is tried.
   */
  private onRefusal(e: UpstreamError, what: string): Outcome {
    const via = this.s.via!;
    via.others = byRefusal(via.others, e.upstreamWords ?? '', via.param, via.lastId);
    via.refused = true;
    return this.onNoAdvance(what, []);
  }

  /** The first page's query was refused: the next safer query (first-query.ts), or the end of the read. */
  private onRefusedQuery(e: UpstreamError, what: string): Outcome {
    const goOn = saferFirstQuery(this.s, this.req, this.first, e, what, (l) => this.teach(l));
    return goOn ? undefined : this.done(e);
  }

  /** A page was read. */
  private onPage(page: ListPage, res: JsonResponse, what: string): Outcome {
    const { s, req } = this;
    if (s.pages === 0) this.onFirstAnswered();
    const ids = page.items.map((item) => recordId(req.endpoint, item, req.shape));
    const fresh = freshRecords(page.items, ids, s.seenIds);
    if (s.blind !== undefined) return this.onSilentPage(page, ids, fresh.count, what);
    const identified = ids.filter((id) => id !== undefined).length;
    const head = page.items.length > 0 ? fingerprint(page.items[0]) : undefined;
    const stuck =
      s.pages > 0 &&
      page.items.length > 0 &&
      (identified > 0
        ? fresh.count * 2 < identified
        : s.again || (head !== undefined && head === s.lastFirst));
    // An empty page for a way after the last record not yet known to work: a server that
    // reads an unknown parameter as a filter answers none; the next way is asked.
    const unproven = s.via?.keyset === true && page.items.length === 0 && s.moreBy !== s.via.param;
    if (stuck || unproven) return this.onNoAdvance(what, fresh.items);
    this.onAdvanced();
    s.lastFirst = head;
    req.shape.trace?.page(req.endpoint, {
      url: s.url,
      listPath: page.listPath ?? '',
      style: page.style ?? 'none',
      items: page.items.length,
      first: s.pages === 0,
    });
    s.pages += 1;
    s.visited.add(s.url.href);
    s.visitedKeys.add(pageKey(s.url, req.shape));
    for (const id of ids) {
      if (id === undefined) s.unidentified += 1;
      else s.seenIds.add(id);
    }
    s.lastId = [...ids].reverse().find((id) => id !== undefined) ?? s.lastId;
    if (page.note !== undefined) s.note = page.note;
    s.items.push(...page.items);
    s.at.seen += page.items.length;
    if (page.next === undefined) return this.onLastPage(page, res, identified, what);
    if (s.pages >= req.maxPages)
      return this.done(incomplete(what, `more than max_pages (${req.maxPages}) pages`));
    return this.advance(page, ids, what);
  }

  /**
   * The first page was answered: what its query learned is kept (once refusals teach,
   * when it took safer queries to get there), and tally's own query, re-tried and
   * answered, drops what refusals taught (query/evidence.ts).
   */
  private onFirstAnswered(): void {
    const { s, req } = this;
    const adapt = req.adapt;
    if (!adapt) return;
    const { refused: _answered, ...works } = s.learned;
    // Answered as a refused read was: the refusals stand until the query they refused is asked.
    if (s.adaptations === 0 && s.provisional) return;
    if (s.adaptations === 0) adapt.memory.noteAnswer(req.org, req.endpoint);
    if (s.adaptations === 0 && s.retrial) adapt.memory.unlearn(req.org, req.endpoint);
    else if (s.adaptations > 0) this.teach(withPaging(req, works));
    else if (s.learned.refused === true) this.remember(withPaging(req, works));
  }

  /**
   * The page asked for another way than the first brought new records: that way is used
   * for the rest of this list, and remembered (a cursor's name; the way to ask after a
   * "more" without a pointer).
   */
  private onAdvanced(): void {
    const { s, req } = this;
    const via = s.via;
    const adapt = req.adapt;
    if (via === undefined) return;
    if (via.kind === 'cursor' && via.tried.length > 0) {
      s.cursorName = via.param;
      if (adapt) {
        const { cursorStuck: _old, ...now } = adapt.memory.get(req.org, req.endpoint) ?? {};
        this.remember({ ...now, cursorParam: via.param });
      }
    }
    if (via.keyset === true) {
      s.moreBy = via.param;
      const now = adapt?.memory.get(req.org, req.endpoint) ?? {};
      if (now.moreBy !== via.param) this.remember({ ...now, moreBy: via.param });
    }
    adapt?.memory.pagers.clear(req.org, req.endpoint);
  }

  /** The page has no next pointer: the list ends here, unless it says it is longer, or shows no paging at all. */
  private onLastPage(page: ListPage, res: JsonResponse, identified: number, what: string): Outcome {
    const { s } = this;
    // Totals count records, not repeats of them.
    const short =
      shortOfTotals(page, s.seenIds.size + s.unidentified, s.at.page) ??
      shortOfLastLink(res.headers, s.url, this.req.shape, s.at.page) ??
      (saysHasMore(res.body) ? 'the response says it has more but gives no next page' : undefined);
    if (short) return this.done(incomplete(what, short));
    // Only a list whose records all have ids: pages are told apart by them.
    if (s.pages === 1 && page.style === 'none' && identified === page.items.length)
      return this.goBlind(page.items.length);
    return this.done();
  }

  /**
   * After a first page of `count` records without paging signs: reads on (`url` set), waits
   * for another read finding out (`held`), or ends the read with the page.
   */
  private goBlind(count: number): Outcome {
    const { s } = this;
    s.blind = this.startBlind(count);
    if (s.blind === undefined) return s.held instanceof Promise ? undefined : this.done();
    s.before = new Set(s.seenIds);
    s.url = this.blindUrl(s.blind);
    return undefined;
  }

  /** The URL of the page after this one, or the end of the read when it cannot be asked for. */
  private advance(page: ListPage, ids: readonly (string | undefined)[], what: string): Outcome {
    const { s, req } = this;
    const next = page.next!;
    s.via = undefined;
    let url: URL | undefined;
    if (next.kind === 'params' && s.byOffset) {
      url = withParams(s.url, { offset: String(s.at.seen) });
    } else if (next.kind === 'params') {
      url = this.byParams(next.params, page.cursorNames);
    } else if (next.kind === 'keyset') {
      const lastId = [...ids].reverse().find((id) => id !== undefined);
      if (lastId === undefined)
        return this.done(incomplete(what, 'the response says it has more but gives no next page'));
      url = this.byKeyset(lastId);
    } else {
      url = nextUrl(s.url, page);
    }
    if (url === undefined) return this.done(incomplete(what, 'next page link is not a valid URL'));
    if (url.origin !== this.requester.origin) {
      // The token never goes there: the list stays incomplete instead.
      return this.done(
        new UpstreamError(`${what}: next page link points to another origin, refused`, {
          reason: 'cross_origin',
        }),
      );
    }
    if (s.visited.has(url.href)) {
      this.pagingDrift('a next page link leads back to a page already read; the list is read as incomplete');
      return this.done(incomplete(what, 'next page points back to a page already read'));
    }
    // Every way of asking for the page after was refused lately: not asked again yet.
    const adapt = req.adapt;
    const held = s.via && adapt ? adapt.memory.pagers.waiting(req.org, req.endpoint, adapt.now()) : undefined;
    if (held !== undefined) {
      // The same drift as when every way failed: it holds while the list waits.
      this.pagingDrift(unreachableProblem(held.tried));
      return this.done(pagerWaiting(what, held));
    }
    // The same page but for implicit parameters (`?page=1` after `?per_page=100`): read it,
    // and let its ids say whether it is (a server counting pages from 0 means page 2 by it).
    s.again = s.visitedKeys.has(pageKey(url, req.shape));
    s.url = url;
    s.at.page += 1;
    return undefined;
  }

  /** The next page by query parameters: a cursor (under the name that works), or a page number. */
  private byParams(given: Record<string, string>, cursorNames: readonly string[] | undefined): URL {
    const { s, req } = this;
    const params = { ...given };
    const cursor = params[this.cursorParam];
    const base = new URL(s.url);
    if (cursor !== undefined) {
      // The cursor goes back under one name: the one that works, else tally's.
      const names = [this.cursorParam, ...(cursorNames ?? [])];
      if (s.cursorName !== undefined) names.push(s.cursorName);
      for (const n of names) base.searchParams.delete(n);
      const current = s.cursorName ?? this.cursorParam;
      if (current !== this.cursorParam) {
        delete params[this.cursorParam];
        params[current] = cursor;
      }
      const stuckBefore =
        s.learned.cursorStuck === true || req.adapt?.memory.get(req.org, req.endpoint)?.cursorStuck;
      const others = this.renameCursor && stuckBefore !== true ? names.filter((n) => n !== current) : [];
      s.via = {
        param: current,
        kind: 'cursor',
        others: [...new Set(others)].map((n) => ({ param: n, value: cursor, kind: 'cursor' as const })),
        tried: [],
      };
    } else if (params[this.pageParam] !== undefined) {
      s.via = {
        param: this.pageParam,
        kind: 'page',
        others: [{ param: 'offset', value: String(s.at.seen), kind: 'offset' }],
        tried: [],
      };
    }
    return withParams(base, params);
  }

  /** The page after a "more" without a pointer, asked after the last record (keyset.ts). */
  private byKeyset(lastId: string): URL {
    const { s } = this;
    const ways = keysetWays(
      { lastId, nextPage: s.at.page + 1, pageParam: this.pageParam, seen: s.at.seen },
      s.moreBy,
    );
    const base = new URL(s.url);
    for (const n of [...KEYSET_PARAMS, this.pageParam, 'offset', ...ways.map((w) => w.param)])
      base.searchParams.delete(n);
    const [way, ...others] = ways;
    s.via = { param: way!.param, kind: way!.kind, others, tried: [], lastId, keyset: true };
    return withParams(base, { [way!.param]: way!.value });
  }

  /**
   * The page just read (at `what`) did not advance the list, or its way of asking was
   * refused: asks for it another way when there is one left (`url` set), else stops,
   * keeping `fresh` (the records it brought first), with a drift note.
   */
  private onNoAdvance(what: string, fresh: readonly unknown[]): Outcome {
    const { s, req } = this;
    const via = s.via;
    const other = via?.others.shift();
    if (via !== undefined && other !== undefined) {
      const retry = new URL(s.url);
      retry.searchParams.delete(via.param);
      retry.searchParams.set(other.param, other.value);
      if (other.kind === 'offset' && !via.keyset) s.byOffset = true;
      s.via = {
        ...via,
        param: other.param,
        kind: other.kind,
        tried: [...via.tried, via.param],
        refused: false,
      };
      s.url = retry;
      return undefined;
    }
    s.items.push(...fresh);
    const adapt = req.adapt;
    // No name ever worked: later reads stop at the first repeated page instead of trying
    // them all again. A name that worked before is kept (a list that shifted while it was
    // read repeats records under any name).
    if (via?.kind === 'cursor' && adapt && this.renameCursor && s.cursorName === undefined) {
      const now = adapt.memory.get(req.org, req.endpoint) ?? {};
      this.remember({ ...now, cursorStuck: true });
    }
    const names = via === undefined ? [] : [...via.tried, via.param];
    if (via !== undefined && (via.keyset === true || via.refused === true))
      return this.unreachable(what, names);
    this.pagingDrift(
      via === undefined
        ? 'a next page link leads back to records already read; the list is read as incomplete'
        : `the next page repeats records already read with the paging parameter sent as ${names.join(', ')}; the list is read as incomplete`,
    );
    const why =
      via !== undefined
        ? `the server answers the same page again: it ignores the paging parameter (${names.join(', ')})`
        : s.again
          ? 'next page points back to a page already read'
          : 'next page repeats records already read: the paging does not advance';
    return this.done(incomplete(what, why));
  }

  /**
   * No way of asking for the next page worked (each was refused or ignored): the list is
   * incomplete, what was learned of the way is forgotten, and the page after is not asked
   * for again until a wait is over (keyset.ts, PagerLedger).
   */
  private unreachable(what: string, names: readonly string[]): ListRead {
    const { req, s } = this;
    const adapt = req.adapt;
    const tried = names.join(', ');
    let until = '';
    if (adapt) {
      const r = adapt.memory.pagers.refuse(req.org, req.endpoint, names, adapt.now());
      until = `; asked again from ${new Date(r.retryAt).toISOString()}`;
      const { moreBy: _gone, ...now } = adapt.memory.get(req.org, req.endpoint) ?? {};
      if (s.via?.keyset === true && s.moreBy !== undefined) this.remember(now);
    }
    this.pagingDrift(unreachableProblem(names));
    return this.done(
      incomplete(
        what,
        `the list has more, but the server refused or ignored every way of asking for the next page (${tried})${until}`,
      ),
    );
  }

  /** A page read past a first page that showed no paging (silent-pages.ts). */
  private onSilentPage(
    page: ListPage,
    ids: readonly (string | undefined)[],
    fresh: number,
    what: string,
  ): Outcome {
    const { s } = this;
    const pageIds = ids.filter((id): id is string => id !== undefined);
    const st = step(s.blind!, {
      kind: 'page',
      count: page.items.length,
      fresh,
      allIds: pageIds.length === page.items.length,
      signs: page.style === 'none' ? 'none' : page.next === undefined ? 'end' : 'next',
      samePageAgain: pageIds.length > 0 && pageIds.every((id) => s.before.has(id)),
    });
    return this.onSilentStep(st, what, () => {
      s.pages += 1;
      for (const id of pageIds) s.seenIds.add(id);
      s.items.push(...page.items);
      s.at.seen += page.items.length;
      if (st.earlier) return;
      s.before = new Set(pageIds);
      s.lastId = pageIds.at(-1) ?? s.lastId;
    });
  }

  /**
   * Applies a step of reading past the first page (silent-pages.ts `step`) to the answer
   * at `what`: returns the read when it ends, else sets `url` to the next page.
   */
  private onSilentStep(st: Step, what: string, take?: () => void): Outcome {
    const { s, req } = this;
    const adapt = req.adapt;
    if (st.take) take?.();
    if (st.clearNote) s.note = undefined;
    if (st.learn !== undefined && adapt) {
      this.remember(withFinding(adapt.memory.get(req.org, req.endpoint) ?? {}, s.asked, st.learn));
      if ('silentPages' in st.learn)
        this.pagingDrift(
          `the list shows no paging, but a page of ${st.learn.silentPages.size} records has more after it ` +
            `(asked for by ${silentWay(st.learn.silentPages)}); later pages are read that way`,
        );
    }
    const stop =
      st.end === 'cut'
        ? this.done(incomplete(what, st.why ?? 'the list is longer than read'))
        : st.end !== undefined
          ? this.done()
          : s.pages >= req.maxPages
            ? this.done(incomplete(what, `more than max_pages (${req.maxPages}) pages`))
            : undefined;
    if (st.keysetIgnored && adapt) adapt.memory.probes.keysetIgnored(this.list, adapt.now());
    if (stop !== undefined || st.learn !== undefined) this.endProbe(st.end === 'asBefore');
    if (stop !== undefined) return stop;
    s.blind = st.next;
    s.url = this.blindUrl(s.blind!);
    return undefined;
  }

  /** How to go on after a first page of `count` records without paging signs (blind.ts). */
  private startBlind(count: number): Blind | undefined {
    return startBlind(this.s, this.req, this.list, this.perPageParam, count);
  }

  private blindUrl(b: Blind): URL {
    return blindUrl(this.s, b, this.pageParam);
  }

  /** This read has found out, if it was (ProbeLedger.endProbe); `failed`: it could not tell. */
  private endProbe(failed: boolean): void {
    const adapt = this.req.adapt;
    if (this.s.probeOpen && adapt) adapt.memory.probes.endProbe(this.list, adapt.now(), failed);
    this.s.probeOpen = false;
  }

  private pagingDrift(problem: string): void {
    this.s.drift.push({ endpoint: this.req.endpoint, field: 'paging', problem, fatal: false });
  }

  private remember(l: Learned): void {
    const { req, s } = this;
    const adapt = req.adapt;
    adapt?.memory.set(req.org, req.endpoint, l);
    s.known = adapt?.memory.version(req.org, req.endpoint) ?? 0;
  }

  /** What a refusal taught: kept when refusals repeated over minutes, else for this read only. */
  private teach(l: Learned): void {
    const { req, s } = this;
    const adapt = req.adapt;
    if (adapt?.memory.teach(req.org, req.endpoint, l, adapt.now()))
      s.known = adapt.memory.version(req.org, req.endpoint);
  }

  private done(error?: UpstreamError): ListRead {
    const { s } = this;
    return {
      items: s.items,
      pages: s.pages,
      drift: s.drift,
      ...(error ? { error } : {}),
      ...(s.note === undefined ? {} : { note: s.note }),
      ...(s.validators !== undefined && s.pages === 1 && !error ? { validators: s.validators } : {}),
    };
  }
}

/** The drift of a list whose next page no way of asking reached. */
function unreachableProblem(tried: readonly string[]): string {
  return `the list has more, but the server refused or ignored every way tally asked for the next page (${tried.join(', ')}); the list is read as incomplete`;
}
