import { Registry } from 'prom-client';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { type Clock, systemClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

// How the app makes snapshots and events durable: a failed write is kept and retried,
// and save timers do not depend on the wall clock staying put.

let sim: Simulator;
let dir: string;
let app: App | undefined;

beforeEach(async () => {
  sim = await startSimulator({ seed: 5, channels: 3, sessionsPerChannel: 1, frozen: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-saves-'));
});
afterEach(async () => {
  await app?.stop(3000);
  app = undefined;
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(clock: Clock): Promise<{ app: App; heard: ChangeEvent[] }> {
  const loaded = await parseConfig(
    `upstream: { base_url: ${sim.url} }
orgs: [{ slug: demo, token: demo-token }]
intervals: { channels: 1s, sweep: 2s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
`,
    { source: 'test', env: {}, baseDir: dir },
  );
  const started = App.create(loaded, {
    registry: new Registry(),
    clock,
    logger: silentLogger(),
    console: new PassThrough(),
  });
  const heard: ChangeEvent[] = [];
  started.onEvents((e) => heard.push(...e));
  await started.start();
  app = started;
  return { app: started, heard };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

const snapshotFile = () => path.join(dir, 'state', 'snapshots', 'demo.json');
const saved = () =>
  readFile(snapshotFile()).then(
    () => true,
    () => false,
  );

/** Changes the status of the first channel; returns its id. */
function changeChannel(): string {
  const channel = sim.view('demo').channels[0]!;
  const to = channel['status'] === 'offline' ? 'idle' : 'offline';
  sim.trigger.channelStatus({ channel: String(channel['id']), status: to });
  return String(channel['id']);
}

describe('App saves', () => {
  it('keeps the events of a failed write and logs them once the write succeeds', async () => {
    const { app, heard } = await start(systemClock);
    await until(saved, 'the baseline save');
    // The snapshots directory becomes a plain file: every snapshot save fails (ENOTDIR).
    const snapshots = path.dirname(snapshotFile());
    await rm(snapshots, { recursive: true });
    await writeFile(snapshots, 'in the way');
    const id = changeChannel();
    await until(() => app.store().read().failures.io >= 2, 'two failed writes (the first and a retry)');
    // Listeners hear of events only once they are durable.
    expect(heard.filter((e) => e.entity.id === id)).toEqual([]);

    await rm(snapshots);
    await mkdir(snapshots);
    await until(() => heard.some((e) => e.entity.id === id), 'the change, heard');
    const logged = await app.events({ entityId: id, limit: 10 });
    expect(logged.events.map((e) => e.kind)).toEqual(['channel.status_changed']);
    expect(heard.filter((e) => e.entity.id === id)).toHaveLength(1);
    expect(app.store().read().failing).toBe(false);
  });

  it('a clock set forward does not park new events behind a pending quiet save', async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const { heard } = await start(clock);
    await until(saved, 'the baseline save');
    // Reads after the baseline leave a quiet (30 s) save pending; then the clock jumps a day.
    await new Promise((r) => setTimeout(r, 1500));
    offset = 86_400_000;
    const id = changeChannel();
    // Seen within a channel-list interval (1 s), durable within the event save delay (1 s).
    await until(() => heard.some((e) => e.entity.id === id), 'the change, heard', 15_000);
    expect(heard.map((e) => [e.kind, e.entity.id])).toEqual([['channel.status_changed', id]]);
  });
});
