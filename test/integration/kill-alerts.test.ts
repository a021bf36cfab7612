import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  configText,
  type Daemon,
  type DaemonRig,
  daemonRig,
  QUICK_RETRIES,
  statusChangeWebhook,
} from '../helpers/daemon.js';

// Alerts survive kill -9 at any instant (docs/reliability.md, "Kill -9 matrix"). `tally
// run` as a real child process; one channel changes per point, and tally is killed with
// SIGKILL a chosen time after the change: before the read, between logging the event and
// saving the alert state, during group_wait, after the hand-over to the outbox, during
// and after delivery. After a restart every change must reach the webhook at least once
// and at most twice. The matrix is printed.

/** Milliseconds between the change and the kill, spread over poll → log → state → group wait → outbox → delivery. */
const POINTS = [
  0, 150, 300, 500, 700, 900, 1100, 1300, 1600, 1900, 2200, 2500, 2800, 3100, 3500, 4000, 4500, 5000, 6000,
  8000,
];

let sim: Simulator;
let hook: Server;
let rig: DaemonRig;
let dir: string;
const bodies: string[] = [];
let child: Daemon | undefined;

beforeAll(async () => {
  sim = await startSimulator({ seed: 21, channels: POINTS.length, sessionsPerChannel: 1, frozen: true });
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  rig = await daemonRig('kill-alerts');
  dir = rig.dir;
  await rig.write(
    configText({
      sim,
      stateDir: rig.stateDir,
      upstream: QUICK_RETRIES,
      intervals:
        '{ org: 30s, team: 30s, subscription: 30s, channels: 1s, live_sessions: 10s, live_detail: 10s, sweep: 60s, jitter: 0 }',
      extra: statusChangeWebhook(`http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, '2s'),
    }),
  );
});

afterAll(async () => {
  await rig?.close();
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
  await sim.close();
});

const deliveriesOf = (channelId: string) =>
  bodies.filter((b) => b.includes(`"channel_id":"${channelId}"`)).length;

describe('kill -9 at any instant', () => {
  it('loses no alert: every change is delivered at least once and at most twice', async () => {
    const matrix: { killAfterMs: number; channel: string; delivered: number }[] = [];
    child = await rig.start();
    // The guarantee starts once the baseline is durable: a change before tally first
    // recorded the org cannot be told from the baseline (docs/reliability.md).
    // The snapshot file, or a save in its journal since (docs/state.md), holds the channel list.
    const stored = (name: string) =>
      readFile(path.join(dir, 'state', 'snapshots', name), 'utf8').catch(() => '');
    const end = Date.now() + 20_000;
    while (
      Date.now() < end &&
      !`${await stored('demo.json')}${await stored('demo.journal')}`.includes('"channels"')
    )
      await new Promise((r) => setTimeout(r, 100));
    const channels = sim.view('demo').channels.map((c) => [String(c['id']), String(c['status'])] as const);
    for (const [i, killAfterMs] of POINTS.entries()) {
      const [id, status] = channels[i]!;
      sim.trigger.channelStatus({ channel: id, status: status === 'offline' ? 'idle' : 'offline' });
      await new Promise((r) => setTimeout(r, killAfterMs));
      await child.kill9();
      child = await rig.start();
      const end = Date.now() + 20_000;
      while (deliveriesOf(id) === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500)); // room for a second delivery to show
      matrix.push({ killAfterMs, channel: id, delivered: deliveriesOf(id) });
    }
    console.log(
      [
        'kill after ms  delivered',
        ...matrix.map((m) => `${String(m.killAfterMs).padStart(12)}  ${m.delivered}`),
      ].join('\n'),
    );
    for (const m of matrix) {
      expect(m.delivered, `killed ${m.killAfterMs} ms after the change`).toBeGreaterThanOrEqual(1);
      expect(m.delivered, `killed ${m.killAfterMs} ms after the change`).toBeLessThanOrEqual(2);
    }
    expect(matrix).toHaveLength(POINTS.length);
  }, 600_000);
});
