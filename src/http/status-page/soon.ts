/** What is scheduled in the next 24 hours, soonest first. */
import type { OrgView } from '../../poll/status.js';
import type { Session } from '../../snapshot/model.js';
import { scheduledAt, statusAt } from '../../snapshot/session-list.js';
import { statusClass } from '../../snapshot/vocabulary.js';
import { h, t, time, value } from './format.js';

/** How far ahead "scheduled soon" looks. */
const SOON_MS = 24 * 3_600_000;

export function soonSection(shown: readonly OrgView[], now: number): string {
  const soon: { org: string; channel: string; s: Session }[] = [];
  for (const o of shown) {
    const names = new Map((value(o.snapshot.channels) ?? []).map((c) => [c.id, c.name ?? c.id]));
    for (const [channelId, part] of Object.entries(o.snapshot.sessions)) {
      const list = value(part) ?? [];
      // Statuses and times first: a session object only for those shown.
      for (let i = 0; i < list.length; i++) {
        const at = scheduledAt(list, i);
        if (statusClass(statusAt(list, i)) !== 'scheduled' || at === undefined) continue;
        if (at < now - 600_000 || at > now + SOON_MS) continue;
        soon.push({ org: o.slug, channel: names.get(channelId) ?? channelId, s: list.at(i)! });
      }
    }
  }
  soon.sort((a, b) => (a.s.scheduledAt ?? 0) - (b.s.scheduledAt ?? 0));
  const rows = soon.slice(0, 20);
  return `<section aria-labelledby="soon"><h2 id="soon">Scheduled in the next 24 hours</h2>
${rows.length === 0 ? '<p class="muted">nothing scheduled</p>' : `<ul>${rows.map((r) => `<li>${time(r.s.scheduledAt, now)} · ${t(r.s.title ?? r.s.id)} on ${t(r.channel)} <span class="muted">(${h(r.org)})</span></li>`).join('')}</ul>${soon.length > rows.length ? `<p class="muted">and ${h(soon.length - rows.length)} more</p>` : ''}`}
</section>`;
}
