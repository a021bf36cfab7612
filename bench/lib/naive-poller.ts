/**
 * The baseline tally is measured against: a fixed full sweep. Every request in turn,
 * round-robin — profile, team, subscription, the channel list, then every channel's
 * session list — through the same client (same budget) and diffed with the same `diff`
 * after each read. No priorities, no hot channels, no follow-up reads.
 */
import type { Clock } from '../../src/core/clock.js';
import type { OrgAuth } from '../../src/poll/fetcher.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type { OrgSnapshot, Part, SessionsPart } from '../../src/snapshot/model.js';
import type { UpstreamClient } from '../../src/upstream/client.js';

/** What the naive poller is built with. */
export interface NaivePollerDeps {
  client: UpstreamClient;
  auth: OrgAuth;
  initial: OrgSnapshot;
  clock: Clock;
  window: { past: number; future: number };
  onEvents: (events: ChangeEvent[]) => void;
}

/** Reads everything in a fixed order, forever, within the client's budget. */
export class NaivePoller {
  private current: OrgSnapshot;
  /** Full rounds completed, and when the last one ended (clock ms). */
  rounds = 0;
  roundMs: number[] = [];

  constructor(private readonly deps: NaivePollerDeps) {
    this.current = deps.initial;
  }

  /** Runs rounds until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { client, auth } = this.deps;
    const o = { signal, priority: 'normal' as const };
    while (!signal.aborted) {
      const started = this.deps.clock.now();
      try {
        this.fold('profile', await client.fetchOrg(auth, o));
        this.fold('team', await client.fetchTeam(auth, o));
        this.fold('subscription', await client.fetchSubscription(auth, o));
        this.fold('channels', await client.fetchChannels(auth, o));
        const channels = this.current.channels?.state === 'complete' ? this.current.channels.value : [];
        for (const ch of channels) {
          const now = this.deps.clock.now();
          const window = { from: now - this.deps.window.past, to: now + this.deps.window.future };
          this.foldSessions(ch.id, await client.fetchSessions(auth, ch.id, { ...o, window }));
        }
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
      this.rounds += 1;
      this.roundMs.push(this.deps.clock.now() - started);
    }
  }

  private fold(part: 'profile' | 'team' | 'subscription' | 'channels', value: Part<unknown>): void {
    const prev = this.current[part];
    if (value.state !== 'complete' && prev?.state === 'complete') return;
    this.commit({ ...this.current, [part]: value } as OrgSnapshot);
  }

  private foldSessions(channelId: string, part: SessionsPart): void {
    const prev = this.current.sessions[channelId];
    if (part.state !== 'complete' && prev?.state === 'complete') return;
    this.commit({ ...this.current, sessions: { ...this.current.sessions, [channelId]: part } });
  }

  private commit(next: OrgSnapshot): void {
    const events = diff(this.current, { ...next, takenAt: this.deps.clock.now() });
    const sessions = { ...next.sessions };
    for (const e of events) {
      // A channel that appears starts from an empty list, as in tally, so its sessions count as added.
      if (e.kind === 'channel.added') sessions[e.entity.id] = emptyList(e.at, this.deps.window);
      if (e.kind === 'channel.removed') delete sessions[e.entity.id];
    }
    this.current = { ...next, sessions };
    if (events.length > 0) this.deps.onEvents(events);
  }
}

function emptyList(at: number, w: { past: number; future: number }): SessionsPart {
  return { state: 'complete', at, value: [], window: { from: at - w.past, to: at + w.future } };
}
