/**
 * Wall-clock steps under a real process (docs/reliability.md, "Clock steps"): `tally run`
 * as a child under libfaketime (Debian's `faketime`), whose offset the test rewrites in a
 * file while tally runs, as an NTP step or a VM resume would move the clock. The monotonic
 * clock is left alone (FAKETIME_DONT_FAKE_MONOTONIC), as the kernel leaves it.
 *
 * With notifications pending for a receiver that refuses, the clock steps 25 h forward
 * (delivery.max_age is 1 m: by wall age each would be expired), then 25 h back (each
 * retry would be 25 h away): every notification is delivered once the receiver answers,
 * none is dropped, the oldest-pending age stays the real one, and each step is counted once.
 */
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { type Daemon, type DaemonRig, daemonRig } from '../helpers/daemon.js';
import { sleep, tallyConfig, until } from './helpers.js';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

let sim: Simulator;
let rx: HttpReceiver;
let rig: DaemonRig;
let dir: string;
let offsetFile: string;
let child: Daemon | undefined;

beforeAll(async () => {
  sim = await startSimulator({ seed: 31, channels: 6, sessionsPerChannel: 2, frozen: true });
  rx = await startHttpReceiver();
  rig = await daemonRig('clockstep');
  dir = rig.dir;
  offsetFile = path.join(dir, 'faketime');
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
  max_age: 1m
  backoff: { base: 200ms, max: 1s }
`;
  await rig.write(tallyConfig({ sim, stateDir: rig.stateDir, extra }));
});

afterAll(async () => {
  await rig?.close();
  await rx.close();
  await sim.close();
});

/** Starts `tally run` under libfaketime reading its offset from `offsetFile`; resolves to its HTTP base URL. */
async function start(offset = '+0'): Promise<string> {
  await writeFile(offsetFile, `${offset}\n`);
  const running = await rig.start({
    env: {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: offsetFile,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    ready: false,
    ms: 20_000,
  });
  child = running;
  return running.url;
}

async function pending(): Promise<number> {
  return (await readdir(path.join(dir, 'state', 'outbox')).catch(() => [])).filter((f) => f.endsWith('.json'))
    .length;
}

async function metric(url: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Bodies the receiver accepted. */
const accepted: string[] = [];
const deliveredChannels = () =>
  new Set(
    accepted
      .flatMap((body) => (JSON.parse(body) as { alerts: { labels: Record<string, string> }[] }).alerts)
      .map((a) => a.labels['channel_id']),
  );

describe.skipIf(!existsSync(LIBFAKETIME))('a real tally whose wall clock steps', () => {
  it('delivers every pending notification across +25 h and −25 h steps, drops none, counts each step once', async () => {
    const ids = sim
      .view('demo')
      .channels.slice(0, 4)
      .map((c) => String(c['id']));
    for (const id of ids) sim.trigger.channelStatus({ channel: id, status: 'live' });
    let up = false;
    rx.respond((q) => {
      if (!up) return { status: 503 };
      accepted.push(q.body);
      return { status: 200 };
    });
    const url = await start();
    await until(
      async () => (await readdir(path.join(dir, 'state', 'snapshots')).catch(() => [])).length > 0,
      'the baseline',
      20_000,
    );
    await sleep(1500);

    for (const [steps, offset, direction] of [
      [ids.slice(0, 2), '+25h', 'forward'],
      [ids.slice(2), '+0', 'back'],
    ] as const) {
      up = false;
      for (const id of steps) sim.trigger.channelStatus({ channel: id, status: 'offline' });
      await until(async () => (await pending()) === 2, `two notifications pending (${direction})`, 15_000);
      await rx.waitFor(rx.requests.length + 2, 10_000); // refused at least twice meanwhile
      await writeFile(offsetFile, `${offset}\n`);
      // Longer than max_age's 1 m would be by the wall clock; the reporter looks every 5 s.
      await sleep(6000);
      expect(await pending(), `nothing dropped after the ${direction} step`).toBe(2);
      expect(await metric(url, 'tally_clock_steps_total', `direction="${direction}"`)).toBe(1);
      const oldest = await metric(url, 'tally_delivery_oldest_pending_age_seconds', 'receiver="hook"');
      expect(oldest).toBeGreaterThan(3);
      expect(oldest).toBeLessThan(60);
      up = true;
      await until(async () => (await pending()) === 0, `the outbox to drain (${direction})`, 10_000);
      for (const id of steps) expect(deliveredChannels()).toContain(id);
    }
    expect(await metric(url, 'tally_notifications_dropped_total')).toBe(0);
    expect(accepted).toHaveLength(4); // each once
    // The metrics page is cached for a moment: it says so once it is rendered again.
    await until(
      async () => (await metric(url, 'tally_notifications_sent_total', 'receiver="hook"')) === 4,
      'the sent count',
      10_000,
    );
    expect(await metric(url, 'tally_notifications_dropped_total')).toBe(0);
    await child!.stop('SIGTERM');
  }, 90_000);

  it('kill -9 with a notification pending, restarted 25 h later and then 25 h earlier: each delivered, none expired', async () => {
    const [a, b] = sim
      .view('demo')
      .channels.slice(4, 6)
      .map((c) => String(c['id']));
    for (const id of [a!, b!]) sim.trigger.channelStatus({ channel: id, status: 'live' });
    let up = false;
    rx.respond((q) => {
      if (!up) return { status: 503 };
      accepted.push(q.body);
      return { status: 200 };
    });
    await start();
    await sleep(4000); // the channels read live again
    for (const [id, offset] of [
      [a!, '+25h'],
      [b!, '+0'],
    ] as const) {
      up = false;
      sim.trigger.channelStatus({ channel: id, status: 'offline' });
      await until(async () => (await pending()) === 1, 'a notification pending', 15_000);
      await rx.waitFor(rx.requests.length + 2, 10_000);
      await child!.kill9();
      // Written at the old time; read back 25 h later (older than max_age by the wall
      // clock) or 25 h earlier (dated in the future, its retry 25 h away).
      await start(offset);
      await sleep(3000);
      expect(await pending(), `kept after a restart at ${offset}`).toBe(1);
      up = true;
      await until(async () => (await pending()) === 0, `delivered after a restart at ${offset}`, 10_000);
      expect(deliveredChannels()).toContain(id);
    }
    await child!.stop('SIGTERM');
  }, 90_000);
});
