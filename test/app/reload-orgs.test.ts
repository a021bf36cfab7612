import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { type LoadedConfig, parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { waitFor } from '../helpers/wait.js';

// An org a reload adds joins exactly as on a restart: from its stored snapshot when it has
// one, so what changed while it was out of the config is reported, not swallowed by a
// fresh baseline.

let sim: Simulator;
let dir: string;
let app: App | undefined;

beforeEach(async () => {
  sim = await startSimulator({
    seed: 8,
    orgs: ['alpha', 'beta'],
    channels: 2,
    sessionsPerChannel: 1,
    frozen: true,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-reload-orgs-'));
});
afterEach(async () => {
  await app?.stop(3000);
  app = undefined;
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

function config(orgs: string[]): Promise<LoadedConfig> {
  return parseConfig(
    `upstream: { base_url: ${sim.url} }
orgs: [${orgs.map((o) => `{ slug: ${o}, token: ${o}-token }`).join(', ')}]
intervals: { channels: 1s, sweep: 2s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
`,
    { source: 'test', env: {}, baseDir: dir },
  );
}

describe('App.reload and orgs', () => {
  it('resumes an org added back by a reload from its stored snapshot, reporting what changed meanwhile', async () => {
    const heard: ChangeEvent[] = [];
    app = App.create(await config(['alpha', 'beta']), {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
    });
    app.onEvents((e) => heard.push(...e));
    await app.start();
    const running = app;
    await waitFor(() => (running.ready() ? true : undefined), 'both orgs read', 20_000);

    await running.reload(await config(['alpha']));
    expect(running.orgs().map((o) => o.slug)).toEqual(['alpha']);

    const channel = sim.view('beta').channels[0]!;
    const to = channel['status'] === 'offline' ? 'idle' : 'offline';
    sim.trigger.channelStatus({ org: 'beta', channel: String(channel['id']), status: to });

    await running.reload(await config(['alpha', 'beta']));
    const seen = await waitFor(
      () => heard.find((e) => e.org === 'beta' && e.entity.id === String(channel['id'])),
      'the change made while beta was out of the config',
      20_000,
    );
    expect(seen.kind).toMatch(/^channel\./);
  });
});
