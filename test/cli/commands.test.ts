/**
 * The process edge: every command the README lists is reachable through `tally <name>`
 * (src/main.ts as it runs in the container), and the two that read only the config —
 * `replay` and `notify-test` — work end to end through it with the real config loader.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/main.ts');

/** Runs `tally …args` in a child process; resolves with its exit code and output. */
function tally(args: string[], cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let dir: string;
let rx: HttpReceiver;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-cli-'));
  rx = await startHttpReceiver();
});

afterAll(async () => {
  await rx.close();
  await rm(dir, { recursive: true, force: true });
});

describe('tally <command>', () => {
  it('lists in the README exactly the commands it has', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `tally ([a-z-]+)/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it.each(Object.keys(COMMANDS))('%s --help prints its usage and exits 0', async (name) => {
    const r = await tally([name, '--help']);
    expect(r.stderr).not.toContain('unknown command');
    expect(r.stdout + r.stderr).toContain(`usage: tally ${name}`);
    expect(r.code).toBe(0);
  });

  it('answers an unknown command with the usage and exit 2', async () => {
    const r = await tally(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toContain('replay');
  });
});

describe('replay and notify-test through the process edge', () => {
  const config = () => `upstream: { base_url: http://127.0.0.1:9 }
orgs: [{ slug: acme, token: secret-token-123 }]
rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'string(event.to) == "offline"'
    annotations: { summary: 'Channel {{ event.labels.channel }} went offline' }
receivers:
  - name: hook
    webhook: { url: '${rx.url}/hook' }
route: { receiver: hook, group_wait: 30s }
`;

  it('replay reads the real config and a recorded event log, and sends nothing', async () => {
    const file = path.join(dir, 'tally.yaml');
    await writeFile(file, config());
    const log = path.join(dir, 'events.jsonl');
    const at = Date.parse('2026-11-01T10:00:00Z');
    await writeFile(
      log,
      `${JSON.stringify({
        seq: 1,
        id: 'e1',
        at,
        org: 'acme',
        kind: 'channel.status_changed',
        entity: { kind: 'channel', id: 'c1' },
        field: 'status',
        from: 'live',
        to: 'offline',
        labels: { channel: 'Morning Show', channel_id: 'c1' },
      })}\n`,
    );
    const before = rx.requests.length;
    const r = await tally(['replay', '--config', file, '--from', log, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const sent = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { receiver: string; alerts: { annotations: Record<string, string> }[] });
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]!.receiver).toBe('hook');
    expect(sent[0]!.alerts[0]!.annotations['summary']).toBe('Channel Morning Show went offline');
    expect(rx.requests.length).toBe(before);
  });

  it('notify-test sends one marked notification to the webhook and reports it', async () => {
    const file = path.join(dir, 'notify.yaml');
    await writeFile(file, config());
    const before = rx.requests.length;
    const r = await tally(['notify-test', '--config', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hook');
    expect(rx.requests.length).toBe(before + 1);
    const body = JSON.parse(rx.requests.at(-1)!.body) as {
      test: boolean;
      commonLabels: Record<string, string>;
    };
    expect(body.test).toBe(true);
    expect(body.commonLabels['alertname']).toBe('TallyTest');
    expect(r.stdout + r.stderr).not.toContain('secret-token-123');
  });
});
