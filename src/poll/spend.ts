/**
 * What the planner spends the budget on, per org, over the last minute (docs/polling.md,
 * "Explainable"): every read is counted under the purpose its endpoint and priority say.
 * Bounded: at most one entry per request of the last 60 s (the budget caps those at 300).
 */
import type { Clock } from '../core/clock.js';
import type { Fetcher, Priority } from './fetcher.js';
import { priorityOf } from '../upstream/types.js';

/** Why a read was made. */
export type SpendPurpose =
  | 'channel_list'
  | 'org_parts'
  | 'hot'
  | 'follow_up'
  | 'sweep'
  | 'recheck'
  | 'detail';

/** Every purpose, in documentation order. */
export const SPEND_PURPOSES: readonly SpendPurpose[] = [
  'channel_list',
  'org_parts',
  'hot',
  'follow_up',
  'sweep',
  'recheck',
  'detail',
];

const WINDOW_MS = 60_000;
/** Counts of {@link SpendMeter.givenFirstPeak} it takes the most of: 5 minutes of plans. */
const FIRST_SAMPLES = 10;

/** Counts reads per org and purpose over a sliding minute. */
export class SpendMeter {
  private readonly entries: { at: number; org: string; purpose: SpendPurpose; first?: true }[] = [];

  constructor(private readonly clock: Clock) {}

  /**
   * Counts one read; `first` marks a session or detail read given first, outside the
   * plan's shares (a follow-up or a confirming read, priority `follow` or `high`).
   */
  count(org: string, purpose: SpendPurpose, first = false): void {
    // Elapsed time, not the wall clock: a step of it neither empties nor freezes the minute.
    const now = this.clock.monotonic();
    this.prune(now);
    this.entries.push(first ? { at: now, org, purpose, first } : { at: now, org, purpose });
  }

  private readonly firstSamples: number[] = [];

  /**
   * {@link givenFirst} now, sampled with every plan (every 30 s): the most of the last
   * {@link FIRST_SAMPLES} samples. Follow-ups come in bursts (flips, starts, ends): a plan
   * that gave the sweep a lull's room as pace states a bound the next burst breaks (bench
   * `lively`, 100 channels: the stalest channel 1.14 × the bound). So the count the planner
   * takes rises at once with them and comes down only after 5 calmer minutes.
   */
  givenFirstPeak(): number {
    this.firstSamples.push(this.givenFirst());
    if (this.firstSamples.length > FIRST_SAMPLES) this.firstSamples.shift();
    return Math.max(...this.firstSamples);
  }

  /**
   * Session and detail reads given first over the last minute, every org: what the planner
   * counts before the hot reads and the sweep (planner.ts, `followUpsPerMinute`).
   */
  givenFirst(): number {
    this.prune(this.clock.monotonic());
    let n = 0;
    for (const e of this.entries) if (e.first) n += 1;
    return n;
  }

  /** Reads of the last minute by purpose for `org` (every purpose present, 0 when none). */
  of(org: string): Record<SpendPurpose, number> {
    this.prune(this.clock.monotonic());
    const out = Object.fromEntries(SPEND_PURPOSES.map((p) => [p, 0])) as Record<SpendPurpose, number>;
    for (const e of this.entries) if (e.org === org) out[e.purpose] += 1;
    return out;
  }

  /** `fetcher`, counting every read it is asked for. */
  wrap(fetcher: Fetcher): Fetcher {
    const sessions = (p: Priority): SpendPurpose =>
      p === 'low' ? 'sweep' : p === 'follow' ? 'follow_up' : p === 'high' ? 'recheck' : 'hot';
    const first = (p: Priority) => p === 'follow' || p === 'high';
    return {
      fetchOrg: (org, o) => {
        this.count(org.slug, 'org_parts');
        return fetcher.fetchOrg(org, o);
      },
      fetchTeam: (org, o) => {
        this.count(org.slug, 'org_parts');
        return fetcher.fetchTeam(org, o);
      },
      fetchSubscription: (org, o) => {
        this.count(org.slug, 'org_parts');
        return fetcher.fetchSubscription(org, o);
      },
      fetchChannels: (org, o) => {
        this.count(org.slug, 'channel_list');
        return fetcher.fetchChannels(org, o);
      },
      fetchSessions: (org, channelId, o) => {
        this.count(org.slug, sessions(priorityOf(o)), first(priorityOf(o)));
        return fetcher.fetchSessions(org, channelId, o);
      },
      fetchSessionDetail: (org, sessionId, o) => {
        this.count(org.slug, 'detail', first(priorityOf(o)));
        return fetcher.fetchSessionDetail(org, sessionId, o);
      },
    };
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.entries.length && this.entries[drop]!.at <= now - WINDOW_MS) drop++;
    if (drop > 0) this.entries.splice(0, drop);
    if (this.entries.length > 10_000) this.entries.splice(0, this.entries.length - 10_000);
  }
}
