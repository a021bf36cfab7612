import { type Clock, systemClock, type TimerHandle } from '../../src/core/clock.js';

/** 2026-11-01T12:00:00Z, the default start of a {@link ManualClock}. */
export const CLOCK_START = Date.UTC(2026, 10, 1, 12, 0, 0);

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  done: boolean;
}

/**
 * The one manual clock of the test suite: time moves only when the test says so, and timers
 * fire in time order (ties in the order they were set) as it passes them.
 * - `advance(ms)` moves synchronously, firing every due timer with `now()` at its due time;
 * - `tick(ms)` does the same but lets promises and I/O settle after each timer, for code
 *   that awaits between timers (pollers, dispatchers);
 * - assigning `time` jumps without firing anything, for pure evaluation at chosen instants;
 * - `stepWall(ms)` steps the wall clock only (an NTP step, a VM resumed): `monotonic()` and
 *   the timers, which run on it as Node's do, do not move.
 */
export class ManualClock implements Clock {
  private timers: Timer[] = [];
  private seq = 0;
  /** The monotonic reading; starts at the wall time so that the two agree until a step. */
  private m: number;

  constructor(private t: number = CLOCK_START) {
    this.m = t;
  }

  /** The current time (ms); assigning it jumps both clocks without firing timers. */
  get time(): number {
    return this.t;
  }

  set time(value: number) {
    this.m += value - this.t;
    this.t = value;
  }

  now(): number {
    return this.t;
  }

  monotonic(): number {
    return this.m;
  }

  /** Steps the wall clock by `ms` (negative: back); the monotonic clock and timers stay. */
  stepWall(ms: number): void {
    this.t += ms;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.m + Math.max(0, ms), seq: this.seq++, fn, done: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.done = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const h = this.setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        h.cancel();
        reject(signal.reason);
      });
    });
  }

  /** Timers not yet fired or cancelled. */
  pending(): number {
    return this.timers.filter((x) => !x.done).length;
  }

  /** Moves time forward by `ms`, firing due timers in order. */
  advance(ms: number): void {
    const end = this.m + ms;
    for (let due = this.nextDue(end); due; due = this.nextDue(end)) this.fire(due);
    this.moveTo(end);
  }

  /** Like {@link advance}, letting promises and I/O settle after each timer fires. */
  async tick(ms: number): Promise<void> {
    const end = this.m + ms;
    for (let due = this.nextDue(end); due; due = this.nextDue(end)) {
      this.fire(due);
      await new Promise((r) => setImmediate(r));
    }
    this.moveTo(end);
  }

  /** Resolves once at least `n` timers are pending (I/O keeps running meanwhile). */
  async waitForTimers(n = 1, maxTurns = 20_000): Promise<void> {
    for (let i = 0; i < maxTurns; i++) {
      if (this.pending() >= n) return;
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no ${n} timer(s) pending after ${maxTurns} turns`);
  }

  private nextDue(end: number): Timer | undefined {
    this.timers = this.timers.filter((x) => !x.done);
    let best: Timer | undefined;
    for (const x of this.timers) {
      if (x.at > end) continue;
      if (!best || x.at < best.at || (x.at === best.at && x.seq < best.seq)) best = x;
    }
    return best;
  }

  private fire(timer: Timer): void {
    timer.done = true;
    this.moveTo(timer.at);
    timer.fn();
  }

  /** Moves both clocks forward to the monotonic reading `m` (never back). */
  private moveTo(m: number): void {
    if (m <= this.m) return;
    this.t += m - this.m;
    this.m = m;
  }
}

/**
 * The wall clock plus an offset the test moves, as after an NTP step or a VM resume:
 * `now()` jumps, timers keep running in real time (as they do in Node).
 */
export class JumpingClock implements Clock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  monotonic(): number {
    return systemClock.monotonic();
  }

  /** Moves the time by `ms` (negative: backward). */
  jump(ms: number): void {
    this.offset += ms;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return systemClock.setTimeout(fn, ms);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }
}
