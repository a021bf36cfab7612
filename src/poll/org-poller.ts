/**
 * One org's poller: reads parts through the fetcher, folds them into the org's current
 * snapshot, diffs, and asks for follow-up reads where a change makes one worthwhile
 * (a channel changed status → read its sessions now; a session started → read its detail).
 *
 * A part that failed or came back incomplete never replaces a complete one: the last
 * complete value stays the base of the next diff, so nothing that changed during an
 * outage is lost and nothing is "removed" by a failure (docs/architecture.md, invariant 1).
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import { carryDetail, carrySessions } from '../snapshot/carry.js';
import type {
  Channel,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  TimeWindow,
} from '../snapshot/model.js';
import type { Fetcher, OrgAuth, Priority } from './fetcher.js';
import { UpstreamHealth } from './health.js';
import { AdditionCheck } from './additions.js';
import { type HeldRemovals, type ListKey, RemovalCheck, type RemovalPolicy } from './removals.js';
import type { OrgLoad, SweepEntry } from './planner.js';
import { getOwn } from '../core/own.js';
import { SessionList, sessionArray } from '../snapshot/session-list.js';
import { reviewRead } from './read-review.js';
import { SharedReads } from './shared-reads.js';
import { DetailLedger } from './detail-ledger.js';
import {
  carriedTop,
  detailTargetsOf,
  held,
  hintOf,
  hotChannelsOf,
  loadOf,
  type TopPart,
  takes,
} from './org-queries.js';
import { type ChannelFilter, FilteredList } from './channel-filter.js';
import { SweepLedger } from './sweep-ledger.js';
import { forgetDetailAttempts, pruneDetails, waitedDetails } from './prune-details.js';
import { type FollowContext, type FollowUp, followEvents } from './follow-events.js';

/** Details of sessions no longer live are dropped at least this often (see commit). */
const PRUNE_EVERY_MS = 30_000;

/** The diff the poller runs after each read (snapshot/diff.ts), told which session list a poll read (`changedLists`). */
export type DiffFn = (
  prev: OrgSnapshot,
  next: OrgSnapshot,
  opts?: {
    changedLists?: readonly string[];
    firstDetails?: ReadonlyMap<string, number>;
  },
) => ChangeEvent[];

/** Everything an {@link OrgPoller} needs. */
export interface OrgPollerDeps {
  fetcher: Fetcher;
  clock: Clock;
  logger: Logger;
  diff: DiffFn;
  /** Session lists are read for [now - past, now + future]. */
  window: { past: number; future: number };
  /** Called after every read that changed the snapshot, with the events it produced. */
  onUpdate: (snapshot: OrgSnapshot, events: ChangeEvent[]) => void;
  /** Page size the API is asked for, to estimate pages for the planner. */
  perPage: number;
  /** Aborted when the poller stops; follow-up reads take it. */
  signal: AbortSignal;
  /** Told how long each read took (`profile`, `team`, `subscription`, `channels`, `sessions`, `detail`). */
  onPoll?: (resource: string, durationMs: number) => void;
  /** When a read's removals are suspect and what confirms them (default: DEFAULT_REMOVAL_POLICY). */
  removals?: RemovalPolicy;
  /**
   * Whether the first baseline is due to end soon enough that a change of a channel
   * already read may wait for it (poller.ts, `followUpsWait`); absent: it may.
   */
  followUpsWait?: () => boolean;
}

/** Sessions missing from one read whose detail is asked where they went (see OrgPoller.reread). */
const MOVE_CHECKS = 5;

export { NO_SHOW_GRACE_MS } from './org-queries.js';

/** Reads and tracks one organization. */
export class OrgPoller {
  readonly slug: string;
  readonly health: UpstreamHealth;
  private current: OrgSnapshot;
  /** What the sweep knows of each channel (sweep-ledger.ts). */
  private readonly sweep = new SweepLedger();
  /** The final and first detail reads owed (detail-ledger.ts). */
  private readonly detailsOwed = new DetailLedger();
  /** Removals wait for evidence from further reads of their list (see removals.ts). */
  private readonly removals: RemovalCheck;
  /** Mass additions wait for a later read of their list too (see additions.ts). */
  private readonly additions = new AdditionCheck();
  /** Lists to read again once the read in progress is done. */
  private readonly rereads: { list: ListKey; sessions?: string[] | undefined }[] = [];
  /** When details were last pruned. */
  private lastPrune = Number.NEGATIVE_INFINITY;
  /** The reads in flight, shared by whoever asks for the same one (shared-reads.ts). */
  private readonly reads: SharedReads;
  /** When each part was last attempted and how it went, for freshness metrics. */
  readonly attempts = new Map<string, { at: number; state: Part<unknown>['state']; reason?: string }>();
  /** The whole channel list seen through the filter (channel-filter.ts). */
  private readonly filtered = new FilteredList();
  /** What step 3 of a commit asks of this poller (follow-events.ts). */
  private readonly following: FollowContext;

  constructor(
    private auth: OrgAuth,
    private filter: ChannelFilter | undefined,
    initial: OrgSnapshot,
    private readonly deps: OrgPollerDeps,
  ) {
    this.slug = auth.slug;
    this.current = held(initial);
    this.detailsOwed.resume(initial, deps.clock.now());
    this.health = new UpstreamHealth(auth.slug);
    this.removals = new RemovalCheck(deps.removals);
    this.reads = new SharedReads(deps.clock, {
      began: (key, at) => {
        if (key.startsWith('sessions:')) this.sweep.began(key.slice('sessions:'.length), at);
        return this.health.begin();
      },
      ended: (key, startedMono) => {
        if (key.startsWith('sessions:')) this.sweep.ended(key.slice('sessions:'.length));
        for (const r of this.rereads.splice(0)) this.reread(r.list, r.sessions);
        this.deps.onPoll?.(key.split(':')[0]!, this.deps.clock.monotonic() - startedMono);
      },
    });
    // Changes that waited for the first baseline and no read saw before the snapshot was
    // saved still wait (commit).
    this.sweep.resume(initial.sessions, deps.clock.now());
    this.following = {
      sweep: this.sweep,
      detailsOwed: this.detailsOwed,
      firstReadsFirst: () => this.inBaseline() && (deps.followUpsWait?.() ?? true),
      neverRead: (id) => this.neverRead(id),
      forgetChannel: (id, sessions, details) => this.forgetChannel(id, sessions, details),
      window: () => this.window(),
      readSessions: (id) => (priority) => this.readSessions(id, priority, deps.signal, true),
      readDetail: (id) => (priority) => this.readDetail(id, priority, deps.signal, true),
    };
  }

  /** Removals waiting for evidence, by list (status API and metrics). */
  heldRemovals(): HeldRemovals[] {
    return this.removals.held();
  }

  /** The current snapshot (last complete value of each part). */
  snapshot(): OrgSnapshot {
    return this.current;
  }

  /** Takes a new token or channel filter after a config reload. */
  reconfigure(auth: OrgAuth, filter: ChannelFilter | undefined): void {
    this.auth = auth;
    this.filter = filter;
  }

  /**
   * Reads one of the org-level parts. The channel list goes first in the budget with the
   * hot reads: it is what shows a channel going live, and a long list's pages must not
   * queue behind other reads.
   */
  async refresh(part: TopPart, signal: AbortSignal): Promise<void> {
    const f = this.deps.fetcher;
    await this.reads.run(part, part === 'channels' ? 'high' : 'normal', async (ticket, urgency) => {
      const o = { urgency, signal };
      switch (part) {
        case 'profile':
          return this.fold(part, await f.fetchOrg(this.auth, o), ticket);
        case 'team':
          return this.fold(part, await f.fetchTeam(this.auth, o), ticket);
        case 'subscription':
          return this.fold(part, await f.fetchSubscription(this.auth, o), ticket);
        case 'channels':
          return this.fold(
            part,
            this.filtered.apply(await f.fetchChannels(this.auth, o), this.filter),
            ticket,
          );
      }
    });
  }

  /** Reads one channel's session list. */
  async readSessions(
    channelId: string,
    priority: Priority,
    signal: AbortSignal,
    fresh = false,
  ): Promise<void> {
    await this.reads.run(
      `sessions:${channelId}`,
      priority,
      async (ticket, urgency) => {
        // The channel list's hint as of this read: a later move of it means something new.
        // Kept with the stored list too, so that a restart still tells a moved hint. A read
        // that failed, came back incomplete or was cut off may not have seen what moved it:
        // the hint stays unanswered.
        const hint = hintOf(this.current, channelId);
        const began = this.deps.clock.now();
        const part = await this.deps.fetcher.fetchSessions(this.auth, channelId, {
          urgency,
          signal,
          window: this.window(),
        });
        if (!this.knowsChannel(channelId)) return; // removed while the read was in flight
        const answered = part.state === 'complete';
        if (answered) this.sweep.answered(channelId, hint);
        this.foldSessions(
          channelId,
          hint === undefined || !answered ? part : { ...part, hint },
          ticket,
          began,
        );
      },
      fresh,
    );
  }

  /** Whether a read of the channel's sessions began less than `ms` before `now`. */
  sessionsReadWithin(channelId: string, ms: number, now: number): boolean {
    const at = this.sweep.lastBegun(channelId);
    return at !== undefined && at <= now && now - at < ms;
  }

  /** Raises the read of a channel's sessions under way, if any, to `priority`. */
  raiseSessions(channelId: string, priority: Priority): void {
    this.reads.raise(`sessions:${channelId}`, priority);
  }

  /** Reads one session's detail. */
  async readDetail(sessionId: string, priority: Priority, signal: AbortSignal, fresh = false): Promise<void> {
    await this.reads.run(
      `detail:${sessionId}`,
      priority,
      async (ticket, urgency) => {
        const part = await this.deps.fetcher.fetchSessionDetail(this.auth, sessionId, { urgency, signal });
        this.detailsOwed.answered(sessionId, part, this.deps.clock.now());
        this.record(`detail:${sessionId}`, part, ticket);
        if (!takes(this.current.details[sessionId], part)) return;
        // A failed first read of a watched start keeps, stored with it, the time its first
        // detail is compared from, so a restart before a whole read does not lose it.
        const since = this.detailsOwed.firstSinceOf(sessionId);
        const before = this.current.details[sessionId];
        const kept =
          part.state === 'failed' && since !== undefined
            ? ({ ...part, firstSince: since } as Part<SessionDetail>)
            : part.state === 'complete' && before?.state === 'complete'
              ? { ...part, value: carryDetail(before.value, part.value) }
              : part;
        this.commit(
          { ...this.current, details: { ...this.current.details, [sessionId]: kept } },
          `detail:${sessionId}`,
        );
      },
      fresh,
    );
  }

  /**
   * Whether the first baseline is under way: some listed channel's sessions were never
   * read, neither by this process nor in the stored snapshot it resumed from.
   */
  inBaseline(): boolean {
    return this.channels().some((ch) => this.neverRead(ch.id));
  }

  /** How many listed channels' sessions were never read (see {@link inBaseline}). */
  unreadChannels(): number {
    let n = 0;
    for (const ch of this.channels()) if (this.neverRead(ch.id)) n += 1;
    return n;
  }

  private neverRead(channelId: string): boolean {
    // The stored list first: once the baseline is done every channel has one, and a commit
    // asks this of every channel (inBaseline), so no key is built for the attempts.
    return (
      getOwn(this.current.sessions, channelId) === undefined && !this.attempts.has(`sessions:${channelId}`)
    );
  }

  /** When a read (`sessions:<channel>`, `detail:<session>`, `channels` …) was last attempted. */
  lastAttemptAt(key: string): number | undefined {
    return this.attempts.get(key)?.at;
  }

  /**
   * Channels whose sessions are read at the live interval: live, or with a session live or
   * due (docs/polling.md). A channel that just changed is not among them: its follow-up
   * reads it at once, and the sweep then weighs it as likelier to change again. Reading it
   * every hot round as well cost, in a world changing a channel every few seconds, most
   * of the budget the sweep needs for every other channel.
   */
  hotChannels(now: number, horizonMs: number): string[] {
    // Until every channel's sessions were read once, the first baseline comes first: only
    // live channels are re-read at the hot interval (a change still gets its follow-up).
    return hotChannelsOf(this.current, this.channels(), this.inBaseline(), now, horizonMs);
  }

  /**
   * Watched starts whose first detail read was put off for the first baseline (commit), or
   * failed, at least `waitedMs` ago: read even while a baseline is still under way, so that
   * nothing holds them longer (another org's first reads, say).
   */
  waitedDetails(now: number, waitedMs: number): string[] {
    return waitedDetails(this.current.details, now, waitedMs);
  }

  /** Sessions whose detail is read at the detail interval: live ones, and just-ended ones once more. */
  detailTargets(): string[] {
    return detailTargetsOf(this.current, this.detailsOwed.owed);
  }

  /** The last full sweep: how long until every watched channel's sessions had been read once. */
  get lastFullSweep(): { durationMs: number; completedAt: number } | undefined {
    return this.sweep.lastFullSweep;
  }

  /** Closes the sweep round when every watched channel's sessions were read since it began. */
  trackSweepRound(now: number): void {
    this.sweep.trackRound(this.channels(), (id) => this.attempts.get(`sessions:${id}`)?.at, now);
  }

  /** The sweep bookkeeping of every watched channel. */
  sweepEntries(now = this.deps.clock.now()): SweepEntry[] {
    return this.sweep.entries(this.slug, this.weight, this.channels(), this.current.sessions, now);
  }

  /** The org's share weight in the sweep (`orgs[].weight`). */
  weight = 1;

  /** Set when the poller begins to stop: reads aborted from then on are not failures. */
  stopping = false;

  /** Pages the channel list takes, by the last one read. */
  channelPages(): number {
    return Math.max(1, Math.ceil(this.channels().length / this.deps.perPage));
  }

  /** What this org costs, for the planner. */
  load(now: number, horizonMs: number): OrgLoad {
    const counts = {
      channels: this.channels().length,
      channelPages: this.channelPages(),
      hotChannels: this.hotChannels(now, horizonMs).length,
      liveSessions: this.detailTargets().length,
    };
    return loadOf(this.slug, this.current, counts, this.deps.perPage);
  }

  /** Waits for reads in flight (used on stop). */
  async settle(): Promise<void> {
    await this.reads.settle();
  }

  private channels(): Channel[] {
    return this.current.channels?.state === 'complete' ? this.current.channels.value : [];
  }

  private knowsChannel(id: string): boolean {
    return this.channels().some((c) => c.id === id);
  }

  private window(): TimeWindow {
    const now = this.deps.clock.now();
    return { from: now - this.deps.window.past, to: now + this.deps.window.future };
  }

  /** Notes the outcome of a read (`ticket`: the health ticket it took when it started). */
  private record(key: string, part: Part<unknown>, ticket: number): void {
    const entry: { at: number; state: Part<unknown>['state']; reason?: string } = {
      at: part.at,
      state: part.state,
    };
    if (part.state !== 'complete') entry.reason = part.error.reason;
    this.attempts.set(key, entry);
    const event =
      part.state === 'failed'
        ? this.health.failure(part.at, part.error, ticket)
        : this.health.success(part.at, ticket);
    if (event) this.deps.onUpdate(this.current, [event]);
  }

  private fold(part: TopPart, value: Part<never> | Part<unknown>, ticket: number): void {
    this.record(part, value, ticket);
    if (!takes(this.current[part], value)) return;
    this.commit({ ...this.current, [part]: carriedTop(this.current, part, value) }, part);
  }

  /** Takes a read of a channel's sessions, begun at `began`, into the snapshot. */
  private foldSessions(
    channelId: string,
    read: SessionsPart<Session[]>,
    ticket: number,
    began: number,
  ): void {
    this.record(`sessions:${channelId}`, read, ticket);
    const prev = this.current.sessions[channelId];
    const taken = takes(prev, read);
    this.sweep.read(channelId, read, began, this.deps.clock.now());
    // What is still owed is kept on the stored list, so that a restart still owes it. A
    // list not replaced only has that mark brought in line: no read of it to review.
    const unseen = this.sweep.unseenSince(channelId);
    if (!taken) {
      if (prev === undefined || prev.changedAt === unseen) return;
      const { changedAt: _paid, ...rest } = prev;
      const kept: SessionsPart = unseen === undefined ? rest : { ...rest, changedAt: unseen };
      this.current = { ...this.current, sessions: { ...this.current.sessions, [channelId]: kept } };
      this.deps.onUpdate(this.current, []);
      return;
    }
    // What a record left out keeps its last known value (carry.ts).
    let part: SessionsPart = read;
    if (read.state === 'complete' && prev?.state === 'complete') {
      const list = carrySessions(sessionArray(prev.value), read.value);
      if (list !== read.value) part = { ...read, value: list };
    }
    if (unseen !== undefined) part = { ...part, changedAt: unseen };
    // Held compactly from here on: a snapshot keeps every list between reads.
    if (part.state !== 'failed') part = { ...part, value: SessionList.of(part.value) };
    this.commit(
      { ...this.current, sessions: { ...this.current.sessions, [channelId]: part } },
      `sessions:${channelId}`,
    );
  }

  /**
   * Reads a list again to confirm a removal, ahead of other reads: afresh, not sharing a
   * read of it already under way, which began before the miss. Sessions a channel's list
   * no longer shows may have moved to another channel: their detail says where, and that
   * channel's list is read first, so a move is seen as one (compared, not removed and
   * added).
   */
  private reread(list: ListKey, sessions?: readonly string[]): void {
    const signal = this.deps.signal;
    const read =
      list === 'team' || list === 'channels'
        ? this.refresh(list, signal)
        : this.confirmSessions(list.slice('sessions:'.length), sessions ?? [], signal);
    read.catch((err: unknown) => {
      if (!this.stopping && !signal.aborted)
        this.deps.logger.warn({ org: this.slug, list, err }, 'read confirming a removal failed');
    });
  }

  /** See {@link reread}: at most a few details per read (a mass removal waits anyway). */
  private async confirmSessions(
    channelId: string,
    sessions: readonly string[],
    signal: AbortSignal,
  ): Promise<void> {
    const elsewhere = new Set<string>();
    for (const id of sessions.slice(0, MOVE_CHECKS)) {
      const detail = await this.deps.fetcher.fetchSessionDetail(this.auth, id, { priority: 'high', signal });
      const now = detail.state === 'failed' ? undefined : detail.value.channelId;
      // The session is still there: its list may lag (removals.ts weighs this).
      if (detail.state !== 'failed') this.removals.sawSession(id, detail.at, now, detail.value.status);
      if (now !== undefined && now !== channelId && this.knowsChannel(now)) elsewhere.add(now);
    }
    for (const ch of elsewhere) await this.readSessions(ch, 'high', signal, true);
    await this.readSessions(channelId, 'high', signal, true);
  }

  /** Drops a channel no longer watched: its session list, its sessions' details, its bookkeeping. */
  private forgetChannel(
    chId: string,
    sessions: Record<string, SessionsPart>,
    details: OrgSnapshot['details'],
  ): void {
    const gone = sessions[chId];
    delete sessions[chId];
    this.sweep.forget(chId);
    this.attempts.delete(`sessions:${chId}`);
    if (gone?.state !== 'failed') for (const s of gone?.value ?? []) delete details[s.id];
  }

  /**
   * Diffs `candidate` (the current snapshot with the part `read` replaced) against the
   * current snapshot, then applies the consequences of the events, in four steps: diff,
   * review (read-review.ts), follow the events (follow-events.ts), store.
   */
  private commit(candidate: OrgSnapshot, read: string): void {
    const now = this.deps.clock.now();
    const taken = { ...candidate, takenAt: now };
    const found = this.diffRead(taken, read);
    const {
      events: diffed,
      left,
      entered,
    } = read === 'channels'
      ? this.filtered.review(found, this.filter)
      : { events: found, left: [], entered: [] };
    const checks = {
      slug: this.slug,
      logger: this.deps.logger,
      additions: this.additions,
      removals: this.removals,
    };
    const reviewed = reviewRead(checks, read, diffed, this.current, taken, now);
    this.rereads.push(...reviewed.rereads);
    const { next, events } = reviewed;
    // Copied only when an event changes them: the session lists of 5000 channels are
    // 5000 keys, and most reads change one list and yield no event.
    const reshapes =
      left.length > 0 || events.some((e) => e.kind === 'channel.added' || e.kind === 'channel.removed');
    const sessions = reshapes ? { ...next.sessions } : next.sessions;
    const details = reshapes ? { ...next.details } : next.details;
    const follow: FollowUp[] = [];
    const signal = this.deps.signal;
    // Channels that left the filter are no longer watched: dropped without a word. Those
    // that entered it are read at once; their first list is a silent baseline.
    for (const chId of left) this.forgetChannel(chId, sessions, details);
    for (const chId of entered) follow.push((priority) => this.readSessions(chId, priority, signal, true));
    const parts = { sessions, details };
    const followed = followEvents(this.following, events, this.current, parts, next, follow, now);
    this.store(next, followed, events, reshapes, now);
    this.runFollowUps(follow);
  }

  /** Step 1 of {@link commit}: the events of the read `read`, which made `taken`. */
  private diffRead(taken: OrgSnapshot, read: string): ChangeEvent[] {
    const detailOf = read.startsWith('detail:') ? read.slice('detail:'.length) : undefined;
    const since = detailOf === undefined ? undefined : this.detailsOwed.firstSinceOf(detailOf);
    const found = this.deps.diff(
      this.current,
      taken,
      read.startsWith('sessions:')
        ? { changedLists: [read.slice('sessions:'.length)] }
        : since !== undefined
          ? { firstDetails: new Map([[detailOf!, since]]) }
          : {},
    );
    if (detailOf !== undefined && taken.details[detailOf]?.state === 'complete')
      this.detailsOwed.firstRead(detailOf);
    return found;
  }

  /** Step 4 of {@link commit}: takes `next` with `parts`, prunes details when due, tells onUpdate. */
  private store(
    next: OrgSnapshot,
    parts: Pick<OrgSnapshot, 'sessions' | 'details'>,
    events: ChangeEvent[],
    reshapes: boolean,
    now: number,
  ): void {
    const { sessions, details } = parts;
    // Details are pruned when a session may have stopped being live (a session event, a
    // channel gone, new details), and every half minute besides (a session that left the
    // window, a resumed snapshot): pruning looks at every session of every list.
    const prune =
      reshapes ||
      details !== this.current.details ||
      events.some((e) => e.entity.kind === 'session') ||
      !(now - this.lastPrune < PRUNE_EVERY_MS && now >= this.lastPrune);
    if (prune) this.lastPrune = now;
    this.current = {
      ...next,
      sessions,
      details: prune ? pruneDetails(details, sessions, this.detailsOwed.owed) : details,
    };
    if (prune) forgetDetailAttempts(this.attempts, this.current.details, this.detailsOwed.owed);
    this.deps.onUpdate(this.current, events);
  }

  /**
   * Every follow-up goes ahead of the periodic reads and the sweep, also after a storm
   * (hundreds of channels changing at once); the channel list (`high`) still goes first,
   * with its pages' reserve, so it stays on time.
   */
  private runFollowUps(follow: readonly FollowUp[]): void {
    follow.forEach((run) => {
      run('follow').catch((err: unknown) => {
        // Stopping aborts reads still waiting for the budget, also reads this one shares
        // with a job the scheduler aborts: that is no failure.
        if (!this.stopping && !this.deps.signal.aborted)
          this.deps.logger.warn({ org: this.slug, err }, 'follow-up read failed');
      });
    });
  }
}
