/**
 * The cardinality guard. Per-channel and per-session families grow with the upstream
 * (an org may have thousands of channels), so each such family may expose at most a
 * configured number of series per scrape. Entities are admitted whole (a channel never
 * shows half of its state set) in a stable order (org, then id), so the same entities
 * stay exposed from one scrape to the next instead of churning series. Org-level
 * aggregates (`tally_channels`, `tally_sessions` …) are never capped, so totals stay right.
 */

/** Caps on series per family and scrape. */
export interface SeriesCaps {
  /** Series of each per-channel family (`tally_channel_status`, `tally_channel_sessions`). */
  channelSeries: number;
  /** Series of each per-session family (`tally_session_questions` …). */
  sessionSeries: number;
}

/** Defaults: 5000 channels with four known statuses, 5000 live sessions. */
export const DEFAULT_SERIES_CAPS: SeriesCaps = { channelSeries: 20_000, sessionSeries: 5_000 };

/** Fills in the defaults and checks the caps are usable. */
export function resolveCaps(caps: Partial<SeriesCaps> | undefined): SeriesCaps {
  const out = { ...DEFAULT_SERIES_CAPS, ...caps };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`series cap ${name} must be an integer ≥ 0`);
  }
  return out;
}

/** Counts the series one family exposes in one scrape against its cap. */
export class SeriesAllowance {
  private used = 0;
  /** Series left out in this scrape. */
  dropped = 0;

  constructor(private readonly cap: number) {}

  /** Admits an entity's `n` series when they all fit; otherwise counts them as dropped. */
  admit(n: number): boolean {
    if (this.used + n > this.cap) {
      this.dropped += n;
      return false;
    }
    this.used += n;
    return true;
  }
}
