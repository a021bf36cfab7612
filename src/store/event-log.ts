/**
 * The event log: every change event tally detected, appended as JSON lines to segment
 * files under `events/`, fsynced before `append` resolves, deduplicated by event id and
 * trimmed by total size and age, whole segments at a time.
 *
 * Memory: an index entry per retained event (sequence number, id, time, org, kind, entity
 * id and where the line sits on disk; measured ~210 bytes each with the id set, for
 * ~280-byte lines), never the events themselves. Queries filter the index and read only
 * the lines of one page. The retained log is bounded by `maxBytes`, so the index is too:
 * the default 64 MiB holds ~240k such events, ~50 MB of index at most.
 */
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import {
  ensureDir,
  FILE_MODE,
  fsyncDir,
  nodeFs,
  removeTempFiles,
  type StoreFileHandle,
  type StoreFs,
} from './atomic.js';
import { errnoCode, StoreError, type StoreOp, toStoreError } from './errors.js';
import { checkSegment, loadSegments, readEvents, type Segment } from './event-files.js';
import { addGap, type Gap, type GapReason, jumps, missingCount, parseGaps } from './event-gaps.js';
import { type EventQuery, selectEntries } from './event-query.js';
import { entryFor, formatLine, Interner, type LoggedEvent, segmentName } from './event-segments.js';
import { type StoreHealth, tracked } from './health.js';
import { JsonStateFile } from './json-file.js';
import { Serial } from './serial.js';

/** Default total size of retained segments. */
export const DEFAULT_EVENT_LOG_MAX_BYTES = 64 * 1024 * 1024;
/** Default age after which a segment whose newest event is older is dropped. */
export const DEFAULT_EVENT_LOG_MAX_AGE_MS = 30 * 86_400_000;

/** Options of {@link EventLog.open}. */
export interface EventLogOptions {
  /** The events directory (`<state dir>/events`); created when missing. */
  dir: string;
  logger: Logger;
  clock: Clock;
  /** Retained size in bytes (default 64 MiB); 0 or `Infinity` keeps everything. */
  maxBytes?: number | undefined;
  /** Retained age in ms, by event time (default 30 days); 0 or `Infinity` keeps everything. */
  maxAgeMs?: number | undefined;
  /** Size at which a new segment is started (default: maxBytes / 16, 1 KiB to 8 MiB). */
  segmentBytes?: number | undefined;
  health?: StoreHealth | undefined;
  fs?: StoreFs | undefined;
  /** Told of every range of events found missing (the metrics layer counts them). */
  onGap?: ((gap: Gap) => void) | undefined;
}

/** What {@link EventLog.append} did. */
export interface AppendResult {
  /** The events written, with their sequence numbers, in the order given. */
  appended: LoggedEvent[];
  /** Ids that were already in the log (or repeated in the batch) and were not written again. */
  duplicates: string[];
}

/** A page of events. */
export interface EventPage {
  events: LoggedEvent[];
  /** Pass as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;
  /**
   * Ranges of sequence numbers the log handed out and no longer holds for a reason other
   * than retention (docs/state.md, "Lost event files"); absent when none.
   */
  missing?: Gap[];
}

/** Size and extent of the retained log, for metrics. */
export interface EventLogStats {
  segments: number;
  bytes: number;
  events: number;
  firstSeq?: number;
  lastSeq?: number;
  /** The highest sequence number ever handed out (0 before the first). */
  highestSeq: number;
  /** Ranges of events found missing (not retention), and how many events they leave out. */
  gaps: Gap[];
  missingEvents: number;
}

interface Counters {
  nextSeq: number;
  nextSegment: number;
  /** Ranges found missing, kept so a restart still reports them. */
  gaps?: Gap[];
}

const META_FORMAT = 'tally-event-log';

/** The append-only, size- and age-bounded log of change events. */
export class EventLog {
  private readonly segments: Segment[] = [];
  private readonly ids = new Set<string>();
  private readonly strings = new Interner();
  private readonly serial = new Serial();
  private readonly log: Logger;
  private readonly fs: StoreFs;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly segmentBytes: number;
  private readonly meta: JsonStateFile<Counters>;
  private counters: Counters = { nextSeq: 1, nextSegment: 1 };
  private gaps: Gap[] = [];
  private active: { segment: Segment; handle: StoreFileHandle } | undefined;
  private closed = false;

  private constructor(private readonly opts: EventLogOptions) {
    this.log = opts.logger.child({ component: 'event-log' });
    this.fs = opts.fs ?? nodeFs;
    this.maxBytes = limit(opts.maxBytes, DEFAULT_EVENT_LOG_MAX_BYTES);
    this.maxAgeMs = limit(opts.maxAgeMs, DEFAULT_EVENT_LOG_MAX_AGE_MS);
    this.segmentBytes =
      opts.segmentBytes ?? Math.min(Math.max(Math.floor(this.maxBytes / 16), 1024), 8 * 1024 * 1024);
    this.meta = new JsonStateFile<Counters>({
      path: join(opts.dir, 'meta.json'),
      format: META_FORMAT,
      version: 1,
      key: 'counters',
      validate: validateCounters,
      logger: this.log,
      clock: opts.clock,
      health: opts.health,
      fs: opts.fs,
    });
  }

  /** Opens (or creates) the log in `opts.dir`: indexes it, repairs a torn tail, applies retention. */
  static async open(opts: EventLogOptions): Promise<EventLog> {
    const log = new EventLog(opts);
    await log.load();
    return log;
  }

  /**
   * Appends the events not yet in the log, in one write and one fsync. Resolves once they
   * are durable; throws {@link StoreError} when they could not be written (nothing of the
   * batch is then kept).
   */
  append(events: readonly ChangeEvent[]): Promise<AppendResult> {
    return this.serial.run(async () => {
      this.assertOpen();
      const duplicates: string[] = [];
      const fresh: ChangeEvent[] = [];
      const batch = new Set<string>();
      for (const e of events) {
        if (this.ids.has(e.id) || batch.has(e.id)) {
          duplicates.push(e.id);
        } else {
          batch.add(e.id);
          fresh.push(e);
        }
      }
      if (fresh.length === 0) return { appended: [], duplicates };
      await this.checkActive();
      const lines = fresh.map((e, i) => formatLine(this.counters.nextSeq + i, e));
      const data = Buffer.from(lines.join(''), 'utf8');
      const appended = await tracked(this.opts.health, () => this.write(data, fresh, lines));
      await this.pruneQuietly();
      return { appended, duplicates };
    });
  }

  /** One page of events matching `q`; throws {@link InvalidCursorError} for a foreign cursor. */
  query(q: EventQuery): Promise<EventPage> {
    return this.serial.run(async () => {
      await this.checkSegments();
      // Lines that no longer read leave the index and the page is picked again without them.
      for (let round = 0; ; round++) {
        const sel = selectEntries(
          this.segments.map((s) => s.entries),
          q,
        );
        const read = await readEvents(this.opts.dir, sel.entries);
        const lost = sel.entries.filter((_, i) => read[i] === undefined);
        if (lost.length > 0) await this.forget(new Set(lost.map((e) => e.seq)), 'unreadable');
        if (lost.length === 0 || round === 2) {
          const page: EventPage = { events: read.filter((e): e is LoggedEvent => e !== undefined) };
          if (sel.nextCursor !== undefined) page.nextCursor = sel.nextCursor;
          if (this.gaps.length > 0) page.missing = this.gaps.map((g) => ({ ...g }));
          return page;
        }
      }
    });
  }

  /**
   * Checks that every segment still holds what the index says (a segment deleted or cut
   * short under the running log is reported once, as missing events); the app calls it
   * now and then so a loss shows without a query.
   */
  verify(): Promise<void> {
    return this.serial.run(() => this.checkSegments());
  }

  /**
   * Numbering goes on after `seq`, the highest sequence number known to have been handed
   * out (the alert state keeps it, docs/reliability.md "Kill -9 matrix"): when the log holds
   * less (its directory or newest segments lost), the numbers in between are reported
   * missing and never handed out again, so events logged from now on come after the alert
   * cursor and are replayed after a crash.
   */
  continueAfter(seq: number): Promise<void> {
    return this.serial.run(async () => {
      if (!Number.isSafeInteger(seq) || seq < this.counters.nextSeq) return;
      const from = this.counters.nextSeq;
      this.counters.nextSeq = seq + 1;
      this.log.warn(
        { dir: this.opts.dir, from, to: seq },
        'event log holds fewer events than tally logged; numbering goes on after the last one handed out',
      );
      await this.recordGaps([{ from, to: seq, reason: 'lost', at: this.opts.clock.now() }]);
    });
  }

  /** The last `n` events, oldest of them first. */
  async tail(n: number): Promise<LoggedEvent[]> {
    if (n <= 0) return [];
    const page = await this.query({ limit: n, order: 'newest' });
    return page.events.reverse();
  }

  /** The highest sequence number ever handed out (0 before the first). */
  highestSeq(): number {
    return this.counters.nextSeq - 1;
  }

  /** Whether an event id is in the retained log. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Applies retention now (it also runs after every append); returns how many events were dropped. */
  prune(): Promise<number> {
    return this.serial.run(() => this.pruneLocked());
  }

  /** Size and extent of the retained log. */
  stats(): EventLogStats {
    let bytes = 0;
    let events = 0;
    for (const s of this.segments) {
      bytes += s.bytes;
      events += s.entries.length;
    }
    const stats: EventLogStats = {
      segments: this.segments.length,
      bytes,
      events,
      highestSeq: this.counters.nextSeq - 1,
      gaps: this.gaps.map((g) => ({ ...g })),
      missingEvents: missingCount(this.gaps),
    };
    const first = this.segments.find((s) => s.entries.length > 0)?.entries[0];
    const lastSeg = this.segments.findLast((s) => s.entries.length > 0);
    if (first !== undefined) stats.firstSeq = first.seq;
    if (lastSeg !== undefined) stats.lastSeq = lastSeg.entries[lastSeg.entries.length - 1]!.seq;
    return stats;
  }

  /** Closes the active segment; later appends are refused. */
  close(): Promise<void> {
    return this.serial.run(async () => {
      this.closed = true;
      const active = this.active;
      this.active = undefined;
      await active?.handle.close().catch(() => undefined);
    });
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new StoreError(`event log ${this.opts.dir} is closed`, {
        reason: 'io',
        op: 'write',
        path: this.opts.dir,
      });
    }
  }

  private async load(): Promise<void> {
    const dir = this.opts.dir;
    await ensureDir(dir);
    await removeTempFiles(dir, this.fs);
    const meta = await this.meta.load();
    const found = await loadSegments({ dir, fs: this.fs, log: this.log, strings: this.strings });
    this.segments.push(...found.segments);
    for (const s of found.segments) for (const e of s.entries) this.ids.add(e.id);
    this.counters = {
      nextSeq: Math.max(meta?.value.nextSeq ?? 1, found.lastSeq + 1),
      nextSegment: Math.max(meta?.value.nextSegment ?? 1, found.lastNumber + 1),
    };
    this.gaps = meta?.value.gaps ?? [];
    // Retained lines follow one another by one: a jump is a segment (or lines) gone.
    const seqs = found.segments.flatMap((seg) => seg.entries.map((e) => e.seq));
    const more = jumps(seqs, 0, 'lost', this.opts.clock.now()).filter(
      (j) => !this.gaps.some((g) => g.from <= j.from && j.to <= g.to),
    );
    if (more.length > 0) {
      this.log.warn({ dir, ranges: more.map((g) => [g.from, g.to]) }, 'events missing from the event log');
      await this.recordGaps(more).catch(() => undefined);
    }
    // A log on a read-only volume can still be read; retention waits for a writable one.
    await this.pruneQuietly();
    const stats = this.stats();
    this.log.info(
      { dir, events: stats.events, segments: stats.segments, bytes: stats.bytes },
      'event log opened',
    );
  }

  private async write(data: Buffer, events: ChangeEvent[], lines: string[]): Promise<LoggedEvent[]> {
    const { segment, handle } = await this.activeFor(data.length);
    let step: StoreOp = 'write';
    try {
      await handle.writeFile(data);
      step = 'fsync';
      await handle.sync();
    } catch (err) {
      await this.rollback(segment, handle);
      throw toStoreError(err, step, segment.path);
    }
    const appended: LoggedEvent[] = [];
    let offset = segment.bytes;
    for (const [i, event] of events.entries()) {
      const logged: LoggedEvent = { seq: this.counters.nextSeq + i, ...event };
      const length = Buffer.byteLength(lines[i]!, 'utf8') - 1;
      segment.entries.push(entryFor(logged, segment.number, offset, length, this.strings));
      offset += length + 1;
      this.ids.add(event.id);
      if (event.at > segment.maxAt) segment.maxAt = event.at;
      appended.push(logged);
    }
    segment.bytes += data.length;
    this.counters.nextSeq += events.length;
    return appended;
  }

  // Cut a partly written batch off again, so that the next append starts on a clean line.
  private async rollback(segment: Segment, handle: StoreFileHandle): Promise<void> {
    try {
      await handle.truncate(segment.bytes);
      await handle.sync();
    } catch (err) {
      segment.broken = true;
      this.active = undefined;
      await handle.close().catch(() => undefined);
      this.log.warn({ file: segment.path, err: describeError(err) }, 'could not roll back failed append');
    }
  }

  private async activeFor(size: number): Promise<{ segment: Segment; handle: StoreFileHandle }> {
    const last = this.segments[this.segments.length - 1];
    const fits = (s: Segment) => !s.broken && (s.bytes === 0 || s.bytes + size <= this.segmentBytes);
    if (this.active !== undefined && this.active.segment === last && fits(last)) return this.active;
    if (this.active === undefined && last !== undefined && fits(last)) {
      this.active = { segment: last, handle: await this.openSegment(last.path) };
      return this.active;
    }
    const previous = this.active;
    this.active = undefined;
    await previous?.handle.close().catch(() => undefined);
    const number = this.counters.nextSegment;
    this.counters.nextSegment += 1;
    const segment: Segment = {
      number,
      path: join(this.opts.dir, segmentName(number)),
      bytes: 0,
      entries: [],
      maxAt: -Infinity,
      broken: false,
    };
    // The directory itself may have gone under the running log.
    await ensureDir(this.opts.dir);
    const handle = await this.openSegment(segment.path);
    await fsyncDir(this.opts.dir, this.fs);
    this.segments.push(segment);
    this.active = { segment, handle };
    return this.active;
  }

  private async openSegment(path: string): Promise<StoreFileHandle> {
    try {
      return await this.fs.open(path, 'a', FILE_MODE);
    } catch (err) {
      throw toStoreError(err, 'open', path);
    }
  }

  /** The segment appends go to, checked before each append (a cheap stat). */
  private async checkActive(): Promise<void> {
    const last = this.segments[this.segments.length - 1];
    if (last !== undefined && !last.broken) await this.checkOne(last);
  }

  private async checkSegments(): Promise<void> {
    for (const segment of [...this.segments]) await this.checkOne(segment);
  }

  private async checkOne(segment: Segment): Promise<void> {
    const check = await checkSegment(segment);
    if (check.kind === 'ok') return;
    if (this.active?.segment === segment) {
      const { handle } = this.active;
      this.active = undefined;
      await handle.close().catch(() => undefined);
    }
    segment.broken = true; // Never appended to again: a new segment takes the next batch.
    const size = check.kind === 'truncated' ? check.size : 0;
    const lost = segment.entries.filter((e) => e.offset + e.length + 1 > size);
    segment.bytes = size;
    if (check.kind === 'deleted') this.segments.splice(this.segments.indexOf(segment), 1);
    this.log.warn(
      { file: segment.path, events: lost.length, bytes: size },
      check.kind === 'deleted' ? 'event segment deleted under the running log' : 'event segment cut short',
    );
    await this.forget(new Set(lost.map((e) => e.seq)), check.kind);
  }

  /** Drops lost lines from the index and records them as missing. */
  private async forget(seqs: ReadonlySet<number>, reason: GapReason): Promise<void> {
    if (seqs.size === 0) return;
    for (const s of this.segments) {
      if (!s.entries.some((e) => seqs.has(e.seq))) continue;
      for (const e of s.entries) if (seqs.has(e.seq)) this.ids.delete(e.id);
      s.entries = s.entries.filter((e) => !seqs.has(e.seq));
    }
    const at = this.opts.clock.now();
    const sorted = [...seqs].sort((a, b) => a - b);
    const ranges: Gap[] = [];
    for (const seq of sorted) {
      const last = ranges[ranges.length - 1];
      if (last !== undefined && last.to + 1 === seq) last.to = seq;
      else ranges.push({ from: seq, to: seq, reason, at });
    }
    if (reason === 'unreadable')
      this.log.warn({ dir: this.opts.dir, events: seqs.size }, 'event lines unreadable');
    await this.recordGaps(ranges);
  }

  private async recordGaps(ranges: readonly Gap[]): Promise<void> {
    for (const g of ranges) {
      this.gaps = addGap(this.gaps, g);
      this.opts.onGap?.(g);
    }
    // Kept across restarts; when the disk refuses, the ranges are still reported until then.
    try {
      await ensureDir(this.opts.dir);
      await this.meta.save({ ...this.counters, gaps: this.gaps });
    } catch (err) {
      this.log.warn({ dir: this.opts.dir, err: describeError(err) }, 'could not save event log counters');
    }
  }

  private async pruneQuietly(): Promise<void> {
    try {
      await this.pruneLocked();
    } catch (err) {
      // The append itself is durable; retention is tried again after the next one.
      this.log.warn({ dir: this.opts.dir, err: describeError(err) }, 'event log retention failed');
    }
  }

  private async pruneLocked(): Promise<number> {
    const cutoff = Number.isFinite(this.maxAgeMs) ? this.opts.clock.now() - this.maxAgeMs : -Infinity;
    let total = this.segments.reduce((sum, s) => sum + s.bytes, 0);
    const drop: Segment[] = [];
    for (const [i, s] of this.segments.entries()) {
      const last = i === this.segments.length - 1;
      const expired = s.entries.length > 0 ? s.maxAt < cutoff : !last;
      const oversize = total > this.maxBytes && !last;
      if (!expired && !oversize) break;
      drop.push(s);
      total -= s.bytes;
    }
    if (drop.length === 0) return 0;
    // The counters are read back from the newest retained line on open. When no line would
    // be left, persist them first, so that a restart never reuses a sequence number. (Not
    // otherwise: on a full disk, retention must be able to free space without writing.)
    const keepsLines = this.segments.slice(drop.length).some((s) => s.entries.length > 0);
    if (!keepsLines) await this.meta.save({ ...this.counters, gaps: this.gaps });
    let events = 0;
    try {
      for (const s of drop) {
        if (this.active?.segment === s) {
          const { handle } = this.active;
          this.active = undefined;
          await handle.close().catch(() => undefined);
        }
        await this.unlink(s.path);
        this.segments.shift();
        for (const e of s.entries) this.ids.delete(e.id);
        events += s.entries.length;
      }
    } finally {
      await fsyncDir(this.opts.dir, this.fs);
      this.log.info({ dir: this.opts.dir, segments: drop.length, events }, 'dropped old event segments');
    }
    return events;
  }

  private async unlink(path: string): Promise<void> {
    try {
      await this.fs.unlink(path);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'unlink', path);
    }
  }
}

// 0 reads as "no limit" (as in config), not as "keep nothing".
function limit(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return value > 0 ? value : Infinity;
}

function validateCounters(value: unknown): Counters {
  const v = value as Partial<Counters> | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    !Number.isSafeInteger(v.nextSeq) ||
    !Number.isSafeInteger(v.nextSegment)
  ) {
    throw new Error('expected { nextSeq, nextSegment } integers');
  }
  const gaps = parseGaps(v.gaps);
  return { nextSeq: v.nextSeq!, nextSegment: v.nextSegment!, ...(gaps.length > 0 ? { gaps } : {}) };
}
