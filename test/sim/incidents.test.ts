/**
 * Incidents the simulator plays (SimOptions.incidents): each kind shows in the world as
 * tally would see it, the ground truth is served under /_sim/incidents, and a world with
 * none is the world it always was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type SimOptions, type Simulator, startSimulator } from '../../src/sim/index.js';
import { get, ManualClock } from './helpers.js';

const MINUTE = 60_000;
const started: Simulator[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function run(extra: SimOptions, realMs = 60 * MINUTE): Promise<{ s: Simulator; clock: ManualClock }> {
  const clock = new ManualClock();
  const s = await startSimulator({ clock, seed: 11, speed: 10, scenario: 'lively', channels: 20, ...extra });
  started.push(s);
  for (let t = 0; t < realMs; t += MINUTE) {
    clock.advance(MINUTE);
    s.advance();
  }
  return { s, clock };
}

interface Truth {
  kind: string;
  session: string;
  channel: string;
  scheduledAt: string;
  scheduledEndAt: string;
  at: string;
}

describe('simulated incidents', () => {
  it('plays every kind at the configured rate and serves the ground truth', async () => {
    // Shows of realistic lengths: a drop or an early end is cut inside the planned time, and
    // the lively world's one-to-six-minute shows leave no room for an early end.
    const { s } = await run({ incidents: 0.5, scenario: 'calm' }, 60 * MINUTE);
    const { incidents } = (await (await get(s, '/_sim/incidents')).json()) as { incidents: Truth[] };
    expect(new Set(incidents.map((i) => i.kind))).toEqual(
      new Set(['no_show', 'drop', 'early_end', 'overrun', 'failure']),
    );
    // One pass over the change log: session statuses (with when) and channels gone offline.
    const statuses = new Map<string, { to: unknown; at: number }[]>();
    const offline = new Set<string>();
    for (const c of s.changes()) {
      if (c.field !== 'status') continue;
      if (c.entity.kind === 'session') {
        const list = statuses.get(c.entity.id) ?? [];
        list.push({ to: c.to, at: c.at });
        statuses.set(c.entity.id, list);
      } else if (c.entity.kind === 'channel' && c.to === 'offline') offline.add(c.entity.id);
    }
    for (const i of incidents) {
      const seen = statuses.get(i.session) ?? [];
      const planned = Date.parse(i.scheduledEndAt);
      if (i.kind === 'no_show') expect(seen.map((x) => x.to)).not.toContain('live');
      if (i.kind === 'failure') expect(seen.map((x) => x.to)).toContain('failed');
      // Times on the clock's time line: at speed 10, ten simulated minutes are one. An
      // early end comes more than 6 simulated minutes before the planned end, a drop 2.
      if (i.kind === 'early_end') expect(Date.parse(i.at)).toBeLessThanOrEqual(planned - (6 * MINUTE) / 10);
      if (i.kind === 'drop') {
        expect(offline.has(i.channel)).toBe(true);
        expect(Date.parse(i.at)).toBeLessThanOrEqual(planned - (2 * MINUTE) / 10);
      }
      const end = seen.find((x) => x.to === 'ended');
      if (i.kind === 'overrun' && end) expect(end.at).toBeGreaterThan(planned + MINUTE);
    }
  }, 30_000);

  it('cuts an early end inside the planned time, and ends every show its channel dropped a minute later', async () => {
    // The lively world's shows last one to six minutes, start up to 20 s late, and a
    // channel may carry more than one at once.
    const { s } = await run({ incidents: 0.5 }, 30 * MINUTE);
    const { incidents } = (await (await get(s, '/_sim/incidents')).json()) as { incidents: Truth[] };
    const endedAt = new Map<string, number>();
    for (const c of s.changes())
      if (c.entity.kind === 'session' && c.field === 'status' && c.to === 'ended')
        endedAt.set(c.entity.id, c.at);
    const drops = incidents.filter((i) => i.kind === 'drop');
    expect(drops.length).toBeGreaterThan(3);
    // Times on the clock's time line: at speed 10, ten simulated minutes are one, and a
    // world tick (a second) is a tenth of one.
    for (const i of drops) {
      const ended = endedAt.get(i.session);
      expect(ended).toBeDefined();
      expect(ended! - Date.parse(i.at)).toBeGreaterThanOrEqual((MINUTE - 1000) / 10);
      expect(ended! - Date.parse(i.at)).toBeLessThanOrEqual((MINUTE + 1000) / 10);
    }
    for (const i of incidents.filter((x) => x.kind === 'early_end')) {
      const before = Date.parse(i.scheduledEndAt) - Date.parse(i.at);
      expect(before).toBeGreaterThanOrEqual((6 * MINUTE - 1000) / 10);
    }
  }, 30_000);

  it('a world without incidents is the world it always was (only natural failures are recorded)', async () => {
    const a = await run({}, 20 * MINUTE);
    const b = await run({ incidents: 0 }, 20 * MINUTE);
    expect(b.s.changes()).toEqual(a.s.changes());
    const { incidents } = (await (await get(a.s, '/_sim/incidents')).json()) as { incidents: Truth[] };
    expect(incidents.every((i) => i.kind === 'failure')).toBe(true);
  });

  it('refuses a share outside 0 to 1', async () => {
    await expect(startSimulator({ incidents: 1.5 })).rejects.toThrow(
      /incidents must be a number from 0 to 1/,
    );
  });
});
