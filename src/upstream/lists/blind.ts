/**
 * Whether and how a read goes on after a first page without paging signs
 * (docs/upstream-shapes.md, "Paging"): what is known of the endpoint's lists
 * (silent-pages.ts), whether this read may find out now or waits for another read finding
 * out (ProbeLedger), and the URL of each page asked for then.
 */
import { digestOf, type Blind, type ListAt, afterFirstPage, silentKnowledge } from './silent-pages.js';
import { KEYSET_PARAMS } from './keyset.js';
import { withParams } from './page-end.js';
import { pagingOptions } from '../shape/options.js';
import type { ListState } from './state.js';
import type { ListRequest } from './types.js';

/**
 * How the read `s` of `list` goes on after a first page of `count` records without paging
 * signs; undefined: the page is the whole list, or (`s.held` set) the read waits for
 * another read finding out for the endpoint first, and then asks again (`s.held` is
 * `'waited'`: it reads on by what was found, and never finds out itself).
 */
export function startBlind(
  s: ListState,
  req: ListRequest,
  list: ListAt,
  perPageParam: string,
  count: number,
): Blind | undefined {
  const adapt = req.adapt;
  if (!adapt || pagingOptions(req.shape).paging !== 'auto' || req.maxPages < 2) return undefined;
  s.asked = Number(s.url.searchParams.get(perPageParam)) || 0;
  const next = afterFirstPage(silentKnowledge(adapt.memory.get(req.org, req.endpoint), s.asked), count);
  const probes = adapt.memory.probes;
  const waited = s.held === 'waited';
  s.held = undefined;
  if (next.whole) return undefined;
  if (next.blind.probing) {
    // Held back while another read found out: the page stands, unless that read found the
    // server pages (then the read goes on by it, not probing).
    if (waited) return undefined;
    // At the most found whole, only the same records as last time wait their turn (the
    // records are noted at any length asked after: a list found whole is that long).
    const same = probes.sameAtMost(list, digestOf(s.seenIds));
    const atMost = next.atMost && same;
    if (!probes.mayProbe(list, adapt.now(), { first: next.first, atMost })) {
      // While nothing is known of the endpoint, what another read is finding out is
      // waited for: read as its first page alone, the list would stay short until the next
      // sweep, quietly.
      s.held = next.first ? probes.finding(list, adapt.now()) : undefined;
      return undefined;
    }
    s.probeOpen = true;
  }
  // A page read on past, or asked after, is not the copy a 304 stands for: its ETag
  // would not change when the list grows past it.
  s.validators = undefined;
  const skip = probes.ignoresKeyset(list, adapt.now())
    ? KEYSET_PARAMS
    : KEYSET_PARAMS.filter((p) => s.url.searchParams.has(p));
  return skip.length > 0 ? { ...next.blind, skip } : next.blind;
}

/** The URL of the page `b` asks for, from the URL `s` read last. */
export function blindUrl(s: ListState, b: Blind, pageParam: string): URL {
  if (b.by === 'page') return withParams(s.url, { [pageParam]: String(b.baseCheck ? 1 : b.nextPage) });
  const next = new URL(s.url);
  next.searchParams.delete(pageParam);
  if (b.by === 'offset') return withParams(next, { offset: String(s.seenIds.size + s.unidentified) });
  // After the last record's id: under one parameter, none of those asked with before.
  for (const n of ['offset', ...KEYSET_PARAMS]) if (!b.skip?.includes(n)) next.searchParams.delete(n);
  return withParams(next, { [b.param!]: s.lastId! });
}
