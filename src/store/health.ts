/**
 * A small record of how writes to the state directory are going, for the metrics layer,
 * readiness and the status API: failures by write path and reason, the last error, the
 * last success, and whether the directory can be written now.
 *
 * Every store component gets the instance scoped to its write path (`health.at('outbox')`),
 * so `tally_state_write_failures_total{path,reason}` says which part of the state failed.
 */
import type { Clock } from '../core/clock.js';
import { STORE_ERROR_REASONS, StoreError, type StoreErrorReason } from './errors.js';

/**
 * The write paths of the state directory, a metric label: snapshot files, their journals,
 * the event log, the outbox, the alert state, learned queries and the lock (whose
 * heartbeat also shows the directory can be written again; docs/state.md, "State health").
 */
export const STATE_WRITE_PATHS = [
  'snapshots',
  'journal',
  'events',
  'outbox',
  'alerts',
  'learned',
  'lock',
] as const;

/** One write path of {@link STATE_WRITE_PATHS}. */
export type StateWritePath = (typeof STATE_WRITE_PATHS)[number];

/** What {@link StoreHealth.read} returns. */
export interface StoreHealthState {
  /** Failed writes since start, by reason (every reason present, zero when none). */
  failures: Record<StoreErrorReason, number>;
  /** Failed writes since start, by write path and reason (paths without failures left out). */
  byPath: Partial<Record<StateWritePath, Partial<Record<StoreErrorReason, number>>>>;
  /** The most recent failed write. */
  lastError?: { reason: StoreErrorReason; message: string; path: string; at: number; area: StateWritePath };
  /** When a write last succeeded (ms). */
  lastSuccessAt?: number;
  /**
   * Whether the state directory cannot be written now: some write path's most recent
   * write failed, and no heartbeat of the lock succeeded since.
   */
  failing: boolean;
  /** The write paths whose most recent write failed (and no lock heartbeat succeeded since). */
  failingPaths: StateWritePath[];
}

/** What every scope of one {@link StoreHealth} shares. */
class Board {
  readonly failures = Object.fromEntries(STORE_ERROR_REASONS.map((r) => [r, 0])) as Record<
    StoreErrorReason,
    number
  >;
  readonly byPath = new Map<StateWritePath, Map<StoreErrorReason, number>>();
  /** Paths whose last write failed, with when. */
  readonly failingSince = new Map<StateWritePath, number>();
  lastError: StoreHealthState['lastError'];
  lastSuccessAt: number | undefined;
  /** Set once this process must not write any more (it lost the directory's lock). */
  fenced: string | undefined;
  /** Listeners told of each failure (the metrics layer counts them). */
  readonly listeners: ((path: StateWritePath, reason: StoreErrorReason) => void)[] = [];
}

/** Tracks write outcomes of every store component that is handed the same instance (or a scope of it). */
export class StoreHealth {
  private readonly board: Board;

  constructor(
    private readonly clock: Clock,
    private readonly area: StateWritePath = 'snapshots',
    board?: Board,
  ) {
    this.board = board ?? new Board();
  }

  /** The same record, for the writes of one path. */
  at(area: StateWritePath): StoreHealth {
    return new StoreHealth(this.clock, area, this.board);
  }

  /** Calls `fn` with the path and reason of every failure recorded from now on. */
  onFailure(fn: (path: StateWritePath, reason: StoreErrorReason) => void): void {
    this.board.listeners.push(fn);
  }

  /**
   * Refuses every later write through {@link track} with a `locked` error: another tally
   * holds the directory now, and a second writer would corrupt it (docs/state.md).
   */
  fence(why: string): void {
    this.board.fenced = why;
  }

  /** Why writes are refused, once they are. */
  fencedBecause(): string | undefined {
    return this.board.fenced;
  }

  /** Records a failed write. */
  recordFailure(err: StoreError): void {
    const b = this.board;
    const now = this.clock.now();
    b.failures[err.reason] += 1;
    let reasons = b.byPath.get(this.area);
    if (reasons === undefined) {
      reasons = new Map();
      b.byPath.set(this.area, reasons);
    }
    reasons.set(err.reason, (reasons.get(err.reason) ?? 0) + 1);
    b.lastError = { reason: err.reason, message: err.message, path: err.path, at: now, area: this.area };
    b.failingSince.set(this.area, now);
    for (const fn of b.listeners) fn(this.area, err.reason);
  }

  /**
   * Records a successful write. One of the lock's heartbeat, a small file
   * written whole in the directory's root, clears every path's failure before it: the
   * directory can be written again, and the paths that failed write at their next turn.
   */
  recordSuccess(): void {
    const b = this.board;
    const now = this.clock.now();
    b.lastSuccessAt = now;
    b.failingSince.delete(this.area);
    // A journal append that failed is followed by a save of the whole file, which stands for it.
    if (this.area === 'snapshots') b.failingSince.delete('journal');
    if (this.area === 'lock') {
      for (const [area, since] of b.failingSince) if (since <= now) b.failingSince.delete(area);
    }
  }

  /** A copy of the current state. */
  read(): StoreHealthState {
    const b = this.board;
    const byPath: StoreHealthState['byPath'] = {};
    for (const [area, reasons] of b.byPath) byPath[area] = Object.fromEntries(reasons);
    const failingPaths = [...b.failingSince.keys()].sort();
    const state: StoreHealthState = {
      failures: { ...b.failures },
      byPath,
      failing: failingPaths.length > 0,
      failingPaths,
    };
    if (b.lastError !== undefined) state.lastError = { ...b.lastError };
    if (b.lastSuccessAt !== undefined) state.lastSuccessAt = b.lastSuccessAt;
    return state;
  }

  /** Runs a write, records its outcome and passes its result or error through. */
  async track<T>(write: () => Promise<T>): Promise<T> {
    const fenced = this.board.fenced;
    if (fenced !== undefined) {
      throw new StoreError(`not written: ${fenced}`, { reason: 'locked', op: 'lock', path: this.area });
    }
    try {
      const result = await write();
      this.recordSuccess();
      return result;
    } catch (err) {
      if (err instanceof StoreError) this.recordFailure(err);
      throw err;
    }
  }
}

/** Runs a write through `health` when there is one. */
export function tracked<T>(health: StoreHealth | undefined, write: () => Promise<T>): Promise<T> {
  return health === undefined ? write() : health.track(write);
}
