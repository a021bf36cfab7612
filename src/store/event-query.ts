/**
 * Filtering and paging over the event log's in-memory index. Pure: it picks index
 * entries; the log then reads just those lines from disk.
 */
import { TallyError } from '../core/errors.js';
import type { IndexEntry } from './event-segments.js';

/** A query over the event log. */
export interface EventQuery {
  org?: string | undefined;
  /** Any of these kinds (all kinds when absent or empty). */
  kinds?: readonly string[] | undefined;
  entityId?: string | undefined;
  /** Events detected at or after this time (ms). */
  since?: number | undefined;
  /** Events detected before this time (ms). */
  until?: number | undefined;
  /** Page size, 1 to {@link MAX_QUERY_LIMIT}; larger values are capped. */
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string | undefined;
  /** `newest` (default) or `oldest` first. */
  order?: 'newest' | 'oldest' | undefined;
}

/** The largest page a query returns. */
export const MAX_QUERY_LIMIT = 10_000;

/** A cursor that this log did not hand out. */
export class InvalidCursorError extends TallyError {
  constructor(cursor: string) {
    super(`invalid event cursor ${JSON.stringify(cursor.slice(0, 40))}`, { reason: 'bad_request' });
  }
}

/** The opaque cursor that continues after sequence number `seq`. */
export function encodeCursor(seq: number): string {
  return `s${seq.toString(36)}`;
}

/** The sequence number inside a cursor; throws {@link InvalidCursorError}. */
export function decodeCursor(cursor: string): number {
  const m = /^s([0-9a-z]{1,11})$/.exec(cursor);
  const seq = m === null ? Number.NaN : Number.parseInt(m[1]!, 36);
  if (!Number.isSafeInteger(seq) || seq < 0) throw new InvalidCursorError(cursor);
  return seq;
}

/** Index entries of one page, in the requested order, and whether more match. */
export interface Selection {
  entries: IndexEntry[];
  nextCursor?: string;
}

/**
 * Picks the entries of one page. `segments` are the retained segments' entries, oldest
 * segment first, each sorted by sequence number.
 */
export function selectEntries(segments: readonly (readonly IndexEntry[])[], q: EventQuery): Selection {
  const limit = Math.min(Math.max(1, Math.floor(q.limit)), MAX_QUERY_LIMIT);
  const newest = (q.order ?? 'newest') === 'newest';
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  const kinds = q.kinds !== undefined && q.kinds.length > 0 ? new Set(q.kinds) : undefined;
  const matches = (e: IndexEntry): boolean =>
    (q.org === undefined || e.org === q.org) &&
    (kinds === undefined || kinds.has(e.kind)) &&
    (q.entityId === undefined || e.entityId === q.entityId) &&
    (q.since === undefined || e.at >= q.since) &&
    (q.until === undefined || e.at < q.until);

  const out: IndexEntry[] = [];
  for (const e of walk(segments, newest, after)) {
    if (!matches(e)) continue;
    if (out.length === limit) return { entries: out, nextCursor: encodeCursor(out[out.length - 1]!.seq) };
    out.push(e);
  }
  return { entries: out };
}

/** Entries in order, starting just past sequence number `after` when given. */
function* walk(
  segments: readonly (readonly IndexEntry[])[],
  newest: boolean,
  after: number | undefined,
): Generator<IndexEntry> {
  if (newest) {
    for (let s = segments.length - 1; s >= 0; s--) {
      const seg = segments[s]!;
      let i = seg.length - 1;
      if (after !== undefined) {
        if (seg.length === 0 || seg[0]!.seq >= after) continue;
        i = firstAtOrAbove(seg, after) - 1;
      }
      for (; i >= 0; i--) yield seg[i]!;
      after = undefined;
    }
    return;
  }
  for (const seg of segments) {
    let i = 0;
    if (after !== undefined) {
      if (seg.length === 0 || seg[seg.length - 1]!.seq <= after) continue;
      i = firstAtOrAbove(seg, after + 1);
    }
    for (; i < seg.length; i++) yield seg[i]!;
    after = undefined;
  }
}

/** Index of the first entry whose seq is at least `seq` (binary search). */
function firstAtOrAbove(seg: readonly IndexEntry[], seq: number): number {
  let lo = 0;
  let hi = seg.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seg[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
