/**
 * What waits for the first baseline, and for how long (docs/polling.md, "Readiness and the
 * first baseline"): a change of a channel already read waits for the sweep only in the
 * baseline's last minutes, keeps its place across a restart, and never waits longer than
 * CHANGE_WAITS_AT_MOST_MS; the detail of a session that starts waits only in those last
 * minutes too, and what makes its first questions news survives a restart meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { CHANGE_WAITS_AT_MOST_MS, nextToSweep, type SweepEntry, sweepScore } from '../../src/poll/planner.js';
import type { Session, SessionsPart } from '../../src/snapshot/model.js';
import { OWED_TIMES_KEPT, SweepLedger } from '../../src/poll/sweep-ledger.js';
import { setup } from './world.js';

const H = 3_600_000;

/** Four channels; `a` (live, session s1) and `d` read, `b` and `c` not: a first baseline under way. */
async function fourChannels(t: ReturnType<typeof setup>) {
  t.world.channels = [
    { id: 'a', status: 'live' },
    { id: 'b', status: 'offline' },
    { id: 'c', status: 'offline' },
    { id: 'd', status: 'offline' },
  ];
  t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', startedAt: t.clock.now() - 60_000 }];
  await t.p.refresh('channels', t.signal);
  await t.p.readSessions('d', 'low', t.signal);
  await t.clock.tick(10_000);
  await t.p.readSessions('a', 'low', t.signal);
  await t.clock.tick(30_000);
}

/** `a` ends its session and goes offline, and the channel list shows it: a change that waits. */
async function aEnds(t: ReturnType<typeof setup>) {
  t.world.sessions = [
    { id: 's1', channelId: 'a', status: 'ended', startedAt: t.clock.now() - 90_000, endedAt: t.clock.now() },
  ];
  t.world.channels[0] = { id: 'a', status: 'offline' };
  await t.p.refresh('channels', t.signal);
}

/** {@link fourChannels}, then {@link aEnds}: the change waits for the sweep. */
async function waitedChange(t: ReturnType<typeof setup>) {
  await fourChannels(t);
  await aEnds(t);
  await t.settle();
  expect(t.kinds()).toEqual(['channel.status_changed a']);
}

/**
 * A poller whose reads of the channels in `refused` answer `how`, and whose next read of
 * `a` can be held until released (a read in flight), or run `hook` before it answers.
 */
function answering(how: 'not_found' | 'incomplete' | 'timeout' = 'not_found', datedAtAnswer = false) {
  const refused = new Set<string>();
  let hook: (() => Promise<void>) | undefined;
  let held: (() => void) | undefined;
  let holding = false;
  const t = setup(undefined, {
    fetchSessions: async (auth, ch, opts) => {
      const part = await t.world.fetcher().fetchSessions(auth, ch, opts);
      const isRefused = refused.has(ch);
      if (ch === 'a' && hook) {
        const h = hook;
        hook = undefined;
        await h();
      }
      if (ch === 'a' && holding) await new Promise<void>((r) => (held = r));
      // As the upstream client does when asked: the part dated when the answer is in.
      const answered = datedAtAnswer ? ({ ...part, at: t.clock.now() } as SessionsPart<Session[]>) : part;
      if (!isRefused) return answered;
      if (how === 'incomplete')
        return {
          ...answered,
          state: 'incomplete',
          value: part.state === 'failed' ? [] : part.value,
          error: { reason: 'paging', message: 'page 2 refused' },
        } as SessionsPart<Session[]>;
      return { state: 'failed', at: t.clock.now(), error: { reason: how, message: how } } as SessionsPart<
        Session[]
      >;
    },
  });
  return {
    t,
    refused,
    setHook: (h: () => Promise<void>) => (hook = h),
    /** Starts a read of `a` that answers only at {@link release} (wrapped: awaiting it would wait for that). */
    hold: async () => {
      holding = true;
      const read = t.p.readSessions('a', 'normal', t.signal);
      await new Promise((r) => setImmediate(r));
      return { read };
    },
    release: () => {
      holding = false;
      held!();
    },
  };
}

describe('a change that waits for the first baseline', () => {
  it.each([false, true])(
    'keeps its place in the sweep (restart: %s) until the channel is read again',
    async (restart) => {
      const t = setup();
      await waitedChange(t);
      const entry = () => t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')!;
      expect(entry().hinted).toBe(true);
      if (restart) t.restart();
      await t.clock.tick(30_000);
      await t.p.refresh('channels', t.signal); // the stored list already shows the change: no event
      expect(t.kinds()).toEqual(['channel.status_changed a']);
      await t.p.readSessions('b', 'low', t.signal);
      await t.p.readSessions('c', 'low', t.signal);
      expect(t.p.inBaseline()).toBe(false);
      await t.clock.tick(60_000);
      const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 3, {
        now: t.clock.now(),
        minEveryMs: 15_000,
      });
      expect(order.map((e) => e.channelId)).toEqual(['a', 'd', 'b']);
      expect(entry().hinted).toBe(true);
      // Read again: the session's end is seen, and the channel is no longer ahead.
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
      expect(t.kinds()).toContain('session.ended s1');
      expect(entry().hinted).toBe(false);
      t.restart();
      expect(entry().hinted).toBe(false);
    },
  );

  it.each([
    ['dated when it began', false, 0],
    ['dated when its answer came, after the change', true, 2_000],
  ] as const)(
    'made while a read of the channel is in flight (%s), keeps its place across a restart after that read',
    async (_what, datedAtAnswer, answerAfter) => {
      const { t, hold, release } = answering('not_found', datedAtAnswer);
      await fourChannels(t);
      // A read of a begins, answered only after the channel went offline and its session ended.
      const { read: inflight } = await hold();
      await t.clock.tick(1_000);
      await aEnds(t);
      await t.clock.tick(answerAfter);
      release();
      await inflight;
      await t.settle();
      expect(t.kinds()).toEqual(['channel.status_changed a']);
      const entry = () => t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')!;
      expect(entry().hinted).toBe(true);
      t.restart();
      expect(entry().hinted).toBe(true);
      await t.p.readSessions('b', 'low', t.signal);
      await t.p.readSessions('c', 'low', t.signal);
      await t.clock.tick(6 * 60_000);
      const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, {
        now: t.clock.now(),
        minEveryMs: 15_000,
      });
      expect(order.map((e) => e.channelId)).toEqual(['a']);
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
      expect(t.kinds()).toContain('session.ended s1');
    },
  );

  it('does not hold a channel listed again: its read is due at once', async () => {
    const t = setup(
      undefined,
      {},
      {
        followUpsWait: () => true,
        removals: { massShare: 1, massMin: 1000, confirmReads: 1, confirmAfterMs: 0 },
      },
    );
    t.world.channels = ['a', 'b', 'c', 'd'].map((id) => ({ id, status: 'offline' }));
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.p.readSessions('d', 'low', t.signal);
    await t.clock.tick(30_000);
    t.world.channels = t.world.channels.filter((c) => c.id !== 'a');
    await t.p.refresh('channels', t.signal);
    await t.settle();
    await t.clock.tick(1_000);
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('channel.removed a');
    await t.clock.tick(30_000);
    t.world.channels.unshift({ id: 'a', status: 'offline' });
    const ended = t.clock.now() - 60_000;
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'ended', startedAt: ended - 600_000, endedAt: ended },
    ];
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('channel.added a');
    expect(t.kinds()).toContain('session.added s1');
  });

  it('is read before the first reads left once it has waited CHANGE_WAITS_AT_MOST_MS', () => {
    const now = 10 * H;
    const policy = { now, minEveryMs: 15_000 };
    const never: SweepEntry = { org: 'o', channelId: 'n', lastReadAt: undefined, live: true };
    const waited = (ms: number, lastReadAt = now - ms - 60_000): SweepEntry => ({
      org: 'o',
      channelId: 'w',
      lastReadAt,
      changedAt: now - ms,
      unseenSince: now - ms,
      hinted: true,
    });
    expect(sweepScore(waited(CHANGE_WAITS_AT_MOST_MS - 1_000), policy)).toBeLessThan(
      sweepScore(never, policy),
    );
    expect(sweepScore(waited(CHANGE_WAITS_AT_MOST_MS), policy)).toBeGreaterThan(sweepScore(never, policy));
    expect(nextToSweep([never, waited(CHANGE_WAITS_AT_MOST_MS)], 1, policy)[0]?.channelId).toBe('w');
    // A change an answered read has seen is no wait.
    const readSince: SweepEntry = { org: 'o', channelId: 'r', lastReadAt: now - 60_000, changedAt: now - H };
    expect(sweepScore(readSince, policy)).toBeLessThan(sweepScore(never, policy));
    // One still unseen after a read that failed a minute ago waits 5 minutes from that read.
    const failedSince = waited(CHANGE_WAITS_AT_MOST_MS + 60_000, now - 60_000);
    expect(sweepScore(failedSince, policy)).toBeLessThan(sweepScore(never, policy));
    expect(sweepScore(failedSince, { ...policy, now: now + CHANGE_WAITS_AT_MOST_MS })).toBeGreaterThan(
      sweepScore(never, { ...policy, now: now + CHANGE_WAITS_AT_MOST_MS }),
    );
  });
});

describe('the detail of a session that starts in the first baseline', () => {
  async function startInBaseline(t: ReturnType<typeof setup>) {
    t.world.channels = [
      { id: 'a', status: 'offline' },
      { id: 'b', status: 'offline' },
    ];
    const planned = t.clock.now() + H;
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: planned }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal); // b never read: the first baseline
    await t.clock.tick(30_000);
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'live', scheduledAt: planned, startedAt: t.clock.now() },
    ];
    t.world.questions.set('s1', [{ id: 'q1', text: 'first!', at: t.clock.now() }]);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('session.started s1');
  }

  it('is read at once while the baseline has long to go, and its first questions are news', async () => {
    const t = setup(undefined, {}, { followUpsWait: () => false });
    await startInBaseline(t);
    expect(t.world.detailReads).toEqual(['s1']);
    expect(t.kinds()).toContain('session.question_added s1');
  });

  it('waits in the baseline’s last minutes, and is read with the live details once it is done', async () => {
    const t = setup(undefined, {}, { followUpsWait: () => true });
    await startInBaseline(t);
    expect(t.world.detailReads).toEqual([]);
    expect(t.p.detailTargets()).toContain('s1');
    // Put off at most CHANGE_WAITS_AT_MOST_MS, also while the baseline lasts longer.
    expect(t.p.waitedDetails(t.clock.now(), CHANGE_WAITS_AT_MOST_MS)).toEqual([]);
    await t.clock.tick(CHANGE_WAITS_AT_MOST_MS);
    expect(t.p.inBaseline()).toBe(true);
    expect(t.p.waitedDetails(t.clock.now(), CHANGE_WAITS_AT_MOST_MS)).toEqual(['s1']);
    await t.p.readSessions('b', 'low', t.signal);
    expect(t.p.inBaseline()).toBe(false);
    await t.p.readDetail('s1', 'normal', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('session.question_added s1');
  });

  it('waiting in those minutes, its first questions are news across a restart too', async () => {
    const t = setup(undefined, {}, { followUpsWait: () => true });
    await startInBaseline(t);
    expect(t.world.detailReads).toEqual([]);
    t.restart();
    await t.p.readSessions('b', 'low', t.signal);
    expect(t.p.inBaseline()).toBe(false);
    await t.clock.tick(60_000);
    await t.p.readDetail('s1', 'normal', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('session.question_added s1');
    expect(t.p.snapshot().details['s1']?.state).toBe('complete');
  });
});

describe('what a restart or a failed read leaves of a wait', () => {
  it.each([false, true])(
    'a put-off detail of a session that ends before it is read is still read (restart: %s), its first questions news',
    async (restart) => {
      const t = setup(undefined, {}, { followUpsWait: () => true });
      t.world.channels = [
        { id: 'a', status: 'offline' },
        { id: 'b', status: 'offline' },
      ];
      const planned = t.clock.now() + H;
      t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: planned }];
      await t.p.refresh('channels', t.signal);
      await t.p.readSessions('a', 'low', t.signal);
      await t.clock.tick(30_000);
      t.world.sessions = [
        { id: 's1', channelId: 'a', status: 'live', scheduledAt: planned, startedAt: t.clock.now() },
      ];
      t.world.questions.set('s1', [{ id: 'q1', text: 'first!', at: t.clock.now() }]);
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
      expect(t.p.snapshot().details['s1']).toMatchObject({ state: 'failed', error: { reason: 'deferred' } });
      await t.clock.tick(60_000);
      const endedAt = t.clock.now();
      t.world.sessions = [
        {
          id: 's1',
          channelId: 'a',
          status: 'ended',
          scheduledAt: planned,
          startedAt: endedAt - 60_000,
          endedAt,
        },
      ];
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
      expect(t.kinds()).toContain('session.ended s1');
      if (restart) t.restart();
      await t.p.readSessions('b', 'low', t.signal);
      expect(t.p.inBaseline()).toBe(false);
      expect(t.p.detailTargets()).toContain('s1');
      for (const id of t.p.detailTargets()) await t.p.readDetail(id, 'normal', t.signal);
      await t.settle();
      expect(t.kinds()).toContain('session.question_added s1');
    },
  );

  it('a waited detail whose read fails is tried again after another wait, while the baseline goes on', async () => {
    const t = setup(undefined, {}, { followUpsWait: () => true });
    t.world.channels = [
      { id: 'a', status: 'offline' },
      { id: 'b', status: 'offline' },
    ];
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: t.clock.now() + H }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(30_000);
    t.world.sessions = [{ id: 's1', channelId: 'a', status: 'live', startedAt: t.clock.now() }];
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    await t.clock.tick(CHANGE_WAITS_AT_MOST_MS);
    expect(t.p.waitedDetails(t.clock.now(), CHANGE_WAITS_AT_MOST_MS)).toEqual(['s1']);
    t.world.failingDetails.add('s1');
    await t.p.readDetail('s1', 'normal', t.signal);
    t.world.failingDetails.delete('s1');
    expect(t.p.snapshot().details['s1']?.state).toBe('failed');
    expect(t.p.waitedDetails(t.clock.now(), CHANGE_WAITS_AT_MOST_MS)).toEqual([]);
    await t.clock.tick(CHANGE_WAITS_AT_MOST_MS);
    expect(t.p.inBaseline()).toBe(true);
    expect(t.p.waitedDetails(t.clock.now(), CHANGE_WAITS_AT_MOST_MS)).toEqual(['s1']);
  });
});

describe('a change still unseen', () => {
  it('after a read of the channel that failed, still goes first within 5 minutes of that read', async () => {
    let failA = false;
    const t = setup(undefined, {
      fetchSessions: async (auth, ch, opts) => {
        if (failA && ch === 'a')
          return {
            state: 'failed',
            at: t.clock.now(),
            error: { reason: 'timeout', message: 'timed out' },
          } as SessionsPart<Session[]>;
        return t.world.fetcher().fetchSessions(auth, ch, opts);
      },
    });
    await waitedChange(t);
    await t.clock.tick(20_000);
    failA = true;
    await t.p.readSessions('a', 'low', t.signal);
    failA = false;
    await t.settle();
    expect(t.p.snapshot().sessions['a']?.changedAt).toBeDefined();
    await t.clock.tick(CHANGE_WAITS_AT_MOST_MS + 1_000);
    expect(t.p.inBaseline()).toBe(true);
    const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, { now: t.clock.now(), minEveryMs: 15_000 });
    expect(order.map((e) => e.channelId)).toEqual(['a']);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('session.ended s1');
    expect(t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')?.unseenSince).toBeUndefined();
  });

  it('does not restart its wait when the channel changes again', async () => {
    const t = setup();
    await waitedChange(t);
    const first = t.clock.now();
    await t.clock.tick(4 * 60_000);
    t.world.channels[0] = { id: 'a', status: 'disabled' };
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['channel.status_changed a', 'channel.status_changed a']);
    expect(t.p.snapshot().sessions['a']?.changedAt).toBe(first);
    await t.clock.tick(2 * 60_000);
    expect(t.p.inBaseline()).toBe(true);
    const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, { now: t.clock.now(), minEveryMs: 15_000 });
    expect(order.map((e) => e.channelId)).toEqual(['a']);
  });

  it('dated after now once the clock is set back, is dropped at the next read and holds nothing', async () => {
    const t = setup();
    await waitedChange(t);
    t.clock.time = t.clock.now() - 24 * H;
    await t.p.readSessions('b', 'low', t.signal);
    await t.p.readSessions('c', 'low', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toContain('session.ended s1');
    expect(t.p.snapshot().sessions['a']?.changedAt).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      await t.clock.tick(60_000);
      t.restart();
      for (const ch of ['b', 'c', 'd']) await t.p.readSessions(ch, 'low', t.signal);
      await t.clock.tick(1_000);
      await t.p.readSessions('a', 'low', t.signal); // read last: the others are staler
    }
    await t.clock.tick(60_000);
    expect(t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')?.hinted).toBe(false);
    const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, { now: t.clock.now(), minEveryMs: 15_000 });
    expect(order[0]?.channelId).not.toBe('a');
  });
});

describe('what a change still owes, and when it is paid', () => {
  it('after the baseline a change gets its read at once and owes nothing, even when that read is refused', async () => {
    const { t, refused } = answering('not_found');
    t.world.channels = [{ id: 'a', status: 'offline' }];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    expect(t.p.inBaseline()).toBe(false);
    refused.add('a');
    t.world.channels[0] = { id: 'a', status: 'live' };
    await t.p.refresh('channels', t.signal);
    await t.settle();
    expect(t.p.sweepEntries(t.clock.now())[0]?.unseenSince).toBeUndefined();
  });

  it.each(['not_found', 'incomplete', 'timeout'] as const)(
    'a waited change read and answered %s: paid unless the read failed for a while, on the stored list and across a restart',
    async (how) => {
      const { t, refused } = answering(how);
      await waitedChange(t);
      const changed = t.clock.now();
      await t.clock.tick(20_000);
      refused.add('a');
      await t.p.readSessions('a', 'low', t.signal);
      await t.settle();
      const owed = how === 'timeout' ? changed : undefined;
      const unseen = () => t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')?.unseenSince;
      expect(unseen()).toBe(owed);
      expect(t.p.snapshot().sessions['a']?.changedAt).toBe(owed);
      t.restart();
      expect(unseen()).toBe(owed);
    },
  );

  /** A ledger that owes channel `a` a read for changes made at `times`, in that order. */
  function owing(...times: number[]): SweepLedger {
    const l = new SweepLedger();
    for (const t of times) l.waiting('a', t);
    return l;
  }

  /** Since when `a` is owed a read after one that began at `began` was answered at `now`. */
  function afterRead(l: SweepLedger, began: number, now: number): number | undefined {
    l.seen('a', began, now);
    return l.unseenSince('a');
  }

  it('the clock set back between two owed changes drops only the one dated after now', () => {
    const l = owing(100, 200);
    expect(afterRead(l, 50, 150)).toBe(100); // began before both; now (set back) between them
    expect(afterRead(l, 120, 150)).toBeUndefined();
  });

  it('a read that began between owed changes pays the earlier ones, and the next is owed from when it was made', () => {
    const l = owing(100, 200, 300);
    expect(afterRead(l, 150, 400)).toBe(200);
    expect(afterRead(l, 250, 400)).toBe(300);
    expect(afterRead(l, 300, 400)).toBeUndefined();
  });

  it('past the times it keeps, owes the latest ones as a span, never later than they were made', () => {
    const n = OWED_TIMES_KEPT + 5;
    const l = owing(...Array.from({ length: n }, (_, i) => (i + 1) * 100));
    // The first OWED_TIMES_KEPT - 1 times are kept as they are, the rest as one span.
    expect(afterRead(l, (OWED_TIMES_KEPT - 1) * 100, 1e9)).toBe(OWED_TIMES_KEPT * 100);
    // A read that began within the span leaves it owed from when that read began.
    expect(afterRead(l, OWED_TIMES_KEPT * 100 + 50, 1e9)).toBe(OWED_TIMES_KEPT * 100 + 50);
    expect(afterRead(l, n * 100, 1e9)).toBeUndefined();
    // The same change noted twice is owed once.
    l.waiting('a', 5000);
    l.waiting('a', 5000);
    expect(afterRead(l, 5000, 1e9)).toBeUndefined();
  });

  it('one dated before those owed (the clock set back) drops them: when they were made is unknown', () => {
    const l = owing(5000, 50);
    expect(l.unseenSince('a')).toBe(50);
    expect(afterRead(l, 50, 1e9)).toBeUndefined();
  });

  it('forgets all it knew of a channel no longer watched', () => {
    const l = owing(200);
    l.began('a', 100);
    l.changed('a', 150);
    l.forget('a');
    const [entry] = l.entries('o', 1, [{ id: 'a', status: 'offline' }], {}, 1000);
    expect(entry).toMatchObject({ lastReadAt: undefined, changedAt: undefined, unseenSince: undefined });
  });

  it('the clock set back while a read was under way: what it did not see is owed from now', () => {
    const l = owing(1000, 1100);
    // Began at 1050; its answer came after the clock went back to 700.
    expect(afterRead(l, 1050, 700)).toBe(700);
    expect(afterRead(l, 800, 900)).toBeUndefined();
  });

  it('a second change made while a read that saw only the first was in flight still waits, across a restart', async () => {
    const { t, hold, release } = answering();
    await waitedChange(t);
    await t.clock.tick(20_000);
    const { read: inflight } = await hold();
    await t.clock.tick(1_000);
    const second = t.clock.now();
    t.world.sessions.push({ id: 's2', channelId: 'a', status: 'live', startedAt: second });
    t.world.channels[0] = { id: 'a', status: 'live' };
    await t.p.refresh('channels', t.signal);
    release();
    await inflight;
    await t.settle();
    expect(t.kinds()).toContain('session.ended s1');
    expect(t.kinds().filter((k) => k.endsWith(' s2'))).toEqual([]);
    const entry = () => t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')!;
    expect(entry().unseenSince).toBe(second);
    expect(t.p.snapshot().sessions['a']?.changedAt).toBe(second);
    t.restart();
    expect(entry().unseenSince).toBe(second);
    await t.clock.tick(CHANGE_WAITS_AT_MOST_MS + 1_000);
    const order = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, { now: t.clock.now(), minEveryMs: 15_000 });
    expect(order.map((e) => e.channelId)).toEqual(['a']);
  });
});

describe('paying what a change owes, without side effects', () => {
  it('an incomplete answer whose later page timed out pays nothing', async () => {
    let cut = false;
    const t = setup(undefined, {
      fetchSessions: async (auth, ch, opts) => {
        const part = await t.world.fetcher().fetchSessions(auth, ch, opts);
        if (!cut || ch !== 'a' || part.state === 'failed') return part;
        return {
          ...part,
          state: 'incomplete',
          error: { reason: 'timeout', message: 'GET /channels/a/sessions?page=2: timed out' },
        } as SessionsPart<Session[]>;
      },
    });
    await waitedChange(t);
    const changed = t.clock.now();
    await t.clock.tick(20_000);
    cut = true;
    await t.p.readSessions('a', 'low', t.signal);
    cut = false;
    await t.settle();
    expect(t.kinds()).toEqual(['channel.status_changed a']);
    expect(t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')?.unseenSince).toBe(changed);
    expect(t.p.snapshot().sessions['a']?.changedAt).toBe(changed);
  });

  it('a timeout over a stored list that failed pays nothing', async () => {
    const { t, refused } = answering('timeout');
    t.world.channels = ['a', 'b', 'c', 'd'].map((id) => ({ id, status: id === 'a' ? 'live' : 'offline' }));
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('d', 'low', t.signal);
    refused.add('a');
    await t.clock.tick(10_000);
    await t.p.readSessions('a', 'low', t.signal);
    expect(t.p.snapshot().sessions['a']?.state).toBe('failed');
    await t.clock.tick(30_000);
    t.world.channels[0] = { id: 'a', status: 'offline' };
    await t.p.refresh('channels', t.signal);
    await t.settle();
    const changed = t.clock.now();
    const unseen = () => t.p.sweepEntries(t.clock.now()).find((e) => e.channelId === 'a')?.unseenSince;
    expect(unseen()).toBe(changed);
    await t.clock.tick(20_000);
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(unseen()).toBe(changed);
    expect(t.p.snapshot().sessions['a']?.changedAt).toBe(changed);
  });

  it('a refused read that pays a change leaves a removal held on the list as it was', async () => {
    const H = 3_600_000;
    const { t, refused, setHook } = answering('not_found');
    const now = t.clock.now();
    t.world.channels = ['a', 'b', 'c', 'd'].map((id) => ({ id, status: 'offline' }));
    t.world.sessions = [
      { id: 's1', channelId: 'a', status: 'scheduled', scheduledAt: now + H },
      { id: 's2', channelId: 'a', status: 'scheduled', scheduledAt: now + 2 * H },
      { id: 's3', channelId: 'a', status: 'scheduled', scheduledAt: now + 3 * H },
    ];
    await t.p.refresh('channels', t.signal);
    await t.p.readSessions('d', 'low', t.signal);
    await t.p.readSessions('a', 'low', t.signal);
    await t.clock.tick(30_000);
    t.world.sessions = t.world.sessions.filter((s) => s.id !== 's1');
    // While a read of a that misses s1 is under way, a goes live (a change that waits);
    // the read confirming the removal is then refused.
    setHook(async () => {
      await t.clock.tick(1_000);
      t.world.channels[0] = { id: 'a', status: 'live' };
      await t.p.refresh('channels', t.signal);
      refused.add('a');
    });
    await t.p.readSessions('a', 'low', t.signal);
    await t.settle();
    expect(t.kinds()).toEqual(['channel.status_changed a']);
    expect(t.p.heldRemovals().map((h) => `${h.list} ${h.count}`)).toEqual(['sessions:a 1']);
  });

  it('a channel whose answers always come back incomplete is not read at the top rank for good', async () => {
    const { t, refused } = answering('incomplete');
    await waitedChange(t);
    refused.add('a');
    await t.p.readSessions('b', 'low', t.signal);
    await t.p.readSessions('c', 'low', t.signal);
    let topReads = 0;
    for (let i = 0; i < 24; i++) {
      await t.clock.tick(CHANGE_WAITS_AT_MOST_MS);
      if (i % 6 === 5) t.restart();
      const policy = { now: t.clock.now(), minEveryMs: 15_000 };
      const [top] = nextToSweep(t.p.sweepEntries(t.clock.now()), 1, policy);
      if (top?.channelId === 'a' && sweepScore(top, policy) >= 1e16) {
        topReads += 1;
        await t.p.readSessions('a', 'low', t.signal);
        await t.settle();
      }
      for (const ch of ['b', 'c', 'd']) await t.p.readSessions(ch, 'low', t.signal);
    }
    expect(topReads).toBeLessThanOrEqual(1);
  });
});
