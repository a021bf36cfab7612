import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { watchUnhandled } from './loopback.js';

const unhandled = watchUnhandled();
let dir: string;
let sim: Simulator;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-once-'));
  sim = await startSimulator({
    orgs: [
      { slug: 'acme', channels: 6 },
      { slug: 'beta', channels: 3 },
    ],
    seed: 4,
    tokens: [
      { value: 'acme-secret-token-1', org: 'acme' },
      { value: 'beta-secret-token-2', org: 'beta' },
    ],
  });
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
  unhandled.stop();
  expect(unhandled.errors).toEqual([]);
});

async function config(name: string, orgs: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `upstream:\n  base_url: ${sim.url}\n  shape:\n    per_page: 4\norgs:\n${orgs}`);
  return file;
}

describe('tally once', () => {
  it('prints every org as JSON, applies the channel filter, and never prints a token', async () => {
    const channelIds = sim.view('acme').channels.map((c) => String((c as { id: string }).id));
    const kept = channelIds.slice(0, 2);
    const file = await config(
      'ok.yaml',
      `  - slug: acme\n    token: \${ACME_TOKEN}\n    channels:\n      include: [${kept.join(', ')}]\n  - slug: beta\n    token: beta-secret-token-2\n`,
    );
    const io = captureIO({ ACME_TOKEN: 'acme-secret-token-1' });
    const code = await onceCommand(['--config', file, '--json'], io);
    expect(io.err()).toContain('acme: profile ok, team ok, subscription ok, channels ok, 2/2 channels');
    expect(code).toBe(0);
    const out = JSON.parse(io.out()) as { orgs: Record<string, OrgSnapshot> };
    expect(Object.keys(out.orgs)).toEqual(['acme', 'beta']);
    const acme = out.orgs['acme']!;
    expect(acme.channels?.state === 'complete' && acme.channels.value.map((c) => c.id)).toEqual(kept);
    expect(Object.keys(acme.sessions).sort()).toEqual([...kept].sort());
    expect(out.orgs['beta']?.team?.state).toBe('complete');
    expect(io.out() + io.err()).not.toMatch(/acme-secret-token-1|beta-secret-token-2/);
  });

  it('prints a readable summary', async () => {
    const file = await config('summary.yaml', '  - slug: beta\n    token: beta-secret-token-2\n');
    const io = captureIO();
    expect(await onceCommand(['--config', file], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^beta — .+ \(plan \w+\)$/m);
    expect(out).toMatch(/^ {2}members: \d+ \(/m);
    expect(out).toMatch(/^ {2}subscription: plan \w+, AI funding (wallet|byok)/m);
    expect(out).toMatch(/^ {2}channels: 3 \(/m);
    expect(out).toMatch(/^ {2}sessions in window: \d+/m);
    expect(out).not.toContain('not read completely');
  });

  it('exits 1 naming the org and part when an org cannot be read, without the token', async () => {
    const file = await config(
      'bad-token.yaml',
      '  - slug: beta\n    token: beta-secret-token-2\n  - slug: acme\n    token: wrong-token-value-9\n',
    );
    const io = captureIO();
    expect(await onceCommand(['--config', file], io)).toBe(1);
    expect(io.err()).toContain(
      'tally once: acme: profile failed (auth): GET /v1/acme: 401 token expired or revoked',
    );
    expect(io.out()).toContain('  not read completely:\n    profile failed (auth)');
    expect(io.out() + io.err()).not.toContain('wrong-token-value-9');
  });

  it.each([
    ['the default state dir', () => ''],
    ['a relative state dir', () => 'state:\n  dir: ./state\n'],
    [
      'a state dir outside the working directory',
      (root: string) => `state:\n  dir: ${path.join(root, 'state')}\n`,
    ],
  ])('sends nothing but GETs to /v1 and writes no file, with %s', async (_name, state) => {
    const root = await mkdtemp(path.join(tmpdir(), 'tally-once-nowrite-'));
    const cwd = path.join(root, 'cwd');
    await mkdir(cwd);
    const yaml = `upstream:\n  base_url: ${sim.url}\n${state(root)}orgs:\n  - slug: beta\n    token: beta-secret-token-2\n`;
    await writeFile(path.join(cwd, 'tally.yaml'), yaml);
    const since = sim.requests().at(-1)?.seq ?? 0;
    const before = process.cwd();
    // The process too runs in the empty directory: a path resolved against it is caught.
    process.chdir(cwd);
    try {
      const io = captureIO({}, cwd);
      expect(await onceCommand(['--json'], io)).toBe(0);
      expect(Object.keys((JSON.parse(io.out()) as { orgs: object }).orgs)).toEqual(['beta']);
    } finally {
      process.chdir(before);
    }
    try {
      expect(await readdir(cwd)).toEqual(['tally.yaml']);
      expect(await readdir(root)).toEqual(['cwd']);
      const log = sim.requests(since);
      expect(log.length).toBeGreaterThanOrEqual(5);
      const notRead = log.filter(
        (r) => r.method !== 'GET' || !r.path.startsWith('/v1/') || r.origin !== 'main',
      );
      expect(notRead).toEqual([]);
      expect(new Set(log.map((r) => r.org))).toEqual(new Set(['beta']));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('prints config problems and exits 1', async () => {
    const file = path.join(dir, 'invalid.yaml');
    await writeFile(file, 'upstream:\n  base_url: nope\norgs: []\n');
    const io = captureIO();
    expect(await onceCommand(['--config', file], io)).toBe(1);
    expect(io.err()).toContain('upstream.base_url: an http:// or https:// URL');
    expect(io.out()).toBe('');
  });

  it('exits 2 on a usage error', async () => {
    const io = captureIO();
    expect(await onceCommand(['--frobnicate'], io)).toBe(2);
    expect(io.err()).toContain('usage: tally once');
  });
});
