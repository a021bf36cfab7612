import { describe, expect, it } from 'vitest';
import { setup } from './world.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

const H = 3_600_000;

/**
 * Reads that must yield no event: nothing changed on the server, only time passed or
 * what tally watches changed (docs/events.md, the window rule; docs/polling.md).
 */
describe('no invented events', () => {
  it('an overdue scheduled session that leaves the window is not removed', async () => {
    const t = setup();
    t.world.channels = [{ id: 'c1', status: 'offline' }];
    t.world.sessions = [
      { id: 's1', channelId: 'c1', status: 'scheduled', scheduledAt: t.clock.now() - 23 * H },
      { id: 's2', channelId: 'c1', status: 'scheduled', scheduledAt: t.clock.now() + 5 * H },
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('c1', 'low', t.signal);
    expect(t.events).toEqual([]);
    await t.clock.tick(2 * H); // time passes; nothing on the server changed
    await t.p.readSessions('c1', 'low', t.signal);
    await t.settle(); // the confirming re-read
    expect(t.kinds()).toEqual([]);
    const list = t.p.snapshot().sessions['c1'];
    expect(list?.state === 'complete' && sessionArray(list.value).map((s) => s.id)).toEqual(['s2']);
  });

  it('a session moved to another channel is compared, not removed and added, whichever list is read first', async () => {
    const t = setup();
    t.world.channels = [
      { id: 'a', status: 'offline' },
      { id: 'b', status: 'offline' },
    ];
    const at = t.clock.now() + H;
    const others = [2, 3, 4, 5].map((i) => ({
      id: `s${i}`,
      channelId: 'a',
      status: 'scheduled',
      scheduledAt: at,
    }));
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: at }, ...others];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.p.readSessions('b', 'low', t.signal);
    await t.clock.tick(60_000);
    t.world.sessions = [
      { id: 's1', channelId: 'b', status: 'scheduled', scheduledAt: at, title: 'moved' },
      ...others,
    ];
    await t.p.readSessions('a', 'low', t.signal); // the old channel is read first
    await t.settle();
    await t.clock.tick(60_000);
    await t.p.readSessions('b', 'low', t.signal);
    await t.settle();
    // Its detail said where it went: channel b was read before a's list confirmed anything.
    expect(t.world.detailReads).toEqual(['s1']);
    expect(t.kinds()).toEqual(['session.renamed s1']);
    const b = t.p.snapshot().sessions['b'];
    expect(b?.state === 'complete' && sessionArray(b.value).map((s) => s.id)).toEqual(['s1']);
  });

  it('a session really deleted is still removed, once its detail is gone too', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const at = t.clock.now() + H;
    t.world.sessions = [1, 2, 3, 4, 5].map((i) => ({
      id: `s${i}`,
      channelId: 'a',
      status: 'scheduled',
      scheduledAt: at,
    }));
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(60_000);
    t.world.sessions.shift();
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['session.removed s1']);
  });

  it('a session its lists leave out while its detail still shows it is not removed and added back', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const at = t.clock.now() - H;
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', startedAt: at },
      ...[2, 3, 4, 5].map((i) => ({
        id: `s${i}`,
        channelId: 'a',
        status: 'scheduled',
        scheduledAt: at + 5 * H,
      })),
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    // The lists (a lagging replica) leave s1 out for a while; its detail still shows it.
    t.world.lagging.add('s1');
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'normal', t.signal); // the first miss; its detail, then the list, read again
    await t.settle();
    expect(t.world.detailReads).toEqual(['s1']);
    expect(t.kinds()).toEqual([]);
    const list = t.p.snapshot().sessions['a'];
    expect(
      list?.state === 'complete' &&
        sessionArray(list.value)
          .map((s) => s.id)
          .sort(),
    ).toContain('s1');
    expect(t.p.heldRemovals()).toMatchObject([{ list: 'sessions:a', count: 1 }]);
    // The detail outweighed the confirming read: no read was asked for at once.
    await t.settle();
    expect(t.world.detailReads).toEqual(['s1']);
    // The replica catches up: nothing happened, and nothing is reported.
    t.world.lagging.clear();
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'normal', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
    expect(t.p.heldRemovals()).toEqual([]);
  });

  it('a session left out and then deleted is removed once, when no newer detail shows it', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const at = t.clock.now() + H;
    t.world.sessions = [1, 2, 3, 4, 5].map((i) => ({
      id: `s${i}`,
      channelId: 'a',
      status: 'scheduled',
      scheduledAt: at,
    }));
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    t.world.lagging.add('s1');
    await t.clock.tick(60_000);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
    // Deleted meanwhile: the next read of the list misses it with no newer detail.
    t.world.sessions.shift();
    await t.clock.tick(60_000);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['session.removed s1']);
  });

  it('a record that leaves fields out (or sends null) changes nothing, and the next full one neither', async () => {
    const t = setup();
    const at = t.clock.now() + H;
    const full = {
      channels: [{ id: 'a', name: 'News', status: 'offline', visibility: 'public' }],
      sessions: [{ id: 's1', channelId: 'a', title: 'Morning', status: 'scheduled', scheduledAt: at }],
    };
    t.world.channels = structuredClone(full.channels);
    t.world.sessions = structuredClone(full.sessions);
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    // One read whose records say nothing of status, name, visibility, title or time (a
    // null reads as absent): the channel's status is read as unknown.
    t.world.channels = [{ id: 'a', status: 'unknown' }];
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled' }];
    await t.clock.tick(30_000);
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    t.world.channels = structuredClone(full.channels);
    t.world.sessions = structuredClone(full.sessions);
    await t.clock.tick(30_000);
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
    // A real change after a read that left the field out is still reported.
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled' }];
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'low', t.signal);
    t.world.sessions = [{ ...full.sessions[0]!, title: 'Evening' }];
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['session.renamed s1']);
  });

  it('a session its list drops and its detail calls deleted is removed at the confirming read', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const at = t.clock.now() - H;
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', startedAt: at },
      ...[2, 3, 4, 5].map((i) => ({
        id: `s${i}`,
        channelId: 'a',
        status: 'scheduled',
        scheduledAt: at + 5 * H,
      })),
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    // Deleted softly: gone from the list, its detail still answers, saying so.
    t.world.sessions[0]!.status = 'deleted';
    t.world.lagging.add('s1');
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'normal', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['session.removed s1']);
  });

  it('a detail outweighs a list that keeps leaving a session out for ten minutes at most', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const at = t.clock.now() - H;
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', startedAt: at },
      ...[2, 3, 4, 5].map((i) => ({
        id: `s${i}`,
        channelId: 'a',
        status: 'scheduled',
        scheduledAt: at + 5 * H,
      })),
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    t.world.lagging.add('s1');
    // The list is read every 30 s and the live detail every 15 s: a newer detail each time.
    for (let s = 0; s < 12 * 60; s += 15) {
      await t.clock.tick(15_000);
      await t.p.readDetail('s1', 'normal', t.signal);
      if (s % 30 === 0) await t.p.readSessions('a', 'normal', t.signal);
      await t.settle();
    }
    expect(t.kinds()).toEqual(['session.removed s1']);
    expect(t.p.heldRemovals()).toEqual([]);
  });

  it('a list read without the window after one read with it adds no session, but removes and changes', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const at = t.clock.now() + H;
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: at },
      { id: 's2', channelId: 'a', status: 'scheduled', scheduledAt: at },
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    // The window is no longer sent (the server misread it): the list shows s3, there all
    // along; meanwhile s1 went live and s2 was deleted.
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', scheduledAt: at, startedAt: t.clock.now() },
      { id: 's3', channelId: 'a', status: 'scheduled', scheduledAt: at },
    ];
    t.world.unwindowed = true;
    for (let i = 0; i < 3; i++) {
      await t.clock.tick(30_000);
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
    }
    expect(t.kinds()).toEqual(['session.status_changed s1', 'session.started s1', 'session.removed s2']);
    const list = t.p.snapshot().sessions['a'];
    expect(
      list?.state === 'complete' &&
        sessionArray(list.value)
          .map((s) => s.id)
          .sort(),
    ).toEqual(['s1', 's3']);
    // From then on, lists compare as usual.
    t.world.sessions.push({ id: 's4', channelId: 'a', status: 'scheduled', scheduledAt: at });
    await t.clock.tick(30_000);
    await t.p.readSessions('a', 'low', t.signal);
    expect(t.kinds().at(-1)).toBe('session.added s4');
  });

  it('a channel renamed out of a name-based include filter is dropped, not removed', async () => {
    const t = setup({ include: ['team-*'] });
    t.world.channels = [1, 2, 3, 4, 5].map((i) => ({ id: `c${i}`, name: `team-${i}`, status: 'offline' }));
    t.world.sessions = [{ id: 's1', channelId: 'c1', status: 'scheduled', scheduledAt: t.clock.now() + H }];
    await t.p.refresh('channels', t.signal);
    for (const c of t.world.channels) await t.p.readSessions(c.id, 'low', t.signal);
    await t.clock.tick(60_000);
    t.world.channels[0]!.name = 'archive-1';
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
    // No longer watched: neither the channel nor its sessions are held.
    const snap = t.p.snapshot();
    expect(snap.channels?.state === 'complete' && snap.channels.value.map((c) => c.id)).toEqual([
      'c2',
      'c3',
      'c4',
      'c5',
    ]);
    expect(Object.keys(snap.sessions)).toEqual(['c2', 'c3', 'c4', 'c5']);
    // Really gone from the server later: nothing more to say either.
    t.world.channels.shift();
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
  });

  it('a channel renamed into the filter is taken in silently, its sessions read at once', async () => {
    const t = setup({ include: ['team-*'] });
    t.world.channels = [
      { id: 'c1', name: 'team-1', status: 'offline' },
      { id: 'c2', name: 'misc', status: 'offline' },
    ];
    t.world.sessions = [
      { id: 's9', channelId: 'c2', status: 'scheduled', scheduledAt: t.clock.now() - 30 * 60_000 + 10 * H },
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('c1', 'low', t.signal);
    await t.clock.tick(60_000);
    t.world.channels[1]!.name = 'team-2';
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual([]);
    const list = t.p.snapshot().sessions['c2'];
    expect(list?.state === 'complete' && sessionArray(list.value).map((s) => s.id)).toEqual(['s9']);
    // A channel new to the server, that the filter keeps, is still added.
    t.world.channels.push({ id: 'c3', name: 'team-3', status: 'offline' });
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['channel.added c3']);
  });
});

describe('a channel added after the baseline', () => {
  it('reports its sessions as added, and no start or end that came before tally looked', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(60_000);
    const now = t.clock.now();
    t.world.channels.push({ id: 'b', status: 'offline' });
    t.world.sessions = [
      {
        id: 'old',
        channelId: 'b',
        status: 'ended',
        scheduledAt: now - 20 * H,
        startedAt: now - 20 * H,
        endedAt: now - 19 * H,
      },
      { id: 'soon', channelId: 'b', status: 'scheduled', scheduledAt: now + H },
    ];
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['channel.added b', 'session.added old', 'session.added soon']);
    // A start after that is news.
    await t.clock.tick(60_000);
    t.world.sessions[1] = { ...t.world.sessions[1]!, status: 'live', startedAt: t.clock.now() };
    await t.p.readSessions('b', 'low', t.signal);
    expect(t.kinds().slice(3)).toEqual(['session.status_changed soon', 'session.started soon']);
  });
});

describe('no missed events', () => {
  it('reports the questions a session tally watched start had before its first detail read, not older ones', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const now = () => t.clock.now();
    const planned = now() + H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: planned }];
    // Asked long before tally looked (and one with no time): not news when it starts.
    t.world.questions.set('s1', [
      { id: 'old', text: 'submitted last week', at: now() - 7 * 24 * H },
      { id: 'undated', text: 'no time given' },
    ]);
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(30_000);
    // The session starts and a question comes at once, before tally reads its detail.
    t.world.channels = [{ id: 'a', status: 'live' }];
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', scheduledAt: planned, startedAt: now() }];
    t.world.questions.get('s1')!.push({ id: 'q1', text: 'first!', at: now() });
    await t.p.refresh('channels', t.signal); // the channel is live: its sessions, then the detail, at once
    await t.settle();
    expect(t.kinds()).toEqual([
      'channel.status_changed a',
      'session.status_changed s1',
      'session.started s1',
      'session.question_added s1',
    ]);
    expect(t.events.at(-1)!.labels['question_id']).toBe('q1');
    // The next detail read compares as usual: one more question, one more event.
    t.world.questions.get('s1')!.push({ id: 'q2', text: 'second', at: now() });
    await t.clock.tick(60_000);
    await t.p.readDetail('s1', 'normal', t.signal);
    expect(t.kinds().slice(4)).toEqual(['session.question_added s1']);
    expect(t.events.at(-1)!.labels['question_id']).toBe('q2');
  });

  it('reports a question of a watched start also when its first detail reads failed', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const planned = t.clock.now() + H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: planned }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(30_000);
    t.world.channels = [{ id: 'a', status: 'live' }];
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', scheduledAt: planned, startedAt: t.clock.now() },
    ];
    t.world.questions.set('s1', [{ id: 'q1', text: 'first!', at: t.clock.now() }]);
    t.world.failingDetails.add('s1'); // the follow-up detail read times out
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.p.snapshot().details['s1']?.state).toBe('failed');
    t.world.failingDetails.clear();
    await t.clock.tick(60_000);
    await t.p.readDetail('s1', 'normal', t.signal);
    expect(t.kinds()).toContain('session.question_added s1');
  });

  it('after a restart, the first detail of a session live at tally’s first look is a baseline', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const started = t.clock.now() - 2 * H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', startedAt: started }];
    // Asked five minutes before tally first looked: never news.
    t.world.questions.set('s1', [{ id: 'q1', text: 'before tally', at: t.clock.now() - 5 * 60_000 }]);
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    t.restart(); // before the first detail was read
    await t.clock.tick(60_000);
    await t.p.readDetail('s1', 'normal', t.signal);
    expect(t.kinds()).toEqual([]);
  });

  it('reports a question of a watched start whose first detail came only after a restart', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'offline' }];
    const planned = t.clock.now() + H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: planned }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(30_000);
    t.world.channels = [{ id: 'a', status: 'live' }];
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', scheduledAt: planned, startedAt: t.clock.now() },
    ];
    t.world.questions.set('s1', [{ id: 'q1', text: 'first!', at: t.clock.now() }]);
    t.world.failingDetails.add('s1'); // the first detail read fails, then tally restarts
    await t.p.refresh('channels', t.signal);
    await t.settle();
    t.restart();
    t.world.failingDetails.clear();
    await t.clock.tick(60_000);
    await t.p.readDetail('s1', 'normal', t.signal);
    expect(t.kinds()).toContain('session.question_added s1');
  });

  it('follows an ended session’s AI to its end, for an hour at most', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const started = t.clock.now() - H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', startedAt: started }];
    t.world.ai.set('s1', 'transcribing');
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    await t.p.readDetail('s1', 'normal', t.signal);
    // It ends; its final detail read shows the AI still summarizing.
    await t.clock.tick(60_000);
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'ended', startedAt: started, endedAt: t.clock.now() },
    ];
    t.world.ai.set('s1', 'summarizing');
    await t.p.readSessions('a', 'normal', t.signal);
    for (const id of t.p.detailTargets()) await t.p.readDetail(id, 'normal', t.signal);
    expect(t.p.detailTargets()).toEqual(['s1']);
    // Minutes later the summary fails: reported, and the session is no longer read.
    await t.clock.tick(5 * 60_000);
    t.world.ai.set('s1', 'failed');
    for (const id of t.p.detailTargets()) await t.p.readDetail(id, 'normal', t.signal);
    expect(t.kinds().filter((k) => k.startsWith('session.ai_status_changed'))).toEqual([
      'session.ai_status_changed s1',
      'session.ai_status_changed s1',
    ]);
    expect(t.events.at(-1)).toMatchObject({ from: 'summarizing', to: 'failed' });
    expect(t.p.detailTargets()).toEqual([]);
  });

  it('stops following an AI that never finishes an hour after the end', async () => {
    const t = setup();
    t.world.channels = [{ id: 'a', status: 'live' }];
    const started = t.clock.now() - H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', startedAt: started }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'normal', t.signal);
    await t.p.readDetail('s1', 'normal', t.signal);
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'ended', startedAt: started, endedAt: t.clock.now() },
    ];
    t.world.ai.set('s1', 'processing');
    await t.p.readSessions('a', 'normal', t.signal);
    for (let minute = 0; minute < 59; minute++) {
      for (const id of t.p.detailTargets()) await t.p.readDetail(id, 'normal', t.signal);
      await t.clock.tick(60_000);
    }
    expect(t.p.detailTargets()).toEqual(['s1']);
    await t.clock.tick(2 * 60_000);
    for (const id of t.p.detailTargets()) await t.p.readDetail(id, 'normal', t.signal);
    expect(t.p.detailTargets()).toEqual([]);
  });
});
