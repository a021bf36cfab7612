/** The overview: readiness, the request budget, the planner's bound and notes, one card per org. */
import { getOwn } from '../../core/own.js';
import type { OrgView, StateView, StatusSource } from '../../poll/status.js';
import type { Plan } from '../../poll/planner.js';
import type { BudgetStats } from '../../upstream/transport/budget.js';
import { h, link, time, value } from './format.js';
import type { PageQuery } from './query.js';

export function overviewSection(
  source: StatusSource,
  plan: Plan,
  budget: BudgetStats,
  orgs: readonly OrgView[],
  q: PageQuery,
  now: number,
): string {
  return `<section aria-labelledby="overview"><h2 id="overview">Overview</h2>
<p>${source.ready() ? '<span class="ok">ready</span>' : '<span class="warn">not ready</span>'} ·
budget ${h(budget.usedLastMinute)}/${h(budget.effective)} requests in the last minute${learnedLimit(budget)}${budget.pausedUntil > now ? ` · <span class="bad">paused by a 429 until ${h(new Date(budget.pausedUntil).toISOString())}</span>` : ''} ·
every channel's sessions read within ${h(Math.round(plan.sweepBoundMs / 1000))}s · channel list every ${h(Math.round(plan.intervals.channels / 1000))}s</p>
${plan.notes.length > 0 ? `<ul class="notes">${plan.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>` : ''}
${source.state ? stateLine(source.state(), now) : ''}
<div class="orgs">${orgs.map((o) => orgCard(o, q, now)).join('\n')}</div></section>`;
}

/** What taught the learned limit, in words. */
const TAUGHT_BY = {
  configured: 'configured',
  refusals: 'learned from 429s',
  server: 'learned from the rate-limit fields',
};

/**
 * The limit learned for the address (src/upstream/transport/learned-limit.ts): the
 * configured budget says nothing new; below it, the limit and what taught it.
 */
function learnedLimit(budget: BudgetStats): string {
  const l = budget.learned;
  if (l === undefined || (l.from === 'configured' && l.perMinute >= budget.configured)) return '';
  return ` · <span class="warn">limit ${h(l.perMinute)}/min of ${h(budget.configured)} configured (${h(TAUGHT_BY[l.from])})</span>`;
}

/** The state directory: writable or not (which paths fail, the last error), events lost, the lock. */
function stateLine(s: StateView, now: number): string {
  const parts: string[] = [];
  if (s.writable) parts.push('<span class="ok">state directory writable</span>');
  else {
    const err = s.lastError ? `: ${h(s.lastError.reason)} — ${h(s.lastError.message)}` : '';
    parts.push(
      `<span class="bad">state directory cannot be written</span> (${h(s.failingPaths.join(', ') || 'lock')}${err})`,
    );
  }
  if (s.eventLog.missingEvents > 0) {
    const ranges = s.eventLog.missing.map((m) => `${m.from}–${m.to} (${m.reason})`).join(', ');
    parts.push(
      `<span class="warn">${h(s.eventLog.missingEvents)} logged events missing</span>: seq ${h(ranges)}`,
    );
  }
  if (!s.lock.held)
    parts.push(`<span class="bad">lock lost${s.lock.problem ? `: ${h(s.lock.problem)}` : ''}</span>`);
  else if (s.lock.problem)
    parts.push(`<span class="warn">lock heartbeat failing: ${h(s.lock.problem)}</span>`);
  else if (s.lock.lastHeartbeatAt !== undefined)
    parts.push(`lock heartbeat ${time(s.lock.lastHeartbeatAt, now)}`);
  return `<p id="state">${parts.join(' · ')}</p>`;
}

function orgCard(o: OrgView, q: PageQuery, now: number): string {
  const channels = value(o.snapshot.channels);
  const unread = channels
    ? channels.filter((c) => value(getOwn(o.snapshot.sessions, c.id)) === undefined).length
    : undefined;
  const state = o.health.state;
  const cls = state === 'ok' ? 'ok' : state === 'unknown' ? 'muted' : state === 'stale' ? 'warn' : 'bad';
  const fatal = (o.drift ?? []).filter((d) => d.fatal);
  const drift = (o.drift ?? []).slice(0, 5);
  const learned = Object.entries(o.learned ?? {});
  const spend = o.spend ?? {};
  return `<article class="card" aria-label="org ${h(o.slug)}">
<h3><a href="${h(link(q, { org: o.slug }))}">${h(o.slug)}</a> <span class="${cls}">${h(state)}</span> <a class="muted" href="api/v1/snapshot/${h(encodeURIComponent(o.slug))}">snapshot</a></h3>
<dl>
<dt>last success</dt><dd>${time(o.health.lastSuccessAt, now)}</dd>
${o.health.stale?.length ? `<dt>not read for too long</dt><dd class="warn">${h(o.health.stale.join(', '))}</dd>` : ''}
${o.health.lastError ? `<dt>last error</dt><dd class="warn">${h(o.health.lastError.reason)}: ${h(o.health.lastError.message)}</dd>` : ''}
<dt>baseline</dt><dd>${channels === undefined ? 'channel list not read yet' : `${h(channels.length - (unread ?? 0))}/${h(channels.length)} channels' sessions read${unread === 0 ? ' ✓' : ''}`}</dd>
<dt>last minute</dt><dd>${
    Object.entries(spend)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${h(k.replace('_', ' '))} ${h(n)}`)
      .join(', ') || 'no reads'
  }</dd>
${learned.length > 0 ? `<dt>learned</dt><dd>${learned.map(([e, l]) => `${h(e)}: ${h(JSON.stringify(l))}`).join('<br>')}</dd>` : ''}
${(o.degraded ?? []).length > 0 ? `<dt>degraded</dt><dd class="bad">${(o.degraded ?? []).map((d) => `${h(d.endpoint)} ${h(d.field)} unreadable in ${h(d.lists)} list${d.lists === 1 ? '' : 's'}: ${h(d.problem)}`).join('<br>')}</dd>` : ''}
<dt>drift</dt><dd>${drift.length === 0 ? 'none' : `${fatal.length > 0 ? `<span class="bad">${h(fatal.length)} failing a read</span><br>` : ''}${drift.map((d) => `${h(d.endpoint)} ${h(d.field)}: ${h(d.problem)}`).join('<br>')}`}</dd>
</dl></article>`;
}
