/**
 * The latest snapshot of each organization, one file per org under `snapshots/`, so that
 * a restart resumes from what was last seen instead of taking a new silent baseline.
 */
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import { removeTempFiles, type StoreFs } from './atomic.js';
import type { StoreHealth } from './health.js';
import { JsonStateFile } from './json-file.js';
import { safeFileName } from './safe-name.js';

/** Envelope format name of snapshot files. */
export const SNAPSHOT_FORMAT = 'tally-snapshot';
/** Envelope version of snapshot files. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** Options of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  /** The snapshots directory (`<state dir>/snapshots`); created on first save. */
  dir: string;
  logger: Logger;
  clock: Clock;
  health?: StoreHealth | undefined;
  fs?: StoreFs | undefined;
}

/** A snapshot read back with its envelope. */
export interface StoredSnapshot {
  snapshot: OrgSnapshot;
  savedAt: number;
  /** Extra envelope fields passed to {@link SnapshotStore.save}. */
  extra: Record<string, unknown>;
}

/** Stores the latest {@link OrgSnapshot} per organization. */
export class SnapshotStore {
  private readonly files = new Map<string, JsonStateFile<OrgSnapshot>>();
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

  /** The file that holds `org`'s snapshot. */
  pathFor(org: string): string {
    return join(this.opts.dir, `${safeFileName(org)}.json`);
  }

  /** The latest stored snapshot of `org`; undefined when there is none or it was unreadable. */
  async load(org: string): Promise<OrgSnapshot | undefined> {
    return (await this.loadWithEnvelope(org))?.snapshot;
  }

  /** Like {@link load}, with the save time and the extra envelope fields. */
  async loadWithEnvelope(org: string): Promise<StoredSnapshot | undefined> {
    const file = this.fileFor(org);
    const loaded = await file.load();
    if (loaded === undefined) return undefined;
    if (loaded.extra['org'] !== org || loaded.value.org !== org) {
      return file.discard(`holds org ${JSON.stringify(loaded.value.org)}, expected ${JSON.stringify(org)}`);
    }
    const { org: _org, ...extra } = loaded.extra;
    return { snapshot: loaded.value, savedAt: loaded.savedAt, extra };
  }

  /** Stores `snapshot` as `org`'s latest, atomically; throws {@link StoreError}. */
  save(org: string, snapshot: OrgSnapshot, extra: Record<string, unknown> = {}): Promise<void> {
    return this.fileFor(org).save(snapshot, { ...extra, org });
  }

  private fileFor(org: string): JsonStateFile<OrgSnapshot> {
    let file = this.files.get(org);
    if (file === undefined) {
      file = new JsonStateFile<OrgSnapshot>({
        path: this.pathFor(org),
        format: SNAPSHOT_FORMAT,
        version: SNAPSHOT_FORMAT_VERSION,
        key: 'snapshot',
        createDir: true,
        // Snapshots are never changed in place, and at 100k sessions one is some 18 MiB.
        streamed: true,
        validate: validateSnapshot,
        logger: this.log,
        clock: this.opts.clock,
        health: this.opts.health,
        fs: this.opts.fs,
      });
      this.files.set(org, file);
    }
    return file;
  }
}

/**
 * A shallow structural check: enough to refuse a file from another model version or a
 * hand-edited one, without re-validating every part (they were valid when written).
 */
export function validateSnapshot(value: unknown): OrgSnapshot {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  const s = value as Record<string, unknown>;
  if (s['version'] !== 1)
    throw new Error(`unsupported snapshot model version ${JSON.stringify(s['version'])}`);
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

function isPart(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return (
    (p['state'] === 'complete' || p['state'] === 'incomplete' || p['state'] === 'failed') &&
    typeof p['at'] === 'number'
  );
}
