/**
 * A list's first query refused (400, 422): the next safer one (adapt.ts, `saferQuery`),
 * taught before it is tried, or the end of the read with what was learned kept for the
 * next once refusals teach (docs/upstream-shapes.md, "Requests that adapt";
 * query/evidence.ts).
 */
import { applyLearned, type Learned, MAX_ADAPTATIONS, saferQuery } from '../query/adapt.js';
import type { UpstreamError } from '../errors.js';
import { describePath } from '../transport/http.js';
import { PAGING_KEYS, pickPaging } from './silent-pages.js';
import { sameQuery } from './outcomes.js';
import type { ListState } from './state.js';
import type { ListRequest } from './types.js';

/**
 * Sets `s.url` to the next safer first query and returns true, or returns false when the
 * read ends with `e` (out of tries for this read, or nothing safer left: then reads wait
 * before they ask again, adapt.ts `QueryMemory.refuse`). `teach` keeps what a step
 * learned, for this read only until refusals teach (adapt.ts `QueryMemory.teach`).
 */
export function saferFirstQuery(
  s: ListState,
  req: ListRequest,
  first: URL,
  e: UpstreamError,
  what: string,
  teach: (l: Learned) => void,
): boolean {
  const adapt = req.adapt!;
  const perPageParam = req.shape.perPageParam || 'per_page';
  if (s.retrial && s.adaptations === 0) {
    // Tally's own query, re-tried, is still refused: what was learned holds.
    s.retrial = false;
    const held = adapt.memory.confirm(req.org, req.endpoint, adapt.now());
    s.known = adapt.memory.version(req.org, req.endpoint);
    if (held !== undefined) {
      s.adaptations += 1;
      s.url = applyLearned(first, held, adapt.ctx);
      s.learned = held;
      s.at.perPage = Number(s.url.searchParams.get(perPageParam)) || s.at.perPage;
      return true;
    }
  } else if (s.adaptations === 0 && !s.provisional)
    adapt.memory.noteRefusal(req.org, req.endpoint, adapt.now());
  // Another read learned something meanwhile: go on from what it knows.
  const theirs = adapt.memory.get(req.org, req.endpoint);
  const version = adapt.memory.version(req.org, req.endpoint);
  // Refused lately, not learned yet: go on from where the last refused read got to (a read
  // that started there goes on down from it).
  const tentative =
    s.adaptations === 0 && !s.provisional ? adapt.memory.tentative(req.org, req.endpoint) : undefined;
  const adopt =
    tentative !== undefined && !sameQuery(tentative, s.learned)
      ? tentative
      : version !== s.known && theirs !== undefined && !sameQuery(theirs, s.learned)
        ? theirs
        : undefined;
  s.known = version;
  const next = adopt
    ? { url: applyLearned(first, adopt, adapt.ctx), learned: adopt }
    : saferQuery(s.url, e, s.learned, adapt.ctx, s.tried);
  if (next && s.adaptations < MAX_ADAPTATIONS) {
    s.adaptations += 1;
    req.onAdapt?.(`${what}: ${e.status}; trying ${describePath(next.url)}`, next.learned);
    s.url = next.url;
    s.learned = next.learned;
    // Remembered before it is tried, once refusals teach: a read that starts meanwhile,
    // or after a restart, starts from here instead of the top of the ladder.
    teach(withPaging(req, { ...s.learned, refused: true }));
    s.at.perPage = Number(s.url.searchParams.get(perPageParam)) || s.at.perPage;
    return true;
  }
  if (next) {
    // Out of tries for this read: the next read goes on from the next query.
    teach(withPaging(req, { ...next.learned, refused: true }));
  } else {
    // Nothing safer is left: the safest query is remembered as refused, and reads wait
    // before they ask again (one request, not the whole ladder), once refusals teach.
    teach(withPaging(req, { ...s.learned, refused: true }));
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
