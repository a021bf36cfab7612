/** Alerts firing or pending, silences, maintenance windows and the outbox. */
import type { AlertView } from '../../alerts/engine.js';
import type { MaintenanceView } from '../../alerts/maintenance.js';
import type { SilenceView } from '../../alerts/silences.js';
import { ago, h, t, time } from './format.js';

/** The delivery side, for the outbox panel. */
export interface OutboxView {
  receivers(): { name: string; depth: number; oldestAgeMs: number }[];
  failing(): { receiver: string; attempts: number; lastError: string | undefined; createdAt: number }[];
}

export function alertsSection(
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
      )}</span></td><td>${t(a.annotations['summary'] ?? '')}</td><td>${time(a.startsAt ?? a.activeAt, now)}</td><td>${h([...a.silenced_by, ...a.inhibited_by].join(', '))}</td></tr>`,
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
