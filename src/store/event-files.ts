/**
 * The event log's disk side outside of appending: reading every segment on open (with
 * torn-tail repair) and reading the lines of one query page.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { StoreFs } from './atomic.js';
import { errnoCode, toStoreError } from './errors.js';
import {
  type IndexEntry,
  type Interner,
  type LoggedEvent,
  parseLine,
  scanSegment,
  segmentName,
  segmentNumber,
} from './event-segments.js';

/** One retained segment file and the index of its events. */
export interface Segment {
  number: number;
  path: string;
  bytes: number;
  entries: IndexEntry[];
  /** Time of the newest event in it (ms); `-Infinity` when empty. */
  maxAt: number;
  /** A failed write could not be rolled back: never append to it again. */
  broken: boolean;
}

/** What {@link loadSegments} found. */
export interface LoadedSegments {
  segments: Segment[];
  /** Highest sequence number retained (0 when none). */
  lastSeq: number;
  /** Highest segment number present (0 when none). */
  lastNumber: number;
}

/** What {@link loadSegments} needs. */
export interface LoadDeps {
  dir: string;
  fs: StoreFs;
  log: Logger;
  strings: Interner;
}

/**
 * Reads and indexes every segment in `dir`, oldest first. Cuts a torn tail off the newest
 * segment, skips unreadable lines and lines that repeat an id or go back in sequence,
 * each with a warn line.
 */
export async function loadSegments(deps: LoadDeps): Promise<LoadedSegments> {
  const { dir, log } = deps;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    throw toStoreError(err, 'readdir', dir);
  }
  const numbers = names
    .map(segmentNumber)
    .filter((n): n is number => n !== undefined)
    .sort((a, b) => a - b);
  const segments: Segment[] = [];
  const ids = new Set<string>();
  let lastSeq = 0;
  let dropped = 0;
  for (const [i, number] of numbers.entries()) {
    const segment = await loadSegment(deps, number, i === numbers.length - 1);
    const kept: IndexEntry[] = [];
    for (const e of segment.entries) {
      // A line repeating an id or going back in sequence cannot come from append; skip it.
      if (ids.has(e.id) || e.seq <= lastSeq) {
        dropped += 1;
        continue;
      }
      kept.push(e);
      ids.add(e.id);
      lastSeq = e.seq;
      if (e.at > segment.maxAt) segment.maxAt = e.at;
    }
    segment.entries = kept;
    segments.push(segment);
  }
  if (dropped > 0) log.warn({ dir, lines: dropped }, 'skipped duplicate or out-of-order event lines');
  return { segments, lastSeq, lastNumber: numbers[numbers.length - 1] ?? 0 };
}

async function loadSegment(deps: LoadDeps, number: number, last: boolean): Promise<Segment> {
  const path = join(deps.dir, segmentName(number));
  let buf: Buffer;
  try {
    buf = await fsp.readFile(path);
  } catch (err) {
    throw toStoreError(err, 'read', path);
  }
  const scan = scanSegment(buf, number, deps.strings);
  const segment: Segment = {
    number,
    path,
    bytes: buf.length,
    entries: scan.entries,
    maxAt: Number.NEGATIVE_INFINITY,
    broken: false,
  };
  if (scan.skippedLines > 0) {
    deps.log.warn({ file: path, lines: scan.skippedLines }, 'skipped unreadable lines in event segment');
  }
  if (scan.validBytes < buf.length) {
    const torn = buf.length - scan.validBytes;
    if (last) {
      await cutTail(deps, segment, scan.validBytes, torn);
    } else {
      deps.log.warn({ file: path, bytes: torn }, 'ignored unreadable tail of event segment');
    }
  }
  return segment;
}

// A crash during an append can leave half a line at the end of the newest segment.
async function cutTail(deps: LoadDeps, segment: Segment, validBytes: number, torn: number): Promise<void> {
  try {
    const handle = await deps.fs.open(segment.path, 'r+');
    try {
      await handle.truncate(validBytes);
      await handle.sync();
    } finally {
      await handle.close().catch(() => undefined);
    }
    segment.bytes = validBytes;
    deps.log.warn({ file: segment.path, bytes: torn }, 'cut torn last line off event segment');
  } catch (err) {
    // Appending after the torn bytes would spoil the next line: start a new segment instead.
    segment.broken = true;
    deps.log.warn(
      { file: segment.path, bytes: torn, err: describeError(err) },
      'ignored torn last line of event segment (could not cut it off)',
    );
  }
}

/** What {@link checkSegment} found on disk. */
export type SegmentCheck = { kind: 'ok' } | { kind: 'deleted' } | { kind: 'truncated'; size: number };

/**
 * Whether a segment's file still holds what the index says: gone (deleted under the
 * running log, or its directory with it) or shorter than the bytes indexed (cut short).
 */
export async function checkSegment(segment: Segment): Promise<SegmentCheck> {
  let size: number;
  try {
    size = (await fsp.stat(segment.path)).size;
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return { kind: 'deleted' };
    throw toStoreError(err, 'read', segment.path);
  }
  return size < segment.bytes ? { kind: 'truncated', size } : { kind: 'ok' };
}

/**
 * Reads the events of `entries` from their segments in `dir`, in the order given: one
 * result per entry, undefined where the line is gone (its file missing, cut short, or no
 * longer an event).
 */
export async function readEvents(
  dir: string,
  entries: readonly IndexEntry[],
): Promise<(LoggedEvent | undefined)[]> {
  const bySegment = new Map<number, number[]>();
  for (const [i, e] of entries.entries()) {
    const list = bySegment.get(e.segment);
    if (list === undefined) bySegment.set(e.segment, [i]);
    else list.push(i);
  }
  const out: (LoggedEvent | undefined)[] = new Array(entries.length).fill(undefined);
  for (const [number, positions] of bySegment) {
    const path = join(dir, segmentName(number));
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(path, 'r');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') continue;
      throw toStoreError(err, 'read', path);
    }
    try {
      await readLines(handle, entries, positions, out);
    } catch (err) {
      throw toStoreError(err, 'read', path);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
  // A line that reads as another event than the index says is as good as gone.
  return out.map((e, i) => (e !== undefined && e.seq === entries[i]!.seq ? e : undefined));
}

async function readLines(
  handle: fsp.FileHandle,
  entries: readonly IndexEntry[],
  positions: readonly number[],
  out: (LoggedEvent | undefined)[],
): Promise<void> {
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  let wanted = 0;
  for (const i of positions) {
    const e = entries[i]!;
    start = Math.min(start, e.offset);
    end = Math.max(end, e.offset + e.length);
    wanted += e.length;
  }
  // Lines of one page mostly sit side by side: one read for the span beats one per line.
  if (end - start <= Math.max(4 * wanted, 64 * 1024)) {
    const span = Buffer.allocUnsafe(end - start);
    const { bytesRead } = await handle.read(span, 0, span.length, start);
    for (const i of positions) {
      const e = entries[i]!;
      const from = e.offset - start;
      out[i] = parseLine(span.toString('utf8', from, Math.min(from + e.length, bytesRead)));
    }
    return;
  }
  for (const i of positions) {
    const e = entries[i]!;
    const buf = Buffer.allocUnsafe(e.length);
    const { bytesRead } = await handle.read(buf, 0, e.length, e.offset);
    out[i] = parseLine(buf.toString('utf8', 0, bytesRead));
  }
}
