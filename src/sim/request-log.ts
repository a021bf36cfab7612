/**
 * The request log: what clients really did (time, ip, method, path, query, status, org,
 * token label; never the token value). Bounded: past `max` entries the oldest are dropped.
 */
import type { RequestLogEntry } from './types.js';

/** Bounded, ordered log of answered requests. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  constructor(private readonly max: number) {}

  /** Appends an entry, giving it the next sequence number. */
  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { seq: ++this.seq, ...entry };
    this.entries.push(full);
    if (this.entries.length > this.max) this.entries = this.entries.slice(-Math.floor(this.max * 0.9));
    return full;
  }

  /** Entries with a sequence number above `since`. */
  list(since = 0): RequestLogEntry[] {
    return this.entries.filter((e) => e.seq > since);
  }

  /** Forgets every entry (sequence numbers keep increasing). */
  clear(): void {
    this.entries = [];
  }
}
