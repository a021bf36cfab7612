import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

// `tally run` as a real child process, killed with SIGKILL in the middle of a scenario
// and started again: every change must be logged exactly once.

let sim: Simulator;
let dir: string;
let configPath: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, channels: 6, sessionsPerChannel: 2, frozen: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-crash-'));
  configPath = path.join(dir, 'tally.yaml');
  await writeFile(
    configPath,
    `upstream:
  base_url: ${sim.url}
  retries: { attempts: 2, base_delay: 50ms, max_delay: 200ms, deadline: 2s }
orgs:
  - slug: demo
    token: demo-token
intervals: { org: 10s, team: 2s, subscription: 10s, channels: 1s, live_sessions: 5s, live_detail: 5s, sweep: 30s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
log: { level: warn, format: json }
`,
  );
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

function startTally(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'run', '--config', configPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function loggedEvents(): Promise<ChangeEvent[]> {
  const eventsDir = path.join(dir, 'state', 'events');
  const files = (await readdir(eventsDir).catch(() => [])).filter((f) => f.endsWith('.jsonl')).sort();
  const out: ChangeEvent[] = [];
  for (const f of files) {
    for (const line of (await readFile(path.join(eventsDir, f), 'utf8')).split('\n')) {
      if (line.trim()) out.push(JSON.parse(line) as ChangeEvent);
    }
  }
  return out;
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = (await loggedEvents()).map((e) => [e.kind, e.entity.id, e.from, e.to]);
  const world = sim.view('demo').channels.map((c) => [c['id'], c['status']]);
  throw new Error(
    `timed out waiting for ${what}; logged ${JSON.stringify(seen)}; world ${JSON.stringify(world)}`,
  );
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('kill -9 and restart in the middle of a scenario', () => {
  it('loses no change and logs none twice', async () => {
    const channels = sim.view('demo').channels.map((c) => String(c['id']));
    const statuses = ['live', 'idle', 'offline'] as const;
    let step = 0;
    const change = () => {
      const ch = channels[step % channels.length]!;
      const current = sim.view('demo').channels.find((c) => c['id'] === ch)!['status'];
      const next = statuses.find((s) => s !== current && s !== statuses[step % 3])!;
      sim.trigger.channelStatus({ channel: ch, status: next });
      if (step % 4 === 0) sim.trigger.addMember({ name: `Person ${step}`, role: 'member' });
      step++;
    };

    let tally = startTally();
    await until(
      async () => (await readdir(path.join(dir, 'state', 'snapshots')).catch(() => [])).length > 0,
      20_000,
      'the baseline',
    );
    for (let i = 0; i < 6; i++) {
      change();
      await new Promise((r) => setTimeout(r, 700));
    }
    await until(async () => (await loggedEvents()).length >= 3, 10_000, 'some events');
    tally.kill('SIGKILL');
    await exited(tally);

    // Changes made while tally is down are reported once after the restart.
    for (let i = 0; i < 4; i++) change();
    tally = startTally();
    for (let i = 0; i < 4; i++) {
      change();
      await new Promise((r) => setTimeout(r, 700));
    }
    const world = sim.view('demo');
    const finalStatus = new Map(world.channels.map((c) => [String(c['id']), String(c['status'])]));
    const members = world.team.length;
    await until(
      async () => {
        const events = await loggedEvents();
        // The team is read every 2 s, the channels every second: wait for both.
        const added = new Set(events.filter((e) => e.kind === 'member.added').map((e) => e.labels['member']));
        if (added.size < Math.ceil(step / 4)) return false;
        return channels.every((ch) => {
          const last = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch).at(-1);
          return last === undefined ? true : last.to === finalStatus.get(ch);
        });
      },
      30_000,
      'tally to catch up',
    );
    tally.kill('SIGTERM');
    expect(await exited(tally)).toBe(0);

    const events = await loggedEvents();
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Per channel, the logged transitions form one unbroken chain ending at the world's status:
    // a lost change would break the chain, a duplicated one would repeat a link.
    for (const ch of channels) {
      const chain = events.filter((e) => e.kind === 'channel.status_changed' && e.entity.id === ch);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.from).toBe(chain[i - 1]!.to);
      if (chain.length > 0) expect(chain.at(-1)!.to).toBe(finalStatus.get(ch));
    }
    const added = events.filter((e) => e.kind === 'member.added').map((e) => e.labels['member']);
    expect(new Set(added).size).toBe(added.length);
    expect(added.sort()).toEqual(
      Array.from({ length: Math.ceil(step / 4) }, (_, i) => `Person ${i * 4}`).sort(),
    );
    expect(members).toBeGreaterThan(0);
  }, 90_000);
});
