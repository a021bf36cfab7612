/**
 * The page after one that says "more" and gives no pointer (docs/upstream-shapes.md,
 * "Paging"): no next URL, cursor, page number or offset, only `has_more: true`. Payment
 * APIs page such lists by the id of the last record read (Stripe: `starting_after=<id>`,
 * https://docs.stripe.com/api/pagination); others by `after`, by page number, by offset.
 * tally asks one way, and the next when the server refuses it (400, 422: its words may
 * name the parameter it takes, which then goes first) or ignores it (it answers the same
 * records again). The way that works is remembered per org and endpoint (`Learned.moreBy`,
 * adapt.ts); when none works, the list is incomplete and the page after is not asked for
 * again until a wait is over ({@link PagerLedger}): a refused request is never repeated on
 * every poll.
 */

/** How a page is asked for: the parameter, its value, and what kind of paging it is. */
export interface Way {
  param: string;
  value: string;
  kind: 'page' | 'cursor' | 'offset' | 'keyset';
}

/**
 * Parameters that take the last record's id, most widely documented first: Stripe's
 * `starting_after`; `after` (cursor-style APIs taking an id); `after_id`; `since_id`
 * (Twitter-style timelines, ids in ascending order).
 */
export const KEYSET_PARAMS: readonly string[] = ['starting_after', 'after', 'after_id', 'since_id'];

/** Where the list stands when the page after is asked for. */
export interface KeysetAt {
  /** Id of the last record of the page just read. */
  lastId: string;
  /** The page number the next page has, and the parameter that sets it. */
  nextPage: number;
  pageParam: string;
  /** Records read so far: the offset of the next page. */
  seen: number;
}

/**
 * The ways to ask for the page after, in the order they are tried: the one learned first,
 * then `starting_after`, `after`, the page number, the offset, `after_id`, `since_id`.
 * (A server paging by number that ignores an unknown parameter answers its first page
 * again, which costs one request per way before it, once: what works is remembered.)
 */
export function keysetWays(at: KeysetAt, learned: string | undefined): Way[] {
  const [first, second, ...rest] = KEYSET_PARAMS;
  const order = [first!, second!, at.pageParam, 'offset', ...rest];
  if (learned !== undefined) order.unshift(learned);
  const out: Way[] = [];
  for (const param of new Set(order)) out.push(wayOf(param, at));
  return out;
}

function wayOf(param: string, at: KeysetAt): Way {
  if (param === at.pageParam) return { param, value: String(at.nextPage), kind: 'page' };
  if (param === 'offset') return { param, value: String(at.seen), kind: 'offset' };
  return { param, value: at.lastId, kind: 'keyset' };
}

/**
 * Words naming a parameter that asks after a record or a cursor (`start_after`, `startAfter`,
 * `page_cursor`): snake_case or camelCase, so that prose (`thereafter`) is not taken for one.
 */
const keysetLike = (w: string): boolean => /_|[a-z][A-Z]/.test(w) && /after|since|cursor/i.test(w);

/**
 * `others` reordered by what a refusal says: the ways whose parameter its words name go
 * first (`allowed parameters: limit, starting_after`), and a parameter it names that asks
 * after a record and is not among them is added first, with the last record's id. The
 * parameter just refused is never offered again.
 */
export function byRefusal(others: readonly Way[], words: string, refused: string, lastId?: string): Way[] {
  const named = new Set(
    (words.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter((w) => w !== refused && w.length <= 64),
  );
  const known = new Set(others.map((w) => w.param));
  const added: Way[] =
    lastId === undefined
      ? []
      : [...named]
          .filter((w) => keysetLike(w) && !known.has(w))
          .slice(0, 2)
          .map((param) => ({ param, value: lastId, kind: 'keyset' as const }));
  const first = others.filter((w) => named.has(w.param));
  const rest = others.filter((w) => !named.has(w.param));
  return [...added, ...first, ...rest].filter((w) => w.param !== refused);
}

/** The first wait after every way of asking for a next page failed; it doubles per failure in a row. */
export const PAGER_RETRY_MS = 5 * 60_000;
/** The longest such wait. */
export const PAGER_RETRY_MAX_MS = 60 * 60_000;

/** A list whose next page no way of asking reached: when to try again, and what was tried. */
export interface PagerRefusal {
  retryAt: number;
  /** Failures in a row. */
  times: number;
  /** The parameters tried the last time. */
  tried: string[];
}

/**
 * Lists whose next page could not be asked for, per org and endpoint (not persisted: a
 * restart tries once again). A read that reaches the page after waits until `retryAt`;
 * the first read after it tries again, and the reads with it keep waiting.
 */
export class PagerLedger {
  private readonly refusals = new Map<string, PagerRefusal>();

  /** Notes that every way failed at `now` (again). */
  refuse(org: string, endpoint: string, tried: readonly string[], now: number): PagerRefusal {
    const k = `${org} ${endpoint}`;
    const times = (this.refusals.get(k)?.times ?? 0) + 1;
    const r = { retryAt: now + waitFor(times), times, tried: [...tried] };
    this.refusals.set(k, r);
    return r;
  }

  /**
   * The refusal a read must wait for now, or undefined when it may ask (then the next
   * read waits again, so that reads at the same time send one request, not many).
   */
  waiting(org: string, endpoint: string, now: number): PagerRefusal | undefined {
    const r = this.refusals.get(`${org} ${endpoint}`);
    if (r === undefined) return undefined;
    if (now < r.retryAt) return r;
    r.retryAt = now + waitFor(r.times);
    return undefined;
  }

  /** A next page was read: the list pages again. */
  clear(org: string, endpoint: string): void {
    this.refusals.delete(`${org} ${endpoint}`);
  }
}

function waitFor(times: number): number {
  return Math.min(PAGER_RETRY_MAX_MS, PAGER_RETRY_MS * 2 ** Math.min(times - 1, 20));
}
