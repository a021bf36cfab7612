import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isTempName,
  readJsonFile,
  removeTempFiles,
  unlinkDurable,
  writeFileAtomic,
} from '../../src/store/atomic.js';
import { reasonForCode, StoreError, toStoreError } from '../../src/store/errors.js';
import { StoreHealth } from '../../src/store/health.js';
import { safeFileName } from '../../src/store/safe-name.js';
import {
  FaultyFs,
  type FaultStep,
  isRoot,
  ManualClock,
  names,
  remountReadOnly,
  TempDirs,
  tryMountTmpfs,
  unmount,
} from './helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('writeFileAtomic', () => {
  it('creates and replaces a file, leaving no temp file behind', async () => {
    const dir = await temp.make();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, 'two');
    expect(await fsp.readFile(path, 'utf8')).toBe('two');
    expect(await names(dir)).toEqual(['state.json']);
    expect((await fsp.stat(path)).mode & 0o777).toBe(0o600);
  });

  it.each<[FaultStep, string, 'old' | 'new']>([
    ['open', 'ENOSPC', 'old'],
    ['write', 'ENOSPC', 'old'],
    ['fsync', 'EIO', 'old'],
    ['rename', 'EROFS', 'old'],
    ['dirsync', 'EIO', 'new'],
  ])('a failure at %s (%s) leaves the %s content and no temp file', async (step, code, left) => {
    const dir = await temp.make();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'old');
    const fs = new FaultyFs();
    fs.fault = { step, code, partial: true };
    const err = await writeFileAtomic(path, 'new', { fs }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).reason).toBe(reasonForCode(code));
    expect((err as StoreError).path).toBe(step === 'dirsync' ? dir : path);
    expect(await fsp.readFile(path, 'utf8')).toBe(left);
    expect(await names(dir)).toEqual(['state.json']);
  });

  it('cleans up its temp file when the rename fails for real (target is a non-empty directory)', async () => {
    const dir = await temp.make();
    const path = join(dir, 'taken');
    await fsp.mkdir(path);
    await fsp.writeFile(join(path, 'inside'), 'x');
    const err = await writeFileAtomic(path, 'data').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreError', op: 'rename', reason: 'io' });
    expect(await names(dir)).toEqual(['taken']);
  });

  it('reports a parent that is a file (ENOTDIR) as an io error', async () => {
    const dir = await temp.make();
    await fsp.writeFile(join(dir, 'file'), 'x');
    const err = await writeFileAtomic(join(dir, 'file', 'state.json'), 'data').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreError', op: 'open', reason: 'io', code: 'ENOTDIR' });
  });

  it.skipIf(isRoot)('reports a read-only directory as read_only and keeps the old content', async () => {
    const dir = await temp.make();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'old');
    await fsp.chmod(dir, 0o555);
    const err = await writeFileAtomic(path, 'new').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreError', reason: 'read_only', code: 'EACCES' });
    expect(await fsp.readFile(path, 'utf8')).toBe('old');
  });

  describe('on a real tiny tmpfs (root with mount rights only)', () => {
    let mnt: string | undefined;
    afterEach(() => {
      if (mnt !== undefined) unmount(mnt);
      mnt = undefined;
    });

    async function mountTmpfs(): Promise<string | undefined> {
      const dir = await temp.make();
      if (!tryMountTmpfs(dir, 64)) return undefined;
      mnt = dir;
      return dir;
    }

    it('reports a full disk as disk_full and keeps the old content', async (ctx) => {
      const dir = await mountTmpfs();
      if (dir === undefined) return ctx.skip();
      const path = join(dir, 'state.json');
      await writeFileAtomic(path, 'old');
      const err = await writeFileAtomic(path, Buffer.alloc(256 * 1024, 1)).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreError', reason: 'disk_full', code: 'ENOSPC' });
      expect(await fsp.readFile(path, 'utf8')).toBe('old');
      expect(await names(dir)).toEqual(['state.json']);
    });

    it('reports a read-only file system as read_only', async (ctx) => {
      const dir = await mountTmpfs();
      if (dir === undefined) return ctx.skip();
      const path = join(dir, 'state.json');
      await writeFileAtomic(path, 'old');
      if (!remountReadOnly(dir)) return ctx.skip();
      const err = await writeFileAtomic(path, 'new').catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreError', reason: 'read_only', code: 'EROFS' });
      expect(await fsp.readFile(path, 'utf8')).toBe('old');
    });
  });
});

describe('error classification', () => {
  it.each([
    ['ENOSPC', 'disk_full', true],
    ['EDQUOT', 'disk_full', true],
    ['EROFS', 'read_only', false],
    ['EACCES', 'read_only', false],
    ['EPERM', 'read_only', false],
    ['EIO', 'io', true],
    [undefined, 'io', true],
  ])('%s → %s (retryable %s)', (code, reason, retryable) => {
    const cause = Object.assign(new Error('boom'), code === undefined ? {} : { code });
    const err = toStoreError(cause, 'write', '/state/x.json');
    expect(err).toMatchObject({ reason, retryable, code, op: 'write', path: '/state/x.json' });
    expect(err.message).toContain('/state/x.json');
    expect(err.cause).toBe(cause);
  });
});

describe('readJsonFile', () => {
  it.each([
    ['valid', '{"a":1}', { status: 'ok', value: { a: 1 } }],
    ['empty', '', { status: 'corrupt', problem: 'empty file' }],
    ['truncated', '{"a":', { status: 'corrupt' }],
  ])('reads a %s file', async (_name, content, expected) => {
    const dir = await temp.make();
    const path = join(dir, 'f.json');
    await fsp.writeFile(path, content);
    expect(await readJsonFile(path)).toMatchObject(expected);
  });

  it('tells a missing file from a corrupt one', async () => {
    const dir = await temp.make();
    expect(await readJsonFile(join(dir, 'nope.json'))).toEqual({ status: 'missing' });
  });
});

describe('temp files and unlink', () => {
  it('removes only temp files left by interrupted writes', async () => {
    const dir = await temp.make();
    await fsp.writeFile(join(dir, 'keep.json'), '{}');
    await fsp.writeFile(join(dir, '.keep.json.tmp-abc123'), 'half');
    expect(await removeTempFiles(dir)).toEqual(['.keep.json.tmp-abc123']);
    expect(await names(dir)).toEqual(['keep.json']);
    expect(isTempName('keep.json')).toBe(false);
  });

  it('unlinks durably and tolerates a file already gone', async () => {
    const dir = await temp.make();
    await fsp.writeFile(join(dir, 'a'), 'x');
    await unlinkDurable(join(dir, 'a'));
    await unlinkDurable(join(dir, 'a'));
    expect(await names(dir)).toEqual([]);
  });
});

describe('safeFileName', () => {
  it.each([
    ['acme', 'acme'],
    ['acme-radio_2', 'acme-radio_2'],
    ['Acme', '%41cme'],
    ['../etc', '%2E%2E%2Fetc'],
    ['.hidden', '%2Ehidden'],
    ['a b', 'a%20b'],
    ['ü', '%C3%BC'],
    ['', '%'],
  ])('%j → %j', (input, expected) => {
    expect(safeFileName(input)).toBe(expected);
  });

  it('shortens very long names with a hash, keeping them distinct', () => {
    const a = safeFileName(`${'x'.repeat(300)}a`);
    const b = safeFileName(`${'x'.repeat(300)}b`);
    expect(a.length).toBeLessThanOrEqual(160);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^x+~[0-9a-f]{32}$/);
  });
});

describe('StoreHealth', () => {
  it('counts failures by reason and remembers the last one', async () => {
    const clock = new ManualClock();
    const health = new StoreHealth(clock);
    const dir = await temp.make();
    const fs = new FaultyFs();
    fs.fault = { step: 'write', code: 'ENOSPC' };
    await expect(health.track(() => writeFileAtomic(join(dir, 'a'), 'x', { fs }))).rejects.toThrow(
      StoreError,
    );
    fs.fault = { step: 'rename', code: 'EROFS' };
    await expect(health.track(() => writeFileAtomic(join(dir, 'a'), 'x', { fs }))).rejects.toThrow(
      StoreError,
    );
    let state = health.read();
    expect(state.failures).toEqual({ disk_full: 1, read_only: 1, io: 0, locked: 0 });
    expect(state.lastError).toMatchObject({ reason: 'read_only', path: join(dir, 'a'), at: clock.now() });
    expect(state.failing).toBe(true);
    clock.advance(1000);
    await health.track(() => writeFileAtomic(join(dir, 'a'), 'x'));
    state = health.read();
    expect(state).toMatchObject({ failing: false, lastSuccessAt: clock.now() });
  });
});
