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
    const { s } = await run({ incidents: 0.5 }, 30 * MINUTE);
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
      if (i.kind === 'early_end') expect(Date.parse(i.at)).toBeLessThan(planned);
      if (i.kind === 'drop') expect(offline.has(i.channel)).toBe(true);
      const end = seen.find((x) => x.to === 'ended');
      // Times on the clock's time line: at speed 10, ten simulated minutes are one.
      if (i.kind === 'overrun' && end) expect(end.at).toBeGreaterThan(planned + MINUTE);
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
