import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startFailure } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

let sim: Simulator;
let dir: string;
let file: string;

const config = (orgs: string[], extra = '') => `upstream:
  base_url: ${sim.url}
orgs:
${orgs.map((o) => `  - slug: ${o}\n    token: ${o}-token`).join('\n')}
intervals: { channels: 2s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
log: { level: info, format: json }
${extra}`;

beforeAll(async () => {
  sim = await startSimulator({
    orgs: ['alpha', 'beta'],
    channels: 3,
    frozen: true,
    tokens: [
      { value: 'alpha-token', org: 'alpha' },
      { value: 'beta-token', org: 'beta' },
    ],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-run-'));
  file = path.join(dir, 'tally.yaml');
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function status(base: string): Promise<{ orgs: { slug: string }[] }> {
  return (await (await fetch(`${base}/api/v1/status`)).json()) as { orgs: { slug: string }[] };
}

async function reloadGauge(base: string): Promise<string | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return /^tally_config_last_reload_successful (\d)/m.exec(text)?.[1];
}

describe('tally run', () => {
  it('serves, reloads on POST /-/reload and SIGHUP keeping the last good config, and stops with 0', async () => {
    await writeFile(file, config(['alpha']));
    const io = captureIO();
    const running = runCommand(['--config', file, '--enable-writes'], io);
    const base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
    );
    expect((await fetch(`${base}/-/healthy`)).status).toBe(200);
    expect((await status(base)).orgs.map((o) => o.slug)).toEqual(['alpha']);

    await writeFile(file, config(['alpha', 'beta']));
    const ok = await fetch(`${base}/-/reload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
    expect((await status(base)).orgs.map((o) => o.slug).sort()).toEqual(['alpha', 'beta']);
    expect(await reloadGauge(base)).toBe('1');

    await writeFile(file, config(['alpha'], 'bogus: true\n'));
    const bad = await fetch(`${base}/-/reload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      'bogus: unknown key',
    );
    expect((await status(base)).orgs).toHaveLength(2);
    expect(await reloadGauge(base)).toBe('0');

    await writeFile(file, config(['beta']));
    const reloads = () => io.out().split('"msg":"config reloaded"').length - 1;
    const before = reloads();
    io.reload();
    await waitFor(() => (reloads() > before ? true : undefined), 'the SIGHUP reload');
    expect((await status(base)).orgs.map((o) => o.slug)).toEqual(['beta']);
    expect(await reloadGauge(base)).toBe('1');

    io.stop();
    expect(await running).toBe(0);
  });

  it('records a failed SIGHUP reload in the metrics and keeps the running config', async () => {
    await writeFile(file, config(['alpha']));
    const io = captureIO();
    const running = runCommand(['--config', file], io);
    const base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
    );
    expect(await reloadGauge(base)).toBe('1');
    // Without --enable-writes or server.enable_writes, POST /-/reload is closed and says how to open it.
    const closed = await fetch(`${base}/-/reload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(closed.status).toBe(403);
    expect(((await closed.json()) as { error: { message: string } }).error.message).toContain(
      '--enable-writes',
    );
    expect(io.out()).toContain('"writes":"disabled"');
    // The real write routes of the alert API are closed too; their reads are not.
    const silence = {
      matchers: ['org = "alpha"'],
      ends_at: new Date(Date.now() + 3_600_000).toISOString(),
      created_by: 'ops',
      comment: 'test',
    };
    const add = await fetch(`${base}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(silence),
    });
    expect(add.status).toBe(403);
    expect((await fetch(`${base}/api/v1/silences/any`, { method: 'DELETE' })).status).toBe(403);
    expect((await fetch(`${base}/api/v1/silences`)).status).toBe(200);

    await writeFile(file, config(['alpha', 'beta'], 'bogus: true\n'));
    io.reload();
    await waitFor(
      () => (io.out().includes('"msg":"config reload refused') ? true : undefined),
      'the failed reload',
    );
    // One line naming the problem where it is, and no stack trace: the mistake is the file's.
    const refused = io
      .out()
      .split('\n')
      .find((l) => l.includes('config reload refused'))!;
    expect(JSON.parse(refused).problems.join('\n')).toContain('bogus: unknown key');
    expect(refused).not.toContain('stack');
    expect(await reloadGauge(base)).toBe('0');
    expect((await status(base)).orgs.map((o) => o.slug)).toEqual(['alpha']);

    await writeFile(file, config(['alpha', 'beta']));
    io.reload();
    await waitFor(() => (io.out().includes('"msg":"config reloaded"') ? true : undefined), 'the good reload');
    expect(await reloadGauge(base)).toBe('1');
    expect((await status(base)).orgs.map((o) => o.slug).sort()).toEqual(['alpha', 'beta']);

    io.stop();
    expect(await running).toBe(0);
  });

  it('takes only its shard of the orgs', async () => {
    await writeFile(file, config(['alpha', 'beta']));
    const { shardOf } = await import('../../src/config/shard.js');
    const want = ['alpha', 'beta'].filter((s) => shardOf(s, 2) === 1);
    const io = captureIO();
    const running = runCommand(['--config', file, '--shard', '1/2'], io);
    const base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
    );
    expect((await status(base)).orgs.map((o) => o.slug)).toEqual(want);
    io.stop();
    expect(await running).toBe(0);
  });

  it('refuses a malformed --shard with exit 1 and says why', async () => {
    await writeFile(file, config(['alpha']));
    const io = captureIO();
    expect(await runCommand(['--config', file, '--shard', '3/2'], io)).toBe(1);
    // Not on a terminal (a container): one JSON line, like every other line of the log.
    expect(io.err()).toBe('');
    const lines = io.out().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'fatal',
      problems: [expect.stringContaining('shard 3/2: I must be from 1 to N')],
      msg: 'could not start: --shard: 1 problem',
    });
    // On a terminal: the problems as text, for a person.
    const tty = { ...captureIO(), isTTY: true };
    expect(await runCommand(['--config', file, '--shard', '3/2'], tty)).toBe(1);
    expect(tty.err()).toContain('shard 3/2: I must be from 1 to N');
  });

  it('refuses an invalid config file with one JSON line naming each problem and its line', async () => {
    await writeFile(file, config(['alpha'], 'bogus: 1\ndelivery: { timeout: 0s }\n'));
    const io = captureIO();
    expect(await runCommand(['--config', file], io)).toBe(1);
    const lines = io.out().trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { level: string; problems: string[]; msg: string };
    expect(line.level).toBe('fatal');
    expect(line.msg).toBe(`could not start: ${file}: 2 problems`);
    expect(line.problems).toEqual([
      expect.stringMatching(/^bogus: unknown key \(line \d+, column 1\)$/),
      expect.stringMatching(/^delivery\.timeout: at least 100ms, found "0s" \(line \d+, column \d+\)$/),
    ]);
  });
});

describe('server.auth from files', () => {
  it('reads the bearer token and the basic password from their *_file, and opens writes to them alone', async () => {
    const tokenFile = path.join(dir, 'web-token');
    const passwordFile = path.join(dir, 'web-password');
    // As a mounted Secret: a trailing newline is not part of the secret.
    await writeFile(tokenFile, 'web-bearer-1234\n');
    await writeFile(passwordFile, 'pass-5678\n');
    await writeFile(
      file,
      config(['alpha']).replace(
        'server: { listen: 127.0.0.1:0 }',
        `server:
  listen: 127.0.0.1:0
  auth:
    bearer_token_file: ${JSON.stringify(tokenFile)}
    basic: { username: prom, password_file: ${JSON.stringify(passwordFile)} }`,
      ),
    );
    const io = captureIO();
    const running = runCommand(['--config', file], io);
    try {
      const base = await waitFor(
        () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
        'the HTTP server',
      );
      const bearer = { authorization: 'Bearer web-bearer-1234' };
      const basic = { authorization: `Basic ${Buffer.from('prom:pass-5678').toString('base64')}` };
      expect((await fetch(`${base}/api/v1/status`)).status).toBe(401);
      expect((await fetch(`${base}/api/v1/status`, { headers: bearer })).status).toBe(200);
      expect((await fetch(`${base}/api/v1/status`, { headers: basic })).status).toBe(200);
      expect(
        (await fetch(`${base}/api/v1/status`, { headers: { authorization: 'Bearer web-bearer-123' } }))
          .status,
      ).toBe(401);
      // Writes: closed to anonymous requests, open with the credentials from the files.
      expect(
        (await fetch(`${base}/-/reload`, { method: 'POST', headers: { 'content-type': 'application/json' } }))
          .status,
      ).toBe(401);
      expect((await fetch(`${base}/-/reload`, { method: 'POST', headers: bearer })).status).toBe(200);
      const add = await fetch(`${base}/api/v1/silences`, {
        method: 'POST',
        headers: { ...basic, 'content-type': 'application/json' },
        body: JSON.stringify({
          matchers: ['org = "alpha"'],
          ends_at: new Date(Date.now() + 3_600_000).toISOString(),
          created_by: 'ops',
          comment: 'maintenance',
        }),
      });
      expect(add.status).toBe(201);
      // The secrets never reach the log.
      expect(io.out()).not.toContain('web-bearer-1234');
      expect(io.out()).not.toContain('pass-5678');
    } finally {
      io.stop();
      expect(await running).toBe(0);
    }
  });
});

describe('a start that fails', () => {
  it('logs its cause once, in one JSON line, and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      await writeFile(file, config(['alpha']).replace('listen: 127.0.0.1:0', `listen: 127.0.0.1:${port}`));
      const io = captureIO();
      expect(await runCommand(['--config', file], io)).toBe(1);
      const fatal = io
        .out()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l['level'] === 'fatal');
      expect(fatal).toHaveLength(1);
      const line = JSON.stringify(fatal[0]);
      expect(fatal[0]).toMatchObject({
        code: 'EADDRINUSE',
        msg: `could not start: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      });
      expect(line.split('EADDRINUSE').length - 1).toBe(2); // the code field and the message, nothing else
      expect(line).not.toContain('"stack"');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('keeps the stack of an error that is a bug', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(startFailure(bug).fields['stack']).toContain('TypeError');
    const wrapped = new Error('opening the state directory failed: EACCES: permission denied', {
      cause: Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }),
    });
    expect(startFailure(wrapped).fields).toEqual({ code: 'EACCES' });
    expect(startFailure(wrapped).msg).toBe(
      'could not start: opening the state directory failed: EACCES: permission denied',
    );
  });
});
