/**
 * The priority of a request, which the budget serves waiting requests by
 * (docs/upstream-client.md, "The budget"): its class, and an Urgency that more askers of one
 * read may share and raise.
 */
/**
 * Priority class of a request: `high` for the channel list, `follow` for reads a change
 * asked for (every one of them, also after a storm), `normal` for periodic reads and
 * `low` for the background sweep.
 */
export type Priority = 'high' | 'follow' | 'normal' | 'low';

/** Classes in the order they are served. */
export const PRIORITIES: readonly Priority[] = ['high', 'follow', 'normal', 'low'];

/**
 * The priority of one read that more askers may share, which rises to the most urgent of
 * them: a follow-up or a periodic read that finds the same read already waiting as a
 * sweep read raises it, and its requests still waiting in the budget move to the higher
 * class, rather than all of them waiting behind every periodic read.
 */
export class Urgency {
  #priority: Priority;
  readonly #listeners = new Set<() => void>();

  constructor(priority: Priority) {
    this.#priority = priority;
  }

  get priority(): Priority {
    return this.#priority;
  }

  /** Raises the priority to `priority` when that is more urgent; never lowers it. */
  raise(priority: Priority): void {
    if (PRIORITIES.indexOf(priority) >= PRIORITIES.indexOf(this.#priority)) return;
    this.#priority = priority;
    for (const fn of [...this.#listeners]) fn();
  }

  /** Calls `fn` at every rise until the returned function is called. */
  onRaise(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
