/**
 * What keeps an alert from being sent while it is still tracked: silences, maintenance
 * windows, and inhibition — an org whose upstream is unreachable or refuses the token has
 * its data alerts muted (its data is stale or absent, so they would mislead), and the
 * alerts about the upstream itself say how many are muted.
 */
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgHealthView } from '../poll/status.js';
import type { MaintenanceWindows } from './maintenance.js';
import type { CompiledRule } from './rules.js';
import type { Silences } from './silences.js';
import type { TrackedAlert } from './tracker.js';

/** Upstream states that inhibit an org's data alerts. */
export type DownState = 'unreachable' | 'auth_failed';

/** What mutes one alert. */
export interface Mutes {
  /** Silence ids and `maintenance:<name>`. */
  silenced: string[];
  /** `upstream:<state>`. */
  inhibited: string[];
  muted: boolean;
}

/** Silences, maintenance windows and upstream inhibition together. */
export class Muting {
  private readonly down = new Map<string, DownState>();

  constructor(
    private readonly silences: Silences,
    private readonly windows: MaintenanceWindows,
    private readonly inhibitUpstream: boolean,
    private readonly rule: (name: string) => CompiledRule | undefined,
  ) {}

  /** Follows an org's health as the poller reports it; `unknown` changes nothing. */
  health(org: string, state: OrgHealthView['state']): void {
    if (state === 'unreachable' || state === 'auth_failed') this.down.set(org, state);
    else if (state === 'ok') this.down.delete(org);
  }

  /** Follows upstream events. */
  event(e: ChangeEvent): void {
    if (e.kind === 'upstream.unreachable') this.down.set(e.org, 'unreachable');
    else if (e.kind === 'upstream.auth_failed') this.down.set(e.org, 'auth_failed');
    else if (e.kind === 'upstream.recovered') this.down.delete(e.org);
  }

  /** What mutes an alert at `now`. */
  of(a: TrackedAlert, now: number): Mutes {
    const silenced = [
      ...this.silences.matching(a.labels, now),
      ...this.windows.matching(a.labels, now).map((n) => `maintenance:${n}`),
    ];
    const inhibited: string[] = [];
    const down = this.down.get(a.org);
    if (down && this.inhibitUpstream && this.rule(a.rule)?.inhibitable) inhibited.push(`upstream:${down}`);
    return { silenced, inhibited, muted: silenced.length > 0 || inhibited.length > 0 };
  }

  /** Sets (or removes) the `inhibits` annotation of firing upstream alerts. */
  annotate(alerts: Iterable<TrackedAlert>): void {
    const muted = new Map<string, number>();
    const sources: TrackedAlert[] = [];
    for (const a of alerts) {
      if (a.state !== 'firing') continue;
      const rule = this.rule(a.rule);
      if (rule?.upstream) sources.push(a);
      else if (this.inhibitUpstream && rule?.inhibitable && this.down.has(a.org)) {
        muted.set(a.org, (muted.get(a.org) ?? 0) + 1);
      }
    }
    for (const a of sources) {
      const n = muted.get(a.org) ?? 0;
      const down = this.down.get(a.org);
      if (n === 0 || !down) {
        delete a.annotations['inhibits'];
        continue;
      }
      const why = down === 'auth_failed' ? 'its token is refused' : 'it is unreachable';
      a.annotations['inhibits'] =
        `${n} data alert${n === 1 ? ' is' : 's are'} muted for org ${a.org} while ${why}.`;
    }
  }

  /** Orgs currently down, for the state file. */
  toJSON(): Record<string, DownState> {
    return Object.fromEntries(this.down);
  }

  /** Restores orgs that were down, so inhibition holds until their health is known again. */
  restore(down: Readonly<Record<string, DownState>>): void {
    for (const [org, state] of Object.entries(down)) this.down.set(org, state);
  }
}
