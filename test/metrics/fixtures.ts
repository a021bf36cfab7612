/**
 * Hand-built snapshots and an in-memory StatusSource for the metrics and HTTP tests.
 */
import type { Plan } from '../../src/poll/planner.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type {
  Channel,
  Member,
  Org,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  Subscription,
} from '../../src/snapshot/model.js';
import type { EventQuery, OrgHealthView, OrgView, StatusSource } from '../../src/poll/status.js';
import type { BudgetStats } from '../../src/upstream/transport/budget.js';

/** A complete part read at `at`. */
export function complete<T>(value: T, at: number): Part<T> {
  return { state: 'complete', at, value };
}

/** The same part, read at another time. */
export function readAt<P extends { at: number }>(part: P | undefined, at: number): P {
  if (!part) throw new Error('no such part');
  return { ...part, at };
}

/** What a test snapshot holds; everything given is a complete part read at `at`. */
export interface SnapshotSpec {
  org: string;
  at?: number;
  profile?: Org;
  team?: Member[];
  subscription?: Subscription;
  channels?: Channel[];
  /** Session lists by channel id. */
  sessions?: Record<string, Omit<Session, 'channelId'>[]>;
  details?: Record<string, Partial<SessionDetail>>;
}

/** Builds a snapshot whose given parts are all complete. */
export function snapshot(spec: SnapshotSpec): OrgSnapshot {
  const at = spec.at ?? 1_700_000_000_000;
  const sessions: Record<string, SessionsPart> = {};
  for (const [channelId, list] of Object.entries(spec.sessions ?? {})) {
    sessions[channelId] = {
      ...complete(
        list.map((s) => ({ ...s, channelId })),
        at,
      ),
      window: { from: at - 86_400_000, to: at + 7 * 86_400_000 },
    };
  }
  const details: Record<string, Part<SessionDetail>> = {};
  for (const [id, d] of Object.entries(spec.details ?? {})) details[id] = complete(detail(id, d), at);
  return {
    version: 1,
    org: spec.org,
    takenAt: at,
    ...(spec.profile ? { profile: complete(spec.profile, at) } : {}),
    ...(spec.team ? { team: complete(spec.team, at) } : {}),
    ...(spec.subscription ? { subscription: complete(spec.subscription, at) } : {}),
    ...(spec.channels ? { channels: complete(spec.channels, at) } : {}),
    sessions,
    details,
  };
}

/** A session detail with counts. */
export function detail(id: string, d: Partial<SessionDetail> = {}): SessionDetail {
  return {
    id,
    questions: { count: 0, items: [] },
    announcements: { count: 0, items: [] },
    reactions: { count: 0, byKind: {} },
    speakers: { count: 0, items: [] },
    ai: {},
    ...d,
  };
}

/** An org view over a snapshot. */
export function orgView(snap: OrgSnapshot, over: Partial<OrgView> = {}): OrgView {
  const health: OrgHealthView = { state: 'ok', lastSuccessAt: snap.takenAt, lastError: undefined };
  return { slug: snap.org, snapshot: snap, health, attempts: new Map(), labels: {}, ready: true, ...over };
}

/** A plan as the planner would make it for a small org. */
export function testPlan(over: Partial<Plan> = {}): Plan {
  return {
    perMinute: { fixed: 6, hot: 12, sweep: 30, reserve: 24 },
    intervals: {
      org: 600_000,
      team: 300_000,
      subscription: 300_000,
      channels: 30_000,
      live_sessions: 30_000,
      live_detail: 60_000,
      sweep: 900_000,
    },
    stretch: 1,
    hotStretch: 1,
    sweepReadsPerMinute: 30,
    listAtMin: false,
    sweepBoundMs: 900_000,
    notes: [],
    ...over,
  };
}

/** A budget view. */
export function testBudget(over: Partial<BudgetStats> = {}): BudgetStats {
  return {
    configured: 240,
    effective: 240,
    usedLastMinute: 17,
    left: 223,
    pausedUntil: 0,
    pauses: 0,
    rateLimited: 0,
    inFlight: 0,
    queued: { high: 0, follow: 0, normal: 1, low: 2 },
    ...over,
  };
}

/** An in-memory StatusSource whose parts tests change at will. */
export class FakeSource implements StatusSource {
  views: OrgView[];
  currentPlan: Plan = testPlan();
  currentBudget: BudgetStats = testBudget();
  isReady = true;
  /** Events, newest first. */
  log: ChangeEvent[] = [];
  /** The queries `events` was asked, in order. */
  readonly queries: EventQuery[] = [];
  /** When set, `events` throws it. */
  failEvents: Error | undefined;
  readonly startedAt: number;

  constructor(views: OrgView[], startedAt = 1_699_999_000_000) {
    this.views = views;
    this.startedAt = startedAt;
  }

  orgs(): readonly OrgView[] {
    return this.views;
  }

  plan(): Plan {
    return this.currentPlan;
  }

  budget(): BudgetStats {
    return this.currentBudget;
  }

  ready(): boolean {
    return this.isReady;
  }

  /** Filters and pages the log; the cursor is the id of the last event of the previous page. */
  async events(query: EventQuery): Promise<{ events: ChangeEvent[]; nextCursor?: string }> {
    this.queries.push(query);
    if (this.failEvents) throw this.failEvents;
    let list = this.log.filter(
      (e) =>
        (query.org === undefined || e.org === query.org) &&
        (query.kinds === undefined || query.kinds.includes(e.kind)) &&
        (query.entityId === undefined || e.entity.id === query.entityId) &&
        (query.since === undefined || e.at >= query.since) &&
        (query.until === undefined || e.at <= query.until),
    );
    if (query.cursor !== undefined) {
      const i = list.findIndex((e) => e.id === query.cursor);
      list = list.slice(i + 1);
    }
    const page = list.slice(0, query.limit);
    const more = list.length > page.length;
    return more ? { events: page, nextCursor: page[page.length - 1]?.id ?? '' } : { events: page };
  }
}
