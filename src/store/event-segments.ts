/**
 * Segment files of the event log: `events/000001.jsonl`, `000002.jsonl` … Each line is one
 * change event with its sequence number, `{"seq":12,"id":…,"at":…,…}`. This file holds the
 * pure parts: names, and turning a segment's bytes into index entries.
 */
import { stringifyWellFormed } from '../core/well-formed.js';
import type { ChangeEvent } from '../snapshot/events.js';

/** A change event as stored in the log: the event plus its sequence number. */
export type LoggedEvent = ChangeEvent & { seq: number };

/**
 * What the log keeps in memory per retained event: enough to filter, page and find the
 * line on disk, not the event itself.
 */
export interface IndexEntry {
  seq: number;
  id: string;
  at: number;
  org: string;
  kind: string;
  entityId: string;
  /** Number of the segment file holding the line. */
  segment: number;
  /** Byte offset and length of the line (without its newline) in that file. */
  offset: number;
  length: number;
}

/** What {@link scanSegment} made of a segment's bytes. */
export interface ScannedSegment {
  entries: IndexEntry[];
  /** Lines that could not be read and are followed by readable ones (left in place, skipped). */
  skippedLines: number;
  /** Where the readable content ends: bytes past it are a torn or unreadable tail. */
  validBytes: number;
}

const SEGMENT_RE = /^(\d{6,})\.jsonl$/;

/** The file name of segment number `n`. */
export function segmentName(n: number): string {
  return `${String(n).padStart(6, '0')}.jsonl`;
}

/** The segment number of a file name, or undefined when it is not a segment. */
export function segmentNumber(name: string): number | undefined {
  const m = SEGMENT_RE.exec(name);
  return m === null ? undefined : Number(m[1]);
}

/** Shares repeated strings (org slugs, kinds) between index entries to keep the index small. */
export class Interner {
  private readonly seen = new Map<string, string>();

  /** Returns the shared copy of `s`. */
  get(s: string): string {
    const known = this.seen.get(s);
    if (known !== undefined) return known;
    this.seen.set(s, s);
    return s;
  }
}

/** Parses one stored line; undefined when it is not a readable event. */
export function parseLine(text: string): LoggedEvent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  const entity = e['entity'] as Record<string, unknown> | undefined;
  const ok =
    Number.isSafeInteger(e['seq']) &&
    (e['seq'] as number) > 0 &&
    typeof e['id'] === 'string' &&
    Number.isFinite(e['at']) &&
    typeof e['org'] === 'string' &&
    typeof e['kind'] === 'string' &&
    typeof entity === 'object' &&
    entity !== null &&
    typeof entity['id'] === 'string' &&
    typeof e['labels'] === 'object' &&
    e['labels'] !== null;
  return ok ? (v as LoggedEvent) : undefined;
}

/** Serializes one event as a stored line (with its newline). */
export function formatLine(seq: number, event: ChangeEvent): string {
  // A lone surrogate from upstream text is written as U+FFFD: every line stays valid UTF-8 JSON.
  return `${stringifyWellFormed({ seq, ...event })}\n`;
}

/** Builds the index entry of a line at `offset`. */
export function entryFor(
  e: LoggedEvent,
  segment: number,
  offset: number,
  length: number,
  strings: Interner,
): IndexEntry {
  return {
    seq: e.seq,
    id: e.id,
    at: e.at,
    org: strings.get(e.org),
    kind: strings.get(e.kind),
    entityId: e.entity.id,
    segment,
    offset,
    length,
  };
}

/**
 * Reads a segment's bytes line by line. Unreadable lines followed by readable ones are
 * counted and skipped; unreadable bytes at the end (a write cut short by a crash) are
 * reported through `validBytes` so the caller can cut them off.
 */
export function scanSegment(buf: Buffer, segment: number, strings: Interner): ScannedSegment {
  const entries: IndexEntry[] = [];
  let validBytes = 0;
  let badSinceValid = 0;
  let skippedLines = 0;
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1) break; // A last line without its newline never completed.
    if (nl > pos) {
      const event = parseLine(buf.toString('utf8', pos, nl));
      if (event === undefined) {
        badSinceValid += 1;
      } else {
        entries.push(entryFor(event, segment, pos, nl - pos, strings));
        skippedLines += badSinceValid;
        badSinceValid = 0;
        validBytes = nl + 1;
      }
    } else if (badSinceValid === 0) {
      validBytes = nl + 1; // A stray empty line is harmless.
    }
    pos = nl + 1;
  }
  return { entries, skippedLines, validBytes };
}
