/**
 * The second step of a commit (org-poller.ts): a read's events weighed before they are
 * taken. Mass additions wait for a later read of their list (additions.ts), suspect
 * removals for further evidence (removals.ts); each newly held batch is logged once, and
 * the lists that confirm them are named for reading again.
 */
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import type { AdditionCheck } from './additions.js';
import type { ListKey, RemovalCheck } from './removals.js';

/** What a read's review holds and where it asks for reads again. */
export interface ReadReviewDeps {
  slug: string;
  logger: Logger;
  additions: AdditionCheck;
  removals: RemovalCheck;
}

/** A read's events as taken, the snapshot they apply to, and the lists to read again. */
export interface ReadReviewed {
  next: OrgSnapshot;
  events: ChangeEvent[];
  rereads: { list: ListKey; sessions?: string[] | undefined }[];
}

/** Reviews the events `diffed` of the read `read` taking `current` to `taken`. */
export function reviewRead(
  deps: ReadReviewDeps,
  read: string,
  diffed: ChangeEvent[],
  current: OrgSnapshot,
  taken: OrgSnapshot,
  now: number,
): ReadReviewed {
  const { additions, removals, logger, slug } = deps;
  const suspectBefore = new Set(
    removals
      .held()
      .filter((h) => h.suspect)
      .map((h) => h.list),
  );
  const rereads: ReadReviewed['rereads'] = [];
  const added = additions.review(read, diffed, current, taken, now);
  if (added.held > 0) {
    logger.warn(
      { org: slug, list: read, added: added.held },
      'suspect read: a mass of additions held until a later read confirms it',
    );
    rereads.push(...added.reread.map((list) => ({ list })));
  }
  const reviewed = removals.review(read, added.events, current, added.next, now);
  for (const h of removals.held()) {
    if (!h.suspect || suspectBefore.has(h.list)) continue;
    logger.warn(
      { org: slug, list: h.list, held: h.count },
      'suspect read: removals held until later reads confirm them',
    );
  }
  rereads.push(...reviewed.reread.map((list) => ({ list, sessions: reviewed.heldSessions?.get(list) })));
  return { next: reviewed.next, events: reviewed.events, rereads };
}
