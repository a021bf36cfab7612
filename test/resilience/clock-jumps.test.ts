/**
 * Clock jumps: tally's injected clock jumps hours forward and backward (an NTP step, a
 * VM resumed, a wrong clock corrected) while timers keep running in real time, as they
 * do in Node. No phantom event (the session window moves with the clock and must not
 * make sessions "removed"), no crash, no stall: a real change afterwards is reported
 * exactly once, promptly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JumpingClock } from '../helpers/clock.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  baselineDone,
  dataEvents,
  otherStatus,
  sleep,
  startTally,
  type Tally,
  tempDir,
  until,
} from './helpers.js';

const HOUR = 3_600_000;
let sim: Simulator | undefined;
let tally: Tally | undefined;
let remove: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  await remove?.();
  tally = undefined;
});

describe('clock jumps', () => {
  it.each([
    ['forward 2 h, then back 4 h', [2 * HOUR, -4 * HOUR]],
    ['back 1 h, then forward 1 day', [-HOUR, 24 * HOUR]],
  ])('%s: no phantom event, no crash, no stall', async (_name, jumps) => {
    const tmp = await tempDir('clock');
    remove = tmp.remove;
    // Sessions around now (history, live and scheduled), so the window has something to move past.
    sim = await startSimulator({ seed: 23, channels: 4, sessionsPerChannel: 12, frozen: true });
    const clock = new JumpingClock();
    // The suite's default budget, which the test tally's intervals are sized for. At 120/min
    // the fixed and hot reads alone overrun it: the planner stretches every interval and
    // leaves the sweep its 10 % floor, and by its own bound ("every channel within 23s")
    // the baseline cannot be waited for in a few seconds. What jumps could break (the
    // session window, save timers, hot and due times) does not depend on the budget's size.
    tally = await startTally({ sim, stateDir: tmp.dir, clock });
    const t = tally;
    await until(() => baselineDone(t), 'the baseline');
    await sleep(1000);

    for (const ms of jumps) {
      clock.jump(ms);
      await sleep(2000);
      expect(dataEvents(t.events), `after a jump of ${ms / HOUR} h`).toEqual([]);
    }
    const channel = sim.view('demo').channels[3]!;
    const to = otherStatus(channel['status']);
    sim.trigger.channelStatus({ channel: String(channel['id']), status: to });
    await until(() => dataEvents(t.events).length > 0, 'the real change after the jumps', 12_000);
    await sleep(1000);
    expect(dataEvents(t.events).map((e) => [e.kind, e.entity.id, e.to])).toEqual([
      ['channel.status_changed', channel['id'], to],
    ]);
    expect(t.app.ready()).toBe(true);
  });

  it('a pending for: 30m alert does not fire after a jump of 2 h forward', async () => {
    const tmp = await tempDir('clock-for');
    remove = tmp.remove;
    sim = await startSimulator({ seed: 23, channels: 4, sessionsPerChannel: 2, frozen: true });
    for (const c of sim.view('demo').channels)
      sim.trigger.channelStatus({ channel: String(c['id']), status: 'offline' });
    const clock = new JumpingClock();
    const extra = `rules:
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    for: 30m
`;
    tally = await startTally({ sim, stateDir: tmp.dir, clock, extra });
    const t = tally;
    const alerts = () => t.app.alerting.engine.alerts();
    await until(() => alerts().length === 4, 'four pending alerts');
    clock.jump(2 * HOUR);
    // Evaluated on every read (the channel list every 2 s): by the wall clock they would
    // have been pending for 2 h.
    await sleep(5000);
    expect(alerts().map((a) => a.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    const since = Math.max(...alerts().map((a) => clock.now() - a.activeAt));
    expect(since).toBeLessThan(60_000);
  });
});
