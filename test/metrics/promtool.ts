/**
 * `promtool check metrics` over real exposition text: the linter Prometheus ships.
 */
import { spawn, spawnSync } from 'node:child_process';

/** Whether `promtool` is on PATH. */
export function hasPromtool(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * prom-client's default metrics name three gauges `nodejs_active_{handles,requests,resources}_total`;
 * promtool flags the `_total` suffix on a non-counter. Those names are prom-client's, not
 * tally's, and renaming them would break every Node.js dashboard, so these lines alone are
 * let through.
 */
const PROM_CLIENT_DEFAULTS =
  /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** Runs `promtool check metrics` on the text; returns its problems, prom-client's own naming left out. */
export async function promtoolProblems(text: string): Promise<string[]> {
  const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.end(text);
  });
  const problems = out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !PROM_CLIENT_DEFAULTS.test(l));
  if (code !== 0 && problems.length === 0 && !/_total" suffix/.test(out))
    problems.push(`promtool exited ${code}`);
  return problems;
}
