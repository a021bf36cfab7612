import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { configText, type DaemonRig, daemonRig, QUICK_RETRIES } from '../helpers/daemon.js';
import { loggedEvents as logged } from '../resilience/helpers.js';

// `tally run` as a real child process, killed with SIGKILL in the middle of a scenario
// and started again: every change must be logged exactly once.

let sim: Simulator;
let rig: DaemonRig;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, channels: 6, sessionsPerChannel: 2, frozen: true });
  rig = await daemonRig('crash');
  await rig.write(
    configText({
      sim,
      stateDir: rig.stateDir,
      upstream: QUICK_RETRIES,
      intervals:
        '{ org: 10s, team: 2s, subscription: 10s, channels: 1s, live_sessions: 5s, live_detail: 5s, sweep: 30s, jitter: 0 }',
      level: 'warn',
    }),
  );
});

afterAll(async () => {
  await rig?.close();
  await sim.close();
});

const loggedEvents = () => logged(rig.stateDir);

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = (await loggedEvents()).map((e) => [e.kind, e.entity.id, e.from, e.to]);
  const world = sim.view('demo').channels.map((c) => [c['id'], c['status']]);
  throw new Error(
    `timed out waiting for ${what}; logged ${JSON.stringify(seen)}; world ${JSON.stringify(world)}`,
  );
}

describe('kill -9 and restart in the middle of a scenario', () => {
  it('loses no change and logs none twice', async () => {
    const channels = sim.view('demo').channels.map((c) => String(c['id']));
    const statuses = ['live', 'idle', 'offline'] as const;
    let step = 0;
    const change = () => {
      const ch = channels[step % channels.length]!;
      const current = sim.view('demo').channels.find((c) => c['id'] === ch)!['status'];
      const next = statuses.find((s) => s !== current && s !== statuses[step % 3])!;
      sim.trigger.channelStatus({ channel: ch, status: next });
      if (step % 4 === 0) sim.trigger.addMember({ name: `Person ${step}`, role: 'member' });
      step++;
    };

    let tally = rig.spawn();
    await until(
      async () => (await readdir(path.join(rig.stateDir, 'snapshots')).catch(() => [])).length > 0,
      20_000,
      'the baseline',
    );
    for (let i = 0; i < 6; i++) {
      change();
      await new Promise((r) => setTimeout(r, 700));
    }
    await until(async () => (await loggedEvents()).length >= 3, 10_000, 'some events');
    await tally.kill9();

    // Changes made while tally is down are reported once after the restart.
    for (let i = 0; i < 4; i++) change();
    tally = rig.spawn();
    for (let i = 0; i < 4; i++) {
      change();
      await new Promise((r) => setTimeout(r, 700));
    }
    const world = sim.view('demo');
    const finalStatus = new Map(world.channels.map((c) => [String(c['id']), String(c['status'])]));
    const members = world.team.length;
    await until(
      async () => {
        const events = await loggedEvents();
        // The team is read every 2 s, the channels every second: wait for both.
        const added = new Set(events.filter((e) => e.kind === 'member.added').map((e) => e.labels['member']));
        if (added.size < Math.ceil(step / 4)) return false;
        return channels.every((ch) => {
          const last = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch).at(-1);
          return last === undefined ? true : last.to === finalStatus.get(ch);
        });
      },
      30_000,
      'tally to catch up',
    );
    expect(await tally.stop('SIGTERM')).toBe(0);

    const events = await loggedEvents();
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Per channel, the logged transitions form one unbroken chain ending at the world's status:
    // a lost change would break the chain, a duplicated one would repeat a link.
    for (const ch of channels) {
      const chain = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.from).toBe(chain[i - 1]!.to);
      if (chain.length > 0) expect(chain.at(-1)!.to).toBe(finalStatus.get(ch));
    }
    const added = events.filter((e) => e.kind === 'member.added').map((e) => e.labels['member']);
    expect(new Set(added).size).toBe(added.length);
    expect(added.sort()).toEqual(
      Array.from({ length: Math.ceil(step / 4) }, (_, i) => `Person ${i * 4}`).sort(),
    );
    expect(members).toBeGreaterThan(0);
  }, 90_000);
});
