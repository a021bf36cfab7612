import { ManualClock as SharedManualClock } from '../helpers/clock.js';
/** Shared fixtures of the alert tests: a manual clock, org views, events and engines from YAML. */
import { parse } from 'yaml';
import { AlertEngine, type AlertEngineOptions } from '../../src/alerts/engine.js';
import { type AlertingConfig, alertingSchema } from '../../src/alerts/schema.js';
import { MemoryAlertStore } from '../../src/alerts/state.js';
import type { Notification } from '../../src/alerts/types.js';
import { silentLogger } from '../../src/core/log.js';
import type { ChangeEvent, EventKind } from '../../src/snapshot/events.js';
import type {
  Channel,
  Member,
  OrgSnapshot,
  Session,
  SessionDetail,
  Subscription,
} from '../../src/snapshot/model.js';
import type { OrgHealthView, OrgView } from '../../src/poll/status.js';

/** 2026-03-02T00:00:00Z, a Monday. */
export const T0 = Date.UTC(2026, 2, 2);
export const SEC = 1000;
export const MIN = 60 * SEC;
export const HOUR = 60 * MIN;

/** The suite's manual clock, starting at {@link T0} unless told otherwise. */
export class ManualClock extends SharedManualClock {
  constructor(t = T0) {
    super(t);
  }
}

/** Parts of a view to fill in; anything left out was never read. */
export interface ViewParts {
  health?: OrgHealthView['state'];
  lastError?: string;
  subscription?: Partial<Subscription>;
  team?: Member[];
  channels?: Channel[];
  sessions?: Record<string, Session[]>;
  details?: Record<string, Partial<SessionDetail>>;
  tokenExpiresAt?: number;
  labels?: Record<string, string>;
  name?: string;
  at?: number;
}

/** An org view with the given parts read completely at `at`. */
export function view(slug: string, p: ViewParts = {}): OrgView {
  const at = p.at ?? T0;
  const snapshot: OrgSnapshot = { version: 1, org: slug, takenAt: at, sessions: {}, details: {} };
  snapshot.profile = {
    state: 'complete',
    at,
    value: { slug, name: p.name ?? slug.toUpperCase(), settings: {} },
  };
  if (p.subscription) {
    snapshot.subscription = {
      state: 'complete',
      at,
      value: { limits: {}, usage: {}, funding: { mode: 'unknown' }, ...p.subscription },
    };
  }
  if (p.team) snapshot.team = { state: 'complete', at, value: p.team };
  if (p.channels) snapshot.channels = { state: 'complete', at, value: p.channels };
  for (const [ch, list] of Object.entries(p.sessions ?? {})) {
    snapshot.sessions[ch] = { state: 'complete', at, value: list, window: { from: at - 86_400_000, to: at } };
  }
  for (const [id, d] of Object.entries(p.details ?? {})) {
    snapshot.details[id] = {
      state: 'complete',
      at,
      value: {
        id,
        questions: { count: 0, items: [] },
        announcements: { count: 0, items: [] },
        reactions: { count: 0, byKind: {} },
        speakers: { count: 0, items: [] },
        ai: {},
        ...d,
      },
    };
  }
  const v: OrgView = {
    slug,
    snapshot,
    health: {
      state: p.health ?? 'ok',
      lastSuccessAt: at,
      lastError: p.lastError ? { reason: 'timeout', message: p.lastError } : undefined,
    },
    attempts: new Map(),
    labels: p.labels ?? {},
    ready: true,
  };
  if (p.tokenExpiresAt !== undefined) v.tokenExpiresAt = p.tokenExpiresAt;
  return v;
}

let seq = 0;
/** A change event. */
export function event(
  kind: EventKind,
  p: {
    org?: string;
    at?: number;
    id?: string;
    entity?: string;
    from?: unknown;
    to?: unknown;
    labels?: Record<string, string>;
    field?: string;
  } = {},
): ChangeEvent {
  const entityKind =
    kind.split('.')[0] === 'wallet' ? 'subscription' : (kind.split('.')[0] as ChangeEvent['entity']['kind']);
  const e: ChangeEvent = {
    id: p.id ?? `ev-${++seq}`,
    at: p.at ?? T0,
    org: p.org ?? 'acme',
    kind,
    entity: { kind: entityKind, id: p.entity ?? 'e1' },
    labels: p.labels ?? {},
  };
  if (p.from !== undefined) e.from = p.from as never;
  if (p.to !== undefined) e.to = p.to as never;
  if (p.field !== undefined) e.field = p.field;
  return e;
}

/** Parses the alert sections of a config from YAML (as the config loader would). */
export function alerting(yaml: string): AlertingConfig {
  const r = alertingSchema.safeParse(parse(yaml) ?? {});
  if (!r.success) throw new Error(JSON.stringify(r.error.issues, null, 2));
  return r.data;
}

/** An engine over YAML alert config, a manual clock and a memory store. */
export function engine(
  yaml: string,
  extra: Partial<AlertEngineOptions> & { clock?: ManualClock; store?: MemoryAlertStore } = {},
): { engine: AlertEngine; clock: ManualClock; store: MemoryAlertStore; config: AlertingConfig } {
  const config = alerting(yaml);
  const clock = extra.clock ?? new ManualClock();
  const store = extra.store ?? new MemoryAlertStore();
  const e = new AlertEngine({
    rules: config.rules,
    route: config.route,
    silences: config.silences,
    maintenance: config.maintenance,
    inhibit: config.inhibit,
    logger: silentLogger(),
    ...extra,
    clock,
    store,
  });
  return { engine: e, clock, store, config };
}

/** A compact view of notifications: receiver, status and alertnames/entities. */
export function summary(ns: readonly Notification[]): string[] {
  return ns.map(
    (n) =>
      `${n.receiver} ${n.status} ${n.alerts.map((a) => `${a.labels['alertname']}/${a.labels['channel_id'] ?? a.labels['org']}:${a.state}`).join(',')}`,
  );
}

/** Ticks every `step` for `ms`, collecting notifications. */
export function tickFor(e: AlertEngine, clock: ManualClock, ms: number, step = 10 * SEC): Notification[] {
  const out: Notification[] = [...e.tick()];
  const end = clock.time + ms;
  while (clock.time < end) {
    clock.advance(Math.min(step, end - clock.time));
    out.push(...e.tick());
  }
  return out;
}

/** A channel. */
export function channel(id: string, status = 'live', extra: Partial<Channel> = {}): Channel {
  return { id, name: `Channel ${id}`, status, ...extra };
}
