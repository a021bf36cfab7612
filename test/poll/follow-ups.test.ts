/**
 * Follow-up reads after a storm: when many channels change in one poll, the first few
 * follow-ups go at high priority and the rest at normal, so that the next channel list
 * (high) is not queued behind hundreds of them; the channel list itself is read at high.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, type Logger, silentLogger } from '../../src/core/log.js';
import type { Fetcher, FetchOptions } from '../../src/poll/fetcher.js';
import { OrgPoller } from '../../src/poll/org-poller.js';
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
  const note = (kind: string, o: FetchOptions | undefined) => calls.push([kind, o?.priority ?? 'normal']);
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
