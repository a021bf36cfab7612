/**
 * Unreadable state files are moved aside, not deleted and not fatal: tally starts without
 * them (as on a first run) and the operator keeps the evidence. One warn line says which
 * file, why and where it went.
 */
import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { fsyncDir, nodeFs, type StoreFs } from './atomic.js';
import { describeError } from '../core/errors.js';

/** Marker in the names of files that were set aside. */
export const CORRUPT_MARK = '.corrupt-';

/** Whether a directory entry is a file that was set aside. */
export function isSetAsideName(name: string): boolean {
  return name.includes(CORRUPT_MARK);
}

/** What {@link setAside} needs. */
export interface SetAsideDeps {
  logger: Logger;
  clock: Clock;
  fs?: StoreFs | undefined;
}

/**
 * Renames `path` to `<path>.corrupt-<timestamp>` and logs why. Never throws: when even the
 * rename fails, the warn line says so and the caller goes on without the file.
 * Returns the new path, or undefined when the file could not be moved.
 */
export async function setAside(
  path: string,
  problem: string,
  deps: SetAsideDeps,
): Promise<string | undefined> {
  const fs = deps.fs ?? nodeFs;
  const reason = problem.length > 300 ? `${problem.slice(0, 300)}…` : problem;
  const stamp = new Date(deps.clock.now()).toISOString().replace(/[:.]/g, '-');
  try {
    const target = await freeName(`${path}${CORRUPT_MARK}${stamp}`);
    await fs.rename(path, target);
    await fsyncDir(dirname(path), fs);
    deps.logger.warn({ file: path, reason, movedTo: target }, 'unreadable state file moved aside');
    return target;
  } catch (err) {
    deps.logger.warn(
      { file: path, reason, err: describeError(err) },
      'unreadable state file ignored (could not move it aside)',
    );
    return undefined;
  }
}

async function freeName(base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    try {
      await lstat(name);
    } catch {
      return name;
    }
  }
}
