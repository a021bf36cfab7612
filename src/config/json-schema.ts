/**
 * The JSON Schema of the config file, generated from the same zod declaration that
 * validates it, so editors (yaml-language-server) complete and check what tally accepts.
 */
import { z } from 'zod';
import { configSchema } from './schema.js';

/** Where the published schema lives, relative to the repository root. */
export const JSON_SCHEMA_PATH = 'schema/tally.schema.json';

/** Marks the alternative that admits a `${VAR}` reference (the docs generator drops it). */
export const ENV_REFERENCE_COMMENT =
  '${VAR} reference, resolved from the environment when the config is loaded';

/** A value that is nothing but references: it may become a number or a boolean (src/config/interpolate.ts). */
const ONLY_REFERENCES = '^(?:\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})+$';
/** Text with a reference anywhere: it becomes text, checked after interpolation. */
const HAS_REFERENCE = '\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\}';

/** Annotations that stay on the outside of a wrapped schema, where editors look for them. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated'] as const;

type Node = Record<string, unknown>;

/** Whether a schema constrains a scalar so that a bare `${VAR}` would fail it. */
function refusesReference(s: Node): 'typed' | 'text' | undefined {
  const types = [s['type']].flat().filter((t): t is string => typeof t === 'string');
  if (types.some((t) => t === 'integer' || t === 'number' || t === 'boolean' || t === 'null')) return 'typed';
  const values = 'const' in s ? [s['const']] : Array.isArray(s['enum']) ? s['enum'] : undefined;
  if (values) return values.every((v) => typeof v === 'string') ? 'text' : 'typed';
  if (types.includes('string') && ('pattern' in s || 'format' in s || 'maxLength' in s)) return 'text';
  return undefined;
}

/**
 * Lets every scalar value take a `${VAR}` reference, as `tally check` does: a constrained
 * scalar becomes "the original, or a reference" (a number or boolean only from a value that
 * is nothing but references, as the loader reads those). Keys are never interpolated.
 */
function admitReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(admitReferences);
  if (node === null || typeof node !== 'object') return node;
  const s: Node = {};
  for (const [key, value] of Object.entries(node as Node)) {
    if (
      key === 'propertyNames' ||
      key === 'enum' ||
      key === 'const' ||
      key === 'default' ||
      key === 'examples'
    )
      s[key] = value;
    else if (key === 'properties' || key === '$defs' || key === 'patternProperties')
      s[key] = Object.fromEntries(Object.entries(value as Node).map(([k, v]) => [k, admitReferences(v)]));
    else s[key] = admitReferences(value);
  }
  const kind = refusesReference(s);
  if (!kind) return s;
  const outer: Node = {};
  const inner: Node = { ...s };
  for (const a of ANNOTATIONS)
    if (a in inner) {
      outer[a] = inner[a];
      delete inner[a];
    }
  return {
    ...outer,
    anyOf: [
      inner,
      {
        type: 'string',
        pattern: kind === 'typed' ? ONLY_REFERENCES : HAS_REFERENCE,
        $comment: ENV_REFERENCE_COMMENT,
      },
    ],
  };
}

/** Renders the config JSON Schema as formatted text (what `schema/tally.schema.json` holds). */
export function renderConfigJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return `${JSON.stringify(admitReferences(schema), null, 2)}\n`;
}
