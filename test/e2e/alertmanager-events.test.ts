/**
 * Alertmanager semantics of tally's push, against a real Alertmanager: an event alert is
 * identified by its rule and entity (three visibility changes of one channel are one
 * alert, its event details in annotations), it is grouped like any alert, it resolves by
 * itself at the `endsAt` tally gave it, and a silence created with `amtool` for one
 * channel mutes that channel's next alert while another channel's still reaches the
 * receiver behind Alertmanager.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { type Daemon, type DaemonRig, daemonRig } from '../helpers/daemon.js';
import { eventually, freePort } from '../helpers/prometheus.js';
import { firstThatRuns, needs, runs } from './harness/tools.js';

const BINARY = firstThatRuns('prometheus-alertmanager', 'alertmanager');
const AMTOOL = runs('amtool');
const PRESENT = needs(
  BINARY !== undefined && AMTOOL,
  'Alertmanager or amtool',
  'apt-get install prometheus-alertmanager',
);

/** How long an event alert fires after its last event (tally's resolve_after). */
const RESOLVE_AFTER_S = 8;

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  endsAt: string;
  status: { state: string; silencedBy: string[] };
}

interface AmWebhook {
  status: string;
  groupLabels: Record<string, string>;
  alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[];
}

async function stopChild(c: ChildProcess, ms = 5000): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), ms);
  await new Promise<void>((resolve) => c.once('exit', () => resolve()));
  clearTimeout(t);
}

describe.skipIf(!PRESENT)('event alerts in a real Alertmanager', () => {
  let dir: string;
  let hook: HttpReceiver;
  let sim: Simulator;
  let am: ChildProcess;
  let amUrl: string;
  let rig: DaemonRig | undefined;
  let tally: Daemon;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-am-events-'));
    hook = await startHttpReceiver();
    const amConfig = path.join(dir, 'alertmanager.yml');
    await writeFile(
      amConfig,
      `route:
  receiver: hook
  group_by: [alertname, org]
  group_wait: 1s
  group_interval: 2s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: ${hook.url}/alerts
        send_resolved: true
`,
    );
    const port = await freePort();
    am = spawn(
      BINARY!,
      [
        `--config.file=${amConfig}`,
        `--storage.path=${path.join(dir, 'am')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    am.stderr!.on('data', () => {});
    amUrl = `http://127.0.0.1:${port}`;
    await eventually(async () => {
      if (!(await fetch(`${amUrl}/-/ready`)).ok) throw new Error('alertmanager not ready');
    }, 30_000);

    sim = await startSimulator({ orgs: ['acme'], channels: 3, sessionsPerChannel: 1, seed: 5, frozen: true });
    for (const c of sim.view('acme').channels)
      sim.trigger.channelVisibility({ org: 'acme', channel: String(c['id']), visibility: 'public' });

    const state = path.join(dir, 'state');
    await mkdir(state);
    const tallyPort = await freePort();
    rig = await daemonRig('am-events');
    await rig.write(
      `upstream:
  base_url: ${sim.url}
orgs:
  - slug: acme
    token: acme-token
intervals: { org: 30s, team: 30s, subscription: 30s, channels: 1s, live_sessions: 10s, live_detail: 30s, sweep: 1m, jitter: 0 }
server: { listen: 127.0.0.1:${tallyPort} }
state: { dir: ${JSON.stringify(state)} }
log: { level: warn, format: json }
rules:
  - name: visibility_changed
    on: channel.visibility_changed
    severity: info
    resolve_after: ${RESOLVE_AFTER_S}s
    annotations:
      summary: 'Channel {{ labels.channel }} is now {{ event.to }}'
route:
  receiver: am
  group_by: [org, alertname]
  group_wait: 0s
  group_interval: 1s
receivers:
  - name: am
    alertmanager: { urls: [${amUrl}], resend_interval: 1m }
`,
    );
    tally = await rig.start({ url: `http://127.0.0.1:${tallyPort}` });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    if (am) await stopChild(am);
    await sim?.close();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const amAlerts = async (query = ''): Promise<AmAlert[]> =>
    ((await (await fetch(`${amUrl}/api/v2/alerts${query}`)).json()) as AmAlert[]).filter(
      (a) => a.labels['alertname'] === 'visibility_changed',
    );
  const webhooks = () => hook.requests.map((q) => JSON.parse(q.body) as AmWebhook);
  const channel = (i: number) => {
    const c = sim.view('acme').channels[i]!;
    return { id: String(c['id']), name: String(c['name']) };
  };
  /** Waits until Alertmanager's alert for `id` has seen `n` changes. */
  const changes = async (id: string, n: number) =>
    eventually(async () => {
      const [a] = (await amAlerts()).filter(
        (x) => x.labels['channel_id'] === id && x.status.state === 'active',
      );
      if (Number(a?.annotations['event_count'] ?? 0) < n)
        throw new Error(`fewer than ${n} changes of ${id} seen`);
    }, 20_000);

  it('one alert per rule and entity, grouped, resolved on time, silenced by entity from amtool', async () => {
    const a = channel(0);
    // Three changes of one channel, each seen by its own poll.
    for (const [n, visibility] of (['private', 'unlisted', 'public'] as const).entries()) {
      sim.trigger.channelVisibility({ org: 'acme', channel: a.id, visibility });
      await changes(a.id, n + 1);
    }
    const alerts = await amAlerts();
    expect(alerts).toHaveLength(1);
    const [alert] = alerts;
    expect(alert!.labels).toEqual({
      alertname: 'visibility_changed',
      severity: 'info',
      org: 'acme',
      channel: a.name,
      channel_id: a.id,
    });
    expect(alert!.annotations).toMatchObject({
      event_kind: 'channel.visibility_changed',
      event_from: 'unlisted',
      event_to: 'public',
      event_count: '3',
      summary: `Channel ${a.name} is now public`,
    });
    expect(alert!.annotations['event_id']).toMatch(/\S/);
    // endsAt is when tally resolves it, not a far-off validity.
    const endsIn = Date.parse(alert!.endsAt) - Date.now();
    expect(endsIn).toBeGreaterThan(0);
    expect(endsIn).toBeLessThanOrEqual(RESOLVE_AFTER_S * 1000 + 2000);

    // Grouping: the receiver behind Alertmanager got the group with that one alert.
    await hook.waitFor(1, 20_000);
    const first = webhooks()[0]!;
    expect(first).toMatchObject({
      status: 'firing',
      groupLabels: { alertname: 'visibility_changed', org: 'acme' },
    });
    expect(first.alerts.map((x) => x.labels['channel_id'])).toEqual([a.id]);

    // Resolve: no push needed (send_resolved is off for event rules); endsAt passes.
    await eventually(
      async () => {
        if (!webhooks().some((w) => w.status === 'resolved')) throw new Error('not resolved yet');
      },
      (RESOLVE_AFTER_S + 15) * 1000,
    );
    expect(
      webhooks()
        .find((w) => w.status === 'resolved')!
        .alerts.map((x) => x.labels['channel_id']),
    ).toEqual([a.id]);
    expect(await amAlerts('?active=true&silenced=false')).toEqual([]);

    // Silence channel a by its entity label with amtool; change a and another channel b.
    const id = execFileSync(
      'amtool',
      [
        'silence',
        'add',
        `channel_id=${a.id}`,
        'alertname=visibility_changed',
        '--duration=1h',
        '--comment=e2e',
        '--author=tally-e2e',
        `--alertmanager.url=${amUrl}`,
      ],
      { encoding: 'utf8' },
    ).trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const before = hook.requests.length;
    const b = channel(1);
    sim.trigger.channelVisibility({ org: 'acme', channel: a.id, visibility: 'private' });
    sim.trigger.channelVisibility({ org: 'acme', channel: b.id, visibility: 'private' });
    await eventually(async () => {
      const now = await amAlerts();
      const sa = now.find((x) => x.labels['channel_id'] === a.id && x.annotations['event_to'] === 'private');
      const sb = now.find((x) => x.labels['channel_id'] === b.id);
      if (!sa || !sb) throw new Error('both alerts not in Alertmanager yet');
      expect(sa.status.state).toBe('suppressed');
      expect(sa.status.silencedBy).toEqual([id]);
      expect(sb.status.state).toBe('active');
    }, 20_000);
    await eventually(async () => {
      const firing = webhooks()
        .slice(before)
        .filter((w) => w.status === 'firing');
      if (firing.length === 0) throw new Error('no new firing notification');
      // Only b reaches the receiver: a is silenced.
      for (const w of firing) expect(w.alerts.map((x) => x.labels['channel_id'])).toEqual([b.id]);
    }, 20_000);
    expect(tally.gone(), tally.out()).toBe(false);
  }, 120_000);
});
