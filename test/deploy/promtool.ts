/**
 * Runs `promtool` (Debian's `prometheus` package) on the files in deploy/prometheus.
 */
import { spawn, spawnSync } from 'node:child_process';

/** The alerting rules, their promtool unit tests and the Prometheus config. */
export const RULES_FILE = 'deploy/prometheus/tally-alerts.yml';
export const RULES_TEST_FILE = 'deploy/prometheus/tally-alerts.test.yml';
export const PROMETHEUS_CONFIG = 'deploy/prometheus/prometheus.yml';

/** Whether `promtool` runs here. */
export function promtoolAvailable(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs promtool with the arguments; resolves with its exit code and everything it printed. */
export function promtool(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
