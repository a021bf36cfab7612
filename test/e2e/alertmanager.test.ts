/**
 * High availability with Alertmanager, end to end: two real `tally run` processes with the
 * same config (each with its own state directory) poll one simulator and push the same
 * alerts to both members of a real Alertmanager cluster on loopback. The cluster
 * deduplicates: the webhook receiver behind it gets exactly one notification per group when
 * the alerts fire, and exactly one when they resolve.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { type Daemon, type DaemonRig, daemonRig } from '../helpers/daemon.js';
import { eventually, freePort } from '../helpers/prometheus.js';
import { firstThatRuns, needs } from './harness/tools.js';
import { byCodeUnits } from '../../src/core/order.js';

const BINARY = firstThatRuns('prometheus-alertmanager', 'alertmanager');
needs(BINARY !== undefined, 'Alertmanager', 'apt-get install prometheus-alertmanager');

/** Alertmanager's cluster waits this long per position before a member sends (its HA dedup). */
const PEER_TIMEOUT_S = 2;
/**
 * Alertmanager's group_interval: the resolution follows the firing notification after this.
 * Cluster members do not share alerts, so a resolution that reaches the two members on
 * either side of a group flush makes them disagree, and both notify (a flap Alertmanager
 * itself allows). The test resolves right after the firing notification, so the pushes land
 * well inside the interval, far from either flush.
 */
const AM_GROUP_INTERVAL_S = 10;

/** A webhook body from Alertmanager (version 4), the fields the test reads. */
interface AmWebhook {
  status: string;
  groupLabels: Record<string, string>;
  alerts: { status: string; labels: Record<string, string> }[];
}

/** One `tally run` child and its base URL. */
interface Replica {
  name: string;
  daemon: Daemon;
  url: string;
}

async function waitReady(url: string, what: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const res = await fetch(`${url}/-/ready`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${what} not ready: ${res.status}`);
  }, timeoutMs);
}

const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) resolve();
    else c.once('exit', () => resolve());
  });

/** SIGTERM, then SIGKILL if the child has not gone within `ms`. */
async function stopChild(c: ChildProcess, ms = 5000): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), ms);
  await exited(c);
  clearTimeout(t);
}

function tallyConfig(o: { sim: Simulator; port: number; stateDir: string; amUrls: string[] }): string {
  return `upstream:
  base_url: ${o.sim.url}
  budget_per_minute: 150 # two replicas on one IP: half of the simulator's 300 each
  retries: { attempts: 2, base_delay: 50ms, max_delay: 200ms, deadline: 2s }
  timeouts: { connect: 1s, headers: 2s, body: 2s }
orgs:
  - slug: acme
    token: acme-token
  - slug: beta
    token: beta-token
intervals: { org: 30s, team: 30s, subscription: 30s, channels: 1s, live_sessions: 10s, live_detail: 30s, sweep: 1m, jitter: 0 }
server: { listen: 127.0.0.1:${o.port} }
state: { dir: ${JSON.stringify(o.stateDir)} }
log: { level: warn, format: json }
rules:
  - name: channel_down
    for_each: channel
    when: 'channel.status == "offline"'
    severity: critical
    annotations:
      summary: 'Channel {{ labels.channel }} is offline'
route:
  receiver: am
  group_by: [org, alertname]
  group_wait: 500ms
  group_interval: 1s
receivers:
  - name: am
    alertmanager:
      urls: [${o.amUrls.join(', ')}]
delivery: { timeout: 3s, backoff: { base: 100ms, max: 1s } }
`;
}

/** `tally_notifications_sent_total{receiver="am"}` of one replica. */
async function sentToAm(r: Replica): Promise<number> {
  const text = await (await fetch(`${r.url}/metrics`)).text();
  const m = /^tally_notifications_sent_total\{[^}]*receiver="am"[^}]*\} (\S+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

/** The notifications the webhook receiver got, as `[org, status, sorted channels]`. */
function received(hook: HttpReceiver): [string, string, string[]][] {
  return hook.requests.map((q) => {
    const b = JSON.parse(q.body) as AmWebhook;
    return [b.groupLabels['org'] ?? '', b.status, b.alerts.map((a) => a.labels['channel'] ?? '').sort()];
  });
}

const byOrg = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => byCodeUnits(a[0], b[0]);

describe.skipIf(!BINARY)('Alertmanager HA: two tally replicas → an Alertmanager cluster', () => {
  let dir: string;
  let hook: HttpReceiver;
  let sim: Simulator;
  const ams: ChildProcess[] = [];
  const amUrls: string[] = [];
  const replicas: Replica[] = [];
  const rigs: DaemonRig[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-am-e2e-'));
    hook = await startHttpReceiver();
    const config = path.join(dir, 'alertmanager.yml');
    await writeFile(
      config,
      `route:
  receiver: hook
  group_by: [alertname, org]
  group_wait: 1s
  group_interval: ${AM_GROUP_INTERVAL_S}s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: ${hook.url}/alerts
        send_resolved: true
`,
    );
    const web = [await freePort(), await freePort()];
    const cluster = [await freePort(), await freePort()];
    for (let i = 0; i < 2; i++) {
      const am = spawn(
        BINARY!,
        [
          `--config.file=${config}`,
          `--storage.path=${path.join(dir, `am${i}`)}`,
          `--web.listen-address=127.0.0.1:${web[i]}`,
          `--cluster.listen-address=127.0.0.1:${cluster[i]}`,
          `--cluster.advertise-address=127.0.0.1:${cluster[i]}`,
          `--cluster.peer=127.0.0.1:${cluster[1 - i]}`,
          `--cluster.peer-timeout=${PEER_TIMEOUT_S}s`,
          '--cluster.gossip-interval=100ms',
          '--cluster.pushpull-interval=1s',
          '--cluster.settle-timeout=2s',
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      am.stderr!.on('data', () => {});
      ams.push(am);
      amUrls.push(`http://127.0.0.1:${web[i]}`);
    }
    await Promise.all(amUrls.map((u, i) => waitReady(u, `alertmanager ${i}`)));

    sim = await startSimulator({
      orgs: ['acme', 'beta'],
      channels: 3,
      sessionsPerChannel: 1,
      seed: 7,
      frozen: true,
    });
    // Nothing offline at the start, so the only alerts are the ones the test makes.
    for (const org of sim.orgs)
      for (const c of sim.view(org).channels)
        sim.trigger.channelStatus({ org, channel: String(c['id']), status: 'idle' });

    for (const name of ['replica-a', 'replica-b']) {
      const rig = await daemonRig(`am-${name}`);
      rigs.push(rig);
      const port = await freePort();
      await rig.write(tallyConfig({ sim, port, stateDir: rig.stateDir, amUrls }));
      replicas.push({ name, daemon: rig.spawn(), url: `http://127.0.0.1:${port}` });
    }
    for (const r of replicas) await r.daemon.serving({ url: r.url });
  });

  afterAll(async () => {
    await Promise.all(rigs.map((r) => r.close()));
    await Promise.all(ams.map((am) => stopChild(am)));
    await sim?.close();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends one notification per group when alerts fire, and one when they resolve', async () => {
    const channels = (org: string) =>
      sim.view(org).channels.map((c) => ({ id: String(c['id']), name: String(c['name']) }));
    const down = [
      { org: 'acme', ...channels('acme')[0]! },
      { org: 'acme', ...channels('acme')[2]! },
      { org: 'beta', ...channels('beta')[1]! },
    ];
    for (const c of down) sim.trigger.channelStatus({ org: c.org, channel: c.id, status: 'offline' });
    const names = (org: string) =>
      down
        .filter((c) => c.org === org)
        .map((c) => c.name)
        .sort();

    await hook.waitFor(2, 20_000);
    // Both members hold the alerts: every replica pushes to every member.
    for (const u of amUrls) {
      const alerts = (await (await fetch(`${u}/api/v2/alerts`)).json()) as {
        labels: Record<string, string>;
      }[];
      expect(alerts.map((a) => `${a.labels['org']}/${a.labels['channel']}`).sort()).toEqual(
        down.map((c) => `${c.org}/${c.name}`).sort(),
      );
    }

    // The channels come back: each replica resolves its alerts, and the cluster says so once per group.
    for (const c of down) sim.trigger.channelStatus({ org: c.org, channel: c.id, status: 'idle' });
    // Each replica pushed the firing and the resolved groups itself (tally sends a resolution
    // only for alerts it reported), so the cluster really had duplicates to drop.
    await eventually(async () => {
      for (const r of replicas)
        if ((await sentToAm(r)) < 4) throw new Error(`${r.name} has not pushed firing and resolved groups`);
    }, 20_000);
    await hook.waitFor(4, (AM_GROUP_INTERVAL_S + PEER_TIMEOUT_S + 10) * 1000);
    // Longer than the second member's wait (its peer timeout), in which a broken dedup would send again.
    await new Promise((r) => setTimeout(r, (PEER_TIMEOUT_S + 3) * 1000));
    const got = received(hook);
    expect(got.slice(0, 2).sort(byOrg)).toEqual([
      ['acme', 'firing', names('acme')],
      ['beta', 'firing', names('beta')],
    ]);
    expect(got.slice(2).sort(byOrg)).toEqual([
      ['acme', 'resolved', names('acme')],
      ['beta', 'resolved', names('beta')],
    ]);
    expect(got).toHaveLength(4);
    for (const r of replicas) expect(r.daemon.gone(), `${r.name} still runs:\n${r.daemon.out()}`).toBe(false);
  });
});
