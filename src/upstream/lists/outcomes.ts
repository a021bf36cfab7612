/**
 * Small pure pieces of reading a list: telling pages apart by their records and their
 * URLs, and the errors a read ends with.
 */
import type { Learned, Refusal } from '../query/adapt.js';
import { UpstreamError } from '../errors.js';
import { SchemaDriftError, type ShapeOptions } from '../shape/index.js';
import { PAGING_KEYS } from './silent-pages.js';
import type { PagerRefusal } from './keyset.js';

/** The records of a page whose ids were not read before (nor earlier on the page), and how many. */
export function freshRecords(
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
  startAt: ['0'],
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

/** Whether two things learned make the same query (whether it was answered aside). */
export function sameQuery(a: Learned, b: Learned): boolean {
  const strip = (l: Learned) => {
    const { refused: _r, learnedAt: _l, confirmedAt: _c, ...rest } = l;
    for (const k of PAGING_KEYS) delete rest[k];
    return JSON.stringify(rest);
  };
  return strip(a) === strip(b);
}

/** The failure of a read not sent because every safer query of its list was refused. */
export function waiting(what: string, r: Refusal): UpstreamError {
  const e = r.error;
  const words = e.upstreamWords ? `: ${e.upstreamWords.slice(0, 200)}` : '';
  return new UpstreamError(
    `${what}: not sent: the server refused every query tally tried (${e.status ?? 'refused'}${words}); ` +
      `asked again from ${new Date(r.retryAt).toISOString()}`,
    { reason: e.reason, status: e.status, upstreamCode: e.upstreamCode, upstreamWords: e.upstreamWords },
  );
}

/** The failure of a list whose next page is not asked for while its refusal waits. */
export function pagerWaiting(what: string, r: PagerRefusal): UpstreamError {
  return incomplete(
    what,
    `the list has more, but no way of asking for its next page worked (${r.tried.join(', ')}); ` +
      `asked again from ${new Date(r.retryAt).toISOString()}`,
  );
}

export function incomplete(what: string, why: string): UpstreamError {
  return new UpstreamError(`${what}: ${why}`, { reason: 'paging' });
}

export function asUpstreamError(err: unknown, what: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof SchemaDriftError) {
    return new UpstreamError(`${what}: ${err.message}`, { reason: 'schema', cause: err });
  }
  return new UpstreamError(`${what}: ${err instanceof Error ? err.message : String(err)}`, {
    reason: 'malformed',
    cause: err,
  });
}

/** Resolves when `p` does; rejects with the signal's reason when it is aborted first. */
export function untilAborted(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return p;
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
