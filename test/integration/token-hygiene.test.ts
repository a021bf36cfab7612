/**
 * docs/architecture.md, invariant 4, end to end through `tally run` as it is deployed: a token read from
 * a `token_file` goes to the API's origin only and appears nowhere else — not in any log
 * line at trace level (with 5xx answers, a token of another org, cross-origin paging links
 * and redirects provoking error paths), not in /metrics, the JSON API or the state
 * directory, and never in a request to another origin.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'tok-SECRET-5f3a9c71e2';
const OTHER = 'tok-OTHER-88d0b4a6c1';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({
    orgs: ['demo', 'beta'],
    channels: 5,
    frozen: true,
    tokens: [
      { value: TOKEN, org: 'demo' },
      { value: OTHER, org: 'demo', label: 'wrong org for beta' },
    ],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-token-'));
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

describe('the API token', () => {
  it('appears in no log line, metric, API answer or state file, and reaches no other origin', async () => {
    await writeFile(path.join(dir, 'demo.token'), `${TOKEN}\n`);
    await writeFile(path.join(dir, 'beta.token'), `${OTHER}\n`);
    const state = path.join(dir, 'state');
    const file = path.join(dir, 'tally.yaml');
    await writeFile(
      file,
      `upstream:
  base_url: ${sim.url}
  retries: { attempts: 2, base_delay: 10ms, max_delay: 20ms, deadline: 1s }
  shape: { per_page: 2 }
orgs:
  - slug: demo
    token_file: demo.token
  - slug: beta
    token_file: beta.token
intervals: { org: 2s, team: 2s, subscription: 2s, channels: 1s, sweep: 3s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(state)} }
log: { level: trace, format: json }
`,
    );
    sim.setFaults([{ errorRate: 0.2 }, { crossOriginNextRate: 0.3 }, { redirectRate: 0.1 }]);
    const io = captureIO({}, dir);
    const running = runCommand(['--config', file], io);
    const base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
      15_000,
    );
    // Let every error path run: 5xx, retries, beta's refused token, foreign links, redirects.
    await waitFor(
      () => (io.out().includes('"org":"beta"') && io.out().includes('cross_origin') ? true : undefined),
      'the error paths',
      15_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    const answers: string[] = [];
    for (const p of [
      '/metrics',
      '/api/v1/status',
      '/api/v1/events',
      '/api/v1/alerts',
      '/api/v1/snapshot/demo',
      '/api/v1/snapshot/beta',
      '/',
    ]) {
      answers.push(await (await fetch(`${base}${p}`)).text());
    }
    io.stop();
    expect(await running).toBe(0);

    const logs = io.out() + io.err();
    expect(logs).toMatch(/"level":"(debug|trace)"/); // the most verbose lines were on
    expect(logs).toContain('"reason":"auth"');
    for (const secret of [TOKEN, OTHER]) {
      expect(logs).not.toContain(secret);
      for (const a of answers) expect(a).not.toContain(secret);
      for (const f of await filesUnder(state)) expect(await readFile(f, 'utf8'), f).not.toContain(secret);
    }
    // Links and redirects to the other origin were offered and refused: nothing went there.
    expect(
      sim.requests().filter((r) => r.fault?.includes('cross_origin') || r.fault?.includes('redirect')).length,
    ).toBeGreaterThan(0);
    expect(sim.requests().filter((r) => r.origin === 'foreign')).toEqual([]);
  }, 40_000);
});
