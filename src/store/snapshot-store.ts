/**
 * The latest snapshot of each organization, so that a restart resumes from what was last
 * seen instead of taking a new silent baseline: per org a snapshot file written whole now
 * and then, and a journal of the parts each later save changed (snapshot-journal.ts;
 * docs/state.md, "Snapshots and their journal").
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { MODEL_VERSION, type OrgSnapshot } from '../snapshot/model.js';
import { readableVersion, upgradeSnapshot } from '../snapshot/upgrade.js';
import { holdable, SessionList } from '../snapshot/session-list.js';
import { constants } from 'node:fs';
import { nodeFs, removeTempFiles, type StoreFileHandle, type StoreFs, writeFileAtomic } from './atomic.js';
import { errnoCode, toStoreError, type StoreOp } from './errors.js';
import { type StoreHealth, tracked } from './health.js';
import { JsonStateFile } from './json-file.js';
import { safeFileName } from './safe-name.js';
import { Serial } from './serial.js';
import { setAside } from './set-aside.js';
import { applyRecord, isPart, journalHeaderLine, readJournal, snapshotDelta } from './snapshot-journal.js';

/** Envelope format name of snapshot files. */
export const SNAPSHOT_FORMAT = 'tally-snapshot';
/**
 * Envelope version of snapshot files: 2 since a journal continues them (a build that
 * does not know journals must not take the file alone for the latest snapshot). Files
 * of version 1 are read (they have no journal).
 */
export const SNAPSHOT_FORMAT_VERSION = 2;

/**
 * The journal is folded into a new snapshot file once it holds this share of the file's
 * size: a start then replays at most half a snapshot's worth of saves, and a save writes
 * on average a few parts plus a third of a snapshot file per journal's worth of saves.
 */
const JOURNAL_SHARE = 0.5;
/** …but never before it holds this much (small orgs: a journal of a few saves is no saving). */
const JOURNAL_MIN_BYTES = 64 * 1024;

/** Options of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  /** The snapshots directory (`<state dir>/snapshots`); created on first save. */
  dir: string;
  logger: Logger;
  clock: Clock;
  health?: StoreHealth | undefined;
  fs?: StoreFs | undefined;
  /** Journal size under which no snapshot file is written whole (default 64 KiB; tests). */
  journalMinBytes?: number | undefined;
}

/** A snapshot read back with its envelope. */
export interface StoredSnapshot {
  snapshot: OrgSnapshot;
  savedAt: number;
  /** Extra envelope fields passed to the latest {@link SnapshotStore.save}. */
  extra: Record<string, unknown>;
}

/** What this process last wrote for one org, which the next save's journal record continues. */
interface Written {
  snapshot: OrgSnapshot;
  /** Characters of the snapshot file and bytes of its journal, for when to write it whole again. */
  fileChars: number;
  journalBytes: number;
}

/** One org's files. */
interface OrgFiles {
  file: JsonStateFile<OrgSnapshot>;
  journal: string;
  /** Saves of one org run one at a time, in call order. */
  serial: Serial;
  /** Unset until this process wrote the snapshot file whole, and after a failed append. */
  written?: Written | undefined;
}

/** Stores the latest {@link OrgSnapshot} per organization. */
export class SnapshotStore {
  private readonly files = new Map<string, OrgFiles>();
  private readonly log: Logger;

  constructor(private readonly opts: SnapshotStoreOptions) {
    this.log = opts.logger.child({ component: 'snapshot-store' });
  }

  /** Creates a store and removes temp files a crash left in its directory. */
  static async open(opts: SnapshotStoreOptions): Promise<SnapshotStore> {
    const store = new SnapshotStore(opts);
    await store.removeLeftovers();
    return store;
  }

  /**
   * Removes temp files left by writes a crash interrupted. Call it before the first save
   * (as {@link SnapshotStore.open} does): it would also remove the temp file of a save in flight.
   */
  async removeLeftovers(): Promise<string[]> {
    const removed = await removeTempFiles(this.opts.dir, this.opts.fs);
    if (removed.length > 0)
      this.log.info({ dir: this.opts.dir, files: removed.length }, 'removed leftover temp files');
    return removed;
  }

  /** The file that holds `org`'s snapshot as last written whole. */
  pathFor(org: string): string {
    return join(this.opts.dir, `${safeFileName(org)}.json`);
  }

  /** The journal of what changed since (one JSON object per line). */
  journalPathFor(org: string): string {
    return join(this.opts.dir, `${safeFileName(org)}.journal`);
  }

  /** The latest stored snapshot of `org`; undefined when there is none or it was unreadable. */
  async load(org: string): Promise<OrgSnapshot | undefined> {
    return (await this.loadWithEnvelope(org))?.snapshot;
  }

  /**
   * Like {@link load}, with the save time and the extra envelope fields of the latest save:
   * the snapshot file with every whole record of its journal applied.
   */
  loadWithEnvelope(org: string): Promise<StoredSnapshot | undefined> {
    const files = this.filesFor(org);
    // In turn with saves, and the next save writes the file whole: a load may set files aside.
    return files.serial.run(async () => {
      files.written = undefined;
      const stored = await this.read(org, files);
      // The file and its journal were written by one build, in one model version: upgraded
      // together, once whole (src/snapshot/upgrade.ts; docs/state.md, "Model versions").
      if (stored !== undefined) upgradeSnapshot(stored.snapshot);
      return stored;
    });
  }

  /**
   * Lets go of what this process holds of `org` (the last snapshot written, which the
   * next journal record continues) once its saves in flight are done; a later save writes
   * the file whole. For an org no longer polled.
   */
  async forget(org: string): Promise<void> {
    const files = this.files.get(org);
    if (files === undefined) return;
    await files.serial.run(async () => {
      if (this.files.get(org) === files) this.files.delete(org);
    });
  }

  /** Whether this process holds anything of `org` (see {@link forget}). */
  holds(org: string): boolean {
    return this.files.has(org);
  }

  private async read(org: string, files: OrgFiles): Promise<StoredSnapshot | undefined> {
    const loaded = await files.file.load();
    if (loaded === undefined) return undefined;
    if (loaded.extra['org'] !== org || loaded.value.org !== org) {
      return files.file.discard(
        `holds org ${JSON.stringify(loaded.value.org)}, expected ${JSON.stringify(org)}`,
      );
    }
    const { org: _org, generation, ...extra } = loaded.extra;
    const stored: StoredSnapshot = { snapshot: loaded.value, savedAt: loaded.savedAt, extra };
    const journal = await readJournal(
      files.journal,
      org,
      typeof generation === 'string' ? generation : undefined,
    );
    if (journal.status === 'other') {
      // Left by a crash between writing the snapshot file whole and starting its journal.
      this.log.info(
        { org, file: files.journal, why: journal.why },
        'snapshot journal of another file ignored',
      );
    }
    if (journal.status === 'damaged') {
      await setAside(files.journal, journal.problem, { ...this.opts, logger: this.log });
    }
    if (journal.status !== 'ok') return stored;
    for (const record of journal.records) {
      applyRecord(stored.snapshot, record);
      stored.savedAt = record.savedAt;
      const { org: _o, generation: _g, ...rest } = record.extra ?? {};
      stored.extra = rest;
    }
    const stop = journal.stopped;
    if (stop?.cutOff) {
      // What a crash during an append leaves: that save never finished, the one before holds.
      this.log.info(
        { org, file: files.journal, line: stop.line, problem: stop.problem },
        'snapshot journal ends in a cut-off line; resuming from the save before it',
      );
    } else if (stop) {
      await setAside(files.journal, `line ${stop.line}: ${stop.problem}`, { ...this.opts, logger: this.log });
    }
    return stored;
  }

  /**
   * Stores `snapshot` as `org`'s latest; throws {@link StoreError}. The first save of a
   * process writes the snapshot file whole (atomically) and starts a new journal; later
   * saves append the parts that changed to the journal and fsync it, until it has grown to
   * half the file's size (at least {@link JOURNAL_MIN_BYTES}) and the file is written whole
   * again. Either way the save is on disk when this resolves.
   */
  save(org: string, snapshot: OrgSnapshot, extra: Record<string, unknown> = {}): Promise<void> {
    const files = this.filesFor(org);
    return files.serial.run(async () => {
      const written = files.written;
      if (written !== undefined) {
        const record = snapshotDelta(written.snapshot, snapshot, this.opts.clock.now(), extra);
        const line = `${JSON.stringify(record)}\n`;
        const bytes = Buffer.byteLength(line);
        const limit = Math.max(
          this.opts.journalMinBytes ?? JOURNAL_MIN_BYTES,
          written.fileChars * JOURNAL_SHARE,
        );
        if (written.journalBytes + bytes <= limit) {
          // A failed append may leave part of a line behind: the next save writes the file whole.
          files.written = undefined;
          if (await tracked(this.opts.health?.at('journal'), () => this.append(files.journal, line))) {
            files.written = { ...written, snapshot, journalBytes: written.journalBytes + bytes };
            return;
          }
          // The journal is gone (moved aside, removed by hand): a new file, a new journal.
        }
      }
      await this.saveWhole(org, files, snapshot, extra);
    });
  }

  private async saveWhole(
    org: string,
    files: OrgFiles,
    snapshot: OrgSnapshot,
    extra: Record<string, unknown>,
  ): Promise<void> {
    files.written = undefined;
    const generation = randomBytes(8).toString('hex');
    const fileChars = await files.file.save(snapshot, { ...extra, org, generation });
    // The journal that continued the old file names that file's generation, so from here
    // on it is ignored; a new one is started for this file.
    const header = journalHeaderLine(org, generation);
    try {
      await tracked(this.opts.health, () =>
        writeFileAtomic(files.journal, header, this.opts.fs === undefined ? {} : { fs: this.opts.fs }),
      );
    } catch (err) {
      // The snapshot is saved; only the next save cannot append, so it writes the file whole.
      this.log.warn({ org, file: files.journal, err }, 'could not start a snapshot journal');
      return;
    }
    files.written = { snapshot, fileChars, journalBytes: Buffer.byteLength(header) };
  }

  /**
   * Appends `line` to the journal at `path` and fsyncs it; false, with nothing written,
   * when there is no journal there (an append never creates one: it would have no header).
   */
  private async append(path: string, line: string): Promise<boolean> {
    const fs = this.opts.fs ?? nodeFs;
    let step: StoreOp = 'open';
    try {
      let handle: StoreFileHandle;
      try {
        handle = await fs.open(path, constants.O_WRONLY | constants.O_APPEND);
      } catch (err) {
        if (errnoCode(err) === 'ENOENT') return false;
        throw err;
      }
      try {
        step = 'write';
        await handle.writeFile(line);
        step = 'fsync';
        await handle.sync();
      } finally {
        await handle.close().catch(() => undefined);
      }
    } catch (err) {
      throw toStoreError(err, step, path);
    }
    return true;
  }

  private filesFor(org: string): OrgFiles {
    let files = this.files.get(org);
    if (files === undefined) {
      const file = new JsonStateFile<OrgSnapshot>({
        path: this.pathFor(org),
        format: SNAPSHOT_FORMAT,
        version: SNAPSHOT_FORMAT_VERSION,
        alsoReads: [1],
        key: 'snapshot',
        createDir: true,
        // Snapshots are never changed in place, and at 100k sessions one is some 18 MiB.
        streamed: true,
        // Each session list is held compactly as soon as it is read: read whole and then
        // taken in, 100 000 sessions would stand as objects and as lists at once, and the
        // heap would keep the room they took (session-list.ts).
        revive: holdSessionList,
        validate: validateSnapshot,
        logger: this.log,
        clock: this.opts.clock,
        health: this.opts.health,
        fs: this.opts.fs,
      });
      files = { file, journal: this.journalPathFor(org), serial: new Serial() };
      this.files.set(org, files);
    }
    return files;
  }
}

/**
 * A session list of a stored snapshot (the envelope's `snapshot.sessions.<channel>`) as a
 * snapshot holds it; anything else, or a list of anything but objects, as it was read.
 */
export function holdSessionList(keys: readonly string[], value: unknown): unknown {
  if (keys.length !== 3 || keys[0] !== 'snapshot' || keys[1] !== 'sessions') return value;
  if (typeof value !== 'object' || value === null) return value;
  const part = value as { state?: unknown; value?: unknown };
  if (part.state === 'failed' || !holdable(part.value)) return value;
  return { ...part, value: SessionList.of(part.value) };
}

/**
 * A shallow structural check: enough to refuse a file from a newer model version or a
 * hand-edited one, without re-validating every part (they were valid when written).
 */
export function validateSnapshot(value: unknown): OrgSnapshot {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  const s = value as Record<string, unknown>;
  // An older model version is upgraded once the journal is applied (`loadWithEnvelope`);
  // a newer one is refused, so the file is set aside and the next poll is a baseline.
  if (!readableVersion(s['version']))
    throw new Error(
      `unsupported snapshot model version ${JSON.stringify(s['version'])} (this tally reads 1 to ${MODEL_VERSION})`,
    );
  if (typeof s['org'] !== 'string') throw new Error('org is not a string');
  if (typeof s['takenAt'] !== 'number') throw new Error('takenAt is not a number');
  for (const key of ['sessions', 'details']) {
    const v = s[key];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${key} is not an object`);
  }
  for (const key of ['profile', 'team', 'subscription', 'channels']) {
    const v = s[key];
    if (v !== undefined && !isPart(v)) throw new Error(`${key} is not a part`);
  }
  return value as OrgSnapshot;
}
