/**
 * A steady world: the simulator frozen, and changes made by the bench at a fixed rate
 * whatever the org's size — sessions starting and ending (channels going live and back),
 * channels going offline and coming back, members joining, changing role and leaving —
 * with about `liveTarget` channels live at any time. The load on tally is then the same
 * at 100 and at 5000 channels, so what changes between sizes is the size alone.
 */
import type { Clock, TimerHandle } from '../../src/core/clock.js';
import type { Simulator } from '../../src/sim/index.js';
import { Rng } from '../../src/sim/rng.js';

/** Options of {@link WorldDriver}. */
export interface WorldDriverOptions {
  sim: Simulator;
  clock: Clock;
  org: string;
  /** Clock time between two changes. */
  everyMs: number;
  /** Channels live at once, about. */
  liveTarget: number;
  seed: number;
}

/** Makes changes on a frozen simulator at a fixed pace. */
export class WorldDriver {
  private readonly rng: Rng;
  private readonly status = new Map<string, string>();
  private readonly added: string[] = [];
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** Changes made so far, by action. */
  readonly made: Record<string, number> = {};

  constructor(private readonly o: WorldDriverOptions) {
    this.rng = new Rng(o.seed);
    for (const c of o.sim.view(o.org).channels) this.status.set(String(c['id']), String(c['status']));
  }

  /** Ends live sessions until at most `liveTarget` channels are live (before tally starts). */
  settle(): void {
    const live = this.channels('live');
    for (const id of live.slice(this.o.liveTarget)) this.end(id);
  }

  /** Starts making changes. */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.step();
      this.timer = this.o.clock.setTimeout(tick, this.o.everyMs);
    };
    this.timer = this.o.clock.setTimeout(tick, this.o.everyMs);
  }

  /** Stops making changes. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private channels(status: string): string[] {
    return [...this.status].filter(([, s]) => s === status).map(([id]) => id);
  }

  private pick<T>(list: readonly T[]): T | undefined {
    return list.length === 0 ? undefined : list[Math.floor(this.rng.next() * list.length)];
  }

  private count(action: string): void {
    this.made[action] = (this.made[action] ?? 0) + 1;
  }

  private step(): void {
    const r = this.rng.next();
    const live = this.channels('live');
    try {
      if (r < 0.7) {
        const starting = live.length < this.o.liveTarget ? r < 0.45 : r < 0.25;
        const id = starting ? this.pick(this.channels('idle')) : this.pick(live);
        if (id !== undefined) {
          if (starting) this.startOn(id);
          else this.end(id);
        }
      } else if (r < 0.9) {
        const id = this.pick([...this.channels('idle'), ...this.channels('offline')]);
        if (id !== undefined) {
          const to = this.status.get(id) === 'idle' ? 'offline' : 'idle';
          this.o.sim.trigger.channelStatus({ org: this.o.org, channel: id, status: to });
          this.status.set(id, to);
          this.count(`channel ${to}`);
        }
      } else {
        this.member();
      }
    } catch (err) {
      // A trigger the world refuses (409) is skipped; anything else is a bench bug.
      if ((err as { status?: number }).status !== 409) throw err;
    }
  }

  private startOn(id: string): void {
    this.o.sim.trigger.startSession({ org: this.o.org, channel: id });
    this.status.set(id, 'live');
    this.count('session started');
  }

  private end(id: string): void {
    const failed = this.rng.next() < 0.1;
    const input = { org: this.o.org, channel: id };
    if (failed) this.o.sim.trigger.failSession(input);
    else this.o.sim.trigger.endSession(input);
    this.status.set(id, 'idle');
    this.count(failed ? 'session failed' : 'session ended');
  }

  private member(): void {
    const roll = this.rng.next();
    const someone = this.pick(this.added);
    if (someone !== undefined && roll < 0.3) {
      this.o.sim.trigger.removeMember({ org: this.o.org, member: someone });
      this.added.splice(this.added.indexOf(someone), 1);
      this.count('member removed');
    } else if (someone !== undefined && roll < 0.6) {
      const role = this.pick(['admin', 'member', 'viewer'] as const)!;
      this.o.sim.trigger.memberRole({ org: this.o.org, member: someone, role });
      this.count('member role');
    } else {
      const id = this.o.sim.trigger.addMember({ org: this.o.org, role: 'member' }).id;
      if (id !== undefined) this.added.push(id);
      this.count('member added');
    }
  }
}
