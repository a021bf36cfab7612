/**
 * Organization settings flattened to `dotted.keys` → scalar, so a change deep inside
 * shows up as one changed key. Lists of scalars are kept as their JSON text; lists of
 * objects and objects nested deeper than {@link MAX_DEPTH} levels are dropped and noted.
 */
import type { Scalar } from '../../snapshot/model.js';
import type { DriftLog } from './drift.js';
import type { FieldKey } from './fields.js';
import { describeValue, isRecord, type JsonRecord } from './json.js';

/** Deepest key kept: `a.b.c`. */
export const MAX_DEPTH = 3;

/** Flattens a settings object; problems go to `drift` under `field`. */
export function flattenSettings(
  settings: JsonRecord,
  drift: DriftLog,
  field: FieldKey,
): Record<string, Scalar> {
  const out: [string, Scalar][] = [];
  walk(settings, '', 1);
  return Object.fromEntries(out);

  function walk(o: JsonRecord, prefix: string, depth: number): void {
    for (const [k, v] of Object.entries(o)) {
      const key = prefix === '' ? k : `${prefix}.${k}`;
      if (v === null || v === undefined) continue;
      if (typeof v === 'string' || typeof v === 'boolean') out.push([key, v]);
      else if (typeof v === 'number') {
        if (Number.isFinite(v)) out.push([key, v]);
      } else if (Array.isArray(v)) {
        if (v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))) {
          out.push([key, JSON.stringify(v)]);
        } else drift.note(field, `dropped '${key}': ${describeValue(v)} of objects`);
      } else if (isRecord(v)) {
        if (depth >= MAX_DEPTH) drift.note(field, `dropped '${key}': nested deeper than ${MAX_DEPTH} levels`);
        else walk(v, key, depth + 1);
      }
    }
  }
}
