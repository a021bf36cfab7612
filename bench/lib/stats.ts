/** Small statistics for bench results: quantiles, means and a least-squares slope. */

/** Summary of a sample: count, p50, p95, max (undefined when empty). */
export interface Summary {
  n: number;
  p50: number | undefined;
  p95: number | undefined;
  max: number | undefined;
  mean: number | undefined;
}

/** The `q` quantile (nearest rank) of an ascending list. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** p50, p95, max and mean of `values`. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length === 0 ? undefined : sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    max: sorted.at(-1),
    mean,
  };
}

/** Least-squares slope of y over x (units of y per unit of x); 0 with fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The most requests found in any window of `windowMs` (times in ms, any order). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
