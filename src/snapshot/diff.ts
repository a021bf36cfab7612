/**
 * `diff(prev, next)`: the pure comparison of two snapshots of one organization into typed
 * change events. No I/O and no clock: the same two snapshots always give the same events,
 * with the same ids, in the same order.
 *
 * Rules (docs/events.md has them for users):
 * - a part is compared only when it was fetched completely in both snapshots; a part that
 *   is absent, failed or incomplete on either side yields nothing (docs/architecture.md, invariant 1);
 * - a session that left or entered a list only because the window moved is neither
 *   removed nor added (invariant 2, see `diff-window.ts`);
 * - every event's `at` is the fetch time of the part of `next` that showed it.
 */
import { TallyError } from '../core/errors.js';
import { diffChannels } from './diff-channels.js';
import { EventSink, Labeler } from './diff-context.js';
import { diffDetails } from './diff-detail.js';
import { diffProfile, diffSubscription, diffTeam } from './diff-org.js';
import { diffSessions } from './diff-sessions.js';
import type { ChangeEvent } from './events.js';
import type { OrgSnapshot } from './model.js';

export { inWindow, sessionSpan } from './diff-window.js';
export { isEndedStatus, isLiveStatus, isScheduledStatus } from './status.js';

/** How `diff` names its events. */
export interface DiffOptions {
  /**
   * Replaces the deterministic ids (see `event-id.ts`) with ids from this function. The
   * default ids are stable across replays, which downstream idempotency relies on; only
   * use this where that does not matter.
   */
  newId?: () => string;
  /**
   * The channels whose session list may differ between the two snapshots, when the caller
   * knows (a poll that read one list): every other list must be the very same part in
   * both. Spares looking at every channel's key at 5000 channels; the events are the same.
   */
  changedLists?: readonly string[];
  /**
   * Sessions whose first detail is compared with what was there before a time (ms)
   * instead of being a silent baseline: sessions tally watched start (diff-detail.ts).
   */
  firstDetails?: ReadonlyMap<string, number>;
}

/** Two snapshots of different organizations were handed to `diff`. */
export class DiffError extends TallyError {
  constructor(message: string) {
    super(message, { reason: 'diff' });
  }
}

/**
 * The change events between two snapshots of one organization, ordered by part (profile,
 * team, subscription, channels, sessions by channel id, details by session id), then by
 * entity id.
 */
export function diff(prev: OrgSnapshot, next: OrgSnapshot, opts: DiffOptions = {}): ChangeEvent[] {
  if (prev.org !== next.org) {
    throw new DiffError(`cannot diff snapshots of different orgs: ${prev.org} and ${next.org}`);
  }
  const sink = new EventSink(next.org, opts.newId);
  const labeler = new Labeler(prev, next);
  diffProfile(prev, next, sink);
  diffTeam(prev, next, sink);
  diffSubscription(prev, next, sink);
  diffChannels(prev, next, labeler, sink);
  diffSessions(prev, next, labeler, sink, opts.changedLists);
  diffDetails(prev, next, labeler, sink, opts.firstDetails);
  return sink.events;
}
