import { OrgPoller, type OrgPollerDeps } from '../../src/poll/org-poller.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import {
  emptySnapshot,
  type OrgSnapshot,
  type Channel,
  type Session,
  type SessionsPart,
  type TimeWindow,
} from '../../src/snapshot/model.js';
import { outsideWindow } from '../../src/upstream/query/filters.js';
import { silentLogger } from '../../src/core/log.js';
import { ManualClock } from '../helpers/clock.js';
import { asStored } from '../helpers/stored.js';
import type { ChannelFilter } from '../../src/poll/channel-filter.js';

/**
 * A server of channels and sessions for the poller, whose session lists keep what a read
 * of the window keeps (as UpstreamClient.fetchSessions does), and a poller on it.
 */
export class World {
  channels: Channel[] = [];
  sessions: Session[] = [];
  /** Sessions whose detail was asked for, in order. */
  readonly detailReads: string[] = [];
  /** Sessions the lists leave out while their detail still shows them (a lagging replica). */
  readonly lagging = new Set<string>();
  /** Whether lists are read without the window (`unwindowed`: the server refused or misread it). */
  unwindowed = false;
  /** Sessions whose detail reads fail (a timeout). */
  readonly failingDetails = new Set<string>();
  /** The AI status of each session's detail. */
  readonly ai = new Map<string, string>();
  /** Questions of each session's detail. */
  readonly questions = new Map<string, { id: string; text?: string; at?: number }[]>();
  constructor(readonly clock: ManualClock) {}
  fetcher() {
    const c = this.clock;
    const fail = () => Promise.reject(new Error('not used'));
    return {
      fetchOrg: fail,
      fetchTeam: fail,
      fetchSubscription: fail,
      fetchChannels: async () => ({
        state: 'complete' as const,
        at: c.now(),
        value: this.channels.map((x) => ({ ...x })),
      }),
      fetchSessions: async (_o: unknown, ch: string, o?: { window?: TimeWindow }): Promise<SessionsPart> => {
        const window = o!.window!;
        const value = this.sessions
          .filter((s) => s.channelId === ch && !outsideWindow(s, window) && !this.lagging.has(s.id))
          .map((s) => ({ ...s }));
        if (this.unwindowed) return { state: 'complete', at: c.now(), value, window, unwindowed: true };
        return { state: 'complete', at: c.now(), value, window };
      },
      fetchSessionDetail: async (_o: unknown, id: string) => {
        this.detailReads.push(id);
        if (this.failingDetails.has(id))
          return {
            state: 'failed' as const,
            at: c.now(),
            error: { reason: 'timeout', message: `GET /sessions/${id}: timed out` },
          };
        const s = this.sessions.find((x) => x.id === id);
        if (s === undefined)
          return {
            state: 'failed' as const,
            at: c.now(),
            error: { reason: 'not_found', message: `GET /sessions/${id}: 404` },
          };
        const none = { count: 0, items: [] };
        return {
          state: 'complete' as const,
          at: c.now(),
          value: {
            id,
            channelId: s.channelId,
            status: s.status,
            questions: {
              count: (this.questions.get(id) ?? []).length,
              items: [...(this.questions.get(id) ?? [])],
            },
            announcements: none,
            reactions: { count: 0, byKind: {} },
            speakers: none,
            ai: this.ai.has(id) ? { status: this.ai.get(id) } : {},
          },
        };
      },
    } as unknown as OrgPollerDeps['fetcher'];
  }
}

/**
 * A world, a poller on it, and helpers. `reads` replaces some of the world's reads (a real
 * UpstreamClient's session lists, say); `deps` sets some of the poller's other dependencies.
 */
export function setup(
  filter?: ChannelFilter,
  reads: Partial<OrgPollerDeps['fetcher']> = {},
  deps: Partial<Pick<OrgPollerDeps, 'followUpsWait' | 'removals'>> = {},
) {
  const clock = new ManualClock();
  const world = new World(clock);
  const events: ChangeEvent[] = [];
  const signal = new AbortController().signal;
  const poller = (initial: OrgSnapshot) =>
    new OrgPoller({ slug: 'demo', token: 't' }, filter, initial, {
      fetcher: { ...world.fetcher(), ...reads },
      clock,
      logger: silentLogger(),
      diff: (a, b, o) => diff(a, b, o),
      window: { past: 86_400_000, future: 7 * 86_400_000 },
      onUpdate: (_s, e) => events.push(...e),
      perPage: 100,
      signal,
      ...deps,
    });
  const t = {
    clock,
    world,
    events,
    p: poller(emptySnapshot('demo', clock.now())),
    signal,
    settle: async () => {
      for (let i = 0; i < 6; i++) {
        await t.p.settle();
        await new Promise((r) => setImmediate(r));
      }
    },
    kinds: () => events.map((e) => `${e.kind} ${e.entity.id}`),
    /** A restart: a new poller from the current one's snapshot (as stored), on the same world. */
    restart: () => {
      t.p = poller(asStored(t.p.snapshot()));
    },
  };
  return t;
}
