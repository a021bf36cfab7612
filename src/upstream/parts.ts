/**
 * From what was read to a {@link Part}: normalizing records through the shape layer and
 * deciding complete / incomplete / failed. A record that cannot be identified makes its
 * list incomplete, since whether it was removed cannot be told (docs/architecture.md, invariant 1).
 */
import type { TallyError } from '../core/errors.js';
import type { Part, PartError } from '../snapshot/model.js';
import { redact } from './errors.js';
import { type DriftIssue, type Endpoint, idField, type Normalized } from './shape/index.js';
import { fingerprint } from './lists/fingerprint.js';

/** The records of a list, normalized, with their drift and how many were unusable. */
export interface NormalizedList<T> {
  items: T[];
  drift: DriftIssue[];
  /** Records dropped because they could not be read (no id, fatal drift). */
  unusable: DriftIssue[];
}

/** Normalizes every record of a list; never throws for odd records. */
export function normalizeItems<T>(
  endpoint: Endpoint,
  raw: readonly unknown[],
  normalize: (r: unknown) => Normalized<T | undefined>,
): NormalizedList<T> {
  const items: T[] = [];
  const drift: DriftIssue[] = [];
  const unusable: DriftIssue[] = [];
  for (const r of raw) {
    const n = normalize(r);
    drift.push(...n.drift);
    const fatal = n.drift.find((i) => i.fatal);
    if (n.value === undefined || fatal) {
      unusable.push(fatal ?? { endpoint, field: 'record', problem: 'record could not be read', fatal: true });
    }
    if (n.value !== undefined && !fatal) items.push(n.value);
  }
  return { items, drift, unusable };
}

/** A list with one record per id, and what its repeated ids say. */
export interface DedupedList<T> {
  items: T[];
  /** One note for repeats of identical records, one fatal issue for repeats that differ. */
  drift: DriftIssue[];
  /** Records dropped although they differed from the record kept under their id. */
  conflicting: number;
}

/**
 * Keeps the first record of each id, in list order. A repeat identical to the record kept
 * (as tally reads it: the normalized record) is dropped with a note; one that differs is
 * dropped too, but then which of them is right cannot be told, so the caller must not take
 * the list as complete (a fatal issue says so). Counts only, never ids or values.
 */
export function dedupeById<T extends { id: string }>(
  endpoint: Endpoint,
  items: readonly T[],
): DedupedList<T> {
  const kept = new Map<string, { item: T; text: string | undefined }>();
  const out: T[] = [];
  let identical = 0;
  let conflicting = 0;
  for (const item of items) {
    const first = kept.get(item.id);
    if (first === undefined) {
      kept.set(item.id, { item, text: undefined });
      out.push(item);
      continue;
    }
    first.text ??= fingerprint(first.item);
    const text = fingerprint(item);
    if (text !== undefined && text === first.text) identical += 1;
    else conflicting += 1;
  }
  const field = idField(endpoint) ?? 'record';
  const records = (n: number) => (n === 1 ? '1 record has' : `${n} records have`);
  const drift: DriftIssue[] = [];
  if (identical > 0) {
    drift.push({
      endpoint,
      field,
      problem: `${records(identical)} the same id as an earlier, identical record of the list; the first of each was kept`,
      fatal: false,
    });
  }
  if (conflicting > 0) {
    drift.push({
      endpoint,
      field,
      problem: `${records(conflicting)} the same id as an earlier, different record of the list; the first of each was kept and the list is incomplete`,
      fatal: true,
    });
  }
  return { items: identical + conflicting === 0 ? [...items] : out, drift, conflicting };
}

/** The credential-free error of a part: `secret` (the org's token) is removed should it appear. */
export function partError(err: TallyError, secret: string): PartError {
  return { reason: err.reason, message: redact(err.message, secret) };
}

/** A part that read nothing usable. */
export function failedPart<T>(at: number, err: TallyError, secret: string): Part<T> {
  return { state: 'failed', at, error: partError(err, secret) };
}

/** A part holding what was read, complete unless `err` says why not. */
export function valuePart<T>(at: number, value: T, err?: TallyError, secret = ''): Part<T> {
  return err
    ? { state: 'incomplete', at, value, error: partError(err, secret) }
    : { state: 'complete', at, value };
}
