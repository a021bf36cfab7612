import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from '../../src/config/load.js';
import { SECRET_KEYS } from '../../src/config/schema.js';
import { ConfigError } from '../../src/core/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-secrets-'));
  await writeFile(path.join(dir, 'smtp-password'), 'pw-from-file-777\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(text: string, env: Record<string, string> = {}): Promise<readonly string[]> {
  try {
    await parseConfig(text, { source: 'tally.yaml', env, baseDir: dir });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const head = 'upstream:\n  base_url: http://x\n';
const org = 'orgs:\n  - slug: a\n    token: t\n';
const receiver = (sink: string) => `${head}${org}receivers:\n  - name: r\n${sink}`;
const smtp = (extra: string) =>
  receiver(
    `    email:\n      to: [a@example.com]\n      from: b@example.com\n      smtp: { host: h, ${extra} }\n`,
  );

describe('config problems never show a secret', () => {
  it('covers every secret key', () => {
    expect([...SECRET_KEYS].sort()).toEqual(['bearer_token', 'password', 'secret', 'token']);
  });

  it.each<[string, string, string, string, Record<string, string>?]>([
    [
      'a number as an org token',
      `${head}orgs: [{ slug: a, token: 98765432109876 }]\n`,
      '98765432109876',
      'orgs[0].token: expected string, found a number (value hidden) (line 3, column 26)',
    ],
    [
      'a number as an SMTP password',
      smtp('username: u, password: 424242424242'),
      '424242424242',
      'receivers[0].email.smtp.password: expected string, found a number (value hidden) (line 11, column 47)',
    ],
    [
      'a number as a webhook secret',
      receiver('    webhook: { url: "http://h", secret: 31415926535 }\n'),
      '31415926535',
      'receivers[0].webhook.secret: expected string, found a number (value hidden) (line 8, column 41)',
    ],
    [
      'a boolean as the server bearer token',
      `${head}${org}server: { auth: { bearer_token: true } }\n`,
      'true',
      'server.auth.bearer_token: expected string, found a boolean (value hidden) (line 6, column 33)',
    ],
    [
      'a list as the basic-auth password',
      `${head}${org}server: { auth: { basic: { username: u, password: [sekrit-in-list] } } }\n`,
      'sekrit-in-list',
      'server.auth.basic.password: expected string, found a list (value hidden) (line 6, column 51)',
    ],
    [
      'a map as an Alertmanager password',
      receiver(
        '    alertmanager: { urls: ["http://h"], basic_auth: { username: u, password: { v: sekrit-in-map } } }\n',
      ),
      'sekrit-in-map',
      'receivers[0].alertmanager.basic_auth.password: expected string, found a map (value hidden)',
    ],
    [
      'an empty token',
      `${head}orgs: [{ slug: a, token: "" }]\n`,
      '""',
      'orgs[0].token: must be at least 1 characters, found a string (value hidden) (line 3, column 26)',
    ],
    [
      'a rule about a password, whose input is the whole SMTP block',
      smtp('password: sekrit-smtp-1'),
      'sekrit-smtp-1',
      'receivers[0].email.smtp.username: username is required with a password (line 11, column 13)',
    ],
    [
      'a rule about a bearer token beside basic auth',
      receiver(
        '    alertmanager: { urls: ["http://h"], bearer_token: sekrit-bt-2, basic_auth: { username: u, password: sekrit-pw-2 } }\n',
      ),
      'sekrit-',
      'receivers[0].alertmanager.bearer_token: set either basic_auth or bearer_token, not both',
    ],
    [
      'a receiver with two sinks, one holding a secret',
      receiver('    log: {}\n    webhook: { url: "http://h", secret: sekrit-wh-3 }\n'),
      'sekrit-wh-3',
      'receivers[0].log: only one of webhook, log per receiver (line 8, column 10)',
    ],
    [
      'an interpolated token of the wrong shape',
      `${head}orgs: [{ slug: a, token: ["\${TOKEN}"] }]\n`,
      'sekrit-env-4',
      'orgs[0].token: expected string, found a list (value hidden) (line 3, column 26)',
      { TOKEN: 'sekrit-env-4' },
    ],
    [
      'an unset variable in a token',
      `${head}orgs: [{ slug: a, token: "\${TOKEN:-}\${MISSING}" }]\n`,
      'MISSING}',
      'orgs[0].token: environment variable MISSING is not set (write ${MISSING:-default} for a default) (line 3, column 26)',
    ],
    [
      'a password read from a file, then a rule on its block',
      smtp('password_file: smtp-password'),
      'pw-from-file-777',
      'receivers[0].email.smtp.username: username is required with a password (line 11, column 13)',
    ],
    [
      'a password both inline and from a file',
      smtp('username: u, password: sekrit-inline-5, password_file: smtp-password'),
      'sekrit-inline-5',
      'receivers[0].email.smtp.password_file: set either password or password_file, not both',
    ],
  ])('%s', async (_name, text, secret, expected, env = {}) => {
    const problems = await problemsOf(text, env);
    expect(
      problems.find((p) => p.startsWith(expected)),
      problems.join('\n'),
    ).toBeDefined();
    expect(problems.join('\n')).not.toContain(secret);
    expect(problems.join('\n')).not.toContain('pw-from-file-777');
  });

  it('shows a value that is not a secret', async () => {
    const problems = await problemsOf(`${head}orgs: [{ slug: a, token: t, token_expires_at: 12345 }]\n`);
    expect(problems.join('\n')).toContain('found 12345');
  });
});

describe('secret files are regular files of bounded size, read without blocking', () => {
  const tokenFile = (file: string) => `${head}orgs:\n  - slug: a\n    token_file: ${JSON.stringify(file)}\n`;

  it.each([
    ['a FIFO', 'fifo', 'not a regular file (a FIFO)'],
    ['a directory', '.', 'not a regular file (a directory)'],
    ['a device', '/dev/zero', 'not a regular file (a device)'],
    ['a file over 64 KiB', 'big', 'larger than 64 KiB'],
    ['a missing file', 'nope', 'cannot read it: file not found'],
  ])('refuses %s at once, naming the key', async (_what, file, words) => {
    if (file === 'fifo') execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    if (file === 'big') await writeFile(path.join(dir, 'big'), 'x'.repeat(70_000));
    const started = Date.now();
    const problems = await problemsOf(tokenFile(file));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('orgs[0].token_file:');
    expect(problems[0]).toContain(words);
  });
});

describe('headers, URLs and YAML that once got through or said too much', () => {
  const hook = (headers: string) =>
    receiver(`    webhook:\n      url: http://hooks.example/x\n      headers: ${headers}\n`);

  it.each([
    ['a CR/LF in a header value', hook(`{ X-Api-Key: "key-SECRET-1\\r\\nX-Evil: 1" }`), 'no CR, LF, NUL'],
    ['a NUL in a header value', hook(`{ X-Api-Key: "key-SECRET-1\\0" }`), 'no CR, LF, NUL'],
    ['a header value of the wrong type', hook('{ X-Api-Key: 12345678 }'), 'expected string'],
    ['a header name with a space', hook('{ "Bad Name": key-SECRET-1 }'), 'not a valid HTTP header name'],
  ])('%s is refused at check without echoing the value', async (_what, text, words) => {
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(words);
    expect(problems[0]).toMatch(/\(line \d+, column \d+\)$/);
    expect(problems.join('\n')).not.toContain('SECRET');
    expect(problems.join('\n')).not.toContain('12345678');
  });

  it.each([
    ['a user and password', 'http://me:pw-SECRET@api.example/', 'must not carry a user or password'],
    ['a query', 'http://api.example/?key=1', 'must not carry a query'],
    ['a fragment', 'http://api.example/#x', 'must not carry a fragment'],
  ])('a base_url with %s is refused, with any password hidden', async (_what, url, words) => {
    const problems = await problemsOf(`upstream:\n  base_url: "${url}"\n${org}`);
    expect(problems.some((p) => p.startsWith('upstream.base_url:') && p.includes(words))).toBe(true);
    expect(problems.join('\n')).not.toContain('pw-SECRET');
  });

  it('a YAML alias bomb is refused at once, with a position', async () => {
    const level = (name: string, of: string) => `${name}: &${name} [${Array(9).fill(of).join(', ')}]\n`;
    const text = `${level('a', '"x"')}${level('b', '*a')}${level('c', '*b')}${level('d', '*c')}${level('e', '*d')}${level('f', '*e')}${head}${org}`;
    const started = Date.now();
    const problems = await problemsOf(text);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^invalid YAML: .*aliases would expand .* \(line 3, column \d+\)$/);
  });
});

describe('the config file itself', () => {
  it.each([
    ['a device', '/dev/zero', 'cannot read config: not a regular file (a device)'],
    ['a directory', '/tmp', 'cannot read config: not a regular file (a directory)'],
  ])('is refused at once when it is %s', async (_what, file, words) => {
    const started = Date.now();
    await expect(loadConfigFile(file, {})).rejects.toThrow(words);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('a URL password in a config problem', () => {
  const LONG = `eyJhbGciOiJIUzI1NiJ9${'SECRET'.repeat(12)}`;
  const org = 'orgs:\n  - slug: a\n    token: t\n';
  it.each([
    ['a long password', `upstream:\n  base_url: https://svc:${LONG}@api.example.com\n${org}`, {}],
    [
      'a long password from the environment',
      `upstream:\n  base_url: https://svc:\${PW}@api.example.com\n${org}`,
      { PW: LONG },
    ],
    ['a password holding @', `upstream:\n  base_url: https://svc:pass@SECRET@api.example.com\n${org}`, {}],
    [
      'a password holding a space',
      `upstream:\n  base_url: "https://u:SECRET pass@api.example.com"\n${org}`,
      {},
    ],
  ])('hides %s', async (_what, text, env) => {
    const problems = await problemsOf(text, env);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toContain('//<redacted>@');
    expect(problems.join('\n')).not.toContain('SECRET');
  });
});
