/**
 * Recently changed channels, and the newest change of each channel that the channel
 * table shows and filters by.
 */
import type { OrgView } from '../../poll/status.js';
import type { ChangeEvent } from '../../snapshot/events.js';
import { h, t, link, show, time, value } from './format.js';
import type { PageQuery } from './query.js';

/** Channels listed under "recently changed". */
const CHANGED_SHOWN = 10;
/** How far back `?status=changed` looks. */
export const CHANGED_WINDOW_MS = 3_600_000;

/**
 * The newest change of each channel, its own events and those of its sessions, by
 * {@link channelKey}, newest channel first (`events` are newest first, and a Map keeps
 * insertion order).
 */
export function lastChangeByChannel(events: readonly ChangeEvent[]): Map<string, ChangeEvent> {
  const last = new Map<string, ChangeEvent>();
  for (const e of events) {
    const channelId = e.entity.kind === 'channel' ? e.entity.id : e.labels['channel_id'];
    if (channelId === undefined) continue;
    const key = channelKey(e.org, channelId);
    if (!last.has(key)) last.set(key, e);
  }
  return last;
}

/** A channel across orgs: its org and id. */
export function channelKey(org: string, channelId: string): string {
  return `${org}\u0000${channelId}`;
}

/** The channel id of an event about a channel or one of its sessions. */
export function channelOf(e: ChangeEvent): string {
  return e.entity.kind === 'channel' ? e.entity.id : (e.labels['channel_id'] ?? e.entity.id);
}

/** The channels that changed last, newest first, each linking to its history. */
export function changedSection(
  shown: readonly OrgView[],
  q: PageQuery,
  now: number,
  lastByChannel: ReadonlyMap<string, ChangeEvent>,
): string {
  const latest: ChangeEvent[] = [];
  for (const e of lastByChannel.values()) {
    if (latest.length === CHANGED_SHOWN) break;
    latest.push(e);
  }
  // Names as the snapshot has them now; one pass, only for the few listed.
  const names = new Map<string, string>(
    latest.map((e) => [channelKey(e.org, channelOf(e)), e.labels['channel'] ?? channelOf(e)]),
  );
  for (const o of shown)
    for (const c of value(o.snapshot.channels) ?? []) {
      const key = channelKey(o.slug, c.id);
      if (c.name !== undefined && names.has(key)) names.set(key, c.name);
    }
  let lastHour = 0;
  for (const e of lastByChannel.values()) if (e.at >= now - CHANGED_WINDOW_MS) lastHour++;
  return `<section aria-labelledby="changed"><h2 id="changed">Recently changed channels</h2>
${
  latest.length === 0
    ? '<p class="muted">no recent changes</p>'
    : `<ol class="changed">${latest
        .map(
          (e) =>
            `<li>${time(e.at, now)} · <a href="${h(link(q, { entity: channelOf(e) }, '#events'))}">${t(names.get(channelKey(e.org, channelOf(e))))}</a> <code>${h(channelOf(e))}</code> · ${h(e.kind)}${e.to === undefined ? '' : ` → ${t(show(e.to))}`} <span class="muted">(${h(e.org)})</span></li>`,
        )
        .join('')}</ol>
<p><a href="${h(link(q, { org: q.org, status: 'changed' }, '#channels'))}">${h(lastHour)} channel${lastHour === 1 ? '' : 's'} changed in the last hour</a></p>`
}
</section>`;
}
