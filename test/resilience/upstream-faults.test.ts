/**
 * The upstream fault matrix, end to end through the App: 5xx, connection resets,
 * answers slower than the timeout, malformed JSON, truncated pages and oversized bodies.
 * While a fault lasts no data event appears (a failure is not a change) and nothing
 * crashes; a persistent transport failure is reported once as `upstream.unreachable` and
 * once as `upstream.recovered`; after it, a real change is reported exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultSpec, type Simulator, startSimulator } from '../../src/sim/index.js';
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

let sim: Simulator | undefined;
let tally: Tally | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  await cleanup?.();
  tally = undefined;
  sim = undefined;
});

/** A fault, whether it makes the org unreachable, and how long it is held. */
type Row = [name: string, fault: FaultSpec, unreachable: boolean];

const ROWS: Row[] = [
  ['every answer a 5xx', { errorRate: 1 }, true],
  ['every connection reset', { resetRate: 1 }, true],
  ['answers slower than the timeout', { latencyMs: 1500 }, true],
  ['malformed JSON bodies', { malformedRate: 1 }, false],
  // The channel list (two pages of four): a page cut short with the way on lost. A list of
  // one page cut short with no totals at all looks like a shorter list to any client, so
  // the fault is aimed where a server leaves a trace (here `Link: rel="last"`).
  ['truncated list pages', { path: '/channels$', truncateRate: 1 }, false],
  ['oversized bodies', { oversizeRate: 1, oversizeBytes: 200_000 }, false],
];

describe.each(ROWS)('upstream fault: %s', (_name, fault, unreachable) => {
  it('gives no phantom event, no crash, and the next real change exactly once', async () => {
    const tmp = await tempDir('faults');
    cleanup = tmp.remove;
    sim = await startSimulator({ seed: 9, channels: 6, sessionsPerChannel: 6, frozen: true });
    tally = await startTally({ sim, stateDir: tmp.dir });
    const t = tally;
    await until(() => baselineDone(t), 'the baseline');
    expect(dataEvents(t.events)).toEqual([]);

    sim.setFaults([fault]);
    const kinds = () => t.events.map((e) => e.kind);
    // Three failed reads in a row make the org unreachable; then the fault lasts a while longer.
    if (unreachable) await until(() => kinds().includes('upstream.unreachable'), 'upstream.unreachable');
    await sleep(2500);
    expect(dataEvents(t.events)).toEqual([]);
    if (unreachable) expect(kinds()).toEqual(['upstream.unreachable']);

    sim.setFaults([]);
    const channel = sim.view('demo').channels[2]!;
    const to = otherStatus(channel['status']);
    sim.trigger.channelStatus({ channel: String(channel['id']), status: to });
    await until(() => dataEvents(t.events).length > 0, 'the real change');
    await sleep(1500); // room for a duplicate or a phantom to show up
    expect(dataEvents(t.events).map((e) => [e.kind, e.entity.id, e.to])).toEqual([
      ['channel.status_changed', channel['id'], to],
    ]);
    if (unreachable)
      expect(kinds().filter((k) => k.startsWith('upstream.'))).toEqual([
        'upstream.unreachable',
        'upstream.recovered',
      ]);
    expect(t.app.ready()).toBe(true);
  });
});
