/**
 * `kill -9` at random points: `tally run` as a real child process, killed with SIGKILL
 * at several points of a scenario drawn from a seeded generator, started again each
 * time, while the world keeps changing (also while tally is down). Afterwards the event
 * log holds every change once: no id twice, per channel an unbroken chain of transitions
 * ending at the world's status, every member who joined exactly once.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { Rng } from '../../src/sim/rng.js';
import { type DaemonRig, daemonRig } from '../helpers/daemon.js';
import { loggedEvents, sleep, tallyConfig, until } from './helpers.js';

const SEED = 20_261_122;
const KILLS = 3;

let sim: Simulator;
let rig: DaemonRig;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 21, channels: 6, sessionsPerChannel: 2, frozen: true });
  rig = await daemonRig('kill9');
  dir = rig.dir;
  await rig.write(tallyConfig({ sim, stateDir: rig.stateDir, level: 'warn' }));
});

afterAll(async () => {
  await rig?.close();
  await sim.close();
});

describe('kill -9 at random points of a scenario', () => {
  it('loses no change and logs none twice', async () => {
    const seeded = new Rng(SEED);
    const rng = () => seeded.next();
    const channels = sim.view('demo').channels.map((c) => String(c['id']));
    const initial = new Map(sim.view('demo').channels.map((c) => [String(c['id']), String(c['status'])]));
    const joined: string[] = [];
    let step = 0;
    const change = () => {
      const ch = channels[Math.floor(rng() * channels.length)]!;
      const now = sim.view('demo').channels.find((c) => c['id'] === ch)!['status'];
      const next = (['live', 'idle', 'offline'] as const).filter((s) => s !== now)[Math.floor(rng() * 2)]!;
      sim.trigger.channelStatus({ channel: ch, status: next });
      if (step % 3 === 0) {
        const name = `Person ${step}`;
        sim.trigger.addMember({ name, role: 'member' });
        joined.push(name);
      }
      step++;
    };

    let tally = rig.spawn();
    await until(
      async () => (await readdir(path.join(dir, 'state', 'snapshots')).catch(() => [])).length > 0,
      'the baseline',
      15_000,
    );
    const kills: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      // A random point: some changes in, then SIGKILL somewhere in the next 2.5 s.
      const at = 200 + Math.floor(rng() * 2300);
      kills.push(at);
      const end = Date.now() + at;
      while (Date.now() < end) {
        change();
        await sleep(150 + Math.floor(rng() * 200));
      }
      tally.child.kill('SIGKILL');
      expect((await tally.exited).signal).toBe('SIGKILL');
      for (let i = 0; i < 2; i++) change(); // the world moves on while tally is down
      tally = rig.spawn();
    }
    for (let i = 0; i < 3; i++) {
      change();
      await sleep(200);
    }
    const world = sim.view('demo');
    const status = new Map(world.channels.map((c) => [String(c['id']), String(c['status'])]));
    await until(
      async () => {
        const events = await loggedEvents(path.join(dir, 'state'));
        const caughtUp = channels.every((ch) => {
          const last = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch).at(-1);
          // The same condition the assertions below check: a channel first changed while
          // tally was down has no event yet and must get one.
          return (last?.to ?? initial.get(ch)) === status.get(ch);
        });
        return caughtUp && events.filter((e) => e.kind === 'member.added').length >= joined.length;
      },
      `tally to catch up after kills at ${kills.join(', ')} ms`,
      15_000,
    );
    expect(await tally.stop('SIGTERM')).toBe(0);

    const events = await loggedEvents(path.join(dir, 'state'));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const ch of channels) {
      const chain = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.from).toBe(chain[i - 1]!.to);
      expect(chain.at(-1)?.to ?? initial.get(ch)).toBe(status.get(ch));
    }
    const added = events.filter((e) => e.kind === 'member.added').map((e) => e.labels['member']);
    expect([...added].sort()).toEqual([...joined].sort());
    // Besides those, only the subscription's member count may move (it follows the team).
    const expected = new Set(['channel.status_changed', 'member.added']);
    const others = events.filter((e) => e.entity.kind !== 'upstream' && !expected.has(e.kind));
    expect(
      others.filter((e) => !(e.kind === 'subscription.usage_changed' && e.field === 'usage.members')),
    ).toEqual([]);
    const usage = others.map((e) => Number(e.to));
    expect(usage).toEqual([...usage].sort((a, b) => a - b)); // members only join here
  }, 40_000);
});
