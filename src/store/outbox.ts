/**
 * The outbox: notifications waiting to be delivered (docs/architecture.md, invariant 6). One file per
 * entry under `outbox/`, written atomically before `put` resolves and removed only on
 * `ack`, so an entry survives crashes and restarts until a sink has taken it. Entries keep
 * their caller-given id, which doubles as the idempotency key downstream.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { ensureDir, fsyncDir, nodeFs, removeTempFiles, type StoreFs } from './atomic.js';
import { errnoCode, toStoreError } from './errors.js';
import { type StoreHealth, tracked } from './health.js';
import { JsonStateFile } from './json-file.js';
import { safeFileName } from './safe-name.js';
import { KeyedSerial } from './serial.js';
import { isSetAsideName } from './set-aside.js';

/** Envelope format name of outbox entry files. */
export const OUTBOX_FORMAT = 'tally-outbox-entry';

/** One pending notification with its delivery bookkeeping. */
export interface OutboxEntry<T> {
  id: string;
  item: T;
  /** When it entered the outbox (ms). */
  createdAt: number;
  /** Delivery attempts so far. */
  attempts: number;
  /** Not to be tried before this time (ms). */
  nextAttemptAt: number;
  /** Why the last attempt failed, credential-free. */
  lastError?: string | undefined;
}

/** Bookkeeping fields {@link Outbox.update} may change; `lastError: undefined` clears it. */
export interface OutboxPatch {
  attempts?: number;
  nextAttemptAt?: number;
  lastError?: string | undefined;
}

/** Options of {@link Outbox.open}. */
export interface OutboxOptions<T> {
  /** The outbox directory (`<state dir>/outbox`); created when missing. */
  dir: string;
  logger: Logger;
  clock: Clock;
  /** Checks a stored item when reading it back; throws to have the entry set aside. */
  validate?: ((item: unknown) => T) | undefined;
  health?: StoreHealth | undefined;
  fs?: StoreFs | undefined;
}

interface Held<T> {
  entry: OutboxEntry<T>;
  file: JsonStateFile<OutboxEntry<T>>;
  /** Tie-breaker for entries created in the same millisecond. */
  order: number;
}

/** A durable queue of pending notifications, keyed by stable id. */
export class Outbox<T> {
  private readonly held = new Map<string, Held<T>>();
  private readonly locks = new KeyedSerial();
  private readonly log: Logger;
  private readonly fs: StoreFs;
  private order = 0;

  private constructor(private readonly opts: OutboxOptions<T>) {
    this.log = opts.logger.child({ component: 'outbox' });
    this.fs = opts.fs ?? nodeFs;
  }

  /** Opens the outbox in `opts.dir`: removes leftover temp files and reads every pending entry. */
  static async open<T>(opts: OutboxOptions<T>): Promise<Outbox<T>> {
    const outbox = new Outbox<T>(opts);
    await outbox.load();
    return outbox;
  }

  /** Number of pending entries. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Adds an entry and resolves once it is on disk. Putting an id that is already pending
   * changes nothing and returns the pending entry with `created: false`.
   * Throws {@link StoreError} when it could not be written (it is then not pending).
   */
  put(id: string, item: T): Promise<{ entry: OutboxEntry<T>; created: boolean }> {
    return this.locks.run(id, async () => {
      const existing = this.held.get(id);
      if (existing !== undefined) return { entry: copy(existing.entry), created: false };
      const now = this.opts.clock.now();
      const entry: OutboxEntry<T> = { id, item, createdAt: now, attempts: 0, nextAttemptAt: now };
      const file = this.fileAt(join(this.opts.dir, `${safeFileName(id)}.json`));
      await file.save(entry);
      this.held.set(id, { entry, file, order: this.order++ });
      return { entry: copy(entry), created: true };
    });
  }

  /** The pending entry with this id. */
  get(id: string): OutboxEntry<T> | undefined {
    const held = this.held.get(id);
    return held === undefined ? undefined : copy(held.entry);
  }

  /** Every pending entry, oldest first. */
  list(): OutboxEntry<T>[] {
    return [...this.held.values()]
      .sort((a, b) => a.entry.createdAt - b.entry.createdAt || a.order - b.order)
      .map((h) => copy(h.entry));
  }

  /**
   * Records delivery bookkeeping atomically. Resolves to the updated entry, or undefined
   * when the id is not pending (already acked or dropped). Throws {@link StoreError}.
   */
  update(id: string, patch: OutboxPatch): Promise<OutboxEntry<T> | undefined> {
    return this.locks.run(id, async () => {
      const held = this.held.get(id);
      if (held === undefined) return undefined;
      const next: OutboxEntry<T> = { ...held.entry };
      if (patch.attempts !== undefined) next.attempts = patch.attempts;
      if (patch.nextAttemptAt !== undefined) next.nextAttemptAt = patch.nextAttemptAt;
      if ('lastError' in patch) {
        if (patch.lastError === undefined) delete next.lastError;
        else next.lastError = patch.lastError;
      }
      await held.file.save(next);
      held.entry = next;
      return copy(next);
    });
  }

  /** Removes a delivered entry durably; false when it was not pending. Throws {@link StoreError}. */
  ack(id: string): Promise<boolean> {
    return this.locks.run(id, async () => {
      const held = this.held.get(id);
      if (held === undefined) return false;
      await tracked(this.opts.health, async () => {
        await this.unlink(held.file.path);
        await fsyncDir(this.opts.dir, this.fs);
      });
      this.held.delete(id);
      return true;
    });
  }

  /** Removes entries created more than `maxAgeMs` ago, undelivered; returns them. */
  async dropOlderThan(maxAgeMs: number): Promise<OutboxEntry<T>[]> {
    const cutoff = this.opts.clock.now() - maxAgeMs;
    const old = this.list().filter((e) => e.createdAt < cutoff);
    const dropped: OutboxEntry<T>[] = [];
    try {
      for (const e of old) {
        const gone = await this.locks.run(e.id, async () => {
          const held = this.held.get(e.id);
          if (held === undefined) return undefined;
          await tracked(this.opts.health, () => this.unlink(held.file.path));
          this.held.delete(e.id);
          return copy(held.entry);
        });
        if (gone !== undefined) dropped.push(gone);
      }
    } finally {
      if (dropped.length > 0) {
        await tracked(this.opts.health, () => fsyncDir(this.opts.dir, this.fs));
        this.log.warn(
          { dropped: dropped.length, ids: dropped.slice(0, 10).map((e) => e.id) },
          'dropped undelivered outbox entries past their maximum age',
        );
      }
    }
    return dropped;
  }

  private async load(): Promise<void> {
    const dir = this.opts.dir;
    await ensureDir(dir);
    const temps = await removeTempFiles(dir, this.fs);
    if (temps.length > 0) this.log.info({ dir, files: temps.length }, 'removed leftover outbox temp files');
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (err) {
      throw toStoreError(err, 'readdir', dir);
    }
    const loaded: { entry: OutboxEntry<T>; file: JsonStateFile<OutboxEntry<T>> }[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || isSetAsideName(name) || name.startsWith('.')) continue;
      const file = this.fileAt(join(dir, name));
      const state = await file.load();
      if (state !== undefined) loaded.push({ entry: state.value, file });
    }
    loaded.sort((a, b) => a.entry.createdAt - b.entry.createdAt || (a.entry.id < b.entry.id ? -1 : 1));
    for (const { entry, file } of loaded) {
      if (this.held.has(entry.id)) {
        this.log.warn({ file: file.path, id: entry.id }, 'ignored second outbox file for the same id');
        continue;
      }
      this.held.set(entry.id, { entry, file, order: this.order++ });
    }
    if (this.held.size > 0) this.log.info({ dir, pending: this.held.size }, 'outbox has pending entries');
  }

  private fileAt(path: string): JsonStateFile<OutboxEntry<T>> {
    return new JsonStateFile<OutboxEntry<T>>({
      path,
      format: OUTBOX_FORMAT,
      version: 1,
      key: 'entry',
      validate: (v) => validateEntry(v, this.opts.validate),
      logger: this.log,
      clock: this.opts.clock,
      health: this.opts.health,
      fs: this.opts.fs,
    });
  }

  private async unlink(path: string): Promise<void> {
    try {
      await this.fs.unlink(path);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw toStoreError(err, 'unlink', path);
    }
  }
}

function copy<T>(entry: OutboxEntry<T>): OutboxEntry<T> {
  return { ...entry };
}

function validateEntry<T>(value: unknown, validateItem: ((item: unknown) => T) | undefined): OutboxEntry<T> {
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  const e = value as Record<string, unknown>;
  if (typeof e['id'] !== 'string') throw new Error('id is not a string');
  for (const key of ['createdAt', 'attempts', 'nextAttemptAt']) {
    if (typeof e[key] !== 'number' || !Number.isFinite(e[key])) throw new Error(`${key} is not a number`);
  }
  if (e['lastError'] !== undefined && typeof e['lastError'] !== 'string')
    throw new Error('lastError is not a string');
  if (!('item' in e)) throw new Error('missing item');
  const item = validateItem === undefined ? (e['item'] as T) : validateItem(e['item']);
  const entry: OutboxEntry<T> = {
    id: e['id'],
    item,
    createdAt: e['createdAt'] as number,
    attempts: e['attempts'] as number,
    nextAttemptAt: e['nextAttemptAt'] as number,
  };
  if (typeof e['lastError'] === 'string') entry.lastError = e['lastError'];
  return entry;
}
