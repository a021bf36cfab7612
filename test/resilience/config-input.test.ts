/**
 * Bad input, config side: whatever text a config file holds, `parseConfig` returns a
 * Config or throws a ConfigError whose every problem line names a path and a position —
 * never another exception. Arbitrary YAML and JSON documents, token soup, and mutated
 * versions of config.example.yaml.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/core/errors.js';

const EXAMPLE = readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8');
const RUNS = { numRuns: 150, seed: 20_261_101 };

/** `path: what (line L, column C)`, or a YAML syntax problem with its position. */
const PROBLEM = /^(?:invalid YAML|[^\n]+?): [^\n]+ \(line \d+, column \d+\)$/;

/** Parses `text`; returns 'config', or the problem lines that break the contract, or throws what is not a ConfigError. */
async function check(text: string): Promise<'config' | string[]> {
  try {
    await parseConfig(text, { source: 'fuzz.yaml', env: {}, baseDir: '/nonexistent' });
    return 'config';
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    expect(err.problems.length).toBeGreaterThan(0);
    return err.problems.filter((p) => !PROBLEM.test(p));
  }
}

/** Like {@link check}, in a child process (for inputs that may overflow the stack). */
function checkInChild(text: string): 'config' | string[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/resilience/fixtures/parse-config.ts'], {
    input: text,
    encoding: 'utf8',
    timeout: 5_000,
  });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (!line.startsWith('{')) throw new Error(`the parser process died: ${r.stderr.slice(-300)}`);
  const out = JSON.parse(line) as { config?: true; problems?: string[]; other?: string };
  if (out.other !== undefined) throw new Error(`not a ConfigError: ${out.other}`);
  return out.config ? 'config' : (out.problems ?? []).filter((p) => !PROBLEM.test(p));
}

/** Every problem line the child process reports for `text`. */
function problemsInChild(text: string): string[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/resilience/fixtures/parse-config.ts'], {
    input: text,
    encoding: 'utf8',
    timeout: 5_000,
  });
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { problems?: string[] };
  return out.problems ?? [];
}

async function holds(text: string): Promise<boolean> {
  const r = await check(text);
  if (r !== 'config' && r.length > 0)
    throw new Error(`problems without a path or position: ${JSON.stringify(r)}`);
  return true;
}

const key = fc.oneof(
  fc.constantFrom('upstream', 'orgs', 'intervals', 'server', 'state', 'log', 'rules', 'route', 'receivers'),
  fc.constantFrom(
    'base_url',
    'slug',
    'token',
    'token_file',
    'channels',
    'listen',
    'dir',
    'name',
    'on',
    'when',
  ),
  fc.string({ maxLength: 8 }),
);
const doc: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 5 }),
  ),
})).v;

/** Line-level mutations of a valid file: what a slip of the hand or a bad merge does. */
type Mutation =
  | { op: 'delete' | 'duplicate' | 'dedent' | 'indent'; line: number }
  | { op: 'replace-value'; line: number; value: string }
  | { op: 'insert'; line: number; text: string }
  | { op: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constantFrom('delete', 'duplicate', 'dedent', 'indent'),
    line: fc.nat(),
  }) as fc.Arbitrary<Mutation>,
  fc.record({
    op: fc.constant('replace-value' as const),
    line: fc.nat(),
    value: fc.oneof(
      fc.constantFrom(
        '',
        '-1',
        '0',
        'null',
        '[]',
        '{}',
        'yes',
        '1e999',
        '"',
        "'",
        '&a',
        '*a',
        '${X}',
        '10Q',
        '30 s',
      ),
      fc.string({ maxLength: 12 }),
    ),
  }),
  fc.record({
    op: fc.constant('insert' as const),
    line: fc.nat(),
    text: fc.constantFrom('bogus: 1', '  - x', '\t', '---', '? a', ': b', '  extra: [1, 2'),
  }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(text: string, ms: readonly Mutation[]): string {
  let lines = text.split('\n');
  for (const m of ms) {
    if (m.op === 'truncate') {
      const joined = lines.join('\n');
      lines = joined.slice(0, m.at % (joined.length + 1)).split('\n');
      continue;
    }
    const i = m.line % Math.max(1, lines.length);
    const line = lines[i] ?? '';
    if (m.op === 'delete') lines.splice(i, 1);
    else if (m.op === 'duplicate') lines.splice(i, 0, line);
    else if (m.op === 'dedent') lines[i] = line.replace(/^ {1,2}/, '');
    else if (m.op === 'indent') lines[i] = `  ${line}`;
    else if (m.op === 'insert') lines.splice(i, 0, m.text);
    else if (m.op === 'replace-value') {
      lines[i] = line.includes(':') ? `${line.slice(0, line.indexOf(':') + 1)} ${m.value}` : m.value;
    }
  }
  return lines.join('\n');
}

describe('config files, whatever they hold', () => {
  it('config.example.yaml itself loads', async () => {
    expect(await check(EXAMPLE)).toBe('config');
  });

  it('arbitrary documents, as YAML and as JSON, give a Config or located problems', async () => {
    await fc.assert(
      fc.asyncProperty(
        doc,
        async (d) => (await holds(stringify(d))) && (await holds(JSON.stringify(d) ?? '')),
      ),
      RUNS,
    );
  });

  it('mutated versions of config.example.yaml give a Config or located problems', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (ms) =>
        holds(mutate(EXAMPLE, ms)),
      ),
      RUNS,
    );
  });

  it('token soup (YAML punctuation, anchors and aliases aside) gives a Config or located problems', async () => {
    const token = fc.constantFrom(
      'a',
      'orgs',
      ':',
      ' ',
      '\n',
      '  ',
      '- ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '"',
      "'",
      '#',
      '|',
      '>',
      '!!str ',
      '? ',
      '1',
      'null',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 40 }), async (ts) => holds(ts.join(''))),
      RUNS,
    );
  });
});

describe('documents that once escaped the contract', () => {
  // Each of these threw something other than a ConfigError (a cycle even overflowed the
  // stack, so they run in a child process), or gave problems without a position.
  it.each([
    [
      'an alias to an anchor that is never set',
      'a: &x 1\nb: *y\n',
      'invalid YAML: alias *y has no anchor &y before it (line 2, column 4)',
    ],
    [
      'an anchor that contains its own alias (a cycle)',
      'upstream: &a [*a]\n',
      'invalid YAML: alias *a refers to a node that contains it (a cycle) (line 1, column 15)',
    ],
    [
      'an alias that nests its anchor (a cycle through a map)',
      'orgs: &o\n  - slug: a\n    token: t\n    x: *o\n',
      'invalid YAML: alias *o refers to a node that contains it (a cycle) (line 4, column 8)',
    ],
    ['an empty file', '', 'upstream: required (line 1, column 1)'],
    ['a file of comments only', '# nothing here yet\n', 'upstream: required (line 1, column 1)'],
  ])('%s', (_what, text, first) => {
    const r = checkInChild(text);
    expect(r).toEqual([]);
    expect(problemsInChild(text)[0]).toBe(first);
  });

  it('a well-formed alias is fine (the child process reports a Config)', () => {
    expect(
      checkInChild(
        'x: &url http://127.0.0.1:1\nupstream: { base_url: *url }\norgs: [{ slug: a, token: t }]\n',
      ),
    ).toEqual([]);
  });
});
