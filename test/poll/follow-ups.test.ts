/**
 * Follow-up reads: after a storm every follow-up goes at `follow`, behind the channel list
 * (`high`) and ahead of periodic reads and the sweep; a read of the same list already
 * waiting at a lower priority is raised to the follow-up's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, type Logger, silentLogger } from '../../src/core/log.js';
import type { Fetcher, FetchOptions } from '../../src/poll/fetcher.js';
import { priorityOf } from '../../src/upstream/types.js';
import { RequestBudget } from '../../src/upstream/transport/budget.js';
import { NO_SHOW_GRACE_MS, OrgPoller } from '../../src/poll/org-poller.js';
import { OVERRUN_MARGIN_MS } from '../../src/poll/org-queries.js';
import { findSession } from '../../src/snapshot/session-list.js';
import { nextToSweep } from '../../src/poll/planner.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot } from '../../src/snapshot/model.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { ManualClock } from '../helpers/clock.js';
import { testClient } from './client.js';

let clock: ManualClock;
let sim: Simulator;
let client: UpstreamClient;

beforeEach(async () => {
  clock = new ManualClock();
  sim = await startSimulator({ seed: 5, channels: 30, sessionsPerChannel: 2, frozen: true, clock });
  client = testClient(sim, clock, 300);
});

afterEach(async () => {
  await client.close();
  await sim.close();
});

/** An org poller over `fetcher` from an empty snapshot, as the tests here need it. */
function poller(fetcher: Fetcher, logger: Logger = silentLogger()): OrgPoller {
  return new OrgPoller({ slug: 'demo', token: 'demo-token' }, undefined, emptySnapshot('demo', clock.now()), {
    fetcher,
    clock,
    logger,
    diff: (a, b) => diff(a, b),
    window: { past: 86_400_000, future: 7 * 86_400_000 },
    onUpdate: () => undefined,
    perPage: 100,
    signal: new AbortController().signal,
  });
}

/** The real client, recording the priority of every read by kind. */
function recording(calls: [string, string][]): Fetcher {
  const note = (kind: string, o: FetchOptions | undefined) => calls.push([kind, priorityOf(o)]);
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string' || !key.startsWith('fetch')) return value;
      return (...args: unknown[]) => {
        note(key, args.at(-1) as FetchOptions | undefined);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as Fetcher;
}

describe('follow-up reads', () => {
  it('after 30 channels change at once: every follow-up at follow priority; the channel list at high', async () => {
    const calls: [string, string][] = [];
    const p = poller(recording(calls));
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    for (const ch of sim.view('demo').channels) {
      sim.trigger.channelStatus({
        channel: String(ch['id']),
        status: ch['status'] === 'offline' ? 'idle' : 'offline',
      });
    }
    calls.length = 0;
    await p.refresh('channels', signal);
    await p.settle();
    const byKind = (kind: string) => calls.filter(([k]) => k === kind).map(([, prio]) => prio);
    expect(byKind('fetchChannels')).toEqual(['high']);
    const follow = byKind('fetchSessions');
    expect(follow).toHaveLength(30);
    // All 30 ahead of the periodic reads and the sweep, none competing with the channel list.
    expect(follow.filter((x) => x === 'follow')).toHaveLength(30);
  });
});

describe('the first baseline comes first', () => {
  it('only live channels are hot, before and after the first baseline; a changed channel gets its follow-up, then the sweep weighs it more', async () => {
    const calls: [string, string][] = [];
    const p = poller(recording(calls));
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const channels = sim.view('demo').channels as { id: string; status: string }[];
    const idle = channels.find((c) => c.status !== 'live')!;
    // A change gets its follow-up read at once; it does not make the channel hot.
    sim.trigger.channelStatus({ channel: idle.id, status: idle.status === 'offline' ? 'idle' : 'offline' });
    await p.refresh('channels', signal);
    await p.settle();
    const live = channels.filter((c) => c.status === 'live').map((c) => c.id);
    expect(p.hotChannels(clock.now(), 60_000).sort()).toEqual(live.sort());
    expect(calls.filter(([k]) => k === 'fetchSessions')).toEqual([['fetchSessions', 'follow']]);
    // Every channel read once, at the same time: still only live channels are hot, and of
    // the others the sweep reads the changed one first.
    for (const c of channels) await p.readSessions(c.id, 'low', signal);
    clock.time += 60_000;
    expect(p.hotChannels(clock.now(), 60_000).sort()).toEqual(live.sort());
    const quiet = p.sweepEntries(clock.now()).filter((e) => !e.live);
    expect(nextToSweep(quiet, 1, { now: clock.now(), minEveryMs: 15_000 })[0]?.channelId).toBe(idle.id);
  });
});

describe('the first baseline before follow-ups of channels already read', () => {
  it('a change of a channel already read waits for the sweep, which takes it right after the first reads; a start waits for its detail', async () => {
    const calls: [string, string][] = [];
    const p = poller(recording(calls));
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const channels = sim.view('demo').channels as { id: string; status: string }[];
    const [read, other] = channels.filter((c) => c.status !== 'live');
    await p.readSessions(read!.id, 'low', signal);
    clock.time += 20_000;
    calls.length = 0;
    // In the baseline: the read channel changes and a session starts on it; another,
    // never read, changes too.
    sim.trigger.channelStatus({ channel: read!.id, status: read!.status === 'offline' ? 'idle' : 'offline' });
    sim.trigger.channelStatus({
      channel: other!.id,
      status: other!.status === 'offline' ? 'idle' : 'offline',
    });
    await p.refresh('channels', signal);
    await p.settle();
    // The never-read channel's follow-up is its first read; the read one waits.
    expect(calls.filter(([k]) => k === 'fetchSessions')).toEqual([['fetchSessions', 'follow']]);
    const entry = (id: string) => p.sweepEntries(clock.now()).find((e) => e.channelId === id)!;
    expect(entry(read!.id).hinted).toBe(true);
    expect(entry(other!.id).hinted).toBe(false);
    const started = sim.trigger.startSession({ channel: read!.id, title: 'Started in the baseline' });
    await p.readSessions(read!.id, 'low', signal);
    await p.settle();
    expect(calls.filter(([k]) => k === 'fetchSessionDetail')).toEqual([]);
    expect(p.detailTargets()).toContain(started.id);
    // Once read, it is no longer ahead of the rest.
    expect(entry(read!.id).hinted).toBe(false);
    // The first reads still come before it: never-read channels score above a hint.
    clock.time += 20_000;
    sim.trigger.channelStatus({ channel: read!.id, status: 'offline' });
    await p.refresh('channels', signal);
    await p.settle();
    const policy = { now: clock.now(), minEveryMs: 15_000 };
    const order = nextToSweep(p.sweepEntries(clock.now()), channels.length, policy).map((e) => e.channelId);
    const unread = channels.filter((c) => c.id !== read!.id && c.id !== other!.id).length;
    expect(order.indexOf(read!.id)).toBe(unread);
  });

  it('after the baseline a change gets its follow-up at once again, and leaves no hint behind', async () => {
    const calls: [string, string][] = [];
    const p = poller(recording(calls));
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const channels = sim.view('demo').channels as { id: string; status: string }[];
    for (const c of channels) await p.readSessions(c.id, 'low', signal);
    expect(p.inBaseline()).toBe(false);
    clock.time += 60_000;
    const ch = channels.find((c) => c.status !== 'live')!;
    calls.length = 0;
    sim.trigger.channelStatus({ channel: ch.id, status: ch.status === 'offline' ? 'idle' : 'offline' });
    await p.refresh('channels', signal);
    await p.settle();
    expect(calls.filter(([k]) => k === 'fetchSessions')).toEqual([['fetchSessions', 'follow']]);
    expect(p.sweepEntries(clock.now()).find((e) => e.channelId === ch.id)?.hinted).toBe(false);
  });
});

describe('follow-ups while stopping', () => {
  /** The real client, except that every session read fails as a read aborted by a stop does. */
  function abortedSessions(): Fetcher {
    return new Proxy(client, {
      get(target, key, receiver) {
        if (key === 'fetchSessions') return async () => Promise.reject(new Error('scheduler stopped'));
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as unknown as Fetcher;
  }

  async function warningsAfterChange(stopping: boolean): Promise<string[]> {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      format: 'json',
      destination: new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(String(JSON.parse(chunk.toString()).msg));
          cb();
        },
      }),
    });
    const p = poller(abortedSessions(), logger);
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const ch = (sim.view('demo').channels as { id: string; status: string }[])[0]!;
    sim.trigger.channelStatus({ channel: ch.id, status: ch.status === 'offline' ? 'idle' : 'offline' });
    p.stopping = stopping;
    await p.refresh('channels', signal);
    await p.settle();
    await new Promise((r) => setImmediate(r));
    return lines;
  }

  it('a follow-up that fails while tally runs is logged', async () => {
    expect(await warningsAfterChange(false)).toContain('follow-up read failed');
  });

  it('a follow-up aborted because tally stops (its shared read aborted by the scheduler) is no failure', async () => {
    expect(await warningsAfterChange(true)).not.toContain('follow-up read failed');
  });
});

describe('a read already waiting at a lower priority', () => {
  /**
   * An in-memory org of one channel `X` whose reads wait in a real budget (the real
   * client's priority handling: FetchOptions' urgency, else its priority).
   */
  function budgeted(budget: RequestBudget, live: () => boolean, reads: string[]): Fetcher {
    const wait = async (o: FetchOptions | undefined) => (await budget.acquire(o?.urgency ?? priorityOf(o)))();
    const at = () => clock.now();
    const window = { from: clock.now() - 86_400_000, to: clock.now() + 86_400_000 };
    return {
      // The org-level parts are not read here.
      fetchOrg: () => Promise.reject(new Error('not read here')),
      fetchTeam: () => Promise.reject(new Error('not read here')),
      fetchSubscription: () => Promise.reject(new Error('not read here')),
      fetchChannels: async (_a, o) => {
        await wait(o);
        return { state: 'complete', at: at(), value: [{ id: 'X', status: live() ? 'live' : 'offline' }] };
      },
      fetchSessions: async (_a, ch, o) => {
        const asked = priorityOf(o);
        await wait(o);
        reads.push(`${asked}→${priorityOf(o)}`);
        const status = live() ? 'live' : 'scheduled';
        return { state: 'complete', at: at(), window, value: [{ id: 's1', channelId: ch, status }] };
      },
      fetchSessionDetail: async (_a, id, o) => {
        await wait(o);
        const none = { count: 0, items: [] };
        return {
          state: 'complete',
          at: at(),
          value: {
            id,
            questions: none,
            announcements: none,
            reactions: { count: 0, byKind: {} },
            speakers: none,
            ai: {},
          },
        };
      },
    };
  }

  it('a follow-up raises a sweep read of the same list still queued behind periodic reads', async () => {
    // 60 a minute, one at a time: a backlog of 30 periodic reads is half a minute.
    const budget = new RequestBudget({ perMinute: 60, clock, burst: 1, lowReserve: 0 });
    let live = false;
    const reads: string[] = [];
    const events: string[] = [];
    const p = new OrgPoller({ slug: 'demo', token: 't' }, undefined, emptySnapshot('demo', clock.now()), {
      fetcher: budgeted(budget, () => live, reads),
      clock,
      logger: silentLogger(),
      diff: (a, b, o) => diff(a, b, o),
      window: { past: 86_400_000, future: 86_400_000 },
      onUpdate: (_s, found) => events.push(...found.map((e) => `${e.kind}@${clock.now() - start}`)),
      perPage: 100,
      signal: new AbortController().signal,
    });
    const signal = new AbortController().signal;
    const start = clock.now();
    const baseline = Promise.all([p.refresh('channels', signal), p.readSessions('X', 'low', signal)]);
    await clock.tick(3000);
    await baseline;
    reads.length = 0;
    // Other orgs' periodic reads fill the budget for the next half minute …
    const periodic = Array.from({ length: 30 }, () => budget.acquire('normal').then((release) => release()));
    // … and the sweep picked X: its read waits behind them.
    const sweep = p.readSessions('X', 'low', signal);
    // X goes live; the list (high) shows it and asks for a follow-up of X's sessions.
    live = true;
    const list = p.refresh('channels', signal);
    await clock.tick(5000);
    await list;
    expect(events.filter((e) => e.startsWith('channel.status_changed'))).toHaveLength(1);
    // The sweep read went out as a follow-up, ahead of the periodic reads, and the follow-up
    // queued after it followed at once: the session start is seen within seconds.
    await clock.tick(5000);
    expect(reads).toEqual(['low→follow', 'follow→follow']);
    expect(events.some((e) => e.startsWith('session.started'))).toBe(true);
    const started = Number(events.find((e) => e.startsWith('session.started'))!.split('@')[1]);
    expect(started).toBeLessThan(15_000);
    await clock.tick(40_000);
    await Promise.all([...periodic, sweep]);
  });
});

describe('reads around the schedule', () => {
  it('a channel with a session still scheduled is hot around its planned start and again around start + the no-show grace', async () => {
    const p = poller(client);
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const channels = sim.view('demo').channels as { id: string; status: string }[];
    const quiet = channels.find((c) => c.status !== 'live')!;
    const start = clock.now() + 20 * 60_000;
    sim.trigger.scheduleSession({ channel: quiet.id, at: new Date(start).toISOString() });
    for (const c of channels) await p.readSessions(c.id, 'low', signal);
    const hot = (at: number) => {
      clock.time = at;
      return p.hotChannels(clock.now(), 60_000).includes(quiet.id);
    };
    expect(hot(start - 5 * 60_000)).toBe(false);
    expect(hot(start)).toBe(true);
    expect(hot(start + 2.5 * 60_000)).toBe(false);
    expect(hot(start + NO_SHOW_GRACE_MS + 30_000)).toBe(true);
    expect(hot(start + NO_SHOW_GRACE_MS + 2 * 60_000)).toBe(false);
  });

  it('a channel with a session still scheduled is hot around its planned end and again around end + the overrun margin', async () => {
    const p = poller(client);
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const channels = sim.view('demo').channels as { id: string; status: string }[];
    const quiet = channels.find((c) => c.status !== 'live')!;
    const start = clock.now() + 20 * 60_000;
    const { id } = sim.trigger.scheduleSession({ channel: quiet.id, at: new Date(start).toISOString() });
    for (const c of channels) await p.readSessions(c.id, 'low', signal);
    const part = p.snapshot().sessions[quiet.id];
    const read = part?.state === 'complete' ? findSession(part.value, id!) : undefined;
    const end = read?.scheduledEndAt;
    expect(end).toBeGreaterThan(start + 4 * 60_000);
    const hot = (at: number) => {
      clock.time = at;
      return p.hotChannels(clock.now(), 60_000).includes(quiet.id);
    };
    expect(hot(end! - 2 * 60_000 - 1)).toBe(false);
    expect(hot(end! + 30_000)).toBe(true);
    expect(hot(end! + OVERRUN_MARGIN_MS / 2)).toBe(false);
    expect(hot(end! + OVERRUN_MARGIN_MS - 30_000)).toBe(true);
    expect(hot(end! + OVERRUN_MARGIN_MS + 2 * 60_000)).toBe(false);
  });
});
