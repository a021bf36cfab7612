/**
 * From what was read to a {@link Part}: normalizing records through the shape layer and
 * deciding complete / incomplete / failed. A record that cannot be identified makes its
 * list incomplete, since whether it was removed cannot be told (docs/architecture.md, invariant 1).
 */
import type { TallyError } from '../core/errors.js';
import type { Part, PartError } from '../snapshot/model.js';
import { redact } from './errors.js';
import type { DriftIssue, Endpoint, Normalized } from './shape/index.js';

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
