/**
 * One readable line per change event, for the demo's terminal stream, logs and
 * default alert summaries. Every kind has its line here: the detail groups' come from
 * their rows (detail-groups.ts), and a kind without a line does not compile.
 */
import { changeLine, DETAIL_GROUPS, type DetailEventKind } from './detail-groups.js';
import type { ChangeEvent, EventKind } from './events.js';
import { show } from './show.js';

/** The entity's readable name: channel name, session title, member name, or its id. */
export function entityName(e: ChangeEvent): string {
  const l = e.labels;
  switch (e.entity.kind) {
    case 'channel':
      return l['channel'] ?? e.entity.id;
    case 'session': {
      const title = l['session'] ?? e.entity.id;
      return l['channel'] ? `${title} on ${l['channel']}` : title;
    }
    case 'member':
      return l['member'] ?? e.entity.id;
    default:
      return e.entity.id;
  }
}

type Line = (e: ChangeEvent, name: string) => string;

const added: Line = (e, name) =>
  `${e.entity.kind} ${name} added${e.to !== undefined ? ` (${show(e.to)})` : ''}`;
const removed: Line = (e, name) => `${e.entity.kind} ${name} removed`;

/** The detail groups' lines, from their rows. */
function detailLines(): Record<DetailEventKind, Line> {
  const out = {} as Record<DetailEventKind, Line>;
  for (const row of Object.values(DETAIL_GROUPS)) Object.assign(out, row.describe);
  return out;
}

/** The line of each kind. */
const LINES = {
  'org.changed': changeLine,
  'member.added': added,
  'member.added_bulk': changeLine,
  'member.removed': removed,
  'member.role_changed': changeLine,
  'member.changed': changeLine,
  'subscription.plan_changed': changeLine,
  'subscription.limit_changed': changeLine,
  'subscription.usage_changed': changeLine,
  'subscription.funding_changed': changeLine,
  'wallet.balance_changed': changeLine,
  'channel.added': added,
  'channel.added_bulk': changeLine,
  'channel.removed': removed,
  'channel.status_changed': changeLine,
  'channel.visibility_changed': changeLine,
  'channel.renamed': changeLine,
  'session.added': added,
  'session.added_bulk': changeLine,
  'session.removed': removed,
  'session.status_changed': changeLine,
  'session.started': (_e, name) => `session ${name} went live`,
  'session.ended': (e, name) => `session ${name} ended (${show(e.to)})`,
  'session.renamed': changeLine,
  'session.rescheduled': changeLine,
  ...detailLines(),
  'upstream.unreachable': (e) =>
    `upstream unreachable (${e.labels['error'] ?? e.labels['reason'] ?? 'no answer'})`,
  'upstream.auth_failed': (e) => `token refused (${e.labels['error'] ?? 'auth'})`,
  'upstream.recovered': () => 'upstream recovered',
  'upstream.schema_drift': (e) => `schema drift: ${e.field ?? ''}: ${show(e.to)}`,
} satisfies Record<EventKind, Line>;

/** A one-line description of an event, e.g. `channel Morning Show: offline → live`. */
export function describeEvent(e: ChangeEvent): string {
  // An event read back from a log of another build may carry a kind this one does not know.
  const line: Line = (LINES as Partial<Record<string, Line>>)[e.kind] ?? changeLine;
  return line(e, entityName(e));
}
