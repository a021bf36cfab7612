/**
 * Large steps of the wall clock are told once: a log line and tally_clock_steps_total
 * (docs/reliability.md, "Clock steps"); drift under a minute is not a step.
 */
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CLOCK_CHECK_EVERY_MS, ClockStepReporter } from '../../src/app/clock-steps.js';
import { createLogger } from '../../src/core/log.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { ManualClock } from '../helpers/clock.js';
import { FakeSource } from '../metrics/fixtures.js';
import { parseSamples, value } from '../metrics/parse.js';

const HOUR = 3_600_000;

function rig() {
  const clock = new ManualClock();
  let text = '';
  const dest = new PassThrough();
  dest.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const log = createLogger({ level: 'info', format: 'json', destination: dest });
  const metrics = new TallyMetrics({
    registry: new Registry(),
    source: new FakeSource([]),
    defaultMetrics: false,
    pageMaxAgeMs: 0,
  });
  const reporter = new ClockStepReporter(clock, log, (d) => metrics.recordClockStep(d));
  const steps = async (direction: string) =>
    value(parseSamples((await metrics.render(undefined)).text()), 'tally_clock_steps_total', { direction });
  const lines = async () => {
    await new Promise((r) => setTimeout(r, 20));
    return text.split('\n').filter((l) => l.includes('the wall clock stepped'));
  };
  return { clock, reporter, steps, lines };
}

describe('ClockStepReporter', () => {
  it('logs and counts each large step once, by direction', async () => {
    const r = rig();
    r.reporter.start();
    expect(await r.steps('forward')).toBe(0);
    r.clock.advance(CLOCK_CHECK_EVERY_MS);
    r.clock.stepWall(25 * HOUR);
    r.clock.advance(10 * CLOCK_CHECK_EVERY_MS);
    expect(await r.steps('forward')).toBe(1);
    expect(await r.steps('back')).toBe(0);
    r.clock.stepWall(-25 * HOUR);
    r.clock.advance(10 * CLOCK_CHECK_EVERY_MS);
    expect(await r.steps('back')).toBe(1);
    expect(await r.steps('forward')).toBe(1);
    const lines = await r.lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"direction":"forward"');
    expect(lines[0]).toContain(`"stepMs":${25 * HOUR}`);
    r.reporter.stop();
  });

  it('takes drift under a minute for drift, until it adds up to a minute', async () => {
    const r = rig();
    expect(r.reporter.check()).toBe(0);
    r.clock.stepWall(30_000);
    expect(r.reporter.check()).toBe(0);
    r.clock.stepWall(29_000);
    expect(r.reporter.check()).toBe(0);
    r.clock.stepWall(2_000);
    expect(r.reporter.check()).toBe(61_000);
    expect(await r.steps('forward')).toBe(1);
    expect(await r.lines()).toHaveLength(1);
  });
});
