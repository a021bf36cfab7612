/**
 * The `${VAR}` step of loading a config: references are replaced in scalars only, so the
 * environment can never change the document's structure (docs/configuration.md).
 */
import { isScalar, type Node, Schema, type ScalarTag, visit } from 'yaml';
import type { z } from 'zod';
import { formatPath } from './problems.js';
import { type PathSeg, pathOf } from './yaml.js';

const VAR = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** A scalar that is nothing but `${…}` references: its whole value comes from interpolation. */
const ONLY_REFS = /^(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})+$/;

/** The YAML 1.2 core schema's boolean, integer and float forms (`true`, `0x1F`, `1e3`, `.inf`). */
const CORE_TYPED_TAGS = new Schema({ schema: 'core' }).tags.filter(
  (t): t is ScalarTag & { test: RegExp } =>
    'test' in t &&
    t.test instanceof RegExp &&
    ['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float'].includes(t.tag),
);

/**
 * Reads interpolated text the way YAML reads a plain scalar, but only as a boolean or a
 * number: null, `~` and an empty result stay text, since an environment variable cannot
 * remove a key and no key of tally takes null.
 */
function coreScalar(text: string): string | number | boolean {
  for (const tag of CORE_TYPED_TAGS) {
    if (!tag.test.test(text)) continue;
    const resolved = tag.resolve(text, () => undefined, { intAsBigInt: false });
    // The core boolean tag resolves to a Scalar node, the number tags to plain values.
    const value = isScalar(resolved) ? resolved.value : resolved;
    if (typeof value === 'number' || typeof value === 'boolean') return value;
  }
  return text;
}

/** Interpolated scalars now holding a number or boolean, by formatted path, with their text. */
export type Retyped = Map<string, { path: PathSeg[]; text: string }>;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string scalar; `$${` is a literal `${`.
 * A plain (unquoted, untagged) value made only of references is then read as a YAML scalar,
 * so `${BUDGET:-200}` is the number 200; quoted values and mixed text stay strings.
 */
export function interpolate(
  root: Node | null,
  env: Readonly<Record<string, string | undefined>>,
  problem: (p: PathSeg[], msg: string) => void,
): Retyped {
  const retyped: Retyped = new Map();
  if (!root) return retyped;
  visit(root, {
    Scalar(key, node, ancestry) {
      if (typeof node.value !== 'string' || !node.value.includes('$')) return;
      const p = pathOf(ancestry, node);
      const whole =
        key !== 'key' && node.type === 'PLAIN' && node.tag === undefined && ONLY_REFS.test(node.value);
      let failed = false;
      const text = node.value.replace(VAR, (match, name: string | undefined, def: string | undefined) => {
        if (match === '$${') return '${';
        const v = env[name!];
        if (v !== undefined && v !== '') return v;
        if (def !== undefined) return def;
        failed = true;
        problem(p, `environment variable ${name} is not set (write \${${name}:-default} for a default)`);
        return '';
      });
      const typed = whole && !failed ? coreScalar(text) : text;
      node.value = typed;
      if (typed !== text) retyped.set(formatPath(p), { path: p, text });
    },
  });
  return retyped;
}

/**
 * Puts the text back into interpolated values that the schema wants as strings (a token or
 * a label value that happens to be all digits). Returns whether anything changed.
 */
export function backToText(raw: unknown, issues: readonly z.core.$ZodIssue[], retyped: Retyped): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
    const p = issue.path.filter((s): s is PathSeg => typeof s !== 'symbol');
    const entry = retyped.get(formatPath(p));
    if (!entry) continue;
    const parent = entry.path
      .slice(0, -1)
      .reduce<unknown>((n, seg) => (n as Record<PathSeg, unknown>)?.[seg], raw);
    const last = entry.path.at(-1);
    if (parent === null || typeof parent !== 'object' || last === undefined) continue;
    (parent as Record<PathSeg, unknown>)[last] = entry.text;
    retyped.delete(formatPath(p));
    changed = true;
  }
  return changed;
}
