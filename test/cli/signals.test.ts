import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';

// SIGHUP ends a process by default: tally must take it from the first moment, during its
// start (a reload then waits for the start) and during its stop (ignored), and a start
// that fails must undo what it opened, the state directory's lock above all.

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({
    orgs: ['alpha'],
    channels: 2,
    frozen: true,
    tokens: [{ value: 'a-token', org: 'alpha' }],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-signals-'));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function configIn(name: string): Promise<{ file: string; state: string }> {
  const state = path.join(dir, name, 'state');
  await mkdir(path.dirname(state), { recursive: true });
  const file = path.join(dir, name, 'tally.yaml');
  await writeFile(
    file,
    `upstream: { base_url: ${sim.url} }
orgs: [{ slug: alpha, token: a-token }]
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(state)} }
log: { level: info, format: json }
`,
  );
  return { file, state };
}

/** Runs `tally run` as its own process; sends `signals` each when its output first matches. */
function runWith(
  file: string,
  signals: [RegExp, NodeJS.Signals][],
): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'run', '--config', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const todo = [...signals];
    const onData = (c: Buffer) => {
      out += c.toString();
      while (todo.length > 0 && todo[0]![0].test(out)) child.kill(todo.shift()![1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => resolve({ code, signal, out }));
  });
}

describe('signals', () => {
  it('a SIGHUP while tally starts reloads once it runs; one while it stops is ignored', async () => {
    const { file, state } = await configIn('hup');
    const r = await runWith(file, [
      [/"msg":"starting tally"/, 'SIGHUP'],
      [/"msg":"config reloaded"/, 'SIGTERM'],
      [/"msg":"stopping"/, 'SIGHUP'],
    ]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.out).toContain('"msg":"serving metrics');
    expect(r.out.indexOf('"msg":"config reloaded"')).toBeGreaterThan(r.out.indexOf('"msg":"serving metrics'));
    expect(r.out).toContain('"msg":"stopped"');
    expect(existsSync(path.join(state, 'tally.lock'))).toBe(false);
  }, 60_000);

  it('a start that fails after locking the state directory releases the lock', async () => {
    const { file, state } = await configIn('broken');
    await mkdir(state, { recursive: true });
    await writeFile(path.join(state, 'events'), 'a file where the event log directory belongs');
    const io = captureIO();
    expect(await runCommand(['--config', file], io)).toBe(1);
    expect(io.out()).toContain('"level":"fatal"');
    expect(existsSync(path.join(state, 'tally.lock'))).toBe(false);
  });
});

describe('TALLY_LOG_LEVEL', () => {
  it('check and run refuse a level that is not one, naming the variable', async () => {
    const { checkCommand } = await import('../../src/cli/check.js');
    const { file } = await configIn('level');
    const env = { TALLY_LOG_LEVEL: 'verbose' };
    const expected =
      'TALLY_LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, found "verbose"';
    const checked = captureIO(env);
    expect(await checkCommand(['--config', file], checked)).toBe(1);
    expect(checked.err()).toContain(expected);
    const ran = captureIO(env);
    expect(await runCommand(['--config', file], ran)).toBe(1);
    expect(ran.err()).toContain(expected);
    // A level it knows is taken by both.
    const ok = captureIO({ TALLY_LOG_LEVEL: 'debug' });
    expect(await checkCommand(['--config', file], ok)).toBe(0);
  });
});
