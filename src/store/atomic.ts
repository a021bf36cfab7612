/**
 * Atomic, durable file replacement (docs/architecture.md, invariant 6): write a temp file in the same
 * directory, fsync it, rename it over the target, fsync the directory. A reader, or a
 * process restarted after a crash, sees either the old content or the new, never a mix.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode, type StoreOp, toStoreError } from './errors.js';
import { JsonTextError, PiecewiseJsonParser } from './json-stream.js';

/** The part of an open file the store uses; `node:fs/promises` FileHandle fits it. */
export interface StoreFileHandle {
  /** Writes everything; an iterable is written a piece at a time (FileHandle does both). */
  writeFile(data: string | Uint8Array | Iterable<string>): Promise<void>;
  sync(): Promise<void>;
  truncate(len?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file-system calls the store makes when writing. Production uses {@link nodeFs};
 * tests pass a wrapper that fails at a chosen step, for failures a real directory cannot
 * produce on demand.
 */
export interface StoreFs {
  open(path: string, flags: string | number, mode?: number): Promise<StoreFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

/** The real file system. */
export const nodeFs: StoreFs = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
};

/** Mode of files in the state directory: it may hold member names and emails. */
export const FILE_MODE = 0o600;
/** Mode of directories tally creates in the state directory. */
export const DIR_MODE = 0o700;

const TEMP_MARK = '.tmp-';

/** Whether a directory entry is a temp file left by {@link writeFileAtomic}. */
export function isTempName(name: string): boolean {
  return name.startsWith('.') && name.includes(TEMP_MARK);
}

/** Options of {@link writeFileAtomic}. */
export interface WriteOptions {
  fs?: StoreFs | undefined;
  mode?: number;
}

/**
 * Replaces `path` with `data` atomically and durably. On failure the temp file is removed,
 * the old content (if any) is untouched, and a {@link StoreError} is thrown.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string>,
  opts: WriteOptions = {},
): Promise<void> {
  const fs = opts.fs ?? nodeFs;
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}${TEMP_MARK}${randomBytes(8).toString('hex')}`);
  let handle: StoreFileHandle | undefined;
  let step: StoreOp = 'open';
  try {
    handle = await fs.open(tmp, 'wx', opts.mode ?? FILE_MODE);
    step = 'write';
    await handle.writeFile(data);
    step = 'fsync';
    await handle.sync();
    const h = handle;
    handle = undefined;
    step = 'write';
    await h.close();
    step = 'rename';
    await fs.rename(tmp, path);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    // Nothing to clean when the open itself failed; otherwise the temp must not linger.
    if (step !== 'open') await fs.unlink(tmp).catch(() => undefined);
    throw toStoreError(err, step, path);
  }
  // The rename is visible now but only durable once the directory entry is on disk.
  await fsyncDir(dir, fs);
}

/** Flushes a directory's entries (creations, renames, unlinks) to disk. */
export async function fsyncDir(dir: string, fs: StoreFs = nodeFs): Promise<void> {
  let handle: StoreFileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (err) {
    if (dirSyncUnsupported(err)) return;
    throw toStoreError(err, 'fsync', dir);
  }
  try {
    await handle.sync();
  } catch (err) {
    if (!dirSyncUnsupported(err)) throw toStoreError(err, 'fsync', dir);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

// Some platforms and file systems cannot open or fsync a directory; the rename is still atomic there.
function dirSyncUnsupported(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'EINVAL' || code === 'ENOTSUP' || code === 'EISDIR';
}

/** Removes a file and makes the removal durable; a file that is already gone is fine. */
export async function unlinkDurable(path: string, fs: StoreFs = nodeFs): Promise<void> {
  try {
    await fs.unlink(path);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return;
    throw toStoreError(err, 'unlink', path);
  }
  await fsyncDir(dirname(path), fs);
}

/** Creates a directory (and its parents) for state; an existing one is fine. */
export async function ensureDir(dir: string): Promise<void> {
  try {
    await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    throw toStoreError(err, 'mkdir', dir);
  }
}

/** Removes temp files a crashed write left in `dir`; returns their names. */
export async function removeTempFiles(dir: string, fs: StoreFs = nodeFs): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return [];
    throw toStoreError(err, 'readdir', dir);
  }
  const removed: string[] = [];
  for (const name of names.filter(isTempName)) {
    try {
      await fs.unlink(join(dir, name));
      removed.push(name);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'unlink', join(dir, name));
    }
  }
  return removed;
}

/** What {@link readJsonFile} found. */
export type JsonRead =
  | { status: 'missing' }
  | { status: 'corrupt'; problem: string }
  | { status: 'ok'; value: unknown };

/**
 * Reads and parses a JSON file, telling a missing file from one that cannot be parsed.
 * Errors other than those (permissions, I/O) are thrown as {@link StoreError}.
 */
export async function readJsonFile(path: string): Promise<JsonRead> {
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return { status: 'missing' };
    if (code === 'EISDIR') return { status: 'corrupt', problem: 'is a directory' };
    throw toStoreError(err, 'read', path);
  }
  if (text.trim() === '') return { status: 'corrupt', problem: 'empty file' };
  try {
    return { status: 'ok', value: JSON.parse(text) as unknown };
  } catch (err) {
    return {
      status: 'corrupt',
      problem: `invalid JSON: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/**
 * Like {@link readJsonFile}, reading and parsing the file a piece at a time (json-stream.ts),
 * so that a large file is never held as bytes and text beside its parsed value; `revive`
 * as {@link PiecewiseJsonParser} takes it.
 */
export async function readJsonFileStreamed(
  path: string,
  revive?: (keys: readonly string[], value: unknown) => unknown,
): Promise<JsonRead> {
  const parser = new PiecewiseJsonParser(3, revive);
  try {
    const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 });
    for await (const piece of stream) parser.push(piece as string);
    return { status: 'ok', value: parser.end() };
  } catch (err) {
    if (err instanceof JsonTextError) {
      return parser.empty
        ? { status: 'corrupt', problem: 'empty file' }
        : { status: 'corrupt', problem: `invalid JSON: ${err.message}` };
    }
    const code = errnoCode(err);
    if (code === 'ENOENT') return { status: 'missing' };
    if (code === 'EISDIR') return { status: 'corrupt', problem: 'is a directory' };
    throw toStoreError(err, 'read', path);
  }
}
