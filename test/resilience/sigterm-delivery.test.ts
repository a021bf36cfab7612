/**
 * SIGTERM during delivery: `tally run` (a child process) has notifications in its outbox
 * whose receiver does not answer; it is told to stop, stops cleanly within its bound
 * (exit 0), and the next run delivers every pending notification — nothing lost, and
 * nothing sent more than at-least-once allows (a notification arrives again only with
 * the same id).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { type Daemon, type DaemonRig, daemonRig } from '../helpers/daemon.js';
import { loggedEvents, sleep, tallyConfig, until } from './helpers.js';

let sim: Simulator;
let rx: HttpReceiver;
let rig: DaemonRig;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 29, channels: 5, sessionsPerChannel: 2, frozen: true });
  rx = await startHttpReceiver();
  rig = await daemonRig('sigterm');
  dir = rig.dir;
  const extra = `rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'has(event.from) && is_live(string(event.from)) && !(has(event.to) && is_live(string(event.to)))'
route:
  receiver: hook
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
receivers:
  - name: hook
    webhook: { url: ${rx.url}/hook }
delivery:
  timeout: 1s
  backoff: { base: 100ms, max: 300ms }
`;
  await rig.write(tallyConfig({ sim, stateDir: rig.stateDir, extra, level: 'warn' }));
});

afterAll(async () => {
  await rig?.close();
  await rx.close();
  await sim.close();
});

/** `tally run` with a stop bound of 3 s. */
const start = (): Daemon => rig.spawn({ args: ['--stop-timeout', '3'] });

async function pending(): Promise<string[]> {
  return (await readdir(path.join(dir, 'state', 'outbox')).catch(() => [])).filter((f) =>
    f.endsWith('.json'),
  );
}

describe('SIGTERM while notifications are being delivered', () => {
  it('stops cleanly and delivers everything pending after the restart', async () => {
    const ids = sim
      .view('demo')
      .channels.slice(0, 3)
      .map((c) => String(c['id']));
    for (const id of ids) sim.trigger.channelStatus({ channel: id, status: 'live' });
    rx.respond(() => ({ hang: true }));
    let tally = start();
    await until(
      async () => (await readdir(path.join(dir, 'state', 'snapshots')).catch(() => [])).length > 0,
      'the baseline',
      15_000,
    );
    await sleep(1200);
    for (const id of ids) sim.trigger.channelStatus({ channel: id, status: 'offline' });
    await rx.waitFor(1, 10_000); // a delivery is in flight, the receiver holds it
    expect((await pending()).length).toBeGreaterThan(0);

    const stopping = Date.now();
    expect(await tally.stop('SIGTERM')).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(8000); // --stop-timeout 3 plus room for a loaded machine
    const left = await pending();
    expect(left.length).toBeGreaterThan(0);

    const before = rx.requests.length;
    rx.respond(() => ({ status: 200 }));
    tally = start();
    await until(async () => (await pending()).length === 0, 'the outbox to drain', 15_000);
    await sleep(500);
    expect(await tally.stop('SIGTERM')).toBe(0);

    // Every channel that went offline reached the receiver; repeats carry the same id.
    const delivered = rx.requests
      .slice(before)
      .map((r) => JSON.parse(r.body) as { alerts: { labels: Record<string, string> }[] });
    const channels = new Set(delivered.flatMap((n) => n.alerts.map((a) => a.labels['channel_id'])));
    expect([...channels].sort()).toEqual([...ids].sort());
    const events = (await loggedEvents(path.join(dir, 'state'))).filter(
      (e) => e.kind === 'channel.status_changed',
    );
    expect(events).toHaveLength(ids.length);
    const firstRunIds = new Set(rx.requests.slice(0, before).map((r) => String(r.headers['webhook-id'])));
    const secondRunIds = rx.requests.slice(before).map((r) => String(r.headers['webhook-id']));
    expect(new Set(secondRunIds).size).toBe(secondRunIds.length);
    for (const id of firstRunIds) expect(secondRunIds).toContain(id);
  }, 40_000);
});
