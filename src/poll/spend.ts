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

/** Counts reads per org and purpose over a sliding minute. */
export class SpendMeter {
  private readonly entries: { at: number; org: string; purpose: SpendPurpose }[] = [];

  constructor(private readonly clock: Clock) {}

  /** Counts one read. */
  count(org: string, purpose: SpendPurpose): void {
    // Elapsed time, not the wall clock: a step of it neither empties nor freezes the minute.
    const now = this.clock.monotonic();
    this.prune(now);
    this.entries.push({ at: now, org, purpose });
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
        this.count(org.slug, sessions(priorityOf(o)));
        return fetcher.fetchSessions(org, channelId, o);
      },
      fetchSessionDetail: (org, sessionId, o) => {
        this.count(org.slug, 'detail');
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
