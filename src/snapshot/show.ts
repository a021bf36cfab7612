/** How a value of an event reads in one line (describe.ts, detail-groups.ts). */
import type { JsonValue } from './events.js';

/** `—` for nothing, a string as it is, a number with at most two decimals, anything else as JSON. */
export function show(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(2);
  return JSON.stringify(v);
}
