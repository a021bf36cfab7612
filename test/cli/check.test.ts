import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommand } from '../../src/cli/check.js';
import { captureIO } from '../helpers/io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tally check', () => {
  it('accepts config.example.yaml and prints a summary without the token', async () => {
    const io = captureIO({ TALLY_DEMO_TOKEN: 'super-secret-token' });
    const code = await checkCommand(['--config', 'config.example.yaml'], io);
    expect(code).toBe(0);
    expect(io.out()).toContain('orgs: 1');
    expect(io.out()).toContain('  - demo (token set; expires 2027-06-30)');
    expect(io.out()).toContain('config OK');
    expect(io.out() + io.err()).not.toContain('super-secret-token');
  });

  it('warns, with path and line, of a text log receiver in a JSON log, and still exits 0', async () => {
    const file = path.join(dir, 'text-receiver.yaml');
    const body = (logFormat: string) => `upstream:
  base_url: https://api.example.com
orgs:
  - slug: acme
    token: t0ken-value
log: { format: ${logFormat} }
receivers:
  - name: console
    log:
      format: text
route: { receiver: console }
`;
    await writeFile(file, body('json'));
    const io = captureIO();
    expect(await checkCommand(['--config', file], io)).toBe(0);
    expect(io.err()).toBe(
      `${file}: warning: receivers[0].log.format: text writes multi-line blocks into a log of JSON lines (log.format is not pretty), which log pipelines cannot parse; use json or auto (line 10, column 15)\n`,
    );
    expect(io.out()).toContain('config OK');
    // Pretty logs are for a terminal: text blocks belong there.
    await writeFile(file, body('pretty'));
    const pretty = captureIO();
    expect(await checkCommand(['--config', file], pretty)).toBe(0);
    expect(pretty.err()).toBe('');
  });

  it.each([
    ['', 'org, alertname (the default)'],
    ['group_by: []', 'nothing (one group for all alerts)'],
    ["group_by: ['...']", 'every label'],
    ['group_by: [channel]', 'channel'],
  ])('says how the route groups alerts (%s)', async (groupBy, words) => {
    const file = path.join(dir, 'grouping.yaml');
    await writeFile(
      file,
      `upstream: { base_url: https://api.example.com }
orgs: [{ slug: acme, token: t0ken-value }]
receivers: [{ name: console, log: {} }]
route: { receiver: console${groupBy === '' ? '' : `, ${groupBy}`} }
`,
    );
    const io = captureIO();
    expect(await checkCommand(['--config', file], io)).toBe(0);
    expect(io.out()).toContain(`route: to console, grouped by ${words}, 0 sub-routes`);
  });

  it('prints all three mistakes with path and line and exits 1', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(
      file,
      `upstream:
  base_url: not a url
orgs:
  - slug: acme
    token: s3cr3t-value
    colour: blue
intervals:
  sweep: often
`,
    );
    const io = captureIO();
    const code = await checkCommand(['--config', file], io);
    expect(code).toBe(1);
    const lines = io.err().split('\n');
    expect(lines[0]).toBe(`${file}: 3 problems`);
    expect(lines).toContain(
      '  upstream.base_url: an http:// or https:// URL, found "not a url" (line 2, column 13)',
    );
    expect(lines).toContain('  orgs[0].colour: unknown key (line 6, column 5)');
    expect(lines).toContain(
      '  intervals.sweep: a duration such as 30s, 5m, 1h30m or 7d, found "often" (line 8, column 10)',
    );
    expect(io.err()).not.toContain('s3cr3t-value');
  });

  it('says only the kind of a secret of the wrong type, never its value', async () => {
    const file = path.join(dir, 'numeric-token.yaml');
    await writeFile(
      file,
      `upstream: { base_url: http://x }
orgs: [{ slug: a, token: 98765432109876 }]
receivers:
  - name: mail
    email:
      to: [ops@example.com]
      from: tally@example.com
      smtp: { host: smtp.example.com, username: u, password: 424242424242 }
`,
    );
    const io = captureIO();
    expect(await checkCommand(['--config', file], io)).toBe(1);
    expect(io.err()).toContain('orgs[0].token: expected string, found a number (value hidden)');
    expect(io.err()).toContain(
      'receivers[0].email.smtp.password: expected string, found a number (value hidden)',
    );
    expect(io.err()).not.toContain('98765432109876');
    expect(io.err()).not.toContain('424242424242');
  });

  it('uses TALLY_CONFIG when --config is absent and says when the file is missing', async () => {
    const io = captureIO({ TALLY_CONFIG: path.join(dir, 'missing.yaml') });
    expect(await checkCommand([], io)).toBe(1);
    expect(io.err()).toContain('missing.yaml: 1 problem');
    expect(io.err()).toContain('cannot read config: file not found');
  });

  it('rejects an unknown flag with exit 2', async () => {
    const io = captureIO();
    expect(await checkCommand(['--nope'], io)).toBe(2);
    expect(io.err()).toContain("Unknown option '--nope'");
  });
});
