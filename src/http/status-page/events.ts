/** Recent changes: the event log read with the page's filters, and its table. */
import type { StatusSource } from '../../poll/status.js';
import type { ChangeEvent } from '../../snapshot/events.js';
import { h, keepRefresh, link, show, time } from './format.js';
import type { PageQuery } from './query.js';

export async function recentEvents(
  source: StatusSource,
  q: PageQuery,
  limit: number,
): Promise<ChangeEvent[]> {
  try {
    const page = await source.events({
      limit,
      ...(q.org === undefined ? {} : { org: q.org }),
      ...(q.entity === undefined ? {} : { entityId: q.entity }),
      ...(q.kind === undefined ? {} : { kinds: [q.kind as ChangeEvent['kind']] }),
    });
    return page.events;
  } catch {
    return [];
  }
}

export function eventsSection(events: ChangeEvent[], q: PageQuery, now: number): string {
  const filtered = q.entity !== undefined || q.kind !== undefined;
  return `<section aria-labelledby="events"><h2 id="events">Recent changes${q.entity ? ` of <code>${h(q.entity)}</code>` : ''}</h2>
<form method="get" action="./#events" class="filters">
${q.org ? `<input type="hidden" name="org" value="${h(q.org)}">` : ''}${keepRefresh(q)}
<label>kind <input name="kind" value="${h(q.kind ?? '')}" placeholder="e.g. session.started" size="22"></label>
<label>entity <input name="entity" value="${h(q.entity ?? '')}" placeholder="channel or session id" size="22"></label>
<button type="submit">filter</button>${filtered ? ` <a href="${h(link(q, { org: q.org }, '#events'))}">all changes</a>` : ''}
</form>
${
  events.length === 0
    ? '<p class="muted">no changes</p>'
    : `<table><thead><tr><th scope="col">when</th><th scope="col">org</th><th scope="col">change</th><th scope="col">entity</th><th scope="col">from → to</th></tr></thead><tbody>
${events
  .map(
    (e) =>
      `<tr><td>${time(e.at, now)}</td><td>${h(e.org)}</td><td>${h(e.kind)}</td><td><a href="${h(link(q, { entity: e.entity.id }, '#events'))}">${h(e.labels['channel'] ?? e.labels['session'] ?? e.labels['member'] ?? e.entity.id)}</a></td><td>${e.from === undefined && e.to === undefined ? '' : `${h(show(e.from))} → ${h(show(e.to))}`}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`
}
</section>`;
}
