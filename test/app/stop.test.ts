import { Registry } from 'prom-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { waitFor } from '../helpers/wait.js';

// `App.stop(timeoutMs)` returns within its timeout whatever is still in flight: reads of an
// upstream that answers after 30 s, deliveries to a receiver that never answers.

let sim: Simulator;
let dir: string;
let receiver: Server;
let received = 0;

beforeEach(async () => {
  sim = await startSimulator({ seed: 3, channels: 2, sessionsPerChannel: 1, frozen: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-stop-'));
  received = 0;
  // Takes every delivery and never answers it.
  receiver = createServer(() => {
    received++;
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});
afterEach(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('App.stop', () => {
  async function start(): Promise<App> {
    const port = (receiver.address() as { port: number }).port;
    const loaded = await parseConfig(
      `upstream: { base_url: ${sim.url}, timeouts: { headers: 60s, body: 60s } }
orgs: [{ slug: demo, token: demo-token }]
intervals: { jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
rules:
  - name: always
    for_each: org
    when: 'true'
route: { receiver: hook, group_wait: 0s }
receivers:
  - name: hook
    webhook: { url: 'http://127.0.0.1:${port}/hook' }
delivery: { timeout: 60s }
`,
      { source: 'test', env: {}, baseDir: dir },
    );
    const app = App.create(loaded, {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
    });
    await app.start();
    return app;
  }

  async function timedStop(app: App, timeoutMs: number): Promise<number> {
    const started = performance.now();
    await app.stop(timeoutMs);
    return performance.now() - started;
  }

  it('returns within its timeout while upstream reads hang', async () => {
    sim.setFaults([{ latencyMs: 30_000 }]);
    const app = await start();
    await waitFor(() => (sim.requests().length > 0 ? true : undefined), 'a read in flight');
    // Room for a loaded machine, far below the 30 s a hanging read would take.
    expect(await timedStop(app, 400)).toBeLessThan(400 + 300);
  });

  it('returns within its timeout while a delivery hangs', async () => {
    const app = await start();
    await waitFor(() => (received > 0 ? true : undefined), 'a delivery in flight', 20_000);
    expect(await timedStop(app, 400)).toBeLessThan(400 + 300);
  });
});
