import { afterEach, describe, expect, it } from 'vitest';
import { type Change, type SimOptions, type Simulator, startSimulator } from '../../src/sim/index.js';
import { get, ManualClock, objectOf, type Loose } from './helpers.js';

const MINUTE = 60_000;
const started: Simulator[] = [];

async function sim(opts: SimOptions): Promise<Simulator> {
  const s = await startSimulator(opts);
  started.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** Runs a world for `realMs` of clock time in steps of the given sizes (cycled). */
async function run(seed: number, realMs: number, steps: number[], extra: SimOptions = {}): Promise<Change[]> {
  const clock = new ManualClock();
  const s = await sim({
    clock,
    seed,
    speed: 10,
    scenario: 'lively',
    channels: 12,
    sessionsPerChannel: 8,
    ...extra,
  });
  let done = 0;
  for (let i = 0; done < realMs; i++) {
    const step = Math.min(steps[i % steps.length]!, realMs - done);
    clock.advance(step);
    done += step;
    s.advance();
  }
  return s.changes();
}

describe('simulated world evolution', () => {
  it('is a function of seed and simulated time, not of how often anyone looks', async () => {
    const once = await run(42, 20 * MINUTE, [20 * MINUTE]);
    const often = await run(42, 20 * MINUTE, [777, 13, 60_001, 1]);
    expect(once.length).toBeGreaterThan(1000);
    expect(often).toEqual(once);
  });

  it('differs for another seed', async () => {
    const a = await run(42, 5 * MINUTE, [MINUTE]);
    const b = await run(43, 5 * MINUTE, [MINUTE]);
    expect(a.length).toBeGreaterThan(0);
    expect(b).not.toEqual(a);
  });

  it('makes every documented kind of change, in time order, on the clock time line', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const s = await sim({
      clock,
      seed: 9,
      speed: 10,
      scenario: 'lively',
      channels: 15,
      sessionsPerChannel: 6,
    });
    clock.advance(10 * MINUTE);
    const changes = s.changes();
    const seen = new Set(changes.map((c) => `${c.entity.kind}.${c.field}`));
    for (const kind of [
      'channel.status',
      'channel.visibility',
      'session.exists',
      'session.status',
      'session.questions',
      'session.announcements',
      'session.reactions',
      'session.speakers',
      'session.ai.status',
      'member.exists',
      'member.role',
      'subscription.plan',
      'subscription.funding',
      'subscription.wallet.balance',
    ]) {
      expect(seen, kind).toContain(kind);
    }
    expect([...seen].some((k) => k.startsWith('org.settings.'))).toBe(true);
    const statuses = new Set(
      changes.filter((c) => c.field === 'status' && c.entity.kind === 'session').map((c) => c.to),
    );
    expect([...statuses].sort()).toEqual(['cancelled', 'ended', 'failed', 'live']);
    const outOfOrder = changes.filter(
      (c, i) => i > 0 && (c.seq !== changes[i - 1]!.seq + 1 || c.at < changes[i - 1]!.at),
    );
    expect(outOfOrder).toEqual([]);
    // Simulated time runs 10x; `at` is mapped back onto the clock.
    const last = changes.at(-1)!;
    expect(last.at).toBeLessThanOrEqual(clock.now());
    expect(last.at).toBeGreaterThan(start);
    expect(Math.abs(last.simAt - start - (last.at - start) * 10)).toBeLessThan(10);
    expect(changes.every((c) => c.source === 'evolve' && c.org === 'demo')).toBe(true);
  });

  it('shows in the API what the ground-truth log says', async () => {
    const clock = new ManualClock();
    const s = await sim({
      clock,
      seed: 21,
      speed: 10,
      scenario: 'lively',
      channels: 6,
      sessionsPerChannel: 4,
      paging: 'none',
    });
    clock.advance(20 * MINUTE);
    const changes = s.changes();
    const lastStatus = new Map<string, unknown>();
    for (const c of changes)
      if (c.field === 'status') lastStatus.set(`${c.entity.kind}:${c.entity.id}`, c.to);
    const channels = (
      (await (await get(s, '/v1/demo/channels')).json()) as { data: { id: string; status: string }[] }
    ).data;
    for (const ch of channels) {
      const truth = lastStatus.get(`channel:${ch.id}`);
      if (truth !== undefined) expect(ch.status).toBe(truth);
      const sessions = (
        (await (await get(s, `/v1/demo/channels/${ch.id}/sessions`)).json()) as {
          data: { id: string; status: string }[];
        }
      ).data;
      for (const x of sessions) {
        const t = lastStatus.get(`session:${x.id}`);
        if (t !== undefined) expect(x.status).toBe(t);
      }
    }
    const q = changes.filter((c) => c.field === 'questions').at(-1)!;
    const detail = objectOf(await (await get(s, `/v1/demo/sessions/${q.entity.id}`)).json()) as {
      questions: { id: string }[];
    };
    expect(detail.questions.length).toBeGreaterThanOrEqual(q.to as number);
    expect(detail.questions.map((x) => x.id)).toContain(q.item!.id);
    const wallet = changes.filter((c) => c.field === 'wallet.balance').at(-1);
    const funding = changes.filter((c) => c.field === 'funding').at(-1);
    const sub = objectOf(await (await get(s, '/v1/demo/subscription')).json()) as Loose;
    if (funding !== undefined) expect(sub.ai_funding.mode).toBe(funding.to);
    if (wallet !== undefined && sub.ai_funding.mode === 'wallet')
      expect(Number(sub.ai_funding.wallet.balance)).toBe(wallet.to);
  });

  it('keeps a realistic time window: history in the past, live sessions now, scheduled ones ahead', async () => {
    const clock = new ManualClock();
    const s = await sim({ clock, seed: 4, channels: 30, sessionsPerChannel: 10 });
    clock.advance(10 * MINUTE);
    const now = clock.now();
    const all = Object.values(s.view('demo').sessions).flat();
    const t = (v: unknown) => Date.parse(v as string);
    const ended = all.filter((x) => x.status === 'ended');
    const scheduled = all.filter((x) => x.status === 'scheduled');
    const live = all.filter((x) => x.status === 'live');
    expect(ended.length).toBeGreaterThan(200);
    expect(ended.every((x) => t(x.ended_at) <= now && t(x.started_at) < t(x.ended_at))).toBe(true);
    expect(scheduled.length).toBeGreaterThan(10);
    expect(scheduled.every((x) => x.started_at === null && t(x.scheduled_at) > now - 5 * MINUTE)).toBe(true);
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((x) => t(x.started_at) <= now && x.ended_at === null)).toBe(true);
    const oldest = Math.min(...ended.map((x) => t(x.scheduled_at)));
    expect(now - oldest).toBeGreaterThan(7 * 24 * 60 * MINUTE);
  });

  it('drains the AI wallet while AI sessions are live', async () => {
    const clock = new ManualClock();
    const s = await sim({
      clock,
      seed: 2,
      orgs: [{ slug: 'demo', funding: 'wallet', channels: 10, sessionsPerChannel: 5 }],
      speed: 60,
    });
    const before = (s.view('demo').subscription as Loose).ai_funding.wallet.balance as number;
    s.trigger.startSession({ title: 'AI talk' });
    clock.advance(5 * MINUTE);
    const drains = s
      .changes()
      .filter((c) => c.field === 'wallet.balance' && (c.to as number) < (c.from as number));
    expect(drains.length).toBeGreaterThan(0);
    expect((s.view('demo').subscription as Loose).ai_funding.wallet.balance).toBeLessThan(before);
  });

  it('stays still when frozen: only triggers change it', async () => {
    const clock = new ManualClock();
    const s = await sim({
      clock,
      seed: 2,
      frozen: true,
      scenario: 'lively',
      channels: 5,
      sessionsPerChannel: 5,
    });
    const before = s.view('demo');
    clock.advance(24 * 60 * MINUTE);
    expect(s.changes()).toEqual([]);
    expect(s.view('demo').sessions).toEqual(before.sessions);
    const started = s.trigger.startSession({ title: 'Held' });
    clock.advance(24 * 60 * MINUTE);
    expect(s.changes().every((c) => c.source === 'trigger')).toBe(true);
    expect(s.sessionDetail('demo', started.id!)).toMatchObject({ status: 'live', questions: [] });
  });
});
