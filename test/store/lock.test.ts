import { type ChildProcess, spawn } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acquireStateLock,
  type LockHolder,
  StateLockedError,
  type StateLockOptions,
} from '../../src/store/lock.js';
import { processHost } from '../helpers/host.js';
import { captureLogger, linesAt, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await temp.cleanup();
});

const HOST = 'host-a';

function opts(clock: ManualClock, over: Partial<StateLockOptions> = {}) {
  const { logger, lines } = captureLogger();
  return { lines, opts: { logger, clock, hostname: HOST, isAlive: () => true, ...over } };
}

async function readLock(dir: string): Promise<LockHolder> {
  return JSON.parse(await fsp.readFile(join(dir, 'tally.lock'), 'utf8')) as LockHolder;
}

describe('acquireStateLock', () => {
  it('writes tally.lock with the pid and removes it on release', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const lock = await acquireStateLock(dir, opts(clock, { pid: 4242 }).opts);
    expect(lock.path).toBe(join(dir, 'tally.lock'));
    expect(await readLock(dir)).toMatchObject({ pid: 4242, hostname: HOST, startedAt: clock.now() });
    expect(await names(dir)).toEqual(['tally.lock', 'tally.owner']);
    await lock.release();
    expect(await names(dir)).toEqual([]);
  });

  it('makes a removed lock file again at the next heartbeat, and keeps a second tally out meanwhile', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const { opts: o, lines } = opts(clock, { pid: 100, refreshMs: 10_000 });
    const lock = await acquireStateLock(dir, o);
    await fsp.unlink(join(dir, 'tally.lock'));
    // The owner record still names the running holder: a second tally is refused.
    const err = await acquireStateLock(dir, opts(clock, { pid: 200 }).opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateLockedError);
    expect((err as Error).message).toContain('pid 100');
    expect((err as Error).message).toContain('its lock file was removed');
    await expect(fsp.stat(join(dir, 'tally.lock'))).rejects.toThrow();
    clock.advance(10_000);
    await expect.poll(async () => (await readLock(dir).catch(() => undefined))?.pid).toBe(100);
    expect(linesAt(lines(), 'warn').map((l) => l['msg'])).toContain(
      'state lock file was removed; making it again',
    );
    expect(lock.status()).toMatchObject({ held: true, lastHeartbeatAt: clock.now() });
    await lock.release();
  });

  it('retries a heartbeat that failed instead of giving up', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const { opts: o, lines } = opts(clock, { pid: 100, refreshMs: 10_000 });
    const lock = await acquireStateLock(dir, o);
    // A directory where the lock file was: reading it fails (EISDIR), a transient error here.
    await fsp.unlink(join(dir, 'tally.lock'));
    await fsp.mkdir(join(dir, 'tally.lock'));
    clock.advance(10_000);
    await expect
      .poll(() => linesAt(lines(), 'warn').map((l) => l['msg']))
      .toContain('state lock heartbeat failed; trying again');
    expect(lock.status()).toMatchObject({ held: true });
    expect(lock.status().problem).toBeDefined();
    await fsp.rmdir(join(dir, 'tally.lock'));
    clock.advance(5_000);
    await expect
      .poll(async () => (await readLock(dir).catch(() => undefined))?.refreshedAt)
      .toBe(clock.now());
    expect(lock.status().problem).toBeUndefined();
    await lock.release();
  });

  it('stops, through onLost, when another running tally holds the lock', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const lost: LockHolder[] = [];
    const { opts: o, lines } = opts(clock, { pid: 100, refreshMs: 10_000, onLost: (h) => lost.push(h) });
    const lock = await acquireStateLock(dir, o);
    // Both records removed: a second tally starts and takes the directory.
    await fsp.unlink(join(dir, 'tally.lock'));
    await fsp.unlink(join(dir, 'tally.owner'));
    const second = await acquireStateLock(dir, opts(clock, { pid: 200, refreshMs: 0 }).opts);
    clock.advance(10_000);
    await expect.poll(() => lost.length).toBe(1);
    expect(lost[0]).toMatchObject({ pid: 200 });
    expect(linesAt(lines(), 'error')[0]?.['msg']).toBe(
      `state directory lock taken by pid 200 on ${HOST}; this tally stops writing and exits`,
    );
    expect(lock.status().held).toBe(false);
    // The loser never writes the lock again and leaves it to the holder on release.
    clock.advance(60_000);
    await lock.release();
    expect((await readLock(dir)).pid).toBe(200);
    await second.release();
  });

  it('takes its lock back from a tally that took it and is gone', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const lost: LockHolder[] = [];
    const alive = new Set([100]);
    const { opts: o } = opts(clock, {
      pid: 100,
      refreshMs: 10_000,
      isAlive: (p) => alive.has(p),
      onLost: (h) => lost.push(h),
    });
    const lock = await acquireStateLock(dir, o);
    await fsp.writeFile(
      join(dir, 'tally.lock'),
      JSON.stringify({ pid: 300, hostname: HOST, startedAt: 0, refreshedAt: clock.now(), token: 'y' }),
    );
    clock.advance(10_000);
    await expect.poll(async () => (await readLock(dir)).pid).toBe(100);
    expect(lost).toEqual([]);
    await lock.release();
  });

  it('refuses a second process while the holder runs, naming it', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    await acquireStateLock(dir, opts(clock, { pid: 100 }).opts);
    const err = await acquireStateLock(dir, opts(clock, { pid: 200 }).opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateLockedError);
    expect(err).toMatchObject({ reason: 'locked', retryable: false, holder: { pid: 100 } });
    expect((err as Error).message).toContain(`pid 100 on ${HOST}`);
    expect((await readLock(dir)).pid).toBe(100);
  });

  it.each([
    ['a dead pid', { pid: 100 }, { pid: 200, isAlive: () => false }, /process 100 is gone/],
    ['an earlier run with our own pid', { pid: 1 }, { pid: 1 }, /earlier run with pid 1/],
  ])('takes over a lock left by %s, with a warn line', async (_n, first, second, reason) => {
    const dir = await temp.make();
    const clock = new ManualClock();
    await acquireStateLock(dir, opts(clock, first).opts);
    const { opts: o, lines } = opts(clock, second);
    await acquireStateLock(dir, o);
    expect((await readLock(dir)).pid).toBe(second.pid);
    const warn = linesAt(lines(), 'warn');
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ msg: 'taking over stale state lock', file: join(dir, 'tally.lock') });
    expect(String(warn[0]!['reason'])).toMatch(reason);
  });

  it('takes over an unreadable lock file', async () => {
    const dir = await temp.make();
    await fsp.writeFile(join(dir, 'tally.lock'), 'garbage');
    const lock = await acquireStateLock(dir, opts(new ManualClock(), { pid: 7 }).opts);
    expect((await readLock(dir)).pid).toBe(7);
    await lock.release();
  });

  it('judges a lock from another host by its heartbeat', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const holder = await acquireStateLock(
      dir,
      opts(clock, { pid: 1, hostname: 'host-b', refreshMs: 30_000 }).opts,
    );
    for (let beat = 0; beat < 3; beat++) {
      clock.advance(30_000);
      // The heartbeat is written asynchronously after the timer fires.
      await expect.poll(async () => (await readLock(dir)).refreshedAt).toBe(clock.now());
    }
    const other = opts(clock, { pid: 1, staleAfterMs: 120_000 }).opts;
    await expect(acquireStateLock(dir, other)).rejects.toThrow(StateLockedError);
    await holder.release().catch(() => undefined);
    // A holder on host-b that stopped refreshing (crashed) is taken over once its heartbeat is old.
    await fsp.writeFile(
      join(dir, 'tally.lock'),
      JSON.stringify({
        pid: 1,
        hostname: 'host-b',
        startedAt: 0,
        refreshedAt: clock.now() - 200_000,
        token: 'x',
      }),
    );
    const lock = await acquireStateLock(dir, other);
    expect((await readLock(dir)).hostname).toBe(HOST);
    await lock.release();
  });

  it('keeps a real second process out, and takes over once it is killed', async () => {
    const dir = await temp.make();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'lock-holder.ts'), dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const first = await new Promise<string>((resolve) =>
      child.stdout!.once('data', (d: Buffer) => resolve(d.toString())),
    );
    expect(first).toBe('locked\n');
    const { logger, lines } = captureLogger();
    const clock = new ManualClock();
    const err = await acquireStateLock(dir, {
      logger,
      clock,
      pid: processHost.pid,
      isAlive: processHost.isAlive,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateLockedError);
    expect((err as Error).message).toContain(`pid ${child.pid}`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const lock = await acquireStateLock(dir, {
      logger,
      clock,
      pid: processHost.pid,
      isAlive: processHost.isAlive,
    });
    expect(linesAt(lines(), 'warn')[0]).toMatchObject({
      pid: child.pid,
      reason: `process ${child.pid} is gone`,
    });
    await lock.release();
  });
});
