/**
 * Metrics of the state directory beyond failed writes (tally-metrics.ts counts those by
 * path): events the log found missing, and whether the directory can be written now
 * (docs/state.md, "State health").
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The reasons a range of events can be missing (src/store/event-gaps.ts). */
const GAP_REASONS = ['deleted', 'truncated', 'unreadable', 'lost'] as const;

/** The state directory's own metrics. */
export class StateMetrics {
  private readonly missing: Counter<'reason'>;

  /** `writable` and `missing` are read at scrape time. */
  constructor(registry: Registry, read: { writable: () => boolean; missing: () => number }) {
    const registers = [registry];
    this.missing = new Counter({
      name: 'tally_event_log_missing_events_total',
      help: 'Events the event log handed out and found missing (a segment deleted or cut short, the events directory lost), by reason.',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of GAP_REASONS) this.missing.inc({ reason }, 0);
    const gauge: Gauge = new Gauge({
      name: 'tally_state_writable',
      help: 'Whether the state directory can be written now (1) or its last writes failed (0).',
      registers,
      collect: () => gauge.set(read.writable() ? 1 : 0),
    });
    const lost: Gauge = new Gauge({
      name: 'tally_event_log_missing_events',
      help: 'Events the event log handed out and no longer holds for a reason other than retention (kept across restarts).',
      registers,
      collect: () => lost.set(read.missing()),
    });
  }

  /** Counts `events` found missing for `reason`. */
  eventsMissing(reason: string, events: number): void {
    this.missing.inc({ reason }, events);
  }
}
