/**
 * What the sweep knows of one org's channels (docs/polling.md, "What the sweep reads first"): when the
 * last read of each channel's sessions began, when the channel last changed in the
 * channel list, the list's change hint as of the last answered read, and the rounds of
 * the sweep. The org poller notes reads and changes here; the planner reads the entries.
 */
import { getOwn } from '../core/own.js';
import type { Channel, OrgSnapshot, SessionsPart } from '../snapshot/model.js';
import { scheduledAt, statusAt } from '../snapshot/session-list.js';
import { RETRYABLE_UPSTREAM_REASONS, type UpstreamReason } from '../upstream/errors.js';
import { isLiveStatus, isScheduledStatus } from '../snapshot/status.js';
import type { SweepEntry } from './planner.js';

/** A channel's activity hints as one comparable value; undefined when the server gives none. */
export function channelHint(ch: Channel): string | undefined {
  if (ch.activityAt === undefined && ch.sessionCount === undefined) return undefined;
  return `${ch.activityAt ?? ''}/${ch.sessionCount ?? ''}`;
}

/** How many owed change times a channel keeps (a change waits at most 5 minutes; a few are usual). */
export const OWED_TIMES_KEPT = 16;

/** Changes made at some time from `from` to `to` (ms). */
interface Span {
  from: number;
  to: number;
}

/** One org's sweep bookkeeping. */
export class SweepLedger {
  /** When the last read of each channel's sessions began. */
  private readonly begun = new Map<string, number>();
  /** Channels with a read under way, and when the read before it began (when known). */
  private readonly prior = new Map<string, number | undefined>();
  /** When each channel last changed in the channel list (the sweep weighs it more for a while). */
  private readonly changedAt = new Map<string, number>();
  /**
   * When the changes of each channel were made whose read waited for the first baseline
   * (org-poller.ts) and that no read has seen yet, earliest first: what the sweep still
   * owes (planner.ts, CHANGE_WAITS_AT_MOST_MS). A read that began between two of them paid
   * the earlier only, so the later is owed from when it was made. Each entry is a span of
   * times, one time as a rule; past {@link OWED_TIMES_KEPT} entries the last two become one
   * span, and a read that began within a span leaves it owed from when that read began:
   * never later than a change in it was made.
   */
  private readonly unseen = new Map<string, Span[]>();
  /** The channel list's hint of each channel as of its last answered session read. */
  private readonly hintAtRead = new Map<string, string | undefined>();
  private roundStart: number | undefined;
  /** The last full sweep: how long until every watched channel's sessions had been read once. */
  lastFullSweep: { durationMs: number; completedAt: number } | undefined;

  /** A read of the channel's sessions begins. */
  began(channelId: string, at: number): void {
    this.prior.set(channelId, this.begun.get(channelId));
    this.begun.set(channelId, at);
  }

  /** When the last read of the channel's sessions began, if one did. */
  lastBegun(channelId: string): number | undefined {
    return this.begun.get(channelId);
  }

  /** The read of the channel's sessions under way is over, answered or not. */
  ended(channelId: string): void {
    this.prior.delete(channelId);
  }

  /** The channel changed in the channel list (added, or its status). */
  changed(channelId: string, at: number): void {
    this.changedAt.set(channelId, at);
  }

  /** The channel's change at `at` waits for the sweep instead of a read at once. */
  waiting(channelId: string, at: number): void {
    // Changes dated after it were dated before the clock was set back: when they were
    // made is unknown, and they do not hold this one back.
    const owed: Span[] = [];
    for (const span of this.unseen.get(channelId) ?? []) {
      if (span.from < at) owed.push(span.to < at ? span : { from: span.from, to: at });
    }
    const last = owed.at(-1);
    if (last === undefined || last.to < at) owed.push({ from: at, to: at });
    if (owed.length > OWED_TIMES_KEPT) {
      const [a, b] = owed.splice(-2, 2) as [Span, Span];
      owed.push({ from: a.from, to: b.to });
    }
    this.unseen.set(channelId, owed);
  }

  /** When the earliest change still waiting for a read of the channel was made. */
  unseenSince(channelId: string): number | undefined {
    return this.unseen.get(channelId)?.[0]?.from;
  }

  /**
   * A read that began at `began` got an answer that counts ({@link read}): it saw every
   * change made by then; a change made while it was under way still waits, from when it
   * was made. The clock set back: a read that began before `now` began after the changes
   * dated after `now`, made before the clock went back, and saw them; one that began
   * after `now` (the clock went back while it was under way) did not see those made after
   * it began, which are owed from `now`.
   */
  seen(channelId: string, began: number, now: number): void {
    const owed = this.unseen.get(channelId);
    if (owed === undefined) return;
    const left: Span[] = [];
    for (const span of owed) {
      if (span.to <= began) continue;
      const from = Math.max(span.from, began);
      if (began <= now) {
        if (from <= now) left.push({ from, to: Math.min(span.to, now) });
      } else left.push({ from: Math.min(from, now), to: Math.min(span.to, now) });
    }
    if (left.length === 0) this.unseen.delete(channelId);
    else this.unseen.set(channelId, left);
  }

  /**
   * A read of the channel's sessions that began at `began` came back as `part`. A change
   * waiting for a read is paid by any answer but a failure that is retried (a timeout, a
   * 5xx, on its first page or a later one), which saw nothing: whole, incomplete for good
   * (a list always incomplete would otherwise be owed for good, shown or not), or refused
   * for good.
   */
  read(channelId: string, part: SessionsPart, began: number, now: number): void {
    const passing =
      part.state !== 'complete' && RETRYABLE_UPSTREAM_REASONS.includes(part.error.reason as UpstreamReason);
    if (!passing) this.seen(channelId, began, now);
  }

  /** Changes a stored snapshot's lists still owe a read (`changedAt`), owed again after a restart. */
  resume(sessions: OrgSnapshot['sessions'], now: number): void {
    for (const [id, part] of Object.entries(sessions)) {
      // A stored file may have been edited by hand: only a time counts.
      const at: unknown = part.changedAt;
      if (typeof at === 'number' && at <= now) this.waiting(id, at);
    }
  }

  /** A read of the channel's sessions was answered whole under the list's hint `hint`. */
  answered(channelId: string, hint: string | undefined): void {
    this.hintAtRead.set(channelId, hint);
  }

  /** The channel is no longer watched. */
  forget(channelId: string): void {
    this.begun.delete(channelId);
    this.prior.delete(channelId);
    this.changedAt.delete(channelId);
    this.unseen.delete(channelId);
    this.hintAtRead.delete(channelId);
  }

  /**
   * Closes the current round when every channel's sessions were read (for any reason,
   * successfully or not) since it began, and starts the next one. `attemptedAt` says when
   * a channel's sessions were last attempted.
   */
  trackRound(
    channels: readonly Channel[],
    attemptedAt: (channelId: string) => number | undefined,
    now: number,
  ): void {
    if (this.roundStart === undefined || now < this.roundStart) {
      this.roundStart = now; // the first round, or the clock was set back
      return;
    }
    if (channels.length === 0) return;
    const start = this.roundStart;
    if (!channels.every((ch) => (attemptedAt(ch.id) ?? -1) >= start)) return;
    this.lastFullSweep = { durationMs: now - start, completedAt: now };
    this.roundStart = now;
  }

  /** The sweep entry of every channel, for the planner. */
  entries(
    org: string,
    weight: number,
    channels: readonly Channel[],
    sessions: OrgSnapshot['sessions'],
    now: number,
  ): SweepEntry[] {
    return channels.map((ch) => {
      const hint = channelHint(ch);
      // A list read before a restart counts as read when it was (its age, its hint).
      const stored = getOwn(sessions, ch.id);
      const seen = this.hintAtRead.has(ch.id) ? this.hintAtRead.get(ch.id) : stored?.hint;
      // A change kept on the stored list: the read it waited for did not happen before a
      // restart, and the list is from a read that began before it (org-poller.ts).
      const kept =
        typeof stored?.changedAt === 'number' && stored.changedAt <= now ? stored.changedAt : undefined;
      // From when the last read began: what it saw is at least that fresh, and the
      // per-channel minimum then spaces reads, not the ends of reads. A stored list is dated
      // when its answer came; one that did not see a change kept on it began before it.
      const storedAt =
        stored === undefined || kept === undefined ? stored?.at : Math.min(stored.at, kept - 1);
      const lastReadAt = this.begun.get(ch.id) ?? storedAt;
      const changedAt = this.changedAt.get(ch.id) ?? kept;
      const unseen = this.unseen.get(ch.id)?.[0]?.from;
      return {
        org,
        channelId: ch.id,
        lastReadAt,
        weight,
        live: isLiveStatus(ch.status),
        changedAt,
        // The list's hint moved, or the channel changed in the list since its last read
        // began: its follow-up waited for the first baseline (org-poller.ts).
        hinted:
          (hint !== undefined && seen !== undefined && seen !== hint) ||
          (changedAt !== undefined && changedAt <= now && lastReadAt !== undefined && changedAt > lastReadAt),
        unseenSince: unseen !== undefined && unseen <= now ? unseen : undefined,
        dueAt: nextStart(stored, now),
        priorReadAt: this.prior.has(ch.id) ? (this.prior.get(ch.id) ?? storedAt) : undefined,
      };
    });
  }
}

/** The planned start nearest to `now` among a list's scheduled sessions. */
function nextStart(part: OrgSnapshot['sessions'][string] | undefined, now: number): number | undefined {
  if (part === undefined || part.state === 'failed') return undefined;
  let best: number | undefined;
  const list = part.value;
  for (let i = 0; i < list.length; i++) {
    const at = scheduledAt(list, i);
    if (at === undefined || !isScheduledStatus(statusAt(list, i))) continue;
    if (best === undefined || Math.abs(at - now) < Math.abs(best - now)) best = at;
  }
  return best;
}
