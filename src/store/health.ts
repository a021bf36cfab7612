/**
 * A small record of how writes to the state directory are going, for the metrics layer
 * and readiness: failures by reason, the last error, the last success.
 */
import type { Clock } from '../core/clock.js';
import { STORE_ERROR_REASONS, StoreError, type StoreErrorReason } from './errors.js';

/** What {@link StoreHealth.read} returns. */
export interface StoreHealthState {
  /** Failed writes since start, by reason (every reason present, zero when none). */
  failures: Record<StoreErrorReason, number>;
  /** The most recent failed write. */
  lastError?: { reason: StoreErrorReason; message: string; path: string; at: number };
  /** When a write last succeeded (ms). */
  lastSuccessAt?: number;
  /** Whether the most recent write failed. */
  failing: boolean;
}

/** Tracks write outcomes of every store component that is handed the same instance. */
export class StoreHealth {
  private readonly failures: Record<StoreErrorReason, number>;
  private lastError: StoreHealthState['lastError'];
  private lastSuccessAt: number | undefined;
  private failing = false;

  constructor(private readonly clock: Clock) {
    this.failures = Object.fromEntries(STORE_ERROR_REASONS.map((r) => [r, 0])) as Record<
      StoreErrorReason,
      number
    >;
  }

  /** Records a failed write. */
  recordFailure(err: StoreError): void {
    this.failures[err.reason] += 1;
    this.lastError = { reason: err.reason, message: err.message, path: err.path, at: this.clock.now() };
    this.failing = true;
  }

  /** Records a successful write. */
  recordSuccess(): void {
    this.lastSuccessAt = this.clock.now();
    this.failing = false;
  }

  /** A copy of the current state. */
  read(): StoreHealthState {
    const state: StoreHealthState = { failures: { ...this.failures }, failing: this.failing };
    if (this.lastError !== undefined) state.lastError = { ...this.lastError };
    if (this.lastSuccessAt !== undefined) state.lastSuccessAt = this.lastSuccessAt;
    return state;
  }

  /** Runs a write, records its outcome and passes its result or error through. */
  async track<T>(write: () => Promise<T>): Promise<T> {
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
