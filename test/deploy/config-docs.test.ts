import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOCS_PATH,
  documentKeys,
  withoutEnvReferences,
  EXAMPLE_PATH,
  exampleComments,
  exampleKeyPaths,
  FALLBACK_DESCRIPTIONS,
  type JsonSchema,
  renderConfigDocsFromRepo,
  SCHEMA_PATH,
  typeOf,
} from '../../scripts/write-config-docs.js';

const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as JsonSchema;
const example = readFileSync(EXAMPLE_PATH, 'utf8');
const keys = documentKeys(withoutEnvReferences(schema), exampleComments(example));
const docs = readFileSync(CONFIG_DOCS_PATH, 'utf8');

describe('docs/configuration.md', () => {
  it('is up to date with the schema and the example (run `npm run docs:config`)', () => {
    expect(docs).toBe(renderConfigDocsFromRepo());
  });

  it('lists every key of the schema, with a description', () => {
    expect(keys.length).toBeGreaterThan(100);
    const undescribed = keys.filter((k) => k.description === '').map((k) => k.path);
    expect(undescribed).toEqual([]);
    for (const k of keys) {
      const top = !k.path.includes('.') && !k.path.includes('[');
      expect(docs, k.path).toContain(top ? `## ${k.path}` : `| \`${k.path}\` |`);
    }
  });

  it('documents every option config.example.yaml sets', () => {
    const documented = new Map(keys.map((k) => [k.path, k]));
    const missing = exampleKeyPaths(example).filter((p) => {
      if (documented.has(p)) return false;
      // A list documented as "list of object like `x`" has the keys of `x`.
      const like = [...documented.values()].find(
        (d) => p.startsWith(`${d.path}[].`) && /like `[^`]+`/.test(d.type),
      );
      const of = like && /like `([^`]+)`/.exec(like.type)?.[1];
      if (of && documented.has(`${of}.${p.slice(like.path.length + 3)}`)) return false;
      // Keys inside a map (labels, annotations) are the user's own: the map is documented.
      const parent = [...documented.keys()]
        .filter((d) => p.startsWith(`${d}.`))
        .sort((a, b) => b.length - a.length)[0];
      return !(parent && documented.get(parent)!.type.startsWith('map of'));
    });
    expect(missing).toEqual([]);
  });

  it('has fallback descriptions only for keys that exist', () => {
    const paths = new Set(keys.map((k) => k.path));
    expect(Object.keys(FALLBACK_DESCRIPTIONS).filter((p) => !paths.has(p))).toEqual([]);
  });
});

describe('typeOf', () => {
  const none = () => 'object';
  it.each<[string, JsonSchema, string]>([
    ['a duration', { type: 'string', pattern: '^(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+$|^0$' }, 'duration'],
    [
      'a size',
      {
        anyOf: [
          { type: 'integer', exclusiveMinimum: 0 },
          { type: 'string', pattern: '^\\d+(\\.\\d+)?\\s*([kKmMgG]i?[bB]|[bB])?$' },
        ],
      },
      'size',
    ],
    ['an enum', { type: 'string', enum: ['a', 'b'] }, '`a` \\| `b`'],
    ['a bounded integer', { type: 'integer', minimum: 1, maximum: 300 }, 'integer, 1–300'],
    ['an integer with a floor', { type: 'integer', minimum: 0 }, 'integer, ≥ 0'],
    ['a URL', { type: 'string', format: 'uri' }, 'URL'],
    ['a list', { type: 'array', items: { type: 'string' }, minItems: 1 }, 'list of string (at least 1)'],
    ['a map', { type: 'object', additionalProperties: { type: 'string' } }, 'map of string'],
    [
      'one of two',
      { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      'string or list of string',
    ],
  ])('renders %s', (_, s, want) => {
    expect(typeOf(s, none)).toBe(want);
  });
});

describe('exampleComments', () => {
  it('takes prose above a key or after a scalar, never commented-out YAML or banners', () => {
    const comments = exampleComments(`# --- Section ---------
# The first key.
a:
  # Tries per request.
  b: 1
  c: 2 # after c
  # d: commented out
  #
  # Real prose.
  e: 3
`);
    expect(Object.fromEntries(comments)).toEqual({
      a: 'The first key.',
      'a.b': 'Tries per request.',
      'a.c': 'after c',
      'a.e': 'Real prose.',
    });
  });
});
