/**
 * Typed errors of the state directory. Every failed write surfaces as a {@link StoreError}
 * whose `reason` says what an operator can do about it: free space (`disk_full`), fix the
 * mount or permissions (`read_only`), or look at the disk (`io`).
 */
import { TallyError } from '../core/errors.js';

/** Why a state-directory operation failed; doubles as a metric label. */
export type StoreErrorReason = 'disk_full' | 'read_only' | 'io' | 'locked';

/** Every reason, for metrics that want a zero for each label. */
export const STORE_ERROR_REASONS: readonly StoreErrorReason[] = ['disk_full', 'read_only', 'io', 'locked'];

/** The file-system step that failed, for messages and logs. */
export type StoreOp =
  | 'mkdir'
  | 'open'
  | 'write'
  | 'fsync'
  | 'rename'
  | 'unlink'
  | 'truncate'
  | 'read'
  | 'readdir'
  | 'lock';

/** A state-directory operation failed. */
export class StoreError extends TallyError {
  declare readonly reason: StoreErrorReason;
  /** The step that failed. */
  readonly op: StoreOp;
  /** The file or directory it failed on. */
  readonly path: string;
  /** The system error code (`ENOSPC`, `EROFS` …) when there was one. */
  readonly code: string | undefined;

  constructor(
    message: string,
    opts: { reason: StoreErrorReason; op: StoreOp; path: string; code?: string | undefined; cause?: unknown },
  ) {
    super(message, {
      reason: opts.reason,
      // A full disk may be freed and an I/O hiccup may pass; a read-only mount or a held lock will not.
      retryable: opts.reason === 'disk_full' || opts.reason === 'io',
      cause: opts.cause,
    });
    this.op = opts.op;
    this.path = opts.path;
    this.code = opts.code;
  }
}

/** The `code` of a Node system error, if it is one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') {
    return err.code;
  }
  return undefined;
}

/** Maps a system error code to a {@link StoreErrorReason}. */
export function reasonForCode(code: string | undefined): StoreErrorReason {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'disk_full';
    case 'EROFS':
    case 'EACCES':
    case 'EPERM':
      return 'read_only';
    default:
      return 'io';
  }
}

/** Wraps anything thrown by a file-system call into a {@link StoreError} (kept as is when it already is one). */
export function toStoreError(err: unknown, op: StoreOp, path: string): StoreError {
  if (err instanceof StoreError) return err;
  const code = errnoCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  return new StoreError(`${op} ${path} failed: ${detail}`, {
    reason: reasonForCode(code),
    op,
    path,
    code,
    cause: err,
  });
}
