/**
 * Runs async operations one after another, in call order, so that two writes of the same
 * file (or two appends to the same log) can never land out of order.
 */

/** A queue of async operations that run one at a time. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `op` after every operation queued before it; its result or error is passed through. */
  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(op, op);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** One {@link Serial} queue per key (e.g. per outbox entry); idle keys are forgotten. */
export class KeyedSerial {
  private readonly queues = new Map<string, { serial: Serial; pending: number }>();

  /** Runs `op` after every operation queued before it under the same key. */
  async run<T>(key: string, op: () => Promise<T>): Promise<T> {
    let q = this.queues.get(key);
    if (q === undefined) {
      q = { serial: new Serial(), pending: 0 };
      this.queues.set(key, q);
    }
    q.pending += 1;
    try {
      return await q.serial.run(op);
    } finally {
      q.pending -= 1;
      if (q.pending === 0) this.queues.delete(key);
    }
  }
}
