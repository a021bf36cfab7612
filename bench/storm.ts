/**
 * Storm: 1000 channels go offline at once. tally (the real App in a child process, real
 * time) sees it on its next channel-list read, the `channel_offline` rule fires 1000
 * alerts, grouping makes one notification per receiver, and the notifications go
 * through the durable outbox to a real SMTP server and a real webhook receiver. Measured:
 * how many notifications and alerts arrived, duplicates, and the time from the change
 * and from detection to delivery. A probe channel going live 10 s after the storm shows
 * what the storm's follow-up reads cost the detection of the next change.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/log.js';
import { startSimulator } from '../src/sim/index.js';
import { SnapshotStore } from '../src/store/snapshot-store.js';
import { shapeFromConfig } from '../src/upstream/client.js';
import { startTallyChild } from './lib/child.js';
import { writeBenchConfig } from './lib/config.js';
import { type Receiver, startSmtpReceiver, startWebhookReceiver } from './lib/receivers.js';
import { type Bench, type BenchOptions, type BenchResult, sec, table } from './lib/report.js';
import { snapshotFromSim } from './lib/world-snapshot.js';

const GROUP_WAIT_MS = 5000;
const LIST_INTERVAL = '5s';

function alerting(smtpPort: number, hookUrl: string): string {
  return `rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'has(event.from) && is_live(string(event.from)) && !(has(event.to) && is_live(string(event.to)))'
    severity: warning
route:
  receiver: mail
  group_by: [org, alertname]
  group_wait: ${GROUP_WAIT_MS / 1000}s
  group_interval: 1m
  repeat_interval: 4h
  routes:
    - matchers: ['alertname = "channel_offline"']
      receiver: mail
      continue: true
    - matchers: ['alertname = "channel_offline"']
      receiver: hook
receivers:
  - name: mail
    email:
      to: [oncall@example.com]
      from: tally@example.com
      smtp: { host: 127.0.0.1, port: ${smtpPort}, tls: none }
  - name: hook
    webhook:
      url: ${hookUrl}
`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

function delivered(r: Receiver) {
  const ids = r.arrivals.map((a) => a.id);
  return {
    notifications: r.arrivals.length,
    alerts: r.arrivals.reduce((n, a) => n + a.alerts, 0),
    duplicates: ids.length - new Set(ids).size,
    firstAt: r.arrivals[0]?.at,
    lastAt: r.arrivals.at(-1)?.at,
  };
}

async function runStorm(size: number) {
  const smtp = await startSmtpReceiver();
  const hook = await startWebhookReceiver();
  const sim = await startSimulator({ seed: 3, channels: size + 1, sessionsPerChannel: 2, frozen: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-bench-storm-'));
  try {
    const all = sim.view('demo').channels.map((c) => String(c['id']));
    const [probe, ...storm] = all as [string, ...string[]];
    for (const id of storm) sim.trigger.channelStatus({ channel: id, status: 'live' });
    sim.trigger.channelStatus({ channel: probe, status: 'offline' });
    const stateDir = path.join(dir, 'state');
    const { path: config, loaded } = await writeBenchConfig(dir, {
      baseUrl: sim.url,
      stateDir,
      intervals: { channels: LIST_INTERVAL },
      alerting: alerting(smtp.port, hook.url),
    });
    const store = await SnapshotStore.open({
      dir: path.join(stateDir, 'snapshots'),
      logger: silentLogger(),
      clock: systemClock,
    });
    await store.save(
      'demo',
      snapshotFromSim(sim, {
        org: 'demo',
        shape: shapeFromConfig(loaded.config.upstream.shape),
        window: loaded.config.upstream.window,
        at: Date.now(),
      }),
    );
    const child = await startTallyChild({ config, origin: Date.now(), factor: 1, mode: 'tally' });
    await sleep(8000); // past the first channel-list read and its follow-ups
    const changedAt = Date.now();
    for (const id of storm) sim.trigger.channelStatus({ channel: id, status: 'offline' });
    await sleep(10_000);
    const probeAt = Date.now();
    sim.trigger.channelStatus({ channel: probe, status: 'live' });
    const offline = () =>
      child.events.filter(
        (e) => e.kind === 'channel.status_changed' && e.to === 'offline' && e.at >= changedAt,
      );
    const done = () =>
      offline().length >= storm.length &&
      delivered(smtp).alerts >= storm.length &&
      delivered(hook).alerts >= storm.length;
    const complete = await until(done, 120_000);
    const probeSeen = await until(
      () => child.events.some((e) => e.entity.id === probe && e.to === 'live' && e.at >= probeAt),
      300_000,
    );
    await sleep(3000); // room for a duplicate to show up
    const events = offline();
    const detectedAt = Math.max(...events.map((e) => e.at));
    const noticedAt = Math.max(...events.map((e) => e.noticedAt));
    const probeEvent = child.events.find((e) => e.entity.id === probe && e.to === 'live' && e.at >= probeAt);
    await child.stop();
    const mail = delivered(smtp);
    const webhook = delivered(hook);
    return {
      channels: storm.length,
      complete,
      events: events.length,
      detectMs: detectedAt - changedAt,
      noticeMs: noticedAt - changedAt,
      mail: {
        ...mail,
        fromChangeMs: (mail.lastAt ?? NaN) - changedAt,
        fromNoticeMs: (mail.lastAt ?? NaN) - noticedAt,
      },
      webhook: {
        ...webhook,
        fromChangeMs: (webhook.lastAt ?? NaN) - changedAt,
        fromNoticeMs: (webhook.lastAt ?? NaN) - noticedAt,
      },
      probe: { seen: probeSeen, detectMs: probeEvent ? probeEvent.at - probeAt : undefined },
    };
  } finally {
    await sim.close();
    await smtp.close();
    await hook.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The storm bench. */
export const stormBench: Bench = {
  name: 'storm',
  description: '1000 channels offline at once: grouped notifications to real SMTP and webhook receivers',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const size = opts.quick ? 300 : 1000;
    const r = await runStorm(size);
    const limit = GROUP_WAIT_MS + 5000;
    const rows = (['mail', 'webhook'] as const).map((k) => [
      k,
      r[k].notifications,
      r[k].alerts,
      r[k].duplicates,
      sec(r[k].fromNoticeMs),
      sec(r[k].fromChangeMs),
      r[k].alerts === size && r[k].notifications === 1 && r[k].fromNoticeMs <= limit,
    ]);
    return {
      name: 'storm',
      tables: [
        `${size} channels offline at once; detected by tally in ${sec(r.detectMs)} s (events handed over after ${sec(r.noticeMs)} s), ${r.events} events; list interval ${LIST_INTERVAL}, group_wait ${GROUP_WAIT_MS / 1000}s`,
        table(
          [
            'receiver',
            'notifications',
            'alerts',
            'duplicates',
            'event → delivered s',
            'change → delivered s',
            `grouped, all, ≤ ${limit / 1000} s`,
          ],
          rows,
        ),
        `probe: a channel going live 10 s after the storm was detected after ${r.probe.seen ? `${sec(r.probe.detectMs)} s` : 'more than 5 min (not seen)'}`,
      ],
      data: { groupWaitMs: GROUP_WAIT_MS, listInterval: LIST_INTERVAL, ...r },
    };
  },
};
