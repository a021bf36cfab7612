/**
 * Orders strings by UTF-16 code units: the same on every machine and locale, unlike
 * `localeCompare`, so ties break identically in tests, snapshots and on every replica.
 */

/** Compares `a` and `b` by code units: negative, zero or positive, for `Array.prototype.sort`. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
