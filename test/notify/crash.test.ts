import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpReceiver, startHttpReceiver } from './helpers/http-receiver.js';

const CHILD = path.resolve('test/notify/fixtures/crash-child.ts');
const COUNT = 8;

function run(args: string[]): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buf = '';
  child.stdout!.on('data', (c: Buffer) => {
    buf += c.toString();
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  return { child, lines, exited };
}

describe('crash safety', () => {
  let dir: string;
  let rx: HttpReceiver;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-crash-'));
    rx = await startHttpReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers every queued notification after a SIGKILL mid-delivery', async () => {
    // First run: the receiver is slow, so deliveries are in flight when the process dies.
    rx.respond(() => ({ status: 200, delayMs: 300 }));
    const first = run([dir, rx.url, 'enqueue', String(COUNT)]);
    await rx.waitFor(3, 15_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const queued = first.lines.filter((l) => l.startsWith('queued ')).map((l) => l.slice(7));
    expect(queued.length).toBeGreaterThan(0);
    const pendingFiles = (await readdir(dir)).filter((f) => f.endsWith('.json'));
    expect(pendingFiles.length).toBeGreaterThan(0);

    // Second run: delivers what the first left in the outbox.
    rx.respond(() => ({ status: 200 }));
    const second = run([dir, rx.url, 'resume']);
    expect(await second.exited).toBe(0);
    expect(second.lines).toContain('done');

    const received = new Set(rx.requests.map((q) => (JSON.parse(q.body) as { id: string }).id));
    for (const id of queued) expect(received).toContain(id);
    expect((await readdir(dir)).filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
