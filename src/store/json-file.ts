/**
 * One JSON state file in a versioned envelope:
 * `{ format, version, savedAt, ...extra, <key>: value }`. Written atomically; read back
 * only when format and version are the ones this build knows and the value validates.
 * Anything else is set aside (see set-aside.ts) and reads as "no state", never as a crash.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { dirname } from 'node:path';
import { ensureDir, readJsonFile, readJsonFileStreamed, type StoreFs, writeFileAtomic } from './atomic.js';
import { type StoreHealth, tracked } from './health.js';
import { jsonPieces } from './json-chunks.js';
import { Serial } from './serial.js';
import { setAside } from './set-aside.js';

/** Options of {@link JsonStateFile}. */
export interface JsonStateFileOptions<T> {
  /** The file's path. */
  path: string;
  /** The envelope's `format`, e.g. `tally-snapshot`. */
  format: string;
  /** The envelope version this build writes (and reads). */
  version: number;
  /** Older versions this build also reads (their values must pass `validate` too). */
  alsoReads?: readonly number[];
  /** The envelope field that holds the value (default `data`). */
  key?: string;
  /** Create the file's directory on the first save when it is missing (default false). */
  createDir?: boolean;
  /**
   * Write and read the JSON a piece at a time (json-chunks.ts, json-stream.ts) instead of
   * as one string: for large files of values that are never changed in place (snapshots),
   * since the value is then read while it is written.
   */
  streamed?: boolean;
  /**
   * With `streamed`: given each value the reader parses whole with the keys that lead to
   * it (the envelope's first), it returns what is kept instead (json-stream.ts).
   */
  revive?: (keys: readonly string[], value: unknown) => unknown;
  /** Returns the parsed value typed, or throws an Error saying what is wrong with it. */
  validate: (value: unknown) => T;
  logger: Logger;
  clock: Clock;
  health?: StoreHealth | undefined;
  fs?: StoreFs | undefined;
}

/** A value read back from a {@link JsonStateFile}. */
export interface LoadedState<T> {
  value: T;
  /** When it was saved (ms). */
  savedAt: number;
  /** The envelope's other fields (what `save` got as `extra`). */
  extra: Record<string, unknown>;
}

const RESERVED = new Set(['format', 'version', 'savedAt']);

/** A JSON state file with a versioned envelope, atomic saves and corrupt-file handling. */
export class JsonStateFile<T> {
  /** The file's path. */
  readonly path: string;
  private readonly key: string;
  private readonly serial = new Serial();
  private dirReady: boolean;

  constructor(private readonly opts: JsonStateFileOptions<T>) {
    this.path = opts.path;
    this.key = opts.key ?? 'data';
    this.dirReady = opts.createDir !== true;
  }

  /**
   * Reads the file. Returns undefined when it is missing, or when it is corrupt, of another
   * format or version, or fails validation — those are moved aside with one warn line.
   * Throws {@link StoreError} only when the file cannot be read at all (permissions, I/O).
   */
  async load(): Promise<LoadedState<T> | undefined> {
    const read = this.opts.streamed
      ? await readJsonFileStreamed(this.path, this.opts.revive)
      : await readJsonFile(this.path);
    if (read.status === 'missing') return undefined;
    if (read.status === 'corrupt') return this.discard(read.problem);
    const checked = this.check(read.value);
    if (typeof checked === 'string') return this.discard(checked);
    return checked;
  }

  /**
   * Writes `value` (with `extra` envelope fields) atomically; resolves to the characters
   * written. Throws {@link StoreError}.
   */
  save(value: T, extra: Record<string, unknown> = {}): Promise<number> {
    const envelope: Record<string, unknown> = {
      format: this.opts.format,
      version: this.opts.version,
      savedAt: this.opts.clock.now(),
    };
    for (const [k, v] of Object.entries(extra)) {
      if (!RESERVED.has(k) && k !== this.key) envelope[k] = v;
    }
    envelope[this.key] = value;
    const counted = { chars: 0 };
    const text = this.opts.streamed
      ? withNewline(jsonPieces(envelope), counted)
      : `${JSON.stringify(envelope)}\n`;
    if (typeof text === 'string') counted.chars = text.length;
    const fs = this.opts.fs;
    // Queued synchronously, so concurrent saves land in call order.
    return this.serial.run(() =>
      tracked(this.opts.health, async () => {
        if (!this.dirReady) {
          await ensureDir(dirname(this.path));
          this.dirReady = true;
        }
        await writeFileAtomic(this.path, text, fs === undefined ? {} : { fs });
        return counted.chars;
      }),
    );
  }

  /** Moves the file aside with `problem` as the logged reason; resolves to undefined. */
  async discard(problem: string): Promise<undefined> {
    await setAside(this.path, problem, this.opts);
    return undefined;
  }

  private check(raw: unknown): LoadedState<T> | string {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'not a JSON object';
    const env = raw as Record<string, unknown>;
    if (env['format'] !== this.opts.format) {
      return `unknown format ${JSON.stringify(env['format'])} (expected "${this.opts.format}")`;
    }
    if (env['version'] !== this.opts.version && !this.opts.alsoReads?.includes(env['version'] as number)) {
      return `unsupported version ${JSON.stringify(env['version'])} (expected ${this.opts.version})`;
    }
    if (typeof env['savedAt'] !== 'number') return 'missing savedAt';
    if (!(this.key in env)) return `missing ${this.key}`;
    let value: T;
    try {
      value = this.opts.validate(env[this.key]);
    } catch (err) {
      return `invalid ${this.key}: ${err instanceof Error ? err.message : String(err)}`;
    }
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(env)) {
      if (!RESERVED.has(k) && k !== this.key) extra[k] = v;
    }
    return { value, savedAt: env['savedAt'], extra };
  }
}

function* withNewline(pieces: Iterable<string>, counted: { chars: number }): Generator<string> {
  for (const piece of pieces) {
    counted.chars += piece.length;
    yield piece;
  }
  counted.chars += 1;
  yield '\n';
}
