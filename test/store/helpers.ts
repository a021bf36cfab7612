import { ManualClock as SharedManualClock } from '../helpers/clock.js';
/** Shared fixtures of the store tests: temp dirs, a captured logger, a manual clock, a faulty fs. */
import { spawnSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/core/log.js';
import type { ChangeEvent, EventKind } from '../../src/snapshot/events.js';
import { nodeFs, type StoreFileHandle, type StoreFs } from '../../src/store/atomic.js';

/** Whether tests run as root (root ignores directory permissions). */
export const isRoot = process.getuid?.() === 0;

/** Temp directories that remove themselves. */
export class TempDirs {
  private readonly dirs: string[] = [];

  /** A fresh empty directory under the OS temp dir. */
  async make(): Promise<string> {
    const dir = await fsp.mkdtemp(join(tmpdir(), 'tally-store-'));
    this.dirs.push(dir);
    return dir;
  }

  /** Removes every directory made (restoring write permission first). */
  async cleanup(): Promise<void> {
    for (const dir of this.dirs.splice(0)) {
      spawnSync('chmod', ['-R', 'u+rwx', dir]);
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }
}

/** A logger whose lines are kept as parsed objects. */
export function captureLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', format: 'json', destination }), lines: () => lines };
}

/** Lines at `level` (e.g. `warn`). */
export function linesAt(lines: Record<string, unknown>[], level: string): Record<string, unknown>[] {
  return lines.filter((l) => l['level'] === level);
}

/** The suite's manual clock, starting at 2025-01-01 unless told otherwise. */
export class ManualClock extends SharedManualClock {
  constructor(t = Date.UTC(2025, 0, 1)) {
    super(t);
  }
}

/** The file-system steps a {@link FaultyFs} can fail. */
export type FaultStep = 'open' | 'write' | 'fsync' | 'rename' | 'unlink' | 'truncate' | 'dirsync';

/** One injected failure. */
export interface Fault {
  step: FaultStep;
  code: string;
  partial?: boolean;
  times?: number;
}

/** A system-like error with a code. */
export function sysError(code: string, syscall: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: injected failure, ${syscall}`);
  err.code = code;
  err.syscall = syscall;
  return err;
}

/**
 * The real file system with one step set to fail (for failures a real directory cannot
 * produce on demand), counting the calls it sees.
 */
export class FaultyFs implements StoreFs {
  /** Steps to fail: the error code, how many times (default: always), and whether a failing write first writes half its data. */
  faults: Fault[] = [];
  readonly calls: Record<FaultStep, number> = {
    open: 0,
    write: 0,
    fsync: 0,
    rename: 0,
    unlink: 0,
    truncate: 0,
    dirsync: 0,
  };

  /** Sets a single fault (or none). */
  set fault(f: Fault | undefined) {
    this.faults = f === undefined ? [] : [f];
  }

  private partialWrite(): boolean {
    return this.faults.some((f) => f.step === 'write' && f.partial === true);
  }

  private hit(step: FaultStep, syscall: string): void {
    this.calls[step] += 1;
    const f = this.faults.find((x) => x.step === step && (x.times === undefined || x.times > 0));
    if (f === undefined) return;
    if (f.times !== undefined) f.times -= 1;
    throw sysError(f.code, syscall);
  }

  async open(path: string, flags: string, mode?: number): Promise<StoreFileHandle> {
    const isDir = flags === 'r';
    if (!isDir) this.hit('open', 'open');
    const real = await nodeFs.open(path, flags, mode);
    return {
      writeFile: async (data) => {
        try {
          this.hit('write', 'write');
        } catch (err) {
          if (this.partialWrite()) {
            const buf =
              typeof data === 'string' || data instanceof Uint8Array
                ? Buffer.from(data)
                : Buffer.from([...data].join(''));
            await real.writeFile(buf.subarray(0, Math.floor(buf.length / 2)));
          }
          throw err;
        }
        await real.writeFile(data);
      },
      sync: async () => {
        this.hit(isDir ? 'dirsync' : 'fsync', 'fsync');
        await real.sync();
      },
      truncate: async (len) => {
        this.hit('truncate', 'ftruncate');
        await real.truncate(len);
      },
      close: () => real.close(),
    };
  }

  async rename(from: string, to: string): Promise<void> {
    this.hit('rename', 'rename');
    await nodeFs.rename(from, to);
  }

  async unlink(path: string): Promise<void> {
    this.hit('unlink', 'unlink');
    await nodeFs.unlink(path);
  }
}

let counter = 0;

/** A change event with sensible defaults. */
export function makeEvent(over: Partial<ChangeEvent> & { id?: string } = {}): ChangeEvent {
  counter += 1;
  const kind: EventKind = over.kind ?? 'channel.status_changed';
  return {
    id: over.id ?? `ev-${counter}`,
    at: over.at ?? Date.UTC(2025, 0, 1),
    org: over.org ?? 'acme',
    kind,
    entity: over.entity ?? { kind: 'channel', id: 'ch-1' },
    field: 'status',
    from: 'offline',
    to: 'live',
    labels: over.labels ?? { channel: 'Main stage', channel_id: 'ch-1' },
  };
}

/** Names in `dir` (sorted). */
export async function names(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir)).sort();
}

/**
 * Mounts a small tmpfs at a new directory when the process may (root with CAP_SYS_ADMIN),
 * for a real full disk and a real read-only file system; undefined elsewhere.
 */
export function tryMountTmpfs(dir: string, sizeKb: number): boolean {
  if (!isRoot || process.platform !== 'linux') return false;
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir], { stdio: 'ignore' });
  return r.status === 0;
}

/** Remounts a tmpfs read-only (true when it worked). */
export function remountReadOnly(dir: string): boolean {
  return spawnSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' }).status === 0;
}

/** Unmounts a tmpfs mounted by {@link tryMountTmpfs}. */
export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}
