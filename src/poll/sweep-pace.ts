/**
 * How long the sweep's reads take to land, from being chosen to being answered: a sweep
 * read waits its turn in the budget behind the channel list, follow-ups and periodic
 * reads, seconds when the budget is busy. The planner takes a channel as at risk of the
 * bound that much earlier, and counts the sweep's least pace by it (docs/polling.md, "The
 * bound it reports").
 */
import { riskAfter, type SweepEntry, type SweepPolicy } from './planner.js';

/** Sweep reads whose lead time is kept. */
const LEAD_SAMPLES = 100;

/** The lead times of the last {@link LEAD_SAMPLES} sweep reads. */
export class SweepLeads {
  private readonly leads: number[] = [];

  /** A sweep read chosen `ms` ago was answered. */
  note(ms: number): void {
    this.leads.push(Math.max(0, ms));
    if (this.leads.length > LEAD_SAMPLES) this.leads.shift();
  }

  /** The mean lead, 0 before any read. */
  mean(): number {
    return this.leads.length === 0 ? 0 : this.leads.reduce((a, b) => a + b, 0) / this.leads.length;
  }

  /** The longest lead kept, 0 before any read. */
  max(): number {
    return this.leads.length === 0 ? 0 : Math.max(...this.leads);
  }

  /** The 95th percentile: how much earlier a channel counts as at risk of the bound. */
  p95(): number {
    if (this.leads.length === 0) return 0;
    const sorted = [...this.leads].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
  }
}

/**
 * Channels with a read under way whose age, from the read before it, has reached the
 * share of the bound that makes a channel at risk (planner.ts, `riskAfter`): their read
 * goes with the follow-ups. A hot read or a sweep read waiting its turn in a busy budget
 * counts as the channel's read from when it began, and would otherwise land past the
 * bound (docs/polling.md, "The bound it reports").
 */
export function underwayAtRisk(entries: readonly SweepEntry[], p: SweepPolicy): SweepEntry[] {
  if (p.boundMs === undefined || p.boundMs <= 0) return [];
  const after = riskAfter(p.boundMs, p.leadMs);
  return entries.filter(
    (e) => e.priorReadAt !== undefined && e.priorReadAt <= p.now && p.now - e.priorReadAt >= after,
  );
}
