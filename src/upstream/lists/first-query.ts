/**
 * A list's first query refused (400, 422): the next safer one (adapt.ts, `saferQuery`),
 * remembered before it is tried, or the end of the read with what was learned kept for
 * the next (docs/upstream-shapes.md, "Requests that adapt").
 */
import { applyLearned, type Learned, MAX_ADAPTATIONS, saferQuery } from '../adapt.js';
import type { UpstreamError } from '../errors.js';
import { describePath } from '../http.js';
import { PAGING_KEYS, pickPaging } from '../silent-pages.js';
import { sameQuery } from './outcomes.js';
import type { ListState } from './state.js';
import type { ListRequest } from './types.js';

/**
 * Sets `s.url` to the next safer first query and returns true, or returns false when the
 * read ends with `e` (out of tries for this read, or nothing safer left: then reads wait
 * before they ask again, adapt.ts `QueryMemory.refuse`).
 */
export function saferFirstQuery(
  s: ListState,
  req: ListRequest,
  first: URL,
  e: UpstreamError,
  what: string,
  remember: (l: Learned) => void,
): boolean {
  const adapt = req.adapt!;
  const perPageParam = req.shape.perPageParam || 'per_page';
  // Another read learned something meanwhile: go on from what it knows.
  const theirs = adapt.memory.get(req.org, req.endpoint);
  const version = adapt.memory.version(req.org, req.endpoint);
  const adopt =
    version !== s.known && theirs !== undefined && !sameQuery(theirs, s.learned) ? theirs : undefined;
  s.known = version;
  const next = adopt
    ? { url: applyLearned(first, adopt, adapt.ctx), learned: adopt }
    : saferQuery(s.url, e, s.learned, adapt.ctx, s.tried);
  if (next && s.adaptations < MAX_ADAPTATIONS) {
    s.adaptations += 1;
    req.onAdapt?.(`${what}: ${e.status}; trying ${describePath(next.url)}`, next.learned);
    s.url = next.url;
    s.learned = next.learned;
    // Remembered before it is tried: a read that starts meanwhile, or after a restart,
    // starts from here instead of the top of the ladder.
    remember(withPaging(req, { ...s.learned, refused: true }));
    s.at.perPage = Number(s.url.searchParams.get(perPageParam)) || s.at.perPage;
    return true;
  }
  if (next) {
    // Out of tries for this read: the next read goes on from the next query.
    remember(withPaging(req, { ...next.learned, refused: true }));
  } else {
    // Nothing safer is left: the safest query is remembered as refused, and reads wait
    // before they ask again (one request, not the whole ladder).
    remember(withPaging(req, { ...s.learned, refused: true }));
    adapt.memory.refuse(req.org, req.endpoint, e, adapt.now());
  }
  return false;
}

/**
 * `l`, a query learned on the adaptation ladder, with what the memory holds now of the
 * list's paging (silent-pages.ts; the way past a "more" without a pointer, keyset.ts):
 * another read may have learned it meanwhile.
 */
export function withPaging(req: ListRequest, l: Learned): Learned {
  const now = req.adapt?.memory.get(req.org, req.endpoint) ?? {};
  const out: Learned = { ...l };
  for (const k of PAGING_KEYS) delete out[k];
  delete out.moreBy;
  return { ...out, ...pickPaging(now), ...(now.moreBy === undefined ? {} : { moreBy: now.moreBy }) };
}
