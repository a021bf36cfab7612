/**
 * High availability with Alertmanager: two tally replicas (two processes, each with its
 * own outbox) push the same alerts to both members of a real Alertmanager cluster on
 * loopback. The cluster deduplicates: the webhook receiver behind it gets exactly one
 * notification per group.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';

const BINARY = ['prometheus-alertmanager', 'alertmanager'].find((b) => {
  try {
    execFileSync(b, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!BINARY)
  console.warn('Alertmanager not installed (apt-get install prometheus-alertmanager): HA test skipped');

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function waitReady(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}

function runReplica(dir: string, urls: string[], name: string): Promise<string> {
  const script = path.resolve('test/notify/fixtures/am-replica.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir, urls.join(','), name], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err}`)),
    );
  });
}

describe.skipIf(!BINARY)('Alertmanager HA: two tally replicas → an Alertmanager cluster', () => {
  let dir: string;
  let hook: HttpReceiver;
  const ams: ChildProcess[] = [];
  const amUrls: string[] = [];

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
  group_interval: 30s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: ${hook.url}/alerts
        send_resolved: false
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
          '--cluster.peer-timeout=3s',
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
    await Promise.all(amUrls.map((u) => waitReady(u)));
  });

  afterAll(async () => {
    for (const am of ams) am.kill('SIGTERM');
    await Promise.all(
      ams.map((am) => new Promise((r) => (am.exitCode !== null ? r(null) : am.on('exit', r)))),
    );
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers exactly one notification per group', async () => {
    const results = await Promise.all([
      runReplica(path.join(dir, 'outbox-a'), amUrls, 'replica-a'),
      runReplica(path.join(dir, 'outbox-b'), amUrls, 'replica-b'),
    ]);
    expect(results.join('')).toContain('replica-a done');
    expect(results.join('')).toContain('replica-b done');

    // Both cluster members hold the alerts: each replica pushed to each of them.
    for (const u of amUrls) {
      const alerts = (await (await fetch(`${u}/api/v2/alerts`)).json()) as {
        labels: Record<string, string>;
      }[];
      expect(alerts.map((a) => a.labels['channel']).sort()).toEqual(['news-1', 'news-2', 'radio-1']);
    }

    await hook.waitFor(2, 30_000);
    // Give the second member its peer timeout and more to (wrongly) send a duplicate.
    await new Promise((r) => setTimeout(r, 6000));
    expect(hook.requests).toHaveLength(2);
    const groups = hook.requests
      .map(
        (q) =>
          JSON.parse(q.body) as { groupLabels: Record<string, string>; alerts: unknown[]; status: string },
      )
      .map((b) => [b.groupLabels['org'], b.status, b.alerts.length])
      .sort();
    expect(groups).toEqual([
      ['acme', 'firing', 2],
      ['globex', 'firing', 1],
    ]);
  });
});
