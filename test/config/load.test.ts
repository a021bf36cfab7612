import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { JSON_SCHEMA_PATH, renderConfigJsonSchema } from '../../src/config/json-schema.js';
import { ConfigError } from '../../src/core/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-config-'));
  await writeFile(path.join(dir, 'token'), 'file-token-value\n');
  await writeFile(path.join(dir, 'empty'), '\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = `upstream:
  base_url: http://127.0.0.1:8080
orgs:
  - slug: acme
    token: abc123
`;

async function problemsOf(text: string, env: Record<string, string> = {}): Promise<readonly string[]> {
  try {
    await parseConfig(text, { source: 'tally.yaml', env, baseDir: dir });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('parseConfig', () => {
  it('fills defaults and converts units', async () => {
    const { config } = await parseConfig(base, { source: 'x', env: {}, baseDir: dir });
    expect(config.upstream.budget_per_minute).toBe(240);
    expect(config.upstream.timeouts.connect).toBe(5000);
    expect(config.upstream.max_body_bytes).toBe(16 * 1024 * 1024);
    expect(config.intervals.channels).toBe(30_000);
    expect(config.intervals.sweep).toBe(15 * 60_000);
    expect(config.state.dir).toBe('./.tally-state');
    expect(config.server.metrics).toEqual({ channel_series: 20_000, session_series: 5_000 });
  });

  it('takes series caps for /metrics and refuses a negative one where it stands', async () => {
    const ok = await parseConfig(`${base}server:\n  metrics:\n    channel_series: 500\n`, {
      source: 'x',
      env: {},
      baseDir: dir,
    });
    expect(ok.config.server.metrics).toEqual({ channel_series: 500, session_series: 5_000 });
    const problems = await problemsOf(`${base}server:\n  metrics:\n    session_series: -1\n`);
    expect(
      problems.find((p) => p.startsWith('server.metrics.session_series:') && p.includes('line 8')),
      problems.join('\n'),
    ).toBeDefined();
  });

  it.each([
    ['a missing required key', 'orgs:\n  - slug: a\n    token: t\n', 'upstream: required (line 1, column 1)'],
    ['an unknown key', `${base}    tokn: x\n`, 'orgs[0].tokn: unknown key (line 6, column 5)'],
    [
      'a budget above the API limit',
      base.replace('8080\n', '8080\n  budget_per_minute: 301\n'),
      'upstream.budget_per_minute: at most 300: the API allows 300 requests per minute per IP, found 301 (line 3, column 22)',
    ],
    [
      'a malformed duration',
      `${base}intervals:\n  channels: 30 seconds\n`,
      'intervals.channels: a duration such as 30s, 5m, 1h30m or 7d, found "30 seconds" (line 7, column 13)',
    ],
    [
      'a wrong enum value',
      `${base}log:\n  format: xml\n`,
      'log.format: expected one of "auto", "json", "pretty", found "xml" (line 7, column 11)',
    ],
    ['an unknown top-level key', `${base}upstream2: 1\n`, 'upstream2: unknown key (line 6, column 1)'],
    [
      'a zero polling interval',
      `${base}intervals:\n  channels: 0s\n`,
      'intervals.channels: at least 1s, found "0s" (line 7',
    ],
    [
      'a zero delivery timeout',
      `${base}delivery:\n  timeout: 0s\n`,
      'delivery.timeout: at least 100ms, found "0s" (line 7',
    ],
    [
      'a zero resend interval',
      `${base}receivers:\n  - name: am\n    alertmanager: { urls: ["http://am:9093"], resend_interval: 0s }\n`,
      'receivers[0].alertmanager.resend_interval: at least 1s, found "0s" (line 8',
    ],
    [
      'a receiver timeout under 100 ms',
      `${base}receivers:\n  - name: c\n    timeout: 10ms\n    log: {}\n`,
      'receivers[0].timeout: at least 100ms, found "10ms" (line 8',
    ],
    [
      'a wrong type',
      base.replace('8080\n', '8080\n  concurrency: four\n'),
      'upstream.concurrency: expected number, found "four" (line 3, column 16)',
    ],
    [
      'an org without a token',
      'upstream:\n  base_url: http://x\norgs:\n  - slug: acme\n',
      'orgs[0]: token or token_file is required (line 4, column 5)',
    ],
    [
      'a duplicate slug',
      `${base}  - slug: acme\n    token: t\n`,
      'orgs[1].slug: duplicate of orgs[0].slug (line 6, column 11)',
    ],
    [
      'a non-http base URL',
      base.replace('http://127.0.0.1:8080', 'ftp://host'),
      'upstream.base_url: an http:// or https:// URL, found "ftp://host" (line 2, column 13)',
    ],
    [
      'both token and token_file',
      `${base}    token_file: token\n`,
      'orgs[0].token_file: set either token or token_file, not both (line 6, column 17)',
    ],
    [
      'an unreadable token file',
      'upstream:\n  base_url: http://x\norgs:\n  - slug: a\n    token_file: nope\n',
      'orgs[0].token_file: nope: cannot read it: file not found (line 5, column 17)',
    ],
    [
      'an empty token file',
      'upstream:\n  base_url: http://x\norgs:\n  - slug: a\n    token_file: empty\n',
      'orgs[0].token_file: file empty is empty (line 5, column 17)',
    ],
    [
      'an unset environment variable',
      base.replace('abc123', '${NOPE}'),
      'orgs[0].token: environment variable NOPE is not set (write ${NOPE:-default} for a default) (line 5, column 12)',
    ],
    ['invalid YAML', 'upstream: [\n', 'invalid YAML'],
    [
      'a CEL syntax error at its character',
      `${base}rules:\n  - name: r\n    for_each: channel\n    when: 'channel.status == "live" &&& true'\n`,
      'rules[0].when: Unexpected character: & (at column 28 of the expression) (line 9, column 39)',
    ],
    [
      'a route to a receiver that does not exist',
      `${base}route:\n  receiver: nobody\nreceivers:\n  - name: console\n    log: {}\n`,
      'route.receiver: no receiver named "nobody" (receivers: console) (line 7, column 13)',
    ],
    [
      'a duplicate key',
      `${base}log: {}\nlog: {}\n`,
      'invalid YAML: Map keys must be unique (line 7, column 1)',
    ],
  ])('reports %s with its path and position', async (_name, text, expected) => {
    const problems = await problemsOf(text);
    expect(
      problems.find((p) => p.startsWith(expected)),
      problems.join('\n'),
    ).toBeDefined();
  });

  it('reports three different mistakes at once, in file order', async () => {
    const text = `upstream:
  base_url: http://x
  budget_per_minute: 9000
orgs:
  - slug: acme
    tokn: abc
intervals:
  channels: soon
`;
    expect(await problemsOf(text)).toEqual([
      'upstream.budget_per_minute: at most 300: the API allows 300 requests per minute per IP, found 9000 (line 3, column 22)',
      'orgs[0]: token or token_file is required (line 5, column 5)',
      'orgs[0].tokn: unknown key (line 6, column 5)',
      'intervals.channels: a duration such as 30s, 5m, 1h30m or 7d, found "soon" (line 8, column 13)',
    ]);
  });

  it('interpolates ${VAR} and ${VAR:-default} in values only, and keeps $${ literal', async () => {
    const text = `upstream:
  base_url: \${BASE:-http://fallback:1}
orgs:
  - slug: acme
    token: \${TOKEN}
    labels:
      note: "cost $\${HIGH}"
`;
    const { config, secrets } = await parseConfig(text, {
      source: 'x',
      env: { TOKEN: 'env-token' },
      baseDir: dir,
    });
    expect(config.upstream.base_url).toBe('http://fallback:1');
    expect(config.orgs[0]!.token).toBe('env-token');
    expect(config.orgs[0]!.labels).toEqual({ note: 'cost ${HIGH}' });
    expect(secrets).toContain('env-token');
  });

  it('an environment value cannot change the structure of the document', async () => {
    const text = base.replace('abc123', '${EVIL}');
    const { config } = await parseConfig(text, {
      source: 'x',
      env: { EVIL: 'x\n  - slug: injected' },
      baseDir: dir,
    });
    expect(config.orgs).toHaveLength(1);
  });

  it('reads token_file relative to the config file and treats it as a secret', async () => {
    const text = 'upstream:\n  base_url: http://x\norgs:\n  - slug: a\n    token_file: token\n';
    const { config, secrets } = await parseConfig(text, { source: 'x', env: {}, baseDir: dir });
    expect(config.orgs[0]!.token).toBe('file-token-value');
    expect(secrets).toEqual(['file-token-value']);
  });

  it('never puts a secret into an error message', async () => {
    const text = `${base}    token_expires_at: soon\n`;
    const problems = await problemsOf(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).not.toContain('abc123');
  });
});

describe('JSON Schema', () => {
  it('the committed schema matches the config declaration (run `npm run schema`)', async () => {
    const committed = await readFile(path.resolve(JSON_SCHEMA_PATH), 'utf8');
    expect(committed).toBe(renderConfigJsonSchema());
  });

  it('rejects unknown keys and documents defaults', () => {
    const schema = JSON.parse(renderConfigJsonSchema());
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.upstream.properties.timeouts.properties.connect.default).toBe('5s');
  });
});

describe('TALLY_STATE_DIR', () => {
  const minimal = 'upstream:\n  base_url: http://x\norgs:\n  - slug: a\n    token: t\n';
  const load = (text: string, env: Record<string, string>) =>
    parseConfig(text, { source: 'tally.yaml', env, baseDir: '/tmp' }).then((l) => l.config.state.dir);

  it('is the state directory of a config that names none (the container image sets it to its volume)', async () => {
    expect(await load(minimal, { TALLY_STATE_DIR: '/var/lib/tally' })).toBe('/var/lib/tally');
    expect(await load(`${minimal}state: { events: { max_age: 1d } }\n`, { TALLY_STATE_DIR: '/v' })).toBe(
      '/v',
    );
  });

  it('gives way to state.dir in the config, and to nothing when unset', async () => {
    expect(await load(`${minimal}state: { dir: /data }\n`, { TALLY_STATE_DIR: '/var/lib/tally' })).toBe(
      '/data',
    );
    expect(await load(minimal, {})).toBe('./.tally-state');
  });
});
