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
import { type StoreHealth, tracked } from './health.js';

/** Name of the lock file in the state directory. */
export const LOCK_FILE = 'tally.lock';
/**
 * A second record of the holder, rewritten with each heartbeat: a lock file removed by
 * hand (or a clean-up job) does not let a second tally in while the holder still runs.
 */
export const OWNER_FILE = 'tally.owner';

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
  /** How often the holder checks and refreshes its heartbeat (default 10 s; 0 disables). */
  refreshMs?: number;
  /** Age after which another host's lock counts as abandoned (default 2 min). */
  staleAfterMs?: number;
  /** Counts failed heartbeats as the `lock` write path. */
  health?: StoreHealth | undefined;
  /**
   * Called once when another running process holds the lock (its file was removed and
   * taken): this one must stop writing at once and exit (docs/state.md, "One tally per
   * directory"). Without it, the loss is only logged.
   */
  onLost?: ((holder: LockHolder) => void) | undefined;
}

/** A held state-directory lock. */
export interface StateLock {
  readonly path: string;
  /** How the heartbeat is going, for the status API. */
  status(): { held: boolean; lastHeartbeatAt?: number; problem?: string };
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

  const judge = { pid, host, isAlive, staleAfterMs };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(path, me)) {
      await refuseLiveOwner(dir, path, me, judge, opts.clock.now());
      await writeOwner(dir, me);
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

interface Judge {
  pid: number;
  host: string;
  isAlive: (pid: number) => boolean;
  staleAfterMs: number;
}

// The lock file was missing, yet the owner record names a tally that still runs: its lock
// was removed under it. Give the lock back (it makes a new one at its next heartbeat).
async function refuseLiveOwner(dir: string, path: string, me: LockHolder, j: Judge, now: number) {
  const owner = await readHolder(join(dir, OWNER_FILE)).catch(() => 'missing' as const);
  if (typeof owner !== 'object' || owner.token === me.token) return;
  if (staleReason(owner, { ...j, now }) !== undefined) return;
  await fsp.unlink(path).catch(() => undefined);
  throw new StateLockedError(
    path,
    owner,
    `pid ${owner.pid} on ${owner.hostname} since ${new Date(owner.startedAt).toISOString()} (its lock file was removed; ${OWNER_FILE} shows it still runs)`,
  );
}

async function writeOwner(dir: string, me: LockHolder): Promise<void> {
  await writeFileAtomic(join(dir, OWNER_FILE), `${JSON.stringify(me)}\n`);
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

/** Heartbeats until released; see {@link beat} for what one does. */
function holdLock(path: string, me: LockHolder, opts: StateLockOptions, log: Logger): StateLock {
  const refreshMs = opts.refreshMs ?? 10_000;
  const state: BeatState = { released: false, lost: false, lastHeartbeatAt: me.refreshedAt };
  let timer: TimerHandle | undefined;
  const schedule = (ms: number) => {
    if (refreshMs > 0 && !state.released && !state.lost) timer = opts.clock.setTimeout(() => void run(), ms);
  };
  const run = async () => {
    const ok = await beat(path, me, opts, log, state).catch((err: unknown) => {
      state.problem = err instanceof Error ? err.message : String(err);
      log.warn({ file: path, err: state.problem }, 'state lock heartbeat failed; trying again');
      return false;
    });
    // A failed heartbeat is tried again soon: a transient error must not let the lock go stale.
    schedule(ok ? refreshMs : Math.min(refreshMs, 5_000));
  };
  schedule(refreshMs);
  return {
    path,
    status() {
      const out: { held: boolean; lastHeartbeatAt?: number; problem?: string } = {
        held: !state.released && !state.lost,
        lastHeartbeatAt: state.lastHeartbeatAt,
      };
      if (state.problem !== undefined) out.problem = state.problem;
      return out;
    },
    async release() {
      state.released = true;
      timer?.cancel();
      if (state.lost) return; // The file is another tally's now.
      const dir = join(path, '..');
      for (const file of [path, join(dir, OWNER_FILE)]) {
        const holder = await readHolder(file).catch(() => 'missing' as const);
        if (typeof holder !== 'object' || holder.token !== me.token) continue;
        try {
          await fsp.unlink(file);
        } catch (err) {
          if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'lock', file);
        }
      }
      await fsyncDir(dir).catch(() => undefined);
    },
  };
}

interface BeatState {
  released: boolean;
  lost: boolean;
  lastHeartbeatAt: number;
  problem?: string | undefined;
}

/**
 * One heartbeat: the lock still ours is refreshed; a missing or unreadable lock file is made
 * again; a lock taken by a tally that is gone is taken back; one held by another running
 * tally (same host: its pid runs; another host: a fresh heartbeat) means this tally lost the
 * directory, and `onLost` stops it. Returns whether the heartbeat was written.
 */
async function beat(
  path: string,
  me: LockHolder,
  opts: StateLockOptions,
  log: Logger,
  state: BeatState,
): Promise<boolean> {
  const now = opts.clock.now();
  const dir = join(path, '..');
  const fresh: LockHolder = { ...me, refreshedAt: now };
  const holder = await readHolder(path);
  if (state.released) return true;
  if (holder === 'missing') {
    log.warn({ file: path }, 'state lock file was removed; making it again');
    const made = await tracked(opts.health, () => createExclusive(path, fresh));
    if (!made) return beat(path, me, opts, log, state); // Someone made one meanwhile: judge it.
  } else if (holder === 'corrupt' || holder.token === me.token) {
    if (holder === 'corrupt') log.warn({ file: path }, 'state lock file unreadable; writing it again');
    await tracked(opts.health, () => writeFileAtomic(path, `${JSON.stringify(fresh)}\n`));
  } else {
    const stale = staleReason(holder, {
      pid: holder.pid === me.pid && holder.hostname === me.hostname ? -1 : me.pid,
      host: me.hostname,
      isAlive: opts.isAlive ?? EMBEDDED_HOST.isAlive,
      now,
      staleAfterMs: opts.staleAfterMs ?? 120_000,
    });
    if (stale === undefined) {
      state.lost = true;
      log.error(
        { file: path, holder: { pid: holder.pid, hostname: holder.hostname } },
        `state directory lock taken by pid ${holder.pid} on ${holder.hostname}; this tally stops writing and exits`,
      );
      opts.onLost?.(holder);
      return false;
    }
    log.warn({ file: path, pid: holder.pid, reason: stale }, 'taking the state lock back');
    await tracked(opts.health, () => writeFileAtomic(path, `${JSON.stringify(fresh)}\n`));
  }
  await tracked(opts.health, () => writeOwner(dir, fresh));
  state.lastHeartbeatAt = now;
  state.problem = undefined;
  return true;
}
