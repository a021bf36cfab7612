/**
 * `tally demo` as the README's quick start runs it (in-process, sped up): it says where
 * the simulator, the metrics and the JSON API are, prints change events as they are
 * detected, shows alerts through the console receiver, and stops by itself.
 */
import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../src/cli/demo.js';
import { captureIO } from '../helpers/io.js';

describe('tally demo', () => {
  it('streams change events and console alerts, serves /metrics, and stops after --duration', async () => {
    const io = captureIO();
    let metrics = '';
    const poll = setInterval(async () => {
      const url = /^metrics\s+(\S+)$/m.exec(io.out())?.[1];
      // Until the first poll has answered, tally_up is still 0: keep scraping until it is up.
      if (url && !/^tally_up\{org="demo"\} 1$/m.test(metrics)) {
        metrics = await fetch(url)
          .then((r) => r.text())
          .catch(() => metrics);
      }
    }, 500);
    const code = await demoCommand(['--speed', '30', '--duration', '20s', '--seed', '7'], io);
    clearInterval(poll);
    const out = io.out();
    expect(code).toBe(0);
    expect(out).toMatch(
      /^simulator\s+http:\/\/127\.0\.0\.1:\d+ {2}\(org demo, token demo-token, 12 channels, seed 7\)$/m,
    );
    expect(out).toMatch(/^api\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\/status/m);
    const events = out.split('\n').filter((l) => /^\d\d:\d\d:\d\d {2}demo {2}[a-z_]+\.[a-z_]+ /.test(l));
    expect(events.length).toBeGreaterThan(5);
    expect(events.some((l) => l.includes('channel.status_changed'))).toBe(true);
    expect(out).toMatch(/── \[FIRING:\d+\] [a-z_]+ \(org=demo\) ── console/);
    expect(metrics).toMatch(/^tally_up\{org="demo"\} 1$/m);
    expect(io.err()).not.toMatch(/error|unhandled/i);
  }, 40_000);
});
