/**
 * The log stream of a whole `tally run` as a log shipper sees it: against the lively
 * simulator with 5xx answers and rate limits, with a console receiver and a webhook
 * receiver that cannot be reached, every line of stdout is one JSON object whose keys are
 * each written once; the console receiver writes one record per notification; upstream
 * failures are warnings and failing deliveries errors.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { duplicateKeys } from '../helpers/json-keys.js';
import { waitFor } from '../helpers/wait.js';

let sim: Simulator;
let dir: string;

/** A loopback port with nothing listening (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  sim = await startSimulator({ orgs: ['demo'], channels: 12, scenario: 'lively', speed: 60, seed: 3 });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-loglines-'));
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown> & { level: string; msg?: string };

describe('the log stream of tally run', () => {
  it('is JSON lines with unique keys; receivers write records; failures at warn and error', async () => {
    const file = path.join(dir, 'tally.yaml');
    await writeFile(
      file,
      `upstream:
  base_url: ${sim.url}
  retries: { attempts: 2, base_delay: 10ms, max_delay: 20ms, deadline: 1s }
orgs:
  - slug: demo
    token: demo-token
intervals: { org: 2s, team: 1s, subscription: 2s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 3s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
log: { level: debug, format: json }
rules:
  - name: channel_changed
    on: [channel.status_changed, channel.visibility_changed, channel.added, channel.removed, session.started, session.ended]
    severity: info
    annotations:
      summary: "{{ event.kind }} on {{ event.entity.id }}"
route:
  receiver: console
  group_by: [org, alertname]
  group_wait: 1s
  group_interval: 2s
  routes:
    - receiver: hook
      continue: true
      matchers: ['alertname = "channel_changed"']
    - receiver: console
      matchers: ['alertname = "channel_changed"']
receivers:
  - name: console
    log: {}
  - name: hook
    webhook: { url: "http://127.0.0.1:${await deadPort()}/hook" }
delivery: { timeout: 1s, backoff: { base: 100ms, max: 200ms }, max_attempts: 2 }
`,
    );
    const io = captureIO({}, dir);
    const running = runCommand(['--config', file], io);
    const base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
      15_000,
    );
    // A clean baseline first, then faults: 5xx answers and reset connections next to the changes.
    await waitFor(async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined), 'readiness', 15_000);
    sim.setFaults([{ errorRate: 0.3 }, { resetRate: 0.05 }]);
    const faultsFrom = Date.now();
    await waitFor(
      () =>
        io.out().includes('"msg":"notification dropped"') && io.out().includes('"receiver":"console"')
          ? true
          : undefined,
      'a delivered console notification and a dropped webhook one',
      30_000,
    );
    // "For a while": at least 10 s of faults, so that many reads, retries and deliveries run.
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - faultsFrom))));
    io.stop();
    expect(await running).toBe(0);

    const text = io.out();
    expect(text.endsWith('\n')).toBe(true);
    const raw = text.slice(0, -1).split('\n');
    const lines: Line[] = [];
    for (const l of raw) {
      expect(l.startsWith('{'), l).toBe(true);
      expect(duplicateKeys(l), l).toEqual([]);
      lines.push(JSON.parse(l) as Line);
    }
    for (const l of lines) {
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(l.level);
      expect(typeof l.time).toBe('string');
      expect(typeof l.msg).toBe('string');
    }
    // The console receiver: one record per notification, with its alerts inside.
    const records = lines.filter((l) => l['component'] === 'notification' && l['receiver'] === 'console');
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(r['notification']).toMatchObject({ version: '1', receiver: 'console' });
    }
    // Upstream failures are warnings: a read that failed or came back incomplete (after its
    // retries, which are debug) warns once; its repeats while it keeps failing are debug.
    const upstream = lines.filter((l) => l['component'] === 'upstream' || l['component'] === 'poller');
    const failures = upstream.filter((l) => /fail|incomplete|unreachable/i.test(l.msg ?? ''));
    expect(failures.filter((l) => l.level === 'warn').length).toBeGreaterThan(0);
    expect(
      failures
        .filter((l) => l.level !== 'warn' && l.level !== 'error' && l['repeated'] !== true)
        .map((l) => l.msg),
    ).toEqual([]);
    // Failing and lost deliveries are errors.
    const delivery = lines.filter((l) => /notification (attempt failed|dropped)/.test(l.msg ?? ''));
    expect(delivery.length).toBeGreaterThan(0);
    expect(delivery.every((l) => l.level === 'error')).toBe(true);
    const count = (level: string) => lines.filter((l) => l.level === level).length;
    console.info(
      `log lines: ${lines.length} (warn ${count('warn')}, error ${count('error')}), console records: ${records.length}, upstream failures: ${failures.length}`,
    );
  }, 60_000);
});
