import type { OutboxEntry, OutboxPatch, OutboxPort } from '../../../src/notify/outbox.js';

/** An in-memory outbox that records the order of operations. */
export class MemoryOutbox<T> implements OutboxPort<T> {
  readonly entries = new Map<string, OutboxEntry<T>>();
  readonly ops: string[] = [];
  constructor(private readonly now: () => number = Date.now) {}

  put(id: string, item: T): void {
    this.ops.push(`put ${id}`);
    if (!this.entries.has(id)) {
      const t = this.now();
      this.entries.set(id, { id, item, createdAt: t, attempts: 0, nextAttemptAt: t });
    }
  }
  list(): OutboxEntry<T>[] {
    return [...this.entries.values()].sort((a, b) => a.createdAt - b.createdAt);
  }
  update(id: string, patch: OutboxPatch): void {
    this.ops.push(`update ${id}`);
    const e = this.entries.get(id);
    if (e) this.entries.set(id, { ...e, ...patch });
  }
  ack(id: string): void {
    this.ops.push(`ack ${id}`);
    this.entries.delete(id);
  }
}
