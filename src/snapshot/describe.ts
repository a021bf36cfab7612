/**
 * One readable line per change event, for the demo's terminal stream, logs and
 * default alert summaries.
 */
import type { ChangeEvent, JsonValue } from './events.js';

function show(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(2);
  return JSON.stringify(v);
}

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

/** A one-line description of an event, e.g. `channel Morning Show: offline → live`. */
export function describeEvent(e: ChangeEvent): string {
  const name = entityName(e);
  const change = `${show(e.from)} → ${show(e.to)}`;
  switch (e.kind) {
    case 'channel.added':
    case 'member.added':
    case 'session.added':
      return `${e.entity.kind} ${name} added${e.to !== undefined ? ` (${show(e.to)})` : ''}`;
    case 'channel.removed':
    case 'member.removed':
    case 'session.removed':
      return `${e.entity.kind} ${name} removed`;
    case 'session.started':
      return `session ${name} went live`;
    case 'session.ended':
      return `session ${name} ended (${show(e.to)})`;
    case 'session.question_added':
      return `question in ${name}: ${show(e.to)}`;
    case 'session.announcement_added':
      return `announcement in ${name}: ${show(e.to)}`;
    case 'session.speaker_joined':
      return `speaker ${show(e.to)} joined ${name}`;
    case 'session.speaker_left':
      return `speaker ${show(e.from)} left ${name}`;
    case 'upstream.unreachable':
      return `upstream unreachable (${e.labels['error'] ?? e.labels['reason'] ?? 'no answer'})`;
    case 'upstream.auth_failed':
      return `token refused (${e.labels['error'] ?? 'auth'})`;
    case 'upstream.recovered':
      return 'upstream recovered';
    case 'upstream.schema_drift':
      return `schema drift: ${e.field ?? ''}: ${show(e.to)}`;
    default:
      return `${e.entity.kind} ${name}: ${e.field ? `${e.field} ` : ''}${change}`;
  }
}
