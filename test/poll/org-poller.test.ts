import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrgPoller } from '../../src/poll/org-poller.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { emptySnapshot, type OrgSnapshot } from '../../src/snapshot/model.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { silentLogger } from '../../src/core/log.js';
import { ManualClock } from '../helpers/clock.js';
import { asStored } from '../helpers/stored.js';
import { testClient } from './client.js';
import { SessionList, sessionArray } from '../../src/snapshot/session-list.js';

let clock: ManualClock;
let sim: Simulator;
let client: UpstreamClient;
let events: ChangeEvent[];

function makeClient(): UpstreamClient {
  return testClient(sim, clock);
}

function poller(initial: OrgSnapshot = emptySnapshot('demo', clock.now())): OrgPoller {
  return new OrgPoller({ slug: 'demo', token: 'demo-token' }, undefined, initial, {
    fetcher: client,
    clock,
    logger: silentLogger(),
    diff: (a, b) => diff(a, b),
    window: { past: 86_400_000, future: 7 * 86_400_000 },
    onUpdate: (_s, e) => events.push(...e),
    perPage: 100,
    signal: new AbortController().signal,
  });
}

async function readEverything(p: OrgPoller): Promise<void> {
  const signal = new AbortController().signal;
  for (const part of ['profile', 'team', 'subscription', 'channels'] as const) await p.refresh(part, signal);
  for (const e of p.sweepEntries()) await p.readSessions(e.channelId, 'low', signal);
  for (const id of p.detailTargets()) await p.readDetail(id, 'high', signal);
}

/** Lets follow-up reads started by the poller finish. */
async function settle(p: OrgPoller): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await p.settle();
    await new Promise((r) => setImmediate(r));
  }
}

beforeEach(async () => {
  clock = new ManualClock();
  sim = await startSimulator({ seed: 3, channels: 4, sessionsPerChannel: 3, frozen: true, clock });
  client = makeClient();
  events = [];
});

afterEach(async () => {
  await client.close();
  await sim.close();
});

describe('OrgPoller against the simulator', () => {
  it('takes the first look as a silent baseline', async () => {
    const p = poller();
    await readEverything(p);
    expect(events).toEqual([]);
    const s = p.snapshot();
    expect(s.channels?.state).toBe('complete');
    expect(Object.keys(s.sessions)).toHaveLength(4);
  });

  it('turns a scripted scenario into exactly the expected events', async () => {
    const p = poller();
    await readEverything(p);
    const channels = p.snapshot().channels;
    const channel = channels?.state === 'complete' ? channels.value[0] : undefined;
    const target = channel!.status === 'offline' ? 'idle' : 'offline';

    await clock.tick(5_000);
    sim.trigger.channelStatus({ channel: channel!.id, status: target });
    sim.trigger.channelVisibility({ channel: channel!.id, visibility: 'private' });
    await p.refresh('channels', new AbortController().signal);
    await settle(p);
    expect(events.map((e) => [e.kind, e.entity.id, e.from, e.to])).toEqual([
      ['channel.status_changed', channel!.id, channel!.status, target],
      ...(channel!.visibility === 'private'
        ? []
        : [['channel.visibility_changed', channel!.id, channel!.visibility, 'private']]),
    ]);

    events = [];
    await clock.tick(5_000);
    const started = sim.trigger.startSession({ channel: channel!.id, title: 'Scripted show' });
    await p.readSessions(channel!.id, 'high', new AbortController().signal);
    await settle(p);
    const kinds = events.map((e) => e.kind);
    expect(kinds).toEqual(['session.added', 'session.started']);
    expect(events[0]!.entity.id).toBe(started.id);
    expect(events[0]!.labels['session']).toBe('Scripted show');
    // The start was followed at once by a read of the session's detail (a baseline).
    expect(p.snapshot().details[started.id!]?.state).toBe('complete');

    events = [];
    await clock.tick(5_000);
    sim.trigger.addQuestion({ session: started.id!, text: 'Is this live?' });
    await p.readDetail(started.id!, 'high', new AbortController().signal);
    expect(events.map((e) => [e.kind, e.to])).toEqual([['session.question_added', 'Is this live?']]);
  });

  it('a failed read keeps the last complete part and reports the change once it reads again', async () => {
    const p = poller();
    await readEverything(p);
    const before = p.snapshot().channels;
    const ch = before?.state === 'complete' ? before.value[1] : undefined;

    sim.setFaults({ errorRate: 1, errorStatus: 503, path: '/channels$' });
    sim.trigger.removeChannel({ channel: ch!.id });
    await clock.tick(5_000);
    await p.refresh('channels', new AbortController().signal);
    expect(p.snapshot().channels).toBe(before);
    expect(p.attempts.get('channels')?.state).toBe('failed');
    expect(events).toEqual([]);

    sim.setFaults(null);
    await clock.tick(5_000);
    await p.refresh('channels', new AbortController().signal);
    await settle(p); // the removal is confirmed by a second read of the list
    expect(events.map((e) => [e.kind, e.entity.id])).toEqual([['channel.removed', ch!.id]]);
    expect(p.snapshot().sessions[ch!.id]).toBeUndefined();
  });

  it('forgets the read attempts of details it no longer holds, all but the latest', async () => {
    const p = poller();
    await readEverything(p);
    const channels = p.snapshot().channels;
    const ids = channels?.state === 'complete' ? channels.value.map((c) => c.id) : [];
    const signal = new AbortController().signal;
    // Two shows start and are read; both end, and the final reads of both are made.
    const shows = ids
      .slice(0, 2)
      .map((channel) => ({ channel, id: sim.trigger.startSession({ channel }).id! }));
    await clock.tick(5_000);
    for (const { channel } of shows) await p.readSessions(channel, 'high', signal);
    await settle(p);
    for (const { id } of shows) expect(p.attempts.has(`detail:${id}`)).toBe(true);
    await clock.tick(5_000);
    for (const { channel, id } of shows) sim.trigger.endSession({ channel, session: id });
    for (const { channel } of shows) await p.readSessions(channel, 'high', signal);
    await settle(p);
    for (const { id } of shows) await p.readDetail(id, 'high', signal);
    // The next commit prunes their details; their attempts go with them but the latest.
    await clock.tick(60_000);
    await p.refresh('team', signal);
    const held = shows.filter(({ id }) => p.snapshot().details[id] !== undefined);
    expect(held).toEqual([]);
    const kept = shows.filter(({ id }) => p.attempts.has(`detail:${id}`)).map(({ id }) => id);
    expect(kept).toEqual([shows[1]!.id]);
    expect(p.lastAttemptAt(`detail:${shows[1]!.id}`)).toBeDefined();
  });

  it('holds every session list compactly, read or resumed, and stores it as the sessions it holds', async () => {
    const first = poller();
    await readEverything(first);
    const lists = Object.values(first.snapshot().sessions);
    expect(lists.length).toBe(4);
    for (const part of lists) {
      expect(part.state).toBe('complete');
      if (part.state === 'complete') expect(part.value).toBeInstanceOf(SessionList);
    }
    const stored = asStored(first.snapshot());
    for (const [id, part] of Object.entries(stored.sessions)) {
      const held = first.snapshot().sessions[id]!;
      expect(Array.isArray(part.state === 'complete' && part.value)).toBe(true);
      expect(part.state === 'complete' && part.value.length).toBe(
        held.state === 'complete' && held.value.length,
      );
    }
    expect(Object.values(stored.sessions).some((p) => p.state === 'complete' && p.value.length > 0)).toBe(
      true,
    );
    const second = poller(stored);
    for (const [id, part] of Object.entries(second.snapshot().sessions)) {
      expect(part.state === 'complete' && part.value).toBeInstanceOf(SessionList);
      const was = stored.sessions[id]!;
      expect(part.state === 'complete' && sessionArray(part.value)).toStrictEqual(
        was.state === 'complete' && was.value,
      );
    }
  });

  it('resumes from a stored snapshot and reports what changed while it was away, once', async () => {
    const first = poller();
    await readEverything(first);
    const stored = asStored(first.snapshot());

    sim.trigger.addMember({ name: 'New Person', role: 'member' });
    await clock.tick(60_000);
    const second = poller(stored);
    await second.refresh('team', new AbortController().signal);
    expect(events.map((e) => [e.kind, e.labels['member']])).toEqual([['member.added', 'New Person']]);

    // A third process resuming from the same stored snapshot sees the same event with the same id.
    const seen = events.slice();
    events = [];
    await clock.tick(60_000);
    await poller(stored).refresh('team', new AbortController().signal);
    expect(events.map((e) => e.id)).toEqual(seen.map((e) => e.id));
  });

  it('confirms a removal with a second read: a session left out of one answer is no removal', async () => {
    const p = poller();
    await readEverything(p);
    const channel = Object.keys(p.snapshot().sessions)[0]!;
    const listed = p.snapshot().sessions[channel];
    const victim = listed?.state === 'complete' ? listed.value.at(0)! : undefined;
    // The server leaves one session out of one answer (a page cut short, a lagging replica).
    const real = client.fetchSessions.bind(client);
    let drops = 1;
    client.fetchSessions = async (org, id, o) => {
      const part = await real(org, id, o);
      if (id !== channel || drops === 0 || part.state !== 'complete') return part;
      drops -= 1;
      return { ...part, value: part.value.filter((x) => x.id !== victim!.id) };
    };
    await clock.tick(5_000);
    await p.readSessions(channel, 'high', new AbortController().signal);
    await settle(p);
    expect(events).toEqual([]);
    const after = p.snapshot().sessions[channel];
    expect(after?.state === 'complete' && sessionArray(after.value).some((x) => x.id === victim!.id)).toBe(
      true,
    );

    // Gone for good, its detail too: reported once, after the second read confirms it.
    drops = Number.POSITIVE_INFINITY;
    const realDetail = client.fetchSessionDetail.bind(client);
    client.fetchSessionDetail = async (org, id, o) =>
      id === victim!.id
        ? {
            state: 'failed',
            at: clock.now(),
            error: { reason: 'not_found', message: `GET /sessions/${id}: 404` },
          }
        : realDetail(org, id, o);
    await clock.tick(5_000);
    await p.readSessions(channel, 'high', new AbortController().signal);
    await settle(p);
    expect(events.map((e) => [e.kind, e.entity.id])).toEqual([['session.removed', victim!.id]]);
  });

  it('reports a member removed once, after the second read of the team confirms it', async () => {
    const p = poller();
    await readEverything(p);
    const team = p.snapshot().team;
    const member = team?.state === 'complete' ? team.value[1]! : undefined;
    sim.trigger.removeMember({ member: member!.id });
    await clock.tick(5_000);
    const before = sim.requests().filter((r) => r.path.endsWith('/team')).length;
    await p.refresh('team', new AbortController().signal);
    await settle(p);
    expect(events.map((e) => [e.kind, e.entity.id])).toEqual([['member.removed', member!.id]]);
    expect(sim.requests().filter((r) => r.path.endsWith('/team')).length - before).toBe(2);
  });
});

describe('an OrgPoller resumed from a stored snapshot', () => {
  it('is not in its first baseline, counts stored lists as read when they were, and tells a hint that moved while it was down', async () => {
    await client.close();
    await sim.close();
    sim = await startSimulator({
      seed: 3,
      channels: 4,
      sessionsPerChannel: 3,
      frozen: true,
      clock,
      hints: true,
    });
    client = makeClient();

    const before = poller();
    expect(before.inBaseline()).toBe(false); // no channel list yet: nothing to read
    await readEverything(before);
    const stored = asStored(before.snapshot());
    const ids = Object.keys(stored.sessions);
    expect(ids).toHaveLength(4);
    // Each stored list keeps the channel list's hint it was read under.
    for (const id of ids) expect(stored.sessions[id]?.hint).toEqual(expect.any(String));

    // A restart, and meanwhile a session is scheduled on one channel.
    await clock.tick(60_000);
    const target = ids[1]!;
    sim.trigger.scheduleSession({ org: 'demo', channel: target });
    const after = poller(stored);
    expect(after.inBaseline()).toBe(false);
    const entries = after.sweepEntries();
    expect(entries.map((e) => e.lastReadAt)).toEqual(entries.map((e) => stored.sessions[e.channelId]?.at));
    expect(entries.every((e) => e.hinted === false)).toBe(true);

    await after.refresh('channels', new AbortController().signal);
    const hinted = after
      .sweepEntries()
      .filter((e) => e.hinted)
      .map((e) => e.channelId);
    expect(hinted).toEqual([target]);
  });

  it('a read that fails leaves a moved hint unanswered', async () => {
    await client.close();
    await sim.close();
    sim = await startSimulator({
      seed: 3,
      channels: 4,
      sessionsPerChannel: 3,
      frozen: true,
      clock,
      hints: true,
    });
    client = makeClient();
    let failNext = false;
    const fetcher = Object.create(client) as UpstreamClient;
    fetcher.fetchSessions = async (...args: Parameters<UpstreamClient['fetchSessions']>) => {
      if (!failNext) return client.fetchSessions(...args);
      failNext = false;
      const at = clock.now();
      return {
        state: 'failed',
        at,
        window: { from: at, to: at },
        error: { reason: 'network', message: 'reset' },
      };
    };
    const p = new OrgPoller(
      { slug: 'demo', token: 'demo-token' },
      undefined,
      emptySnapshot('demo', clock.now()),
      {
        fetcher,
        clock,
        logger: silentLogger(),
        diff: (a, b) => diff(a, b),
        window: { past: 86_400_000, future: 7 * 86_400_000 },
        onUpdate: (_s, e) => events.push(...e),
        perPage: 100,
        signal: new AbortController().signal,
      },
    );
    await readEverything(p);
    const target = p.sweepEntries()[2]!.channelId;
    await clock.tick(60_000);
    sim.trigger.scheduleSession({ org: 'demo', channel: target });
    const signal = new AbortController().signal;
    await p.refresh('channels', signal);
    const hinted = () =>
      p
        .sweepEntries()
        .filter((e) => e.hinted)
        .map((e) => e.channelId);
    expect(hinted()).toEqual([target]);
    failNext = true;
    await p.readSessions(target, 'low', signal);
    expect(hinted()).toEqual([target]);
    // A read that answers clears it, and the new session is reported.
    await p.readSessions(target, 'low', signal);
    expect(hinted()).toEqual([]);
    expect(events.some((e) => e.kind === 'session.added')).toBe(true);
  });

  it('a follow-up does not take the answer of a read that began before the change: it reads again after it', async () => {
    let gate: (() => void) | undefined;
    const started: string[] = [];
    const fetcher = Object.create(client) as UpstreamClient;
    fetcher.fetchSessions = async (...args: Parameters<UpstreamClient['fetchSessions']>) => {
      started.push(args[1]);
      // The first read of the target is answered now, but handed back only later.
      const answer = await client.fetchSessions(...args);
      if (gate === undefined && started.length > 4) await new Promise<void>((r) => (gate = r));
      return answer;
    };
    const p = new OrgPoller(
      { slug: 'demo', token: 'demo-token' },
      undefined,
      emptySnapshot('demo', clock.now()),
      {
        fetcher,
        clock,
        logger: silentLogger(),
        diff: (a, b) => diff(a, b),
        window: { past: 86_400_000, future: 7 * 86_400_000 },
        onUpdate: (_s, e) => events.push(...e),
        perPage: 100,
        signal: new AbortController().signal,
      },
    );
    await readEverything(p);
    const channel = p.snapshot().channels;
    const ch = channel?.state === 'complete' ? channel.value[0]! : undefined;
    const signal = new AbortController().signal;
    // A sweep read of the channel is in flight (its answer taken before the change)…
    const inFlight = p.readSessions(ch!.id, 'low', signal);
    for (let i = 0; i < 200 && gate === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(gate).toBeDefined();
    // …when the channel goes live with a new session, and the list shows it.
    await clock.tick(5_000);
    sim.trigger.channelStatus({ channel: ch!.id, status: ch!.status === 'live' ? 'offline' : 'live' });
    sim.trigger.scheduleSession({ org: 'demo', channel: ch!.id });
    await p.refresh('channels', signal);
    const before = started.filter((id) => id === ch!.id).length;
    gate!();
    await inFlight;
    await settle(p);
    // The follow-up read the channel again after the stale one, and saw the new session.
    expect(started.filter((id) => id === ch!.id).length).toBe(before + 1);
    expect(events.some((e) => e.kind === 'session.added')).toBe(true);
  });

  it('is in its first baseline while a listed channel has neither a stored list nor a read', async () => {
    const first = poller();
    await readEverything(first);
    const stored = asStored(first.snapshot());
    const dropped = Object.keys(stored.sessions)[0]!;
    delete stored.sessions[dropped];
    const p = poller(stored);
    expect(p.inBaseline()).toBe(true);
    await p.readSessions(dropped, 'low', new AbortController().signal);
    expect(p.inBaseline()).toBe(false);
  });
});
