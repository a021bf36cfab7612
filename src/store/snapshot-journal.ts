/**
 * A snapshot's journal: what changed since the snapshot file was last written whole, one
 * JSON line per save (docs/state.md, "Snapshots and their journal"). At 100k sessions a
 * snapshot file is some 18 MiB while a save after a poll changes a few session lists, so
 * a save appends those parts and the whole file is written again only when the journal
 * has grown to a share of it.
 *
 * The journal's first line names the snapshot file it continues (its `generation`); a
 * journal that names another one is stale (a crash between writing the file whole and
 * starting a new journal) and is ignored. A line cut off by a crash can only be the last
 * one; reading stops at the first line that is not a whole record.
 */
import { readFile } from 'node:fs/promises';
import { setOwn } from '../core/own.js';
import type { OrgSnapshot, Part, SessionDetail, SessionsPart } from '../snapshot/model.js';
import { errnoCode, toStoreError } from './errors.js';

/** The `format` of a journal's first line. */
export const JOURNAL_FORMAT = 'tally-snapshot-journal';
/** The journal format version this build reads and writes. */
export const JOURNAL_VERSION = 1;

/** The org-level parts of a snapshot, replaced or removed whole. */
const TOP_PARTS = ['profile', 'team', 'subscription', 'channels'] as const;
type TopPart = (typeof TOP_PARTS)[number];

/** The first line of a journal. */
export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: typeof JOURNAL_VERSION;
  org: string;
  /** The `generation` of the snapshot file this journal continues. */
  generation: string;
}

/** One save: the parts that changed since the one before, and the save's envelope fields. */
export interface JournalRecord {
  savedAt: number;
  takenAt: number;
  /** Org-level parts replaced; `null` for one the snapshot no longer has. */
  top?: Partial<Record<TopPart, Part<unknown> | null>>;
  /** Session lists replaced or added, by channel id. */
  sessions?: Record<string, SessionsPart>;
  /** Channels whose session list is gone. */
  sessionsGone?: string[];
  /** Session details replaced or added, by session id. */
  details?: Record<string, Part<SessionDetail>>;
  /** Sessions whose detail is gone. */
  detailsGone?: string[];
  /** The save's extra envelope fields (e.g. events not yet in the log). */
  extra?: Record<string, unknown>;
}

/**
 * What changed from `prev` to `next`. Parts are never changed in place (a read replaces a
 * part whole), so a part that is the same object in both is unchanged: this looks at each
 * key once and copies nothing but the changed parts' references.
 */
export function snapshotDelta(
  prev: OrgSnapshot,
  next: OrgSnapshot,
  savedAt: number,
  extra: Record<string, unknown>,
): JournalRecord {
  const record: JournalRecord = { savedAt, takenAt: next.takenAt };
  for (const key of TOP_PARTS) {
    if (prev[key] === next[key]) continue;
    record.top ??= {};
    record.top[key] = next[key] ?? null;
  }
  const sessions = changedEntries(prev.sessions, next.sessions);
  if (sessions.set) record.sessions = sessions.set;
  if (sessions.gone) record.sessionsGone = sessions.gone;
  const details = changedEntries(prev.details, next.details);
  if (details.set) record.details = details.set;
  if (details.gone) record.detailsGone = details.gone;
  if (Object.keys(extra).length > 0) record.extra = extra;
  return record;
}

function changedEntries<T>(
  prev: Record<string, T>,
  next: Record<string, T>,
): { set?: Record<string, T>; gone?: string[] } {
  if (prev === next) return {};
  let set: Record<string, T> | undefined;
  let gone: string[] | undefined;
  for (const key of Object.keys(next)) {
    const value = next[key]!;
    if (Object.hasOwn(prev, key) && prev[key] === value) continue;
    set ??= {};
    setOwn(set, key, value);
  }
  for (const key of Object.keys(prev)) {
    if (Object.hasOwn(next, key)) continue;
    gone ??= [];
    gone.push(key);
  }
  return { ...(set && { set }), ...(gone && { gone }) };
}

/** Applies `record` to `snapshot` in place (a snapshot just read from disk, not yet shared). */
export function applyRecord(snapshot: OrgSnapshot, record: JournalRecord): void {
  snapshot.takenAt = record.takenAt;
  for (const key of TOP_PARTS) {
    if (!record.top || !Object.hasOwn(record.top, key)) continue;
    const part = record.top[key];
    if (part === null || part === undefined) delete snapshot[key];
    else (snapshot as unknown as Record<string, unknown>)[key] = part;
  }
  assign(snapshot.sessions, record.sessions, record.sessionsGone);
  assign(snapshot.details, record.details, record.detailsGone);
}

function assign<T>(
  target: Record<string, T>,
  set: Record<string, T> | undefined,
  gone: string[] | undefined,
): void {
  for (const key of gone ?? []) delete target[key];
  if (!set) return;
  for (const key of Object.keys(set)) setOwn(target, key, set[key]!);
}

/** The journal's first line for a snapshot file of `generation`. */
export function journalHeaderLine(org: string, generation: string): string {
  const header: JournalHeader = { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, org, generation };
  return `${JSON.stringify(header)}\n`;
}

/** What reading a journal found. */
export type JournalRead =
  | { status: 'missing' }
  /** A journal of another snapshot file, org, format or version: nothing of it applies. */
  | { status: 'other'; why: string }
  /** Not a journal at all (a directory): set aside, the file alone holds. */
  | { status: 'damaged'; problem: string }
  | {
      status: 'ok';
      records: JournalRecord[];
      /**
       * Set when reading stopped before the end: which line, and why; `cutOff` when it is
       * the last line and not whole JSON, what a crash during an append leaves.
       */
      stopped?: { line: number; problem: string; cutOff: boolean };
    };

/**
 * Reads the journal at `path` for `org`'s snapshot file of `generation`. Throws a
 * StoreError only when the file cannot be read at all (permissions, I/O).
 */
export async function readJournal(
  path: string,
  org: string,
  generation: string | undefined,
): Promise<JournalRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return { status: 'missing' };
    // As for the snapshot file itself (atomic.ts): a directory is damage, other errors
    // (permissions, I/O) stop the load rather than resume from a state older than saved.
    if (code === 'EISDIR') return { status: 'damaged', problem: 'is a directory' };
    throw toStoreError(err, 'read', path);
  }
  // Blank lines (and a byte-order mark) carry nothing: an editor or a copy may add them.
  // Lines keep their numbers in the file, for the messages.
  const lines = text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l, i) => ({ text: l, number: i + 1 }))
    .filter((l) => l.text.trim() !== '');
  const header = parseObject(lines[0]?.text ?? '');
  if (header === undefined) return { status: 'other', why: 'its first line is not a journal header' };
  if (header['format'] !== JOURNAL_FORMAT)
    return { status: 'other', why: `format ${JSON.stringify(header['format'])}` };
  if (header['version'] !== JOURNAL_VERSION)
    return { status: 'other', why: `unsupported version ${JSON.stringify(header['version'])}` };
  if (header['org'] !== org) return { status: 'other', why: `holds org ${JSON.stringify(header['org'])}` };
  if (generation === undefined || header['generation'] !== generation)
    return { status: 'other', why: 'continues another snapshot file' };
  const records: JournalRecord[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const record = recordProblem(line.text);
    if (typeof record === 'string') {
      // Only a last line that is not whole JSON is what an interrupted append leaves; a
      // whole value that is no record (`null`, a list) is damage like any other line.
      const cutOff = i === lines.length - 1 && !isWholeJson(line.text);
      return { status: 'ok', records, stopped: { line: line.number, problem: record, cutOff } };
    }
    records.push(record);
  }
  return { status: 'ok', records };
}

function isWholeJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The record on `line`, or what is wrong with it. */
function recordProblem(line: string): JournalRecord | string {
  const r = parseObject(line);
  if (r === undefined) return 'not a whole JSON object (cut off?)';
  if (typeof r['savedAt'] !== 'number' || typeof r['takenAt'] !== 'number') return 'no savedAt or takenAt';
  for (const key of ['top', 'sessions', 'details', 'extra']) {
    const v = r[key];
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v)))
      return `${key} is not an object`;
  }
  for (const key of ['sessionsGone', 'detailsGone']) {
    const v = r[key];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
      return `${key} is not a list of ids`;
  }
  const top = r['top'] as Record<string, unknown> | undefined;
  for (const key of Object.keys(top ?? {})) {
    if (!(TOP_PARTS as readonly string[]).includes(key))
      return `top names an unknown part ${JSON.stringify(key)}`;
    const part = top![key];
    if (part !== null && !isPart(part)) return `top.${key} is not a part`;
  }
  for (const key of ['sessions', 'details']) {
    const parts = r[key] as Record<string, unknown> | undefined;
    for (const id of Object.keys(parts ?? {})) if (!isPart(parts![id])) return `${key}.${id} is not a part`;
  }
  return r as unknown as JournalRecord;
}

/** Whether `v` looks like a part: a state and a fetch time. */
export function isPart(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return (
    (p['state'] === 'complete' || p['state'] === 'incomplete' || p['state'] === 'failed') &&
    typeof p['at'] === 'number'
  );
}
