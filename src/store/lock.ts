/**
 * One tally per state directory: `tally.lock` names the holder (pid, host, start time).
 * A second process gets a clear error instead of two writers racing over the same files.
 * A lock whose holder is gone is taken over with a warn line, so a crash never blocks the
 * next start: on the same host by asking whether the pid still runs, across hosts (a
 * shared volume) by the holder's heartbeat, which it refreshes while it runs.
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { Clock, TimerHandle } from '../core/clock.js';
import { EMBEDDED_HOST } from '../core/host.js';
import type { Logger } from '../core/log.js';
import { ensureDir, FILE_MODE, fsyncDir, writeFileAtomic } from './atomic.js';
import { errnoCode, StoreError, toStoreError } from './errors.js';

/** Name of the lock file in the state directory. */
export const LOCK_FILE = 'tally.lock';

/** What the lock file holds. */
export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: number;
  /** Last heartbeat (ms); a lock from another host is stale once this is old. */
  refreshedAt: number;
  /** Tells this holder's lock from a successor's with the same pid. */
  token: string;
}

/** Options of {@link acquireStateLock}. */
export interface StateLockOptions {
  logger: Logger;
  clock: Clock;
  /** This process's pid (default: {@link EMBEDDED_HOST}'s; src/main.ts passes the real one). */
  pid?: number;
  /** This host's name (default: the real one). */
  hostname?: string;
  /** Whether a pid runs on this host (default: {@link EMBEDDED_HOST}'s; src/main.ts asks with signal 0). */
  isAlive?: (pid: number) => boolean;
  /** How often the holder refreshes its heartbeat (default 30 s; 0 disables). */
  refreshMs?: number;
  /** Age after which another host's lock counts as abandoned (default 2 min). */
  staleAfterMs?: number;
}

/** A held state-directory lock. */
export interface StateLock {
  readonly path: string;
  /** Stops the heartbeat and removes the lock file (only if it is still ours). */
  release(): Promise<void>;
}

/** The state directory is held by another running tally. */
export class StateLockedError extends StoreError {
  /** Who holds it. */
  readonly holder: LockHolder | undefined;

  constructor(path: string, holder: LockHolder | undefined, detail: string) {
    super(
      `state directory lock ${path} is held by ${detail}; stop that tally first (or remove the file if it is gone)`,
      {
        reason: 'locked',
        op: 'lock',
        path,
      },
    );
    this.holder = holder;
  }
}

/** Takes the lock of state directory `dir`, or throws {@link StateLockedError}. */
export async function acquireStateLock(dir: string, opts: StateLockOptions): Promise<StateLock> {
  const path = join(dir, LOCK_FILE);
  const pid = opts.pid ?? EMBEDDED_HOST.pid;
  const host = opts.hostname ?? osHostname();
  const isAlive = opts.isAlive ?? EMBEDDED_HOST.isAlive;
  const staleAfterMs = opts.staleAfterMs ?? 120_000;
  const log = opts.logger.child({ component: 'state-lock' });
  await ensureDir(dir);
  const now = opts.clock.now();
  const me: LockHolder = {
    pid,
    hostname: host,
    startedAt: now,
    refreshedAt: now,
    token: randomBytes(8).toString('hex'),
  };

  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(path, me)) {
      log.debug({ file: path, pid }, 'state lock acquired');
      return holdLock(path, me, opts, log);
    }
    const holder = await readHolder(path);
    if (holder === 'missing') continue;
    const stale = staleReason(holder, { pid, host, isAlive, now: opts.clock.now(), staleAfterMs });
    if (stale === undefined) {
      const h = holder as LockHolder;
      throw new StateLockedError(
        path,
        h,
        `pid ${h.pid} on ${h.hostname} since ${new Date(h.startedAt).toISOString()}`,
      );
    }
    log.warn(
      { file: path, pid: holder === 'corrupt' ? undefined : holder.pid, reason: stale },
      'taking over stale state lock',
    );
    try {
      await fsp.unlink(path);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'lock', path);
    }
  }
  throw new StateLockedError(path, undefined, 'another process that took it at the same moment');
}

function staleReason(
  holder: LockHolder | 'corrupt',
  me: { pid: number; host: string; isAlive: (pid: number) => boolean; now: number; staleAfterMs: number },
): string | undefined {
  if (holder === 'corrupt') return 'unreadable lock file';
  if (holder.hostname === me.host) {
    // Same pid on the same host: an earlier run of this very process slot (a restarted container's pid 1).
    if (holder.pid === me.pid) return `left by an earlier run with pid ${holder.pid}`;
    return me.isAlive(holder.pid) ? undefined : `process ${holder.pid} is gone`;
  }
  const age = me.now - holder.refreshedAt;
  return age > me.staleAfterMs
    ? `no heartbeat from ${holder.hostname} for ${Math.round(age / 1000)}s`
    : undefined;
}

const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

// Written whole to a temp file and linked into place: a reader never sees a half-written lock.
async function createExclusive(path: string, me: LockHolder): Promise<boolean> {
  const tmp = `${path}.${me.token}.tmp`;
  try {
    await fsp.writeFile(tmp, `${JSON.stringify(me)}\n`, { mode: FILE_MODE });
    try {
      await fsp.link(tmp, path);
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EEXIST') return false;
      if (!NO_LINKS.has(code ?? '')) throw err;
      // File systems without hard links: an exclusive create, with a tiny half-written window.
      try {
        await fsp.writeFile(path, `${JSON.stringify(me)}\n`, { mode: FILE_MODE, flag: 'wx' });
      } catch (err2) {
        if (errnoCode(err2) === 'EEXIST') return false;
        throw err2;
      }
    }
    await fsyncDir(join(path, '..'));
    return true;
  } catch (err) {
    throw toStoreError(err, 'lock', path);
  } finally {
    await fsp.unlink(tmp).catch(() => undefined);
  }
}

async function readHolder(path: string): Promise<LockHolder | 'corrupt' | 'missing'> {
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return 'missing';
    throw toStoreError(err, 'lock', path);
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof v.pid === 'number' &&
      typeof v.hostname === 'string' &&
      typeof v.startedAt === 'number' &&
      typeof v.refreshedAt === 'number' &&
      typeof v.token === 'string'
    ) {
      return v as LockHolder;
    }
  } catch {
    // Falls through to corrupt.
  }
  return 'corrupt';
}

function holdLock(path: string, me: LockHolder, opts: StateLockOptions, log: Logger): StateLock {
  const refreshMs = opts.refreshMs ?? 30_000;
  let timer: TimerHandle | undefined;
  let released = false;
  const refresh = async () => {
    const holder = await readHolder(path).catch(() => 'corrupt' as const);
    if (released) return;
    if (typeof holder !== 'object' || holder.token !== me.token) {
      log.error({ file: path }, 'state lock was taken over by another process');
      return;
    }
    try {
      await writeFileAtomic(path, `${JSON.stringify({ ...me, refreshedAt: opts.clock.now() })}\n`);
    } catch (err) {
      log.warn(
        { file: path, err: err instanceof Error ? err.message : String(err) },
        'state lock heartbeat failed',
      );
    }
    schedule();
  };
  const schedule = () => {
    if (refreshMs > 0 && !released) timer = opts.clock.setTimeout(() => void refresh(), refreshMs);
  };
  schedule();
  return {
    path,
    async release() {
      released = true;
      timer?.cancel();
      const holder = await readHolder(path).catch(() => 'missing' as const);
      if (typeof holder === 'object' && holder.token === me.token) {
        try {
          await fsp.unlink(path);
          await fsyncDir(join(path, '..'));
        } catch (err) {
          if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'lock', path);
        }
      }
    },
  };
}
