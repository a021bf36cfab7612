import { Registry } from 'prom-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { systemClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ channels: 2, frozen: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-drift-'));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('schema drift', () => {
  it('becomes one upstream.schema_drift event per distinct problem, however often it is read', async () => {
    // An envelope override that does not fit the server: every read of the org profile drifts.
    const loaded = await parseConfig(
      `upstream:
  base_url: ${sim.url}
  shape: { envelope: { org: "profile.details" } }
orgs: [{ slug: demo, token: demo-token }]
intervals: { org: 1s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(dir)} }
`,
      { source: 'test', env: {}, baseDir: dir },
    );
    const app = App.create(loaded, {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
    });
    const events: ChangeEvent[] = [];
    app.onEvents((e) => events.push(...e));
    await app.start();
    try {
      const deadline = Date.now() + 15_000;
      const driftEvents = () => events.filter((e) => e.kind === 'upstream.schema_drift');
      while (Date.now() < deadline && (app.orgs()[0]!.attempts.size < 4 || driftEvents().length === 0))
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2500)); // more reads of the profile, each drifting again
      const drift = driftEvents();
      expect(drift).toHaveLength(1);
      expect(drift[0]!.labels['endpoint']).toBe('org');
      expect(app.orgs()[0]!.snapshot.profile?.state).toBe('failed');
      const text = await (await fetch(`${app.url()}/metrics`)).text();
      expect(text).toMatch(/tally_schema_drift_total\{[^}]*endpoint="org"[^}]*\} [1-9]/);
    } finally {
      await app.stop(5000);
    }
  });
});
