/**
 * A tally (the real App) or the naive poller in a child process, on an accelerated
 * clock shared with the bench, reporting its events and its footprint over IPC.
 *
 *   node --import tsx bench/lib/tally-child.ts CONFIG ORIGIN FACTOR [tally|naive]
 */
import { Registry } from 'prom-client';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { AcceleratedClock } from './accelerated-clock.js';
import { type ChildMessage, type ChildSample, type ParentMessage, slim } from './protocol.js';

const [configPath, originText, factorText, mode = 'tally'] = process.argv.slice(2);
const send = (m: ChildMessage) => process.send?.(m);
const clock = new AcceleratedClock(Number(factorText), Number(originText));
const { App } = await import('../../src/app/app.js');
const { loadConfigFile } = await import('../../src/config/load.js');
const { createLogger } = await import('../../src/core/log.js');
const { SnapshotStore } = await import('../../src/store/snapshot-store.js');
const { UpstreamClient } = await import('../../src/upstream/client.js');
const { emptySnapshot } = await import('../../src/snapshot/model.js');
const { NaivePoller } = await import('./naive-poller.js');
const loaded = await loadConfigFile(configPath!, process.env);
const logger = createLogger({
  level: loaded.config.log.level,
  format: 'json',
  destination: process.stderr,
  secrets: loaded.secrets,
});
const discard = new Writable({ write: (_c, _e, cb) => cb() });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

let sample: () => Partial<ChildSample>;
let stop: () => Promise<void>;

if (mode === 'naive') {
  const org = loaded.config.orgs[0]!;
  const client = UpstreamClient.fromConfig(loaded.config, { clock, logger });
  const store = await SnapshotStore.open({
    dir: path.join(path.resolve(loaded.config.state.dir), 'snapshots'),
    logger,
    clock,
  });
  const naive = new NaivePoller({
    client,
    auth: { slug: org.slug, token: org.token! },
    initial: (await store.load(org.slug)) ?? emptySnapshot(org.slug, clock.now()),
    clock,
    window: loaded.config.upstream.window,
    onEvents: (events) => send({ type: 'events', noticedAt: clock.now(), events: events.map(slim) }),
  });
  const aborter = new AbortController();
  const running = naive.run(aborter.signal).catch((err: unknown) => {
    send({ type: 'failed', message: String(err) });
  });
  sample = () => ({ budget: client.budget.stats(), rounds: naive.roundMs });
  stop = async () => {
    aborter.abort(new Error('stopped'));
    await running;
    await client.close();
  };
  send({ type: 'started', url: undefined });
} else {
  const app = App.create(loaded, {
    registry: new Registry(),
    clock,
    logger,
    console: discard,
  });
  app.onEvents((events) => send({ type: 'events', noticedAt: clock.now(), events: events.map(slim) }));
  await app.start();
  // The stated bound every clock second: the bench judges the stalest channel against the
  // bound of the moment (bench/lib/stalest.ts), and it may change at any sweep tick.
  let bounds: { at: number; boundMs: number }[] = [];
  let watching = true;
  const watch = () => {
    if (!watching) return;
    bounds.push({ at: clock.now(), boundMs: app.plan().sweepBoundMs });
    clock.setTimeout(watch, 1000);
  };
  watch();
  sample = () => {
    const out = { plan: app.plan(), budget: app.budget() as ChildSample['budget'], bounds };
    bounds = [];
    return out;
  };
  stop = () => {
    watching = false;
    return app.stop(10_000);
  };
  send({ type: 'started', url: app.url() });
}

process.on('message', (m: ParentMessage) => {
  if (m.type === 'sample') {
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    send({
      type: 'sample',
      sample: {
        at: clock.now(),
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed,
        heapTotalBytes: mem.heapTotal,
        externalBytes: mem.external,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        ...sample(),
      },
    });
    loop.reset();
  }
  if (m.type === 'stop') {
    void stop().then(
      () => {
        send({ type: 'stopped' });
        process.disconnect?.();
      },
      (err: unknown) => send({ type: 'failed', message: String(err) }),
    );
  }
});
