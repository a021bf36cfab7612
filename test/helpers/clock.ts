import type { Clock, TimerHandle } from '../../src/core/clock.js';

/** A clock that moves only when the test says so; timers fire on `advance`. */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; seq: number }[] = [];
  private seq = 0;

  constructor(private t: number = Date.UTC(2026, 10, 1, 12, 0, 0)) {}

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.t + Math.max(0, ms), fn, seq: this.seq++ };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((x) => x !== timer)) };
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

  /** Moves time forward, firing due timers in order (and letting promises settle between them). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.t = end;
  }
}
