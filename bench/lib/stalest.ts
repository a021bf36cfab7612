/**
 * The stalest channel's age against the sweep bound tally stated at that moment: the
 * promise of docs/polling.md ("The bound it reports") checked from the outside, from when the
 * simulator received each session-list read.
 */

/** The bound tally stated at one moment (its plan's `sweepBoundMs`, recorded every clock second by bench/lib/tally-child.ts). */
export interface BoundPoint {
  at: number;
  boundMs: number;
}

/** The worst moment found by {@link stalestAgainstBound}. */
export interface StalestResult {
  /** Largest age ÷ bound stated at that moment, over every channel and moment; 0 when nothing was judged. */
  maxRatio: number;
  /** The age and the bound at that moment, ms. */
  ageMs: number;
  boundMs: number;
  /** Channels whose age went past the bound stated at some moment. */
  channelsOver: number;
}

/**
 * For every channel, its age at every moment from `from` (or its first read, for a cold
 * start: the first baseline has its own goal) to `end`, against the bound stated then.
 * Between two samples the bound taken is the lower of the two (a bound lowered between
 * samples counts from the sample before), so the figure never flatters tally.
 */
export function stalestAgainstBound(opts: {
  reads: ReadonlyMap<string, readonly number[]>;
  channelIds: readonly string[];
  from: number;
  end: number;
  bounds: readonly BoundPoint[];
  fromFirstRead?: boolean;
}): StalestResult {
  const pts = opts.bounds.filter((p) => p.boundMs > 0);
  const out: StalestResult = { maxRatio: 0, ageMs: 0, boundMs: 0, channelsOver: 0 };
  if (pts.length === 0) return out;
  const boundAt = (t: number): number => {
    const j = firstAtOrAfter(pts, t);
    if (j === 0) return pts[0]!.boundMs;
    if (j === pts.length) return pts.at(-1)!.boundMs;
    return Math.min(pts[j - 1]!.boundMs, pts[j]!.boundMs);
  };
  for (const id of opts.channelIds) {
    const times = (opts.reads.get(id) ?? []).filter((t) => t >= opts.from && t <= opts.end);
    if (opts.fromFirstRead && times.length === 0) continue;
    let prev = opts.fromFirstRead ? times[0]! : opts.from;
    let over = false;
    const judge = (t: number) => {
      const b = boundAt(t);
      const ratio = (t - prev) / b;
      if (ratio > 1) over = true;
      if (ratio > out.maxRatio) Object.assign(out, { maxRatio: ratio, ageMs: t - prev, boundMs: b });
    };
    for (const next of [...times, opts.end]) {
      if (next <= prev) continue;
      // The bound is constant between samples: the worst moment of each piece is its end.
      for (let j = firstAtOrAfter(pts, prev); j < pts.length && pts[j]!.at < next; j++) {
        if (pts[j]!.at > prev) judge(pts[j]!.at);
      }
      judge(next);
      prev = next;
    }
    if (over) out.channelsOver += 1;
  }
  return out;
}

/** Index of the first point at or after `t` (points sorted by time). */
function firstAtOrAfter(pts: readonly BoundPoint[], t: number): number {
  let lo = 0;
  let hi = pts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pts[mid]!.at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
