/**
 * The alert lifecycle and grouping across steps of the wall clock (docs/reliability.md,
 * "Clock steps"): `for`, `keep_firing_for`, `resolve_after` and the group timers measure the
 * time that passed, so a step either way fires nothing early and holds nothing back.
 */
import { describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import { channel, engine, HOUR, MIN, SEC, summary, view } from './helpers.js';

const config = `
rules:
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    for: 30m
    keep_firing_for: 10m
route:
  receiver: ops
  group_wait: 30s
  group_interval: 1m
  repeat_interval: 4h
`;

const down = view('acme', { channels: [channel('c1', 'offline')] });
const up = view('acme', { channels: [channel('c1', 'live')] });

/** Evaluates `v` and ticks every 5 s for `ms` of elapsed time; returns what was sent. */
function run(x: ReturnType<typeof engine>, v: typeof down, ms: number): Notification[] {
  const out: Notification[] = [];
  for (let t = 0; t < ms; t += 5 * SEC) {
    x.engine.evaluate([v]);
    out.push(...x.engine.tick());
    x.clock.advance(5 * SEC);
  }
  return out;
}

const state = (x: ReturnType<typeof engine>) => x.engine.alerts()[0]?.state;

describe('alert timing across wall-clock steps', () => {
  it.each([
    ['forward 2 h', 2 * HOUR],
    ['back 2 h', -2 * HOUR],
    ['forward 25 h', 25 * HOUR],
  ])('for: 30m counts elapsed time after a step %s', (_n, step) => {
    const x = engine(config);
    expect(run(x, down, 5 * MIN)).toEqual([]);
    expect(state(x)).toBe('pending');
    x.clock.stepWall(step);
    // Never within 60 s of the step, nor before 30 minutes of the condition passed.
    expect(run(x, down, 60 * SEC)).toEqual([]);
    expect(state(x)).toBe('pending');
    expect(run(x, down, 24 * MIN - 10 * SEC)).toEqual([]);
    expect(state(x)).toBe('pending');
    // Then it fires on time (30 m after it became pending), and is sent group_wait later.
    const sent = run(x, down, 50 * SEC);
    expect(state(x)).toBe('firing');
    expect(summary(sent)).toEqual(['ops firing channel_down/c1:firing']);
    // Its times are on the clock people read now: it became active 30 m 30 s before.
    const a = x.engine.alerts()[0]!;
    expect(x.clock.now() - a.activeAt).toBeGreaterThanOrEqual(30 * MIN);
    expect(x.clock.now() - a.activeAt).toBeLessThanOrEqual(31 * MIN);
  });

  it.each([
    ['forward 25 h', 25 * HOUR],
    ['back 25 h', -25 * HOUR],
  ])('keep_firing_for and group_interval keep elapsed time after a step %s', (_n, step) => {
    const x = engine(config);
    run(x, down, 31 * MIN);
    expect(state(x)).toBe('firing');
    x.clock.stepWall(step);
    // Cleared: firing for 10 more minutes, then resolved and sent at the next group_interval.
    expect(run(x, up, 9 * MIN)).toEqual([]);
    expect(state(x)).toBe('firing');
    const sent = run(x, up, 2 * MIN + 10 * SEC);
    expect(summary(sent)).toEqual(['ops resolved channel_down/c1:resolved']);
  });

  it('a pending alert saved before a restart does not fire early when the clock stepped while down', async () => {
    const first = engine(config);
    run(first, down, 5 * MIN);
    await first.engine.save();
    first.clock.stepWall(2 * HOUR);
    const second = engine(config, { store: first.store, clock: first.clock });
    await second.engine.load();
    expect(run(second, down, 60 * SEC)).toEqual([]);
    expect(state(second)).toBe('pending');
  });

  it('state saved "in the future" (the clock set back while down) moves back with it', async () => {
    const first = engine(config);
    run(first, down, 31 * MIN);
    expect(state(first)).toBe('firing');
    await first.engine.save();
    first.clock.stepWall(-25 * HOUR);
    const second = engine(config, { store: first.store, clock: first.clock });
    await second.engine.load();
    // keep_firing_for and the group timers count from now, not 25 h from now.
    const sent = run(second, up, 12 * MIN);
    expect(summary(sent)).toEqual(['ops resolved channel_down/c1:resolved']);
    const a = second.engine.alerts()[0]!;
    expect(a.activeAt).toBeLessThan(second.clock.now());
  });
});
