/**
 * Self metrics that only a running tally can fill: the poll duration histogram (every
 * read reports its time) and the measured duration of a full sweep, next to the planner's
 * bound — from the real App against the simulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { baselineDone, startTally, type Tally, tempDir, until } from '../resilience/helpers.js';

let sim: Simulator | undefined;
let tally: Tally | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  await cleanup?.();
  tally = sim = cleanup = undefined;
});

function sample(text: string, name: string, labels: string): number | undefined {
  const selector = labels === '' ? '' : `\\{${labels}\\}`;
  const m = new RegExp(`^${name}${selector} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('a running tally', () => {
  it('times every read and measures its full sweeps', async () => {
    const tmp = await tempDir('live-metrics');
    cleanup = tmp.remove;
    sim = await startSimulator({ seed: 3, channels: 6, sessionsPerChannel: 4, frozen: true });
    const t = await startTally({ sim, stateDir: tmp.dir });
    tally = t;
    await until(() => baselineDone(t), 'the baseline');
    const metrics = async () => (await fetch(`${t.app.url()}/metrics`)).text();
    type Status = {
      orgs: { sessions: { last_full_sweep: { seconds: number; completed_at: string } | null } }[];
    };
    const lastSweep = async () =>
      ((await (await fetch(`${t.app.url()}/api/v1/status`)).json()) as Status).orgs[0]!.sessions
        .last_full_sweep;
    await until(async () => (await lastSweep()) !== null, 'a full sweep', 15_000);
    // The first round overlaps the start-up; the planner's promise is about the rounds after it.
    const first = (await lastSweep())!.completed_at;
    await until(async () => (await lastSweep())?.completed_at !== first, 'a second full sweep', 15_000);
    const text = await metrics();
    for (const resource of ['profile', 'team', 'subscription', 'channels', 'sessions']) {
      expect(
        sample(text, 'tally_poll_duration_seconds_count', `org="demo",resource="${resource}"`),
        resource,
      ).toBeGreaterThan(0);
    }
    const sweep = sample(text, 'tally_sweep_last_duration_seconds', 'org="demo"')!;
    const bound = sample(text, 'tally_planner_sweep_bound_seconds', '')!;
    expect(sweep).toBeGreaterThan(0);
    expect(sweep).toBeLessThanOrEqual(bound + 2); // the planner's promise, plus a tick or two
    // The stalest channel's age beside the bound, and within it.
    const stalest = sample(text, 'tally_sweep_stalest_age_seconds', 'org="demo"')!;
    expect(stalest).toBeGreaterThanOrEqual(0);
    expect(stalest).toBeLessThanOrEqual(bound);
    expect((await lastSweep())?.seconds).toBeGreaterThan(0);
  }, 40_000);
});
