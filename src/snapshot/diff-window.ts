/**
 * The window rule (docs/architecture.md, invariant 2): session lists are read for a time window, so a
 * session can leave or enter a list only because the window moved. These helpers say
 * whether a session belongs in a window at all.
 */
import type { Session, TimeWindow } from './model.js';
import { isEndedStatus, isLiveStatus } from './status.js';

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

/**
 * Whether a session belongs in a window: its span touches it (both ends inclusive) and a
 * read of that window keeps it ({@link outsideWindow}, the rule the client applies to
 * what a server answers). One rule for both: a session the client drops as outside must
 * never count as inside here, or its absence from the next list would read as a removal
 * (a scheduled session long overdue, with a span open to the future, was reported
 * removed once its planned start left the window).
 */
export function inWindow(s: Session, window: TimeWindow): boolean {
  if (windowUnknown(s)) return false;
  const span = sessionSpan(s);
  return span.from <= window.to && span.to >= window.from && !outsideWindow(s, window);
}

/**
 * Whether a session carries none of the times that place it (no planned start, no start,
 * no end) and is not live: where it lies is unknown. It is kept as read (nothing is dropped
 * on a guess) but never counted in the window, so its appearing or leaving is no addition
 * or removal, and "no time" never reads as "in the window" (docs/upstream-shapes.md,
 * "Blindness is loud").
 */
export function windowUnknown(s: {
  status?: string;
  scheduledAt?: number;
  startedAt?: number;
  endedAt?: number;
}): boolean {
  return (
    s.scheduledAt === undefined &&
    s.startedAt === undefined &&
    s.endedAt === undefined &&
    !isLiveStatus(s.status)
  );
}

/**
 * Whether a session lies wholly outside the window, judged by the times it has: ended
 * before the window opens, starting (scheduled or started) after it closes, or never
 * started and not live with its planned start before the window opens (a cancelled or
 * long-overdue session is the instant it was planned for). A live session, or one without
 * the times to say, is kept: nothing is dropped on a guess.
 */
export function outsideWindow(
  s: { status?: string; scheduledAt?: number; startedAt?: number; endedAt?: number },
  window: TimeWindow,
): boolean {
  if (isLiveStatus(s.status)) return false;
  if (s.endedAt !== undefined && s.endedAt < window.from) return true;
  const start = s.startedAt ?? s.scheduledAt;
  if (start !== undefined && start > window.to) return true;
  return (
    s.startedAt === undefined &&
    s.endedAt === undefined &&
    s.scheduledAt !== undefined &&
    s.scheduledAt < window.from
  );
}
