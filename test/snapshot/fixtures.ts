/**
 * A small organization as plain data, and snapshots of it with every part complete.
 * Tests clone the world, change it, and diff the two snapshots.
 */
import type {
  Channel,
  Member,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  Subscription,
  TimeWindow,
} from '../../src/snapshot/model.js';

export const T0 = 1_700_000_000_000;
export const T1 = T0 + 30_000;
export const MIN = 60_000;
export const HOUR = 60 * MIN;

/** Everything in an org, without fetch outcomes. */
export interface World {
  org: { slug: string; name?: string; plan?: string; settings: Record<string, string | number | boolean> };
  team: Member[];
  subscription: Subscription;
  channels: Channel[];
  sessions: Record<string, Session[]>;
  details: Record<string, SessionDetail>;
}

/** A detail with nothing in it. */
export function emptyDetail(id: string, channelId?: string): SessionDetail {
  const d: SessionDetail = {
    id,
    questions: { count: 0, items: [] },
    announcements: { count: 0, items: [] },
    reactions: { count: 0, byKind: {} },
    speakers: { count: 0, items: [] },
    ai: {},
  };
  if (channelId !== undefined) d.channelId = channelId;
  return d;
}

/** The reference org `acme`: two channels, three sessions, one live session with a detail. */
export function world(): World {
  return {
    org: { slug: 'acme', name: 'Acme', plan: 'pro', settings: { 'notifications.email': true, locale: 'en' } },
    team: [
      { id: 'm1', name: 'Ada', email: 'ada@acme.test', role: 'admin' },
      { id: 'm2', name: 'Bob', email: 'bob@acme.test', role: 'member' },
    ],
    subscription: {
      plan: 'pro',
      limits: { channels: 10, members: 5 },
      usage: { channels: 2 },
      funding: { mode: 'wallet', balance: 12.5, currency: 'EUR' },
    },
    channels: [
      { id: 'c1', name: 'Morning Show', status: 'offline', visibility: 'public' },
      { id: 'c2', name: 'Night', status: 'live', visibility: 'public' },
    ],
    sessions: {
      c1: [
        { id: 's1', channelId: 'c1', title: 'Daily', status: 'scheduled', scheduledAt: T0 + 10 * MIN },
        {
          id: 's2',
          channelId: 'c1',
          title: 'Yesterday',
          status: 'ended',
          startedAt: T0 - 50 * MIN,
          endedAt: T0 - 20 * MIN,
        },
      ],
      c2: [{ id: 's3', channelId: 'c2', title: 'Late show', status: 'live', startedAt: T0 - 5 * MIN }],
    },
    details: {
      s3: {
        ...emptyDetail('s3', 'c2'),
        title: 'Late show',
        questions: { count: 1, items: [{ id: 'q1', text: 'Hello?', at: T0 - 4 * MIN }] },
        reactions: { count: 10, byKind: { clap: 10 } },
        speakers: { count: 1, items: [{ id: 'sp1', text: 'Host' }] },
        ai: { status: 'running', enabled: true },
      },
    },
  };
}

/** The window a snapshot taken at `at` reads sessions for: one hour back, one hour ahead. */
export function windowAt(at: number): TimeWindow {
  return { from: at - HOUR, to: at + HOUR };
}

/** A complete part fetched at `at`. */
export function complete<T>(value: T, at: number): Part<T> {
  return { state: 'complete', at, value };
}

/** A part whose paging broke: what was read is there, but not all of it. */
export function incomplete<T>(value: T, at: number): Part<T> {
  return { state: 'incomplete', at, value, error: { reason: 'paging', message: 'page 2 refused' } };
}

/** A part that could not be read at all. */
export function failed<T>(at: number): Part<T> {
  return { state: 'failed', at, error: { reason: 'http_5xx', message: 'GET /v1/acme answered 503' } };
}

/** A session list part read at `at` for `window`. */
export function sessionsPart(value: Session[], at: number, window: TimeWindow = windowAt(at)): SessionsPart {
  return { state: 'complete', at, value, window };
}

/** A snapshot of `w` at `at` with every part complete. */
export function snapshotOf(w: World, at: number): OrgSnapshot {
  const copy = structuredClone(w);
  const sessions: Record<string, SessionsPart> = {};
  for (const [ch, list] of Object.entries(copy.sessions)) sessions[ch] = sessionsPart(list, at);
  const details: Record<string, Part<SessionDetail>> = {};
  for (const [id, d] of Object.entries(copy.details)) details[id] = complete(d, at);
  return {
    version: 1,
    org: copy.org.slug,
    takenAt: at,
    profile: complete(copy.org, at),
    team: complete(copy.team, at),
    subscription: complete(copy.subscription, at),
    channels: complete(copy.channels, at),
    sessions,
    details,
  };
}

/** The reference snapshot at T0 and a snapshot at T1 of the world after `change`. */
export function twoReads(change: (w: World) => void): [OrgSnapshot, OrgSnapshot] {
  const w = world();
  const prev = snapshotOf(w, T0);
  change(w);
  return [prev, snapshotOf(w, T1)];
}

/** A session of `w` by id (throws when the fixture does not have it). */
export function sessionOf(w: World, id: string): Session {
  for (const list of Object.values(w.sessions)) {
    const s = list.find((x) => x.id === id);
    if (s) return s;
  }
  throw new Error(`fixture has no session ${id}`);
}

/** The detail of `id` in `w` (throws when the fixture does not have it). */
export function detailOf(w: World, id: string): SessionDetail {
  const d = w.details[id];
  if (!d) throw new Error(`fixture has no detail ${id}`);
  return d;
}

/** A snapshot of `org` with nothing read yet. */
export function emptySnapshotAt(org: string, at: number): OrgSnapshot {
  return { version: 1, org, takenAt: at, sessions: {}, details: {} };
}
