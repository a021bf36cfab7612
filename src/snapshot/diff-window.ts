/**
 * The window rule (docs/architecture.md, invariant 2): session lists are read for a time window, so a
 * session can leave or enter a list only because the window moved. These helpers say
 * whether a session belongs in a window at all.
 */
import type { Session, TimeWindow } from './model.js';
import { isEndedStatus } from './status.js';

/** The time a session occupies: from its scheduled (else actual) start to its end, both inclusive. */
export interface SessionSpan {
  /** `-Infinity` when the session has neither a scheduled nor an actual start. */
  from: number;
  /** `+Infinity` while the session may still run. */
  to: number;
}

/**
 * `[scheduledAt ?? startedAt, endedAt ?? +∞]`. A session whose status says it is over but
 * that carries no `endedAt` ends at its latest known time instead of running forever, so
 * that it can still age out of the window.
 */
export function sessionSpan(s: Session): SessionSpan {
  const from = s.scheduledAt ?? s.startedAt ?? Number.NEGATIVE_INFINITY;
  let to = s.endedAt;
  if (to === undefined) {
    to = isEndedStatus(s.status)
      ? Math.max(s.startedAt ?? Number.NEGATIVE_INFINITY, s.scheduledAt ?? Number.NEGATIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  }
  // An end before the start is bad data; the span then shrinks to its start.
  return { from, to: Math.max(from, to) };
}

/** Whether a session's span touches a window (both ends inclusive). */
export function inWindow(s: Session, window: TimeWindow): boolean {
  const span = sessionSpan(s);
  return span.from <= window.to && span.to >= window.from;
}
