import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { waitFor } from '../helpers/wait.js';

// Readiness and the first baseline: by default /-/ready means the org-level parts are read;
// with server.ready_after_baseline it also waits until every channel's sessions were read.

let sim: Simulator;
let dir: string;
let app: App | undefined;

beforeEach(async () => {
  sim = await startSimulator({ seed: 12, channels: 3, sessionsPerChannel: 1, frozen: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-ready-'));
});
afterEach(async () => {
  await app?.stop(3000);
  app = undefined;
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(afterBaseline: boolean): Promise<App> {
  const loaded = await parseConfig(
    `upstream: { base_url: ${sim.url}, retries: { attempts: 1 } }
orgs: [{ slug: demo, token: demo-token }]
intervals: { channels: 1s, sweep: 2s, sweep_min: 1s, jitter: 0 }
server: { listen: 127.0.0.1:0, ready_after_baseline: ${afterBaseline} }
state: { dir: ${JSON.stringify(path.join(dir, String(afterBaseline)))} }
`,
    { source: 'test', env: {}, baseDir: dir },
  );
  app = App.create(loaded, {
    registry: new Registry(),
    clock: systemClock,
    logger: silentLogger(),
    console: new PassThrough(),
  });
  await app.start();
  return app;
}

const readiness = async (a: App) => {
  const res = await fetch(`${a.url()}/-/ready`);
  return { status: res.status, body: (await res.json()) as { error?: { message: string } } };
};

describe('/-/ready and the first baseline', () => {
  it('holds readiness while a channel’s sessions are unread, with ready_after_baseline', async () => {
    const stuck = String(sim.view('demo').channels[1]!['id']);
    sim.setFaults([{ path: `/channels/${stuck}/sessions`, errorRate: 1 }]);
    const a = await start(true);
    await waitFor(() => (a.orgs()[0]?.ready ? true : undefined), 'the org-level parts');
    // The other channels are swept; the stuck one keeps readiness back.
    const message = 'first baseline: the sessions of 1 channel not read yet';
    let held = await readiness(a);
    const end = Date.now() + 15_000;
    while (held.body.error?.message !== message && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      held = await readiness(a);
    }
    expect(held.status).toBe(503);
    expect(held.body.error?.message).toBe(message);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await readiness(a)).status).toBe(503);
    sim.setFaults([]);
    await waitFor(() => (a.ready() ? true : undefined), 'the baseline', 15_000);
    expect((await readiness(a)).status).toBe(200);
  });

  it('is ready once the org-level parts are read, by default', async () => {
    const stuck = String(sim.view('demo').channels[1]!['id']);
    sim.setFaults([{ path: `/channels/${stuck}/sessions`, errorRate: 1 }]);
    const a = await start(false);
    await waitFor(() => (a.ready() ? true : undefined), 'readiness');
    expect((await readiness(a)).status).toBe(200);
  });
});
