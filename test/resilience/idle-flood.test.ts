import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { configText, type DaemonRig, daemonRig } from '../helpers/daemon.js';

// Idle, unauthenticated connections flood the HTTP port of a real `tally run` (docs/
// reliability.md, "Fault matrix"; docs/http-api.md, "Connections"). TALLY_FLOOD_SOCKETS
// sets how many (20 000 by default, opened by two processes, since one process's open-file
// limit may be 20 000 too). Throughout, /metrics and /-/healthy answer within 5 s and no
// state write fails.

const SOCKETS = Number(process.env['TALLY_FLOOD_SOCKETS'] ?? 20_000);
const FLOODERS = 2;

let sim: Simulator;
let rig: DaemonRig;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 9, channels: 4, sessionsPerChannel: 1, frozen: true });
  rig = await daemonRig('idle-flood');
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await rig?.close();
  await sim.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `tally run` reading channels every second, at most 256 connections; resolves once ready. */
async function startTally(): Promise<{ base: string; out: () => string }> {
  await rig.write(
    configText({
      sim,
      stateDir: rig.stateDir,
      intervals: '{ channels: 1s, jitter: 0 }',
      server: '{ listen: 127.0.0.1:0, connections: { max: 256 } }',
    }),
  );
  const tally = await rig.start();
  return { base: tally.url, out: tally.out };
}

/** How long a GET takes, or Infinity when it fails or takes more than 10 s. */
async function timed(url: string): Promise<number> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await res.text();
    return res.ok ? performance.now() - t0 : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function flood(port: number, count: number): { done: Promise<string>; child: ChildProcess } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'fixtures', 'idle-flood.ts'),
      '127.0.0.1',
      String(port),
      String(count),
      '120000',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const done = new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  return { done, child };
}

describe('an idle-connection flood', () => {
  it(`keeps /metrics and /-/healthy answering with ${SOCKETS} idle sockets, and no state write fails`, async () => {
    const { base, out } = await startTally();
    const port = Number(new URL(base).port);
    const floods = Array.from({ length: FLOODERS }, () => flood(port, Math.ceil(SOCKETS / FLOODERS)));
    const t0 = performance.now();
    let flooding = true;
    const all = Promise.all(floods.map((f) => f.done)).finally(() => {
      flooding = false;
    });
    // Probe while the sockets are being opened and once they all were.
    const probes: { metrics: number; healthy: number }[] = [];
    while (flooding || probes.length < 3) {
      const [metrics, healthy] = await Promise.all([timed(`${base}/metrics`), timed(`${base}/-/healthy`)]);
      probes.push({ metrics, healthy });
      if (!flooding) await sleep(200);
    }
    const reports = await all;
    const floodMs = performance.now() - t0;
    const opened = reports.reduce((n, r) => n + Number(/opened (\d+)/.exec(r)?.[1] ?? 0), 0);
    const worst = {
      metrics: Math.max(...probes.map((p) => p.metrics)),
      healthy: Math.max(...probes.map((p) => p.healthy)),
    };
    console.log(
      `idle flood: ${opened} of ${SOCKETS} connections accepted in ${Math.round(floodMs)} ms; ${probes.length} probes, slowest /metrics ${Math.round(worst.metrics)} ms, /-/healthy ${Math.round(worst.healthy)} ms; ${reports.join(' | ')}`,
    );
    // Every connection was accepted (the cap closes idle ones; it never stops accepting).
    expect(opened).toBeGreaterThanOrEqual(SOCKETS * 0.95);
    expect(worst.metrics).toBeLessThan(5000);
    expect(worst.healthy).toBeLessThan(5000);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const failures = [...metrics.matchAll(/^tally_state_write_failures_total\{[^}]*\} (\d+)/gm)].map((m) =>
      Number(m[1]),
    );
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((n) => n === 0)).toBe(true);
    expect(metrics).toMatch(/\ntally_state_writable 1\n/);
    expect(out()).toContain('http connection cap reached');
    expect(out()).not.toContain('EMFILE');
  }, 180_000);
});
