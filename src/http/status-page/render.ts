/** The page's main part, panel by panel: also what the script fetches to refresh it. */
import type { AlertView } from '../../alerts/engine.js';
import type { MaintenanceView } from '../../alerts/maintenance.js';
import type { SilenceView } from '../../alerts/silences.js';
import type { StatusSource } from '../../poll/status.js';
import { alertsSection, type OutboxView } from './alerts.js';
import { changedSection, lastChangeByChannel } from './changed.js';
import { channelsSection } from './channels.js';
import { eventsSection, recentEvents } from './events.js';
import { overviewSection } from './overview.js';
import type { PageQuery } from './query.js';
import { soonSection } from './soon.js';

/** Recent events shown. */
const EVENTS_SHOWN = 50;
/** Recent events read for the channels' last change (and so for "recently changed"). */
const LAST_CHANGE_EVENTS = 500;

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

export async function renderMain(deps: StatusPageDeps, q: PageQuery): Promise<string> {
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
    overviewSection(deps.source, plan, budget, orgs, q, now),
    channelsSection(shown, orgs, q, now, lastChange),
    changedSection(shown, q, now, lastChange),
    soonSection(shown, now),
    eventsSection(events, q, now),
    alertsSection(alerting, deps.outbox?.(), now),
  ];
  return parts.join('\n');
}
