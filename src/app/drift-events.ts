/**
 * Schema drift as change events: one `upstream.schema_drift` event per distinct problem.
 * The event id is the problem's hash, so the event log keeps each once, across restarts
 * too; the set of problems already announced only saves appending duplicates, and holds
 * the most recent {@link MAX_REMEMBERED} so that a server whose problems never repeat
 * cannot grow it without end.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { DriftIssue } from '../upstream/shape/index.js';

/** Distinct problems remembered; older ones are forgotten first. */
export const MAX_REMEMBERED = 1024;

/** Turns drift reports into events, each distinct problem once while it is remembered. */
export class DriftEvents {
  /** Insertion-ordered: the first key is the one least recently seen. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly max = MAX_REMEMBERED,
  ) {}

  /** The event for `issue`, or undefined when the same problem was announced recently. */
  eventFor(issue: DriftIssue & { org: string }): ChangeEvent | undefined {
    const key = JSON.stringify([issue.org, issue.endpoint, issue.field, issue.problem, issue.fatal]);
    if (this.seen.has(key)) {
      this.seen.delete(key);
      this.seen.add(key);
      return undefined;
    }
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
    return {
      id: createHash('sha256').update(key).digest('hex').slice(0, 20),
      at: this.clock.now(),
      org: issue.org,
      kind: 'upstream.schema_drift',
      entity: { kind: 'upstream', id: issue.org },
      field: `${issue.endpoint}.${issue.field}`,
      to: issue.problem,
      labels: {
        endpoint: issue.endpoint,
        field: issue.field,
        problem: issue.problem,
        fatal: String(issue.fatal),
      },
    };
  }

  /** How many distinct problems are remembered now. */
  get size(): number {
    return this.seen.size;
  }
}
