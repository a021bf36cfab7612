/**
 * What one org poller owes the session details (org-poller.ts): the final reads of
 * sessions that ended, and the time from which the first detail of a watched start is news.
 */
import type { OrgSnapshot, Part, SessionDetail } from '../snapshot/model.js';
import { isAiWorking } from '../snapshot/status.js';
import { RETRYABLE_UPSTREAM_REASONS, type UpstreamReason } from '../upstream/errors.js';
import { endedWithDetail, firstSinceOf } from './prune-details.js';

/** How long after a session ended its detail is read again while its AI is at work. */
const AI_FOLLOW_MS = 60 * 60_000;

/** Sessions whose first detail the poller compares rather than takes as a baseline, at most. */
const MAX_FIRST_DETAILS = 10_000;

/** The detail reads an org poller owes. In memory; rebuilt from a stored snapshot (resume). */
export class DetailLedger {
  /** Sessions whose detail is owed a final read: ended, or still ended in a stored snapshot. */
  readonly owed = new Set<string>();
  /**
   * Until when an ended session's detail is read again while its AI is still at work
   * (transcribing, summarizing): its final state comes minutes after the end.
   */
  private readonly owedUntil = new Map<string, number>();
  /**
   * Sessions tally watched start and has no detail of yet, with the time from which what
   * their first detail shows is new (diff-detail.ts): the look before the start, less the
   * margin for the server's clock. Bounded.
   */
  private readonly firstSince = new Map<string, number>();

  /** Takes up what a stored snapshot shows still owed, at `now`. */
  resume(initial: OrgSnapshot, now: number): void {
    // Details of ended sessions a stored snapshot holds were waiting for their final read
    // when it was saved (pruning drops the others): a restart must not lose that read.
    for (const id of endedWithDetail(initial)) this.ended(id, now);
    // Watched starts whose first detail read had only failed when the snapshot was saved.
    for (const [id, d] of Object.entries(initial.details)) {
      const since = firstSinceOf(d);
      if (since !== undefined && this.firstSince.size < MAX_FIRST_DETAILS) this.firstSince.set(id, since);
    }
  }

  /** Session `id` ended at `now`: its detail is owed a final read. */
  ended(id: string, now: number): void {
    this.owed.add(id);
    this.owedUntil.set(id, now + AI_FOLLOW_MS);
  }

  /**
   * A read of `id`'s detail came back as `part` at `now`. A final read that failed for a
   * while (a timeout, a 5xx) is tried again with the next round of details; one the server
   * refuses for good (gone, 4xx) is not. One that shows the AI still at work is read again,
   * for an hour after the end at most.
   */
  answered(id: string, part: Part<SessionDetail>, now: number): void {
    const retry =
      part.state === 'failed' && RETRYABLE_UPSTREAM_REASONS.includes(part.error.reason as UpstreamReason);
    const working =
      part.state !== 'failed' &&
      isAiWorking(part.value.ai) &&
      now < (this.owedUntil.get(id) ?? Number.NEGATIVE_INFINITY);
    if (!retry && !working) {
      this.owed.delete(id);
      this.owedUntil.delete(id);
    }
  }

  /** From when the first detail of the watched start `id` is news, while it is unread. */
  firstSinceOf(id: string): number | undefined {
    return this.firstSince.get(id);
  }

  /** A watched start: what its first detail shows from `since` is news (bounded: the oldest goes). */
  watched(id: string, since: number): void {
    this.firstSince.set(id, since);
    if (this.firstSince.size > MAX_FIRST_DETAILS)
      this.firstSince.delete(this.firstSince.keys().next().value!);
  }

  /** The first detail of `id` was read whole. */
  firstRead(id: string): void {
    this.firstSince.delete(id);
  }
}
