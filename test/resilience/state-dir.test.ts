/**
 * The state directory misbehaving: full, read-only, or holding corrupt files at start.
 * tally keeps polling and says so (log, metric); a change seen while it cannot write is
 * reported once it can; corrupt files are set aside and a baseline is taken, without a
 * crash and without a crash loop.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { isRoot, remountReadOnly, tryMountTmpfs, unmount } from '../store/helpers.js';
import {
  baselineDone,
  dataEvents,
  loggedEvents,
  otherStatus,
  sleep,
  startTally,
  type Tally,
  tempDir,
  until,
} from './helpers.js';

let sim: Simulator | undefined;
let tally: Tally | undefined;
const undo: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  for (const fn of undo.splice(0).reverse()) await fn();
  tally = undefined;
  sim = undefined;
});

async function metric(t: Tally, name: string): Promise<number> {
  const text = await (await fetch(`${t.app.url()}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

/** A state directory on a small tmpfs (root with mount rights), else undefined. */
async function tinyStateDir(): Promise<string | undefined> {
  const tmp = await tempDir('statefs');
  undo.push(tmp.remove);
  const dir = path.join(tmp.dir, 'state');
  await mkdir(dir);
  if (!tryMountTmpfs(dir, 1024)) return undefined;
  undo.push(() => unmount(dir));
  return dir;
}

/** Fills the file system under `dir` to the last byte. */
async function fill(dir: string): Promise<void> {
  spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
  spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'filler-small')}`, 'bs=512'], { stdio: 'ignore' });
}

const canMount = isRoot && process.platform === 'linux';

describe.skipIf(!canMount)('a state directory that cannot be written (tmpfs, root only)', () => {
  it.each([
    ['full', 'disk_full'],
    ['read-only', 'read_only'],
  ])(
    '%s: tally keeps polling, reports it, and reports the change it saw meanwhile',
    async (kind, reason) => {
      const stateDir = await tinyStateDir();
      expect(stateDir, 'mounting a tmpfs failed although running as root').toBeDefined();
      sim = await startSimulator({ seed: 17, channels: 4, sessionsPerChannel: 2, frozen: true });
      tally = await startTally({ sim, stateDir: stateDir! });
      const t = tally;
      await until(() => baselineDone(t), 'the baseline');
      await sleep(1200); // the baseline is saved

      if (kind === 'full') await fill(stateDir!);
      else expect(remountReadOnly(stateDir!)).toBe(true);
      const channel = sim.view('demo').channels[1]!;
      const to = otherStatus(channel['status']);
      sim.trigger.channelStatus({ channel: String(channel['id']), status: to });
      const requests = sim.requests().length;
      await until(
        async () => (await metric(t, 'tally_state_write_failures_total')) > 0,
        'a reported write failure',
      );
      await sleep(1500);
      expect(sim.requests().length).toBeGreaterThan(requests + 3); // still polling
      expect(t.logs.some((l) => l['msg'] === 'state write failed')).toBe(true);
      expect(JSON.stringify(t.app.store().read().lastError)).toContain(reason);

      if (kind === 'full') await rm(path.join(stateDir!, 'filler'));
      else spawnSync('mount', ['-o', 'remount,rw', stateDir!], { stdio: 'ignore' });
      // Once it can write again, the change it saw meanwhile is in the log, and heard, once.
      // tally retries a failed write after 1 s, doubling up to 30 s: after a few seconds of
      // failures the next try is at most a few seconds away; the wait leaves room for that.
      await until(
        async () => (await loggedEvents(stateDir!)).some((e) => e.entity.id === channel['id']),
        'the change in the event log',
        15_000,
      );
      await sleep(1000);
      expect(dataEvents(t.events).map((e) => [e.entity.id, e.to])).toEqual([[channel['id'], to]]);
      const logged = (await loggedEvents(stateDir!)).filter((e) => e.entity.kind !== 'upstream');
      expect(logged.map((e) => [e.entity.id, e.to])).toEqual([[channel['id'], to]]);
    },
    40_000,
  );
});

describe('corrupt state files at start', () => {
  it('sets them aside, takes a silent baseline, does not crash or loop, then reports changes', async () => {
    const tmp = await tempDir('corrupt');
    undo.push(tmp.remove);
    const stateDir = path.join(tmp.dir, 'state');
    await mkdir(path.join(stateDir, 'snapshots'), { recursive: true });
    await mkdir(path.join(stateDir, 'alerts'), { recursive: true });
    await mkdir(path.join(stateDir, 'outbox'), { recursive: true });
    await writeFile(
      path.join(stateDir, 'snapshots', 'demo.json'),
      '{"format":"tally-snapshot","version":1,"sna',
    );
    await writeFile(path.join(stateDir, 'alerts', 'state.json'), '\u0000\u0000garbage');
    await writeFile(path.join(stateDir, 'outbox', '0001-x.json'), '{ not json');
    sim = await startSimulator({ seed: 19, channels: 4, sessionsPerChannel: 2, frozen: true });

    for (let run = 0; run < 2; run++) {
      tally = await startTally({ sim, stateDir });
      const t = tally;
      await until(() => baselineDone(t), `the baseline (run ${run + 1})`);
      await sleep(1200);
      expect(dataEvents(t.events)).toEqual([]);
      await t.stop();
    }
    const aside = (await readdir(path.join(stateDir, 'snapshots'))).filter((f) => f.includes('.corrupt-'));
    expect(aside).toHaveLength(1);

    tally = await startTally({ sim, stateDir });
    const t = tally;
    await until(() => baselineDone(t), 'the resumed snapshot');
    const channel = sim.view('demo').channels[0]!;
    const to = otherStatus(channel['status']);
    sim.trigger.channelStatus({ channel: String(channel['id']), status: to });
    await until(() => dataEvents(t.events).length > 0, 'the change');
    await sleep(800);
    expect(dataEvents(t.events).map((e) => [e.entity.id, e.to])).toEqual([[channel['id'], to]]);
  });
});

describe('state health shown', () => {
  it('an outbox that cannot be written: counted by path, in the queue metrics, not ready, in the status; delivered once it can', async () => {
    const tmp = await tempDir('statefs-outbox');
    undo.push(tmp.remove);
    const stateDir = path.join(tmp.dir, 'state');
    const bodies: string[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    undo.push(() => new Promise<void>((r) => hook.close(() => r())));
    sim = await startSimulator({ seed: 17, channels: 4, sessionsPerChannel: 1, frozen: true });
    tally = await startTally({
      sim,
      stateDir,
      extra: `rules:
  - name: status_change
    on: channel.status_changed
route:
  receiver: hook
  group_by: [org, alertname, channel_id]
  group_wait: 0s
  group_interval: 1s
receivers:
  - name: hook
    webhook: { url: 'http://127.0.0.1:${(hook.address() as AddressInfo).port}/' }
`,
    });
    const t = tally;
    const base = t.app.url()!;
    await until(() => baselineDone(t), 'the baseline');
    await until(async () => (await fetch(`${base}/-/ready`)).ok, 'ready');
    // The outbox directory becomes a plain file: every hand-over fails (ENOTDIR).
    const outbox = path.join(stateDir, 'outbox');
    await rm(outbox, { recursive: true });
    await writeFile(outbox, 'in the way');
    const channel = sim.view('demo').channels[0]!;
    sim.trigger.channelStatus({ channel: String(channel['id']), status: otherStatus(channel['status']) });
    const failures = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return Number(
        /^tally_state_write_failures_total\{path="outbox",reason="io"\} (\d+)/m.exec(text)?.[1] ?? 0,
      );
    };
    await until(async () => (await failures()) >= 2, 'failed hand-overs counted under path="outbox"', 15_000);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/^tally_delivery_handover_failures_total\{receiver="hook"\} [1-9]/m);
    expect(text).toMatch(/^tally_delivery_awaiting_handover\{receiver="hook"\} [1-9]/m);
    expect(text).toMatch(/^tally_state_writable 0$/m);
    const ready = await fetch(`${base}/-/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('the state directory cannot be written');
    const status = (await (await fetch(`${base}/api/v1/status`)).json()) as {
      state: { writable: boolean; failing_paths: string[]; last_error: { path: string } };
    };
    expect(status.state.writable).toBe(false);
    expect(status.state.failing_paths).toContain('outbox');
    expect(status.state.last_error.path).toBe('outbox');
    expect(bodies).toEqual([]);

    await rm(outbox);
    await mkdir(outbox);
    await until(
      () => bodies.some((b) => b.includes(String(channel['id']))),
      'the notification delivered',
      15_000,
    );
    await until(async () => (await fetch(`${base}/-/ready`)).ok, 'ready again', 15_000);
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(
      /^tally_delivery_awaiting_handover\{receiver="hook"\} 0$/m,
    );
  }, 60_000);
});
