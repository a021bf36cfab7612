import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Alerting } from '../../src/app/alerting.js';
import { App } from '../../src/app/app.js';
import { type LoadedConfig, parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { startSimulator } from '../../src/sim/index.js';

// A reload either applies whole or not at all, one at a time, and never after a stop began.

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
  vi.restoreAllMocks();
});

async function setup() {
  const sim = await startSimulator({
    seed: 8,
    orgs: ['alpha', 'beta'],
    channels: 1,
    sessionsPerChannel: 1,
    frozen: true,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-reload-fence-'));
  cleanup.push(
    () => sim.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  const config = (orgs: string[], receivers: string): Promise<LoadedConfig> =>
    parseConfig(
      `upstream: { base_url: ${sim.url} }
orgs: [${orgs.map((o) => `{ slug: ${o}, token: ${o}-token }`).join(', ')}]
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
receivers: [${receivers}]
`,
      { source: 'test', env: {}, baseDir: dir },
    );
  return { dir, config };
}

describe('reload', () => {
  it('whose new alerting cannot start leaves everything as it ran, orgs included', async () => {
    const { config } = await setup();
    let next = config(['alpha'], '');
    const app = App.create(await next, {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
      reloadConfig: () => next,
    });
    await app.start();
    cleanup.push(() => app.stop(3000));
    next = config(['alpha', 'beta'], '{ name: c, log: {} }');
    vi.spyOn(Alerting.prototype, 'start').mockImplementationOnce(() =>
      Promise.reject(new Error('outbox: EIO')),
    );
    const res = await app.reloadFromFile();
    expect(res).toEqual({ ok: false, error: 'outbox: EIO' });
    expect(app.orgs().map((o) => o.slug)).toEqual(['alpha']);
    // The next reload that can start applies whole.
    expect(await app.reloadFromFile()).toEqual({ ok: true });
    expect(
      app
        .orgs()
        .map((o) => o.slug)
        .sort(),
    ).toEqual(['alpha', 'beta']);
  });

  it('that finishes loading after the stop began is not applied, and leaves no alerting running', async () => {
    const { dir, config } = await setup();
    let slow = false;
    const app = App.create(await config(['alpha'], ''), {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
      reloadConfig: async () => {
        if (slow) await new Promise((r) => setTimeout(r, 500));
        return config(['alpha', 'beta'], '{ name: c, log: {} }');
      },
    });
    await app.start();
    const running = new Set<Alerting>();
    const start = Alerting.prototype.start;
    const stop = Alerting.prototype.stop;
    vi.spyOn(Alerting.prototype, 'start').mockImplementation(function (this: Alerting) {
      return start.call(this).then(() => void running.add(this));
    });
    vi.spyOn(Alerting.prototype, 'stop').mockImplementation(function (this: Alerting, grace: number) {
      running.delete(this);
      return stop.call(this, grace);
    });
    slow = true;
    const reloading = app.reloadFromFile(); // a SIGHUP
    await new Promise((r) => setTimeout(r, 10));
    await app.stop(3000); // then a SIGTERM
    const res = await reloading;
    expect(res.ok).toBe(false);
    expect(running.size).toBe(0);
    expect(existsSync(path.join(dir, 'state', 'tally.lock'))).toBe(false);
  });

  it('reloads asked for together apply one after another, in order', async () => {
    const { config } = await setup();
    const app = App.create(await config(['alpha'], ''), {
      registry: new Registry(),
      clock: systemClock,
      logger: silentLogger(),
      console: new PassThrough(),
    });
    await app.start();
    cleanup.push(() => app.stop(3000));
    const both = await config(['alpha', 'beta'], '{ name: c, log: {} }');
    const one = await config(['beta'], '');
    await Promise.all([app.reload(both), app.reload(one)]);
    expect(app.orgs().map((o) => o.slug)).toEqual(['beta']);
  });
});
