/**
 * Schema drift as change events: one `upstream.schema_drift` event per distinct problem.
 * The event id is the problem's hash, so the event log keeps each once, across restarts
 * too; the set of problems already announced only saves appending duplicates, and holds
 * the most recent {@link MAX_REMEMBERED} so that a server whose problems never repeat
 * cannot grow it without end.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { ChangeEvent } from '../snapshot/events.js';
import { type DriftIssue, type DriftReason, driftReason } from '../upstream/shape/drift.js';

/** Distinct problems remembered; older ones are forgotten first. */
export const MAX_REMEMBERED = 1024;

/** Turns drift reports into events, each distinct problem once while it is remembered. */
export class DriftEvents {
  /** Insertion-ordered: the first key is the one least recently seen. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly max = MAX_REMEMBERED,
  ) {}

  /** The event for `issue`, or undefined when the same problem was announced recently. */
  eventFor(issue: DriftIssue & { org: string }): ChangeEvent | undefined {
    const key = JSON.stringify([issue.org, issue.endpoint, issue.field, issue.problem, issue.fatal]);
    if (this.seen.has(key)) {
      this.seen.delete(key);
      this.seen.add(key);
      return undefined;
    }
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
    return {
      id: createHash('sha256').update(key).digest('hex').slice(0, 20),
      at: this.clock.now(),
      org: issue.org,
      kind: 'upstream.schema_drift',
      // One entity per endpoint: an alert on the team list is not the alert on the channel list.
      entity: { kind: 'upstream', id: `${issue.org}/${issue.endpoint}` },
      field: `${issue.endpoint}.${issue.field}`,
      to: issue.problem,
      labels: {
        endpoint: issue.endpoint,
        field: issue.field,
        problem: issue.problem,
        fatal: String(issue.fatal),
        reason: driftReason(issue),
      },
    };
  }

  /** How many distinct problems are remembered now. */
  get size(): number {
    return this.seen.size;
  }
}

/** One distinct drift problem of an org, as the status API shows it. */
export interface DriftEntry {
  endpoint: string;
  field: string;
  reason: DriftReason;
  problem: string;
  fatal: boolean;
  firstAt: number;
  lastAt: number;
  count: number;
}

/**
 * The entry to let go when the board is full: the least recently seen note, so that a
 * flood of notes (free-text status words) never hides a read that failed; the least
 * recently seen fatal problem only when nothing else is left.
 */
function evictable(entries: Map<string, DriftEntry>): string {
  for (const [key, e] of entries) if (!e.fatal) return key;
  return entries.keys().next().value as string;
}

/** Distinct problems kept per org for the status API; the least recently seen notes go first. */
export const MAX_BOARD_PER_ORG = 32;

/** A field a decision depends on that cannot be read on most records of some lists. */
export interface DegradedField {
  endpoint: string;
  field: string;
  problem: string;
  /** When it was first found blind, of the lists blind now. */
  since: number;
  /** How many lists it is blind in now. */
  lists: number;
}

/** Lists remembered blind per org, endpoint and field; past this, more are not told apart. */
const MAX_BLIND_LISTS = 4096;

/** The recent drift of every org, bounded per org, for the status API. */
export class DriftBoard {
  private readonly byOrg = new Map<string, Map<string, DriftEntry>>();
  /** Per org, `endpoint field` → list → since, of the lists where the field is blind now. */
  private readonly blind = new Map<string, Map<string, { problem: string; lists: Map<string, number> }>>();

  constructor(private readonly max = MAX_BOARD_PER_ORG) {}

  /** A field was readable on most records of `list`: it is no longer blind there. */
  sight(e: { org: string; endpoint: string; field: string; list: string }): void {
    const byField = this.blind.get(e.org);
    const entry = byField?.get(`${e.endpoint} ${e.field}`);
    if (entry === undefined) return;
    entry.lists.delete(e.list);
    if (entry.lists.size === 0) byField?.delete(`${e.endpoint} ${e.field}`);
  }

  /** The org's fields blind in some list now (docs/upstream-shapes.md, "Blindness is loud"). */
  degraded(org: string): DegradedField[] {
    return [...(this.blind.get(org) ?? new Map()).entries()].map(([key, e]) => {
      const [endpoint = '', field = ''] = key.split(' ');
      return {
        endpoint,
        field,
        problem: e.problem,
        since: Math.min(...e.lists.values()),
        lists: e.lists.size,
      };
    });
  }

  private markBlind(issue: DriftIssue & { org: string }, at: number): void {
    let byField = this.blind.get(issue.org);
    if (!byField) {
      byField = new Map();
      this.blind.set(issue.org, byField);
    }
    const key = `${issue.endpoint} ${issue.field}`;
    const entry = byField.get(key) ?? { problem: issue.problem, lists: new Map<string, number>() };
    byField.set(key, entry);
    const list = issue.list ?? '';
    if (!entry.lists.has(list) && entry.lists.size < MAX_BLIND_LISTS) entry.lists.set(list, at);
  }

  /** Records one issue seen at `at`. */
  add(issue: DriftIssue & { org: string }, at: number): void {
    if (driftReason(issue) === 'blind') this.markBlind(issue, at);
    let entries = this.byOrg.get(issue.org);
    if (!entries) {
      entries = new Map();
      this.byOrg.set(issue.org, entries);
    }
    const key = JSON.stringify([issue.endpoint, issue.field, issue.problem, issue.fatal]);
    const prev = entries.get(key);
    entries.delete(key);
    entries.set(key, {
      endpoint: issue.endpoint,
      field: issue.field,
      reason: driftReason(issue),
      problem: issue.problem,
      fatal: issue.fatal,
      firstAt: prev?.firstAt ?? at,
      lastAt: at,
      count: (prev?.count ?? 0) + 1,
    });
    if (entries.size > this.max) entries.delete(evictable(entries));
  }

  /** The org's recent drift, most recently seen first. */
  of(org: string): DriftEntry[] {
    return [...(this.byOrg.get(org)?.values() ?? [])].reverse();
  }

  /** Forgets an org that is no longer watched. */
  forget(org: string): void {
    this.byOrg.delete(org);
    this.blind.delete(org);
  }
}
