import { describe, expect, it } from 'vitest';
import { type LoadedConfig, parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/core/errors.js';

const head = 'upstream:\n  base_url: http://x\n';
const org = 'orgs:\n  - slug: a\n    token: t\n';

async function load(text: string, env: Record<string, string>): Promise<LoadedConfig> {
  return parseConfig(text, { source: 'tally.yaml', env, baseDir: '.' });
}

async function problemsOf(text: string, env: Record<string, string>): Promise<readonly string[]> {
  try {
    await load(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('${VAR} in a non-string value', () => {
  it.each<[string, string, Record<string, string>, (c: LoadedConfig['config']) => unknown, unknown]>([
    [
      'a default number',
      `${head}  budget_per_minute: \${BUDGET:-200}\n${org}`,
      {},
      (c) => c.upstream.budget_per_minute,
      200,
    ],
    [
      'a number from the environment',
      `${head}  budget_per_minute: \${BUDGET:-200}\n${org}`,
      { BUDGET: '120' },
      (c) => c.upstream.budget_per_minute,
      120,
    ],
    [
      'a hexadecimal number',
      `${head}  concurrency: \${C}\n${org}`,
      { C: '0x3' },
      (c) => c.upstream.concurrency,
      3,
    ],
    [
      'several references and nothing else',
      `${head}  budget_per_minute: \${H}\${T}\n${org}`,
      { H: '1', T: '50' },
      (c) => c.upstream.budget_per_minute,
      150,
    ],
    [
      'a boolean',
      `${head}  filters:\n    send_status: \${SEND:-false}\n${org}`,
      { SEND: 'true' },
      (c) => c.upstream.filters.send_status,
      true,
    ],
    ['null, which stays text', `${head}${org}state:\n  dir: \${DIR:-null}\n`, {}, (c) => c.state.dir, 'null'],
    ['~, which stays text', `${head}${org}state:\n  dir: \${DIR}\n`, { DIR: '~' }, (c) => c.state.dir, '~'],
    [
      'digits where a string is wanted (slug, token, label)',
      `${head}orgs:\n  - slug: \${S}\n    token: \${T}\n    labels:\n      cc: \${CC}\n`,
      { S: '2024', T: '98765432109876', CC: 'true' },
      (c) => c.orgs[0],
      { slug: '2024', token: '98765432109876', labels: { cc: 'true' }, weight: 1 },
    ],
    [
      'a zero duration',
      `${head}  retries:\n    base_delay: \${D:-0}\n${org}`,
      {},
      (c) => c.upstream.retries.base_delay,
      0,
    ],
  ])('reads %s', async (_name, text, env, pick, expected) => {
    const { config } = await load(text, env);
    expect(pick(config)).toEqual(expected);
  });

  it('keeps a token of digits from the environment as a secret string', async () => {
    const { secrets } = await load(`${head}orgs:\n  - slug: a\n    token: \${T}\n`, { T: '98765432109876' });
    expect(secrets).toEqual(['98765432109876']);
  });

  it.each<[string, string, Record<string, string>, string]>([
    [
      'a double-quoted reference stays a string',
      `${head}  budget_per_minute: "\${BUDGET:-200}"\n${org}`,
      {},
      'upstream.budget_per_minute: expected number, found "200" (line 3, column 22)',
    ],
    [
      'a single-quoted reference stays a string',
      `${head}  budget_per_minute: '\${BUDGET:-200}'\n${org}`,
      {},
      'upstream.budget_per_minute: expected number, found "200" (line 3, column 22)',
    ],
    [
      'a reference in longer text stays a string',
      `${head}  concurrency: \${C}0\n${org}`,
      { C: '4' },
      'upstream.concurrency: expected number, found "40" (line 3, column 16)',
    ],
    [
      'an explicit !!str stays a string',
      `${head}  concurrency: !!str \${C}\n${org}`,
      { C: '4' },
      'upstream.concurrency: expected number, found "4" (line 3, column 22)',
    ],
    [
      'a typed value out of range points at the reference',
      `${head}  budget_per_minute: \${BUDGET:-200}\n${org}`,
      { BUDGET: '9000' },
      'upstream.budget_per_minute: at most 300: the API allows 300 requests per minute per IP, found 9000 (line 3, column 22)',
    ],
    [
      'text where a number is wanted',
      `${head}  concurrency: \${C}\n${org}`,
      { C: 'four' },
      'upstream.concurrency: expected number, found "four" (line 3, column 16)',
    ],
  ])('%s', async (_name, text, env, expected) => {
    expect(await problemsOf(text, env)).toEqual([expected]);
  });

  it('reports an unset variable in a number field once, not also as a wrong type', async () => {
    expect(await problemsOf(`${head}  concurrency: \${C}\n${org}`, {})).toEqual([
      'upstream.concurrency: environment variable C is not set (write ${C:-default} for a default) (line 3, column 16)',
    ]);
  });
});
