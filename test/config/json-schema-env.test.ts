/**
 * The published JSON Schema (schema/tally.schema.json) accepts a `${VAR}` reference
 * wherever `tally check` does: every scalar of config.example.yaml is replaced, one at a
 * time, by a reference to a variable holding the same value, and both the loader and the
 * schema must accept the result. What neither accepts stays refused.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, isSeq, type Node, parse, parseDocument, type Scalar } from 'yaml';
import { JSON_SCHEMA_PATH } from '../../src/config/json-schema.js';
import { parseConfig } from '../../src/config/load.js';

const schema = JSON.parse(readFileSync(JSON_SCHEMA_PATH, 'utf8')) as object;
// Formats (uri, date-time) checked too, as editors do.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);
const example = readFileSync('config.example.yaml', 'utf8');

/** The schema's complaints about a YAML text, or [] when it accepts it. */
function schemaErrors(text: string): string[] {
  return validate(parse(text)) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Whether the loader accepts a YAML text with this environment (the error when not). */
async function checkError(text: string, env: Record<string, string>): Promise<string | undefined> {
  try {
    await parseConfig(text, { source: 'test.yaml', env, baseDir: '.' });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Every plain scalar value of a YAML document (not keys), with its path for messages. */
function scalarsOf(node: Node | null, at = ''): { path: string; scalar: Scalar }[] {
  if (isMap(node))
    return node.items.flatMap((pair) =>
      scalarsOf(pair.value as Node | null, `${at}.${isScalar(pair.key) ? String(pair.key.value) : '?'}`),
    );
  if (isSeq(node)) return node.items.flatMap((item, i) => scalarsOf(item as Node | null, `${at}[${i}]`));
  if (isScalar(node) && node.value !== null) return [{ path: at, scalar: node }];
  return [];
}

const scalars = scalarsOf(parseDocument(example).contents as Node).filter(
  // Values that are references already stay as they are.
  ({ scalar }) => !String(scalar.source ?? scalar.value).includes('${'),
);

describe('${VAR} in the JSON Schema', () => {
  it('has typed values to try (numbers, booleans, durations, enums)', () => {
    const kinds = new Set(scalars.map(({ scalar }) => typeof scalar.value));
    expect(kinds).toEqual(new Set(['string', 'number', 'boolean']));
    expect(scalars.length).toBeGreaterThan(40);
  });

  it('accepts the example as it is', () => {
    expect(schemaErrors(example)).toEqual([]);
  });

  it('accepts a reference wherever `tally check` does: every value of the example in turn', async () => {
    const refused: string[] = [];
    for (const { path, scalar } of scalars) {
      const doc = parseDocument(example);
      const node = (scalarsOf(doc.contents as Node).find((s) => s.path === path) ?? { scalar: undefined })
        .scalar;
      if (!node) throw new Error(`lost ${path}`);
      node.value = '${TALLY_TEST_VALUE}';
      node.type = 'PLAIN';
      const text = doc.toString();
      const env = { TALLY_TEST_VALUE: String(scalar.value) };
      const check = await checkError(text, env);
      expect(
        check,
        `tally check refused ${path}: \${TALLY_TEST_VALUE}=${env.TALLY_TEST_VALUE}`,
      ).toBeUndefined();
      const errors = schemaErrors(text);
      if (errors.length > 0) refused.push(`${path}: ${errors.join('; ')}`);
    }
    expect(refused).toEqual([]);
  }, 60_000);

  it.each<[string, string]>([
    [
      'a number field',
      'upstream:\n  base_url: http://x\n  budget_per_minute: ${BUDGET:-200}\norgs: [{ slug: a, token: t }]\n',
    ],
    [
      'a boolean field',
      'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nserver:\n  enable_writes: ${WRITES}\n',
    ],
    [
      'a pattern inside longer text',
      'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nserver: { listen: "${HOST}:10464" }\n',
    ],
    ['an enum', 'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nlog:\n  level: ${LEVEL}\n'],
    [
      'a duration',
      'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nintervals:\n  channels: ${EVERY:-45s}\n',
    ],
  ])('accepts a reference in %s, as check does', async (_, text) => {
    const env = { BUDGET: '120', WRITES: 'true', HOST: '127.0.0.1', LEVEL: 'debug', EVERY: '45s' };
    expect(await checkError(text, env)).toBeUndefined();
    expect(schemaErrors(text)).toEqual([]);
  });

  it.each<[string, string]>([
    [
      'text in a number field',
      'upstream: { base_url: http://x, budget_per_minute: lots }\norgs: [{ slug: a, token: t }]\n',
    ],
    [
      'a number field with text around a reference',
      'upstream: { base_url: http://x, budget_per_minute: "${B}0" }\norgs: [{ slug: a, token: t }]\n',
    ],
    [
      'a value outside an enum',
      'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nlog: { level: loud }\n',
    ],
    ['an unknown key', 'upstream: { base_url: http://x }\norgs: [{ slug: a, token: t }]\nlogs: {}\n'],
  ])('still refuses %s, as check does', async (_, text) => {
    expect(await checkError(text, { B: '1' })).toBeDefined();
    expect(schemaErrors(text)).not.toEqual([]);
  });
});
