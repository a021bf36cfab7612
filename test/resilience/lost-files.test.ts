import { readdir, readFile, rm, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  configText,
  type DaemonRig,
  daemonRig,
  QUICK_RETRIES,
  statusChangeWebhook,
} from '../helpers/daemon.js';

// Files of the state directory lost under a running tally, with real processes and
// SIGKILL (docs/reliability.md, "Fault matrix"): the events directory deleted (while
// running and while stopped) and a kill -9 just after the next event: that event is still
// notified after the restart, and the events API says which sequence numbers are missing.
// The lock file deleted and a second tally started: never two writers.

let sim: Simulator;
let hook: Server;
let rig: DaemonRig | undefined;
let dir: string;
const bodies: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, channels: 4, sessionsPerChannel: 1, frozen: true });
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
});

afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

afterAll(async () => {
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
  await sim.close();
});

/** A new directory and config: channels read every second, each status change a webhook. */
async function writeConfig(): Promise<DaemonRig> {
  rig = await daemonRig('lost-files');
  dir = rig.dir;
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  await rig.write(
    configText({
      sim,
      stateDir: rig.stateDir,
      upstream: QUICK_RETRIES,
      intervals:
        '{ org: 30s, team: 30s, subscription: 30s, channels: 1s, live_sessions: 10s, live_detail: 10s, sweep: 60s, jitter: 0 }',
      extra: statusChangeWebhook(url, '3s'),
    }),
  );
  return rig;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

const delivered = (channelId: string) =>
  bodies.filter((b) => b.includes(`"channel_id":"${channelId}"`)).length;

/** The text of every event segment. */
async function segmentsText(): Promise<string> {
  const events = path.join(dir, 'state', 'events');
  const names = (await readdir(events).catch(() => [])).filter((n) => n.endsWith('.jsonl'));
  const texts = await Promise.all(names.map((n) => readFile(path.join(events, n), 'utf8').catch(() => '')));
  return texts.join('');
}

/** Changes a channel's status; resolves with its id once the event is in the log. */
async function change(index: number): Promise<string> {
  const channel = sim.view('demo').channels[index]!;
  const id = String(channel['id']);
  sim.trigger.channelStatus({ channel: id, status: channel['status'] === 'offline' ? 'idle' : 'offline' });
  await until(
    async () => (await segmentsText()).includes(`"id":${JSON.stringify(id)}`),
    `the event of ${id}`,
  );
  return id;
}

async function baselineDurable(): Promise<void> {
  const stored = (name: string) =>
    readFile(path.join(dir, 'state', 'snapshots', name), 'utf8').catch(() => '');
  await until(
    async () => `${await stored('demo.json')}${await stored('demo.journal')}`.includes('"channels"'),
    'the baseline on disk',
  );
}

describe('lost state files', () => {
  it('notifies the event logged just before a kill -9 after the events directory was lost, and says what is missing', async () => {
    const rig = await writeConfig();
    let run = await rig.start();
    await baselineDurable();
    // A first change, delivered: the alert state's cursor stands past it.
    const first = await change(0);
    await until(() => delivered(first) === 1, 'the first delivery');
    await sleep(500);

    // 1. The events directory deleted under the running tally; the next event, then kill -9
    //    before its group_wait ends (nothing delivered yet).
    await rm(path.join(dir, 'state', 'events'), { recursive: true });
    const second = await change(1);
    await run.kill9();
    expect(delivered(second)).toBe(0);
    run = await rig.start();
    await until(() => delivered(second) >= 1, 'the second change notified after the restart');

    // 2. The events directory deleted while tally is down: numbering goes on after the
    //    highest sequence number the alert state knows, so the replay does not skip the next.
    await sleep(500);
    await run.kill9();
    await rm(path.join(dir, 'state', 'events'), { recursive: true });
    run = await rig.start();
    const third = await change(2);
    const detected = run.out();
    await run.kill9();
    expect(delivered(third)).toBe(0);
    run = await rig.start();
    await until(() => delivered(third) >= 1, 'the third change notified after the restart');
    expect(delivered(first)).toBe(1);
    expect(delivered(second)).toBeLessThanOrEqual(2);

    // The events API says which sequence numbers are gone, instead of an empty page or a 500.
    const page = (await (await fetch(`${run.url}/api/v1/events?limit=100`)).json()) as {
      events: { seq: number }[];
      missing?: { from_seq: number; to_seq: number; reason: string }[];
    };
    expect(page.missing?.length).toBeGreaterThan(0);
    expect(page.missing![0]!.from_seq).toBe(1);
    const seqs = page.events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    const status = (await (await fetch(`${run.url}/api/v1/status`)).json()) as {
      state: { event_log: { missing_events: number } };
    };
    expect(status.state.event_log.missing_events).toBeGreaterThan(0);
    const metrics = await (await fetch(`${run.url}/metrics`)).text();
    expect(metrics).toMatch(/\ntally_event_log_missing_events [1-9]/);
    expect(metrics).toMatch(/\ntally_state_writable 1\n/);
    expect(detected).toContain('event log holds fewer events than tally logged');
  }, 180_000);

  it('never lets two tallies write: a removed lock keeps the second out; one taken makes the first stop', async () => {
    const rig = await writeConfig();
    const first = await rig.start();
    await baselineDurable();
    const lock = path.join(dir, 'state', 'tally.lock');
    await unlink(lock);
    // The owner record still names the running tally: the second refuses to start.
    const second = rig.spawn();
    expect((await second.exited).code).toBe(1);
    expect(second.out()).toContain('its lock file was removed');
    // The first makes its lock again at its next heartbeat and keeps running.
    await until(
      async () => (await readFile(lock, 'utf8').catch(() => '')).includes(`"pid":${first.child.pid}`),
      'the lock made again',
    );
    expect(first.child.exitCode).toBeNull();

    // Both records gone: a third tally takes the directory, and the first stops writing and exits.
    await unlink(lock);
    await unlink(path.join(dir, 'state', 'tally.owner'));
    const third = await rig.start({ ready: false });
    expect((await first.exited).code).toBe(75);
    expect(first.out()).toContain('this tally stops writing and exits');
    expect(third.child.exitCode).toBeNull();
    const id = await change(3);
    // Sequence numbers are never handed out twice.
    const seqs = (await segmentsText())
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(id).toBeTruthy();
  }, 180_000);
});
