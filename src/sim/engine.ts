/**
 * The simulation without its HTTP shell: the world generated from the seed, its
 * evolution, and the mapping from the clock to simulated time. It catches up lazily:
 * whoever looks (a request, a trigger, `advance()`) first brings the world to now.
 */
import type { Clock } from '../core/clock.js';
import { ChangeLog } from './changes.js';
import { type Dynamics, dynamicsFor } from './dynamics.js';
import { Evolver } from './evolve.js';
import { generateWorld } from './generate.js';
import type { ResolvedOptions } from './options.js';
import { deriveSeed, Rng } from './rng.js';
import type { Change } from './types.js';
import { World } from './world.js';

/** World, evolution and clock, for the HTTP shell and the typed helpers. */
export class Engine {
  readonly world: World;
  readonly evolver: Evolver;
  readonly changes: ChangeLog;
  readonly dynamics: Dynamics;
  /** Draws names and texts for triggers, apart from the evolution's stream. */
  readonly triggerRng: Rng;
  private readonly clock: Clock;

  constructor(opts: ResolvedOptions) {
    this.clock = opts.clock;
    this.dynamics = dynamicsFor(opts.scenario);
    this.changes = new ChangeLog(opts.maxChanges);
    this.world = new World(opts.clock.now(), opts.speed, this.changes, opts.seed, this.dynamics);
    generateWorld(this.world, opts.orgs, opts.seed, this.dynamics);
    this.evolver = new Evolver(this.world, this.dynamics, opts.seed, opts.frozen, opts.incidents);
    this.evolver.init();
    this.triggerRng = new Rng(deriveSeed(opts.seed, 'triggers'));
  }

  /** Simulated time now, from the clock. */
  simNow(): number {
    return this.world.toSim(this.clock.now());
  }

  /** Brings the world up to the clock. */
  advance(): void {
    this.evolver.advanceTo(this.simNow());
  }

  /** Runs `fn` as a trigger (after catching up); returns its result and the changes it made. */
  asTrigger<T>(fn: () => T): { result: T; changes: Change[] } {
    this.advance();
    const before = this.changes.seq;
    this.world.source = 'trigger';
    try {
      const result = fn();
      return { result, changes: this.changes.read(before).changes };
    } finally {
      this.world.source = 'evolve';
    }
  }
}
