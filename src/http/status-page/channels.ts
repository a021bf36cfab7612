/** The channel table: filtered, sorted live first, paged, with what is on air and the last change. */
import { getOwn } from '../../core/own.js';
import type { OrgView } from '../../poll/status.js';
import type { ChangeEvent } from '../../snapshot/events.js';
import type { Channel, Session, SessionDetail } from '../../snapshot/model.js';
import { channelClass, statusClass } from '../../snapshot/vocabulary.js';
import { sessionArray } from '../../snapshot/session-list.js';
import { CHANGED_WINDOW_MS, channelKey } from './changed.js';
import { h, t, keepRefresh, link, time, value } from './format.js';
import type { PageQuery } from './query.js';
import { liveNote, nextCell } from './schedule.js';

/** Channels per page of the channel table. */
export const CHANNELS_PER_PAGE = 100;

/** A live or upcoming session of a channel, with its detail when read. */
interface ChannelRow {
  org: string;
  channel: Channel;
  live: Session | undefined;
  next: Session | undefined;
  detail: SessionDetail | undefined;
  /** When the channel's session list was last read completely. */
  listAt: number | undefined;
  lastEvent: ChangeEvent | undefined;
}

export function channelsSection(
  shown: readonly OrgView[],
  orgs: readonly OrgView[],
  q: PageQuery,
  now: number,
  lastByEntity: ReadonlyMap<string, ChangeEvent>,
): string {
  const needle = q.q?.toLowerCase();
  const changedSince = now - CHANGED_WINDOW_MS;
  const rows: ChannelRow[] = [];
  for (const o of shown) {
    for (const channel of value(o.snapshot.channels) ?? []) {
      const cls = channelClass(channel.status);
      if (q.status === 'changed') {
        const last = lastByEntity.get(channelKey(o.slug, channel.id));
        if (last === undefined || last.at < changedSince) continue;
      } else if (q.status !== undefined && cls !== q.status) continue;
      if (needle !== undefined && !`${channel.id} ${channel.name ?? ''}`.toLowerCase().includes(needle))
        continue;
      rows.push({
        org: o.slug,
        channel,
        live: undefined,
        next: undefined,
        detail: undefined,
        listAt: undefined,
        lastEvent: undefined,
      });
    }
  }
  // Live first, then by name: what is on air is what the page is opened for. Recently
  // changed ones newest change first.
  if (q.status === 'changed')
    rows.sort(
      (a, b) =>
        (lastByEntity.get(channelKey(b.org, b.channel.id))?.at ?? 0) -
          (lastByEntity.get(channelKey(a.org, a.channel.id))?.at ?? 0) ||
        (a.channel.id < b.channel.id ? -1 : 1),
    );
  else
    rows.sort((a, b) => {
      const la = channelClass(a.channel.status) === 'live' ? 0 : 1;
      const lb = channelClass(b.channel.status) === 'live' ? 0 : 1;
      const na = (a.channel.name ?? a.channel.id).toLowerCase();
      const nb = (b.channel.name ?? b.channel.id).toLowerCase();
      return la - lb || (na < nb ? -1 : na > nb ? 1 : 0) || (a.channel.id < b.channel.id ? -1 : 1);
    });
  const pages = Math.max(1, Math.ceil(rows.length / CHANNELS_PER_PAGE));
  const pageNo = Math.min(q.page, pages);
  const slice = rows.slice((pageNo - 1) * CHANNELS_PER_PAGE, pageNo * CHANNELS_PER_PAGE);
  const byOrg = new Map(orgs.map((o) => [o.slug, o]));
  for (const r of slice) {
    const o = byOrg.get(r.org)!;
    const part = getOwn(o.snapshot.sessions, r.channel.id);
    const sessions = sessionArray(value(part) ?? []);
    r.listAt = part?.state === 'complete' ? part.at : undefined;
    r.live = sessions.find((s) => statusClass(s.status) === 'live');
    r.next = sessions
      .filter(
        (s) =>
          statusClass(s.status) === 'scheduled' &&
          s.scheduledAt !== undefined &&
          (s.scheduledAt >= now - 600_000 || (s.scheduledEndAt ?? 0) >= now),
      )
      .sort((a, b) => (a.scheduledAt ?? 0) - (b.scheduledAt ?? 0))[0];
    r.detail = r.live ? value(getOwn(o.snapshot.details, r.live.id)) : undefined;
    r.lastEvent = lastByEntity.get(channelKey(r.org, r.channel.id));
  }
  const total = rows.length;
  const liveCount = rows.filter((r) => channelClass(r.channel.status) === 'live').length;
  const base = { org: q.org, status: q.status, q: q.q };
  const nav =
    pages > 1
      ? `<nav aria-label="channel pages">${pageNo > 1 ? `<a href="${h(link(q, { ...base, page: pageNo - 1 }, '#channels'))}" rel="prev">previous</a>` : ''} page ${h(pageNo)} of ${h(pages)} ${pageNo < pages ? `<a href="${h(link(q, { ...base, page: pageNo + 1 }, '#channels'))}" rel="next">next</a>` : ''}</nav>`
      : '';
  return `<section aria-labelledby="channels"><h2 id="channels">Channels</h2>
<form method="get" action="./" role="search" class="filters">
${keepRefresh(q)}<label>org <select name="org"><option value="">all</option>${orgs.map((o) => `<option${o.slug === q.org ? ' selected' : ''}>${h(o.slug)}</option>`).join('')}</select></label>
<label>status <select name="status"><option value="">all</option>${['live', 'offline', 'unknown', 'changed'].map((s) => `<option${s === q.status ? ' selected' : ''}>${s}</option>`).join('')}</select></label>
<label>search <input type="search" name="q" value="${h(q.q ?? '')}" placeholder="name or id"></label>
<button type="submit">filter</button>
</form>
<p>${h(total)} channel${total === 1 ? '' : 's'}${q.status === undefined ? `, ${h(liveCount)} live` : q.status === 'changed' ? ' changed in the last hour, newest change first' : ''}</p>
${nav}
<table class="channels"><thead><tr><th scope="col">org</th><th scope="col">channel</th><th scope="col">status</th><th scope="col">on air / next</th><th scope="col">last change</th></tr></thead>
<tbody>
${slice.map((r) => channelRow(r, q, now)).join('\n')}
</tbody></table>
${nav}
</section>`;
}

function channelRow(r: ChannelRow, q: PageQuery, now: number): string {
  const cls = channelClass(r.channel.status);
  let air = '<span class="muted">—</span>';
  if (r.live) {
    const speakers = r.detail?.speakers.items.map((s) => s.text ?? s.id).slice(0, 5) ?? [];
    air = `<strong>${t(r.live.title ?? r.live.id)}</strong> since ${time(r.live.startedAt, now)}${liveNote(r.live, now)}${
      speakers.length > 0
        ? `<br><span class="muted">with ${speakers.map(h).join(', ')}${(r.detail?.speakers.count ?? 0) > speakers.length ? ' …' : ''}</span>`
        : ''
    }`;
  } else if (r.next?.scheduledAt !== undefined) {
    air = nextCell(r.next, r.listAt, now);
  }
  const last = r.lastEvent
    ? `<a href="${h(link(q, { entity: r.channel.id }, '#events'))}">${h(r.lastEvent.kind)}</a> ${time(r.lastEvent.at, now)}`
    : `<a href="${h(link(q, { entity: r.channel.id }, '#events'))}">history</a>`;
  return `<tr class="${cls}"><td>${h(r.org)}</td><td>${t(r.channel.name ?? r.channel.id)}<br><code>${h(r.channel.id)}</code></td><td><span class="badge ${cls}">${h(r.channel.status)}</span>${r.channel.visibility ? ` <span class="muted">${h(r.channel.visibility)}</span>` : ''}</td><td>${air}</td><td>${last}</td></tr>`;
}
