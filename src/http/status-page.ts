/**
 * `/`: what tally sees right now, at a glance (docs/http-api.md, "GET /"). Server-rendered
 * HTML that works without JavaScript (filters are GET forms, long lists are paged); a
 * small script of tally's own refreshes the page's main part every few seconds without a
 * full reload. Everything from the upstream API (names, titles, speakers) is untrusted
 * and goes through one escaping function; the Content-Security-Policy allows no inline
 * script or style. Links are relative, so the page works behind a path prefix.
 */
import type { AlertView } from '../alerts/engine.js';
import type { MaintenanceView } from '../alerts/maintenance.js';
import type { SilenceView } from '../alerts/silences.js';
import { getOwn } from '../core/own.js';
import type { OrgView, StatusSource } from '../core/status.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { Channel, Session, SessionDetail } from '../snapshot/model.js';
import { channelClass, statusClass } from '../snapshot/vocabulary.js';
import { STATUS_PAGE_CSS, STATUS_PAGE_JS } from './status-page-assets.js';
import type { HttpReply } from './reply.js';
import type { Router } from './router.js';

/** Channels per page of the channel table. */
export const CHANNELS_PER_PAGE = 100;
/** Recent events shown. */
const EVENTS_SHOWN = 50;
/** How far ahead "scheduled soon" looks. */
const SOON_MS = 24 * 3_600_000;
/** Seconds between the page's refreshes unless `?refresh=` says otherwise (0: never). */
export const DEFAULT_REFRESH_SECONDS = 10;
/** Channels listed under "recently changed". */
const CHANGED_SHOWN = 10;
/** How far back `?status=changed` looks. */
export const CHANGED_WINDOW_MS = 3_600_000;
/** Recent events read for the channels' last change (and so for "recently changed"). */
const LAST_CHANGE_EVENTS = 500;

/** The delivery side, for the outbox panel. */
export interface OutboxView {
  receivers(): { name: string; depth: number; oldestAgeMs: number }[];
  failing(): { receiver: string; attempts: number; lastError: string | undefined; createdAt: number }[];
}

/** Where the page reads what it shows. */
export interface StatusPageDeps {
  source: StatusSource;
  version: string;
  now(): number;
  /** Alerts, silences, maintenance; absent when no alerting is configured. */
  alerts?: () => Promise<{
    alerts(): AlertView[];
    silences(): SilenceView[];
    maintenance(): MaintenanceView[];
  }>;
  outbox?: () => OutboxView | undefined;
}

/** The page's filters, from its query. */
export interface PageQuery {
  org?: string;
  /** `live`, `offline`, `unknown`, `changed` (a change in the last hour) or absent for all. */
  status?: string;
  q?: string;
  page: number;
  kind?: string;
  entity?: string;
  /** Seconds between refreshes (0: none) when not the default; links and forms keep it. */
  refresh?: number;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Adds `/`, its script and its style sheet. */
export function addStatusPageRoutes(router: Router, deps: StatusPageDeps): void {
  router.addRoute('GET', '/', async (ctx) => {
    const query = parseQuery(ctx.query);
    const fragment = ctx.query.get('fragment') === '1';
    const main = await renderMain(deps, query);
    return html(fragment ? main : page(deps.version, main, query, deps.now()));
  });
  router.addRoute('GET', '/-/status-page.js', () => asset(STATUS_PAGE_JS, 'text/javascript; charset=utf-8'));
  router.addRoute('GET', '/-/status-page.css', () => asset(STATUS_PAGE_CSS, 'text/css; charset=utf-8'));
}

function html(body: string): HttpReply {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
    body,
  };
}

function asset(body: string, type: string): HttpReply {
  return {
    status: 200,
    headers: { 'content-type': type, 'x-content-type-options': 'nosniff', 'cache-control': 'max-age=300' },
    body,
  };
}

/** Reads the page's filters; anything malformed is ignored, never an error page. */
export function parseQuery(q: URLSearchParams): PageQuery {
  const text = (name: string, max = 200) => {
    const v = q.get(name)?.trim();
    return v === undefined || v === '' ? undefined : v.slice(0, max);
  };
  const page = Number(q.get('page'));
  const out: PageQuery = { page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1 };
  const org = text('org');
  if (org !== undefined) out.org = org;
  const status = text('status');
  if (status === 'live' || status === 'offline' || status === 'unknown' || status === 'changed')
    out.status = status;
  const search = text('q');
  if (search !== undefined) out.q = search;
  const kind = text('kind', 64);
  if (kind !== undefined) out.kind = kind;
  const entity = text('entity');
  if (entity !== undefined) out.entity = entity;
  const refresh = Number(text('refresh', 8) ?? Number.NaN);
  if (Number.isInteger(refresh) && refresh >= 0 && refresh <= 3600 && refresh !== DEFAULT_REFRESH_SECONDS)
    out.refresh = refresh;
  return out;
}

/** One escaping function for everything that goes into the page, text or attribute. */
export function h(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A relative link to the page with `query` (empty values left out), keeping the refresh
 * interval of the page it is on.
 */
function link(q: PageQuery, query: Record<string, string | number | undefined>, hash = ''): string {
  const p = new URLSearchParams();
  const all: Record<string, string | number | undefined> = { ...query, refresh: q.refresh };
  for (const [k, v] of Object.entries(all)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return `./${s === '' ? '' : `?${s}`}${hash}`;
}

function time(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">never</span>';
  const iso = new Date(ms).toISOString();
  return `<time datetime="${h(iso)}" title="${h(iso)}">${h(ago(now - ms))}</time>`;
}

function ago(ms: number): string {
  const future = ms < 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const text =
    s < 90
      ? `${s}s`
      : s < 5400
        ? `${Math.round(s / 60)}m`
        : s < 172_800
          ? `${Math.round(s / 3600)}h`
          : `${Math.round(s / 86_400)}d`;
  return future ? `in ${text}` : `${text} ago`;
}

function page(version: string, main: string, q: PageQuery, now: number): string {
  const every = q.refresh ?? DEFAULT_REFRESH_SECONDS;
  const { refresh: _, ...rest } = q;
  const filters = { ...rest, page: q.page === 1 ? undefined : q.page };
  // A way to stop the updates (and to start them again), for whoever they disturb.
  const toggle =
    every === 0
      ? `auto-refresh off (<a href="${h(link({ page: 1 }, filters))}">turn on</a>)`
      : `auto-refresh every ${h(every)}s (<a href="${h(link({ page: 1, refresh: 0 }, filters))}">stop</a>)`;
  return `<!doctype html>
<html lang="en" data-refresh="${h(every * 1000)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tally — status</title>
<link rel="stylesheet" href="-/status-page.css">
<script src="-/status-page.js" defer></script>
</head>
<body>
<header>
<h1>tally</h1>
<p class="muted">version ${h(version)} · <span id="refreshed">rendered ${h(new Date(now).toISOString())}</span> · ${toggle} ·
<a href="api/v1/status">status API</a> · <a href="api/v1/events">events API</a> · <a href="metrics">metrics</a> · <a href="-/healthy">-/healthy</a> · <a href="-/ready">-/ready</a></p>
</header>
<main id="main" tabindex="-1">
${main}
</main>
</body>
</html>
`;
}

async function renderMain(deps: StatusPageDeps, q: PageQuery): Promise<string> {
  const now = deps.now();
  const orgs = [...deps.source.orgs()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const plan = deps.source.plan();
  const budget = deps.source.budget();
  const shown = q.org === undefined ? orgs : orgs.filter((o) => o.slug === q.org);
  const events = await recentEvents(deps.source, q, EVENTS_SHOWN);
  // The channel table's "last change" looks further back, unfiltered by kind or entity.
  const recent = await recentEvents(
    deps.source,
    q.org === undefined ? { page: 1 } : { page: 1, org: q.org },
    LAST_CHANGE_EVENTS,
  );
  const lastChange = lastChangeByChannel(recent);
  const alerting = deps.alerts ? await deps.alerts().catch(() => undefined) : undefined;
  const parts = [
    `<section aria-labelledby="overview"><h2 id="overview">Overview</h2>
<p>${deps.source.ready() ? '<span class="ok">ready</span>' : '<span class="warn">not ready</span>'} ·
budget ${h(budget.usedLastMinute)}/${h(budget.effective)} requests in the last minute${budget.pausedUntil > now ? ` · <span class="bad">paused by a 429 until ${h(new Date(budget.pausedUntil).toISOString())}</span>` : ''} ·
every channel's sessions read within ${h(Math.round(plan.sweepBoundMs / 1000))}s · channel list every ${h(Math.round(plan.intervals.channels / 1000))}s</p>
${plan.notes.length > 0 ? `<ul class="notes">${plan.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>` : ''}
<div class="orgs">${orgs.map((o) => orgCard(o, q, now)).join('\n')}</div></section>`,
    channelsSection(shown, orgs, q, now, lastChange),
    changedSection(shown, q, now, lastChange),
    soonSection(shown, now),
    eventsSection(events, q, now),
    alertsSection(alerting, deps.outbox?.(), now),
  ];
  return parts.join('\n');
}

function orgCard(o: OrgView, q: PageQuery, now: number): string {
  const channels = value(o.snapshot.channels);
  const unread = channels
    ? channels.filter((c) => value(getOwn(o.snapshot.sessions, c.id)) === undefined).length
    : undefined;
  const state = o.health.state;
  const cls = state === 'ok' ? 'ok' : state === 'unknown' ? 'muted' : 'bad';
  const fatal = (o.drift ?? []).filter((d) => d.fatal);
  const drift = (o.drift ?? []).slice(0, 5);
  const learned = Object.entries(o.learned ?? {});
  const spend = o.spend ?? {};
  return `<article class="card" aria-label="org ${h(o.slug)}">
<h3><a href="${h(link(q, { org: o.slug }))}">${h(o.slug)}</a> <span class="${cls}">${h(state)}</span> <a class="muted" href="api/v1/snapshot/${h(encodeURIComponent(o.slug))}">snapshot</a></h3>
<dl>
<dt>last success</dt><dd>${time(o.health.lastSuccessAt, now)}</dd>
${o.health.lastError ? `<dt>last error</dt><dd class="warn">${h(o.health.lastError.reason)}: ${h(o.health.lastError.message)}</dd>` : ''}
<dt>baseline</dt><dd>${channels === undefined ? 'channel list not read yet' : `${h(channels.length - (unread ?? 0))}/${h(channels.length)} channels' sessions read${unread === 0 ? ' ✓' : ''}`}</dd>
<dt>last minute</dt><dd>${
    Object.entries(spend)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${h(k.replace('_', ' '))} ${h(n)}`)
      .join(', ') || 'no reads'
  }</dd>
${learned.length > 0 ? `<dt>learned</dt><dd>${learned.map(([e, l]) => `${h(e)}: ${h(JSON.stringify(l))}`).join('<br>')}</dd>` : ''}
<dt>drift</dt><dd>${drift.length === 0 ? 'none' : `${fatal.length > 0 ? `<span class="bad">${h(fatal.length)} failing a read</span><br>` : ''}${drift.map((d) => `${h(d.endpoint)} ${h(d.field)}: ${h(d.problem)}`).join('<br>')}`}</dd>
</dl></article>`;
}

/** A live or upcoming session of a channel, with its detail when read. */
interface ChannelRow {
  org: string;
  channel: Channel;
  live: Session | undefined;
  next: Session | undefined;
  detail: SessionDetail | undefined;
  lastEvent: ChangeEvent | undefined;
}

/**
 * The newest change of each channel, its own events and those of its sessions, by
 * {@link channelKey}, newest channel first (`events` are newest first, and a Map keeps
 * insertion order).
 */
function lastChangeByChannel(events: readonly ChangeEvent[]): Map<string, ChangeEvent> {
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
function channelKey(org: string, channelId: string): string {
  return `${org}\u0000${channelId}`;
}

/** The channel id of an event about a channel or one of its sessions. */
function channelOf(e: ChangeEvent): string {
  return e.entity.kind === 'channel' ? e.entity.id : (e.labels['channel_id'] ?? e.entity.id);
}

function channelsSection(
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
    const sessions = value(getOwn(o.snapshot.sessions, r.channel.id)) ?? [];
    r.live = sessions.find((s) => statusClass(s.status) === 'live');
    r.next = sessions
      .filter(
        (s) =>
          statusClass(s.status) === 'scheduled' &&
          s.scheduledAt !== undefined &&
          s.scheduledAt >= now - 600_000,
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
    air = `<strong>${h(r.live.title ?? r.live.id)}</strong> since ${time(r.live.startedAt, now)}${
      speakers.length > 0
        ? `<br><span class="muted">with ${speakers.map(h).join(', ')}${(r.detail?.speakers.count ?? 0) > speakers.length ? ' …' : ''}</span>`
        : ''
    }`;
  } else if (r.next?.scheduledAt !== undefined) {
    air = `next: ${h(r.next.title ?? r.next.id)} ${time(r.next.scheduledAt, now)}`;
  }
  const last = r.lastEvent
    ? `<a href="${h(link(q, { entity: r.channel.id }, '#events'))}">${h(r.lastEvent.kind)}</a> ${time(r.lastEvent.at, now)}`
    : `<a href="${h(link(q, { entity: r.channel.id }, '#events'))}">history</a>`;
  return `<tr class="${cls}"><td>${h(r.org)}</td><td>${h(r.channel.name ?? r.channel.id)}<br><code>${h(r.channel.id)}</code></td><td><span class="badge ${cls}">${h(r.channel.status)}</span>${r.channel.visibility ? ` <span class="muted">${h(r.channel.visibility)}</span>` : ''}</td><td>${air}</td><td>${last}</td></tr>`;
}

/** The channels that changed last, newest first, each linking to its history. */
function changedSection(
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
            `<li>${time(e.at, now)} · <a href="${h(link(q, { entity: channelOf(e) }, '#events'))}">${h(names.get(channelKey(e.org, channelOf(e))))}</a> <code>${h(channelOf(e))}</code> · ${h(e.kind)}${e.to === undefined ? '' : ` → ${h(show(e.to))}`} <span class="muted">(${h(e.org)})</span></li>`,
        )
        .join('')}</ol>
<p><a href="${h(link(q, { org: q.org, status: 'changed' }, '#channels'))}">${h(lastHour)} channel${lastHour === 1 ? '' : 's'} changed in the last hour</a></p>`
}
</section>`;
}

function soonSection(shown: readonly OrgView[], now: number): string {
  const soon: { org: string; channel: string; s: Session }[] = [];
  for (const o of shown) {
    const names = new Map((value(o.snapshot.channels) ?? []).map((c) => [c.id, c.name ?? c.id]));
    for (const [channelId, part] of Object.entries(o.snapshot.sessions)) {
      for (const s of value(part) ?? []) {
        if (statusClass(s.status) !== 'scheduled' || s.scheduledAt === undefined) continue;
        if (s.scheduledAt < now - 600_000 || s.scheduledAt > now + SOON_MS) continue;
        soon.push({ org: o.slug, channel: names.get(channelId) ?? channelId, s });
      }
    }
  }
  soon.sort((a, b) => (a.s.scheduledAt ?? 0) - (b.s.scheduledAt ?? 0));
  const rows = soon.slice(0, 20);
  return `<section aria-labelledby="soon"><h2 id="soon">Scheduled in the next 24 hours</h2>
${rows.length === 0 ? '<p class="muted">nothing scheduled</p>' : `<ul>${rows.map((r) => `<li>${time(r.s.scheduledAt, now)} · ${h(r.s.title ?? r.s.id)} on ${h(r.channel)} <span class="muted">(${h(r.org)})</span></li>`).join('')}</ul>${soon.length > rows.length ? `<p class="muted">and ${h(soon.length - rows.length)} more</p>` : ''}`}
</section>`;
}

async function recentEvents(source: StatusSource, q: PageQuery, limit: number): Promise<ChangeEvent[]> {
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

function eventsSection(events: ChangeEvent[], q: PageQuery, now: number): string {
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

/** A filter form's field that keeps the page's refresh interval. */
function keepRefresh(q: PageQuery): string {
  return q.refresh === undefined ? '' : `<input type="hidden" name="refresh" value="${h(q.refresh)}">`;
}

function show(v: unknown): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

function alertsSection(
  alerting:
    | { alerts(): AlertView[]; silences(): SilenceView[]; maintenance(): MaintenanceView[] }
    | undefined,
  outbox: OutboxView | undefined,
  now: number,
): string {
  if (!alerting)
    return '<section aria-labelledby="alerts"><h2 id="alerts">Alerts</h2><p class="muted">no alert rules configured</p></section>';
  const alerts = alerting.alerts().filter((a) => a.state === 'firing' || a.state === 'pending');
  const silences = alerting.silences().filter((s) => s.status === 'active' || s.status === 'pending');
  const windows = alerting.maintenance();
  const receivers = outbox?.receivers() ?? [];
  const failing = outbox?.failing() ?? [];
  return `<section aria-labelledby="alerts"><h2 id="alerts">Alerts</h2>
${
  alerts.length === 0
    ? '<p class="ok">nothing firing or pending</p>'
    : `<table><thead><tr><th scope="col">state</th><th scope="col">alert</th><th scope="col">summary</th><th scope="col">since</th><th scope="col">muted by</th></tr></thead><tbody>
${alerts
  .map(
    (a) =>
      `<tr><td><span class="badge ${a.state === 'firing' ? 'bad' : 'warn'}">${h(a.state)}</span></td><td>${h(a.labels['alertname'] ?? a.rule)}<br><span class="muted">${h(
        Object.entries(a.labels)
          .filter(([k]) => k !== 'alertname')
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      )}</span></td><td>${h(a.annotations['summary'] ?? '')}</td><td>${time(a.startsAt ?? a.activeAt, now)}</td><td>${h([...a.silenced_by, ...a.inhibited_by].join(', '))}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`
}
<h3>Silences</h3>
${silences.length === 0 ? '<p class="muted">none</p>' : `<ul>${silences.map((s) => `<li>${h(s.status)}: ${h(JSON.stringify(s.matchers))} until ${h(s.ends_at)}${s.comment ? ` — ${h(s.comment)}` : ''}</li>`).join('')}</ul>`}
<h3>Maintenance windows</h3>
${windows.length === 0 ? '<p class="muted">none</p>' : `<ul>${windows.map((w) => `<li>${h(w.name)}: ${w.active ? `<strong>open</strong> until ${h(w.ends_at ?? '?')}` : `next ${h(w.starts_at ?? '—')}`}</li>`).join('')}</ul>`}
<h3>Outbox</h3>
${receivers.length === 0 ? '<p class="muted">no receivers</p>' : `<ul>${receivers.map((r) => `<li>${h(r.name)}: ${r.depth === 0 ? '<span class="ok">empty</span>' : `<span class="warn">${h(r.depth)} waiting, oldest ${h(ago(r.oldestAgeMs))}</span>`}</li>`).join('')}</ul>`}
${
  failing.length === 0
    ? ''
    : `<p class="bad">failing deliveries:</p><ul>${failing
        .slice(0, 10)
        .map((f) => `<li>${h(f.receiver)}, ${h(f.attempts)} attempts: ${h(f.lastError ?? '')}</li>`)
        .join('')}</ul>`
}
</section>`;
}

function value<T>(part: { state: string; value?: T } | undefined): T | undefined {
  return part !== undefined && part.state !== 'failed' ? part.value : undefined;
}
