/**
 * Runs the alert engine over recorded history in simulated time: events and org views are
 * applied at their own timestamps, and the engine is ticked whenever something falls due
 * in between, exactly as the live timer shell would. Nothing is sent; the notifications
 * that would have been are returned. Behind `tally replay`.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgView } from '../poll/status.js';
import { AlertEngine, type AlertView } from './engine.js';
import { DEFAULT_RESOLVE_AFTER_MS } from './rules.js';
import { ROUTE_DEFAULTS } from './route.js';
import type { AlertingConfig, RouteConfig } from './schema.js';
import { MemoryAlertStore } from './state.js';
import type { Notification } from './types.js';

/** A clock whose time the simulation sets; it has no timers (the simulation drives ticks). */
class SimulatedClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  monotonic(): number {
    return this.time;
  }
  setTimeout(): TimerHandle {
    return { cancel: () => {} };
  }
  async sleep(): Promise<void> {}
}

/** Recorded history to replay. */
export interface ReplayInput {
  events: readonly ChangeEvent[];
  /** Org views to evaluate condition rules against, each at its time. */
  views?: readonly { at: number; views: OrgView[] }[];
}

/** Options of {@link simulate}. */
export interface SimulateOptions {
  alerting: AlertingConfig;
  logger: Logger;
  orgLabels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  externalURL?: string | undefined;
  /** How long to keep time running after the last input (default: long enough for event alerts to resolve). */
  afterMs?: number;
}

/** What a replay would have sent. */
export interface ReplayResult {
  notifications: Notification[];
  /** The alerts at the end of the simulation. */
  alerts: AlertView[];
  start: number;
  end: number;
}

/** Time after the last input that lets event alerts resolve and their groups report it. */
export function settleTime(alerting: AlertingConfig): number {
  let resolve = 0;
  for (const r of alerting.rules)
    if (r.on !== undefined) resolve = Math.max(resolve, r.resolve_after ?? DEFAULT_RESOLVE_AFTER_MS);
  let wait = 0;
  const walk = (route: RouteConfig) => {
    wait = Math.max(
      wait,
      (route.group_wait ?? ROUTE_DEFAULTS.group_wait) +
        (route.group_interval ?? ROUTE_DEFAULTS.group_interval),
    );
    for (const child of route.routes ?? []) walk(child);
  };
  if (alerting.route) walk(alerting.route);
  else wait = ROUTE_DEFAULTS.group_wait + ROUTE_DEFAULTS.group_interval;
  return Math.min(resolve + wait, 86_400_000);
}

/** Replays history through a fresh engine in simulated time. */
export function simulate(input: ReplayInput, opts: SimulateOptions): ReplayResult {
  type Step = { at: number; events: ChangeEvent[]; views: OrgView[][] };
  const steps = new Map<number, Step>();
  const step = (at: number) => {
    let s = steps.get(at);
    if (!s) {
      s = { at, events: [], views: [] };
      steps.set(at, s);
    }
    return s;
  };
  for (const e of input.events) step(e.at).events.push(e);
  for (const v of input.views ?? []) step(v.at).views.push(v.views);
  const timeline = [...steps.values()].sort((a, b) => a.at - b.at);
  const start = timeline[0]?.at ?? 0;
  const end = (timeline[timeline.length - 1]?.at ?? 0) + (opts.afterMs ?? settleTime(opts.alerting));

  const clock = new SimulatedClock(start);
  const engine = new AlertEngine({
    rules: opts.alerting.rules,
    route: opts.alerting.route,
    silences: opts.alerting.silences,
    maintenance: opts.alerting.maintenance,
    inhibit: opts.alerting.inhibit,
    clock,
    logger: opts.logger,
    store: new MemoryAlertStore(),
    externalURL: opts.externalURL,
    orgLabels: opts.orgLabels ?? {},
  });
  const notifications: Notification[] = [];
  let i = 0;
  while (clock.time <= end) {
    const next = timeline[i];
    if (next && next.at <= clock.time) {
      // Views first: a view and the events diffed from it share a time.
      for (const views of next.views) engine.evaluate(views);
      engine.onEvents(next.events);
      i++;
    }
    notifications.push(...engine.tick());
    const upcoming = Math.min(
      timeline[i]?.at ?? Number.POSITIVE_INFINITY,
      engine.nextDueAt() ?? Number.POSITIVE_INFINITY,
    );
    if (!Number.isFinite(upcoming) || upcoming > end) break;
    clock.time = Math.max(clock.time + 1, upcoming);
  }
  clock.time = Math.max(clock.time, end);
  return { notifications, alerts: engine.alerts(), start, end };
}
