/**
 * Change events: what tally makes out of two snapshots, and out of the health of the
 * upstream. They feed the event log, the alert rules and the JSON API.
 */

import { DETAIL_EVENT_KINDS } from './detail-groups.js';

/** Every kind of change event tally emits. */
export const EVENT_KINDS = [
  'org.changed',
  'member.added',
  'member.added_bulk',
  'member.removed',
  'member.role_changed',
  'member.changed',
  'subscription.plan_changed',
  'subscription.limit_changed',
  'subscription.usage_changed',
  'subscription.funding_changed',
  'wallet.balance_changed',
  'channel.added',
  'channel.added_bulk',
  'channel.removed',
  'channel.status_changed',
  'channel.visibility_changed',
  'channel.renamed',
  'session.added',
  'session.added_bulk',
  'session.removed',
  'session.status_changed',
  'session.started',
  'session.ended',
  'session.renamed',
  'session.rescheduled',
  // The detail groups' kinds (question_added … ai_status_changed), one row each.
  ...DETAIL_EVENT_KINDS,
  'upstream.unreachable',
  'upstream.auth_failed',
  'upstream.recovered',
  'upstream.schema_drift',
] as const;

/** A kind of change event, e.g. `channel.status_changed`. */
export type EventKind = (typeof EVENT_KINDS)[number];

/** The kind of entity an event is about. */
export type EntityKind = 'org' | 'member' | 'subscription' | 'channel' | 'session' | 'upstream';

/** A JSON value as carried in `from` and `to`. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One detected change. */
export interface ChangeEvent {
  /** Stable, unique id (also the idempotency key downstream). */
  id: string;
  /** When tally detected the change (the time of the fetch that showed it). */
  at: number;
  org: string;
  kind: EventKind;
  entity: { kind: EntityKind; id: string };
  /** The field that changed, for `*_changed` kinds (`status`, `role`, `limits.channels` …). */
  field?: string;
  from?: JsonValue;
  to?: JsonValue;
  /**
   * Readable labels of the entity and its parents: `channel` (name), `channel_id`,
   * `session` (title), `session_id`, `member` (name) … Used by templates and rules.
   */
  labels: Record<string, string>;
}

/** Whether a string names a known event kind. */
export function isEventKind(value: string): value is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(value);
}
