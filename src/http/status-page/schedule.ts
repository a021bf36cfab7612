/**
 * What the channel table says of a session against its plan: the planned time range, a
 * session that did not start (only on evidence: its list was read after the planned start
 * and the grace), "cannot tell" while no such read exists, and a live one past its planned
 * end (docs/alerts.md, "No alert from blindness").
 */
import type { Session } from '../../snapshot/model.js';
import { NO_SHOW_GRACE_MS } from '../../poll/org-queries.js';
import { h, t, time } from './format.js';

/** `10:00–11:00` (UTC), or `10:00` without a planned end. */
export function plannedRange(s: Pick<Session, 'scheduledAt' | 'scheduledEndAt'>): string {
  const hm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  if (s.scheduledAt === undefined) return '';
  return s.scheduledEndAt === undefined ? hm(s.scheduledAt) : `${hm(s.scheduledAt)}–${hm(s.scheduledEndAt)}`;
}

/**
 * The cell for a channel's next planned session. `readAt` is when its session list was last
 * read completely (undefined: never).
 */
export function nextCell(next: Session, readAt: number | undefined, now: number): string {
  const name = t(next.title ?? next.id);
  const planned = `<span class="muted">(planned ${h(plannedRange(next))} UTC)</span>`;
  const due = (next.scheduledAt ?? Number.POSITIVE_INFINITY) + NO_SHOW_GRACE_MS;
  if (now < due) return `next: ${name} ${time(next.scheduledAt, now)} ${planned}`;
  if (readAt !== undefined && readAt >= due) {
    return `<strong class="badge failed">did not start</strong> ${name} ${planned}`;
  }
  return `<span class="badge unknown">cannot tell</span> whether ${name} started ${planned}: sessions last read ${time(readAt, now)}`;
}

/** What to add after a live session's "since …": its planned end, and an overrun. */
export function liveNote(live: Session, now: number): string {
  if (live.scheduledEndAt === undefined) return '';
  const end = new Date(live.scheduledEndAt).toISOString().slice(11, 16);
  if (now <= live.scheduledEndAt) return ` <span class="muted">until ${h(end)} UTC</span>`;
  return ` <strong class="badge failed">past its planned end</strong> <span class="muted">(${h(end)} UTC, ${time(live.scheduledEndAt, now)})</span>`;
}
