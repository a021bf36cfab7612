/**
 * The delivery worker's in-memory view of the outbox: which entries wait, which are in flight,
 * which are due now. Pure (time comes in as an argument), so ordering is tested directly.
 *
 * Within one receiver and group, notifications go out in the order they were created:
 * while an older one waits for a retry, the newer ones wait behind it, so a chat never
 * shows "resolved" before the "firing" it resolves.
 */
import type { Notification } from '../alerts/types.js';

/** One notification for one receiver, waiting for delivery. */
export interface PendingEntry {
  id: string;
  notification: Notification;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | undefined;
  inFlight: boolean;
  /**
   * Since when this run holds it (ms, wall clock, moved with its steps); an entry taken over
   * from the last run expires only once this run held it for the maximum age too, so a
   * clock stepped while tally was down cannot expire it unseen. Absent: since `createdAt`.
   */
  heldSince?: number;
}

/** Per-receiver counts for metrics and the status API. */
export interface ReceiverBacklog {
  depth: number;
  /** Age of the oldest waiting entry (ms), 0 when none waits. */
  oldestAgeMs: number;
}

/** The set of entries waiting for delivery, oldest first. */
export class PendingSet {
  readonly #entries = new Map<string, PendingEntry>();

  /** Adds an entry; returns false when one with this id is already there. */
  add(entry: PendingEntry): boolean {
    if (this.#entries.has(entry.id)) return false;
    this.#entries.set(entry.id, entry);
    return true;
  }

  /** Removes the entry with `id`. */
  remove(id: string): void {
    this.#entries.delete(id);
  }

  /** The entry with `id`, if it waits. */
  get(id: string): PendingEntry | undefined {
    return this.#entries.get(id);
  }

  /** How many entries wait, in flight included. */
  get size(): number {
    return this.#entries.size;
  }

  /** How many entries are being sent right now. */
  get inFlight(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e.inFlight) n++;
    return n;
  }

  /** Every entry, oldest first. */
  all(): PendingEntry[] {
    return [...this.#entries.values()].sort(byAge);
  }

  /** Entries that may be attempted at `now`, oldest first, at most `limit`, one per receiver and group. */
  due(now: number, limit: number): PendingEntry[] {
    const out: PendingEntry[] = [];
    const blocked = new Set<string>();
    for (const e of this.all()) {
      if (out.length >= limit) break;
      const key = orderKey(e.notification);
      if (blocked.has(key)) continue;
      blocked.add(key);
      if (!e.inFlight && e.nextAttemptAt <= now) out.push(e);
    }
    return out;
  }

  /**
   * Earliest time (ms) at which an entry {@link due} may give becomes due, if any: the
   * first entry of each receiver and group, when it is not in flight. An entry behind an
   * older one of its group waits for that one, whatever its own time says: counting it
   * woke the worker at once, again and again, for as long as the older one backed off.
   */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    const seen = new Set<string>();
    for (const e of this.all()) {
      const key = orderKey(e.notification);
      if (seen.has(key)) continue;
      seen.add(key);
      if (e.inFlight) continue;
      if (next === undefined || e.nextAttemptAt < next) next = e.nextAttemptAt;
    }
    return next;
  }

  /** Entries created, and held by this run, before `cutoff` (ms) and not in flight: the expired ones. */
  olderThan(cutoff: number): PendingEntry[] {
    return this.all().filter((e) => !e.inFlight && Math.max(e.createdAt, e.heldSince ?? 0) < cutoff);
  }

  /**
   * Moves every entry's times by `ms`, the wall clock's step (docs/reliability.md, "Clock
   * steps"): ages, expiry and retry schedules keep the time that really passed.
   */
  shift(ms: number): void {
    for (const e of this.#entries.values()) {
      e.createdAt += ms;
      e.nextAttemptAt += ms;
      if (e.heldSince !== undefined) e.heldSince += ms;
    }
  }

  /** Depth and oldest age per receiver, with a zero row for each of `receivers` that has none. */
  backlog(now: number, receivers: Iterable<string>): Map<string, ReceiverBacklog> {
    const out = new Map<string, ReceiverBacklog>();
    for (const r of receivers) out.set(r, { depth: 0, oldestAgeMs: 0 });
    for (const e of this.#entries.values()) {
      const row = out.get(e.notification.receiver) ?? { depth: 0, oldestAgeMs: 0 };
      row.depth += 1;
      row.oldestAgeMs = Math.max(row.oldestAgeMs, now - e.createdAt);
      out.set(e.notification.receiver, row);
    }
    return out;
  }
}

function byAge(a: PendingEntry, b: PendingEntry): number {
  return a.createdAt - b.createdAt;
}

function orderKey(n: Notification): string {
  return `${n.receiver}\u0000${n.groupKey}`;
}
