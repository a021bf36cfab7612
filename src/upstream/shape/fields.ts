/**
 * Where each model field is looked for in a record: dot paths tried in order, the first
 * usable value wins. Paths are written in snake_case; camelCase, PascalCase and
 * kebab-case keys match them too (see `prop` in json.ts). Operator aliases from
 * `upstream.shape.fields` are tried before these.
 */
import { FIELD_ALIASES, type FieldKey } from './field-aliases.js';
import type { ShapeOptions } from './options.js';

export { FIELD_ALIASES, type FieldKey } from './field-aliases.js';

/** Every field key, for validating operator overrides. */
export const FIELD_KEYS = Object.keys(FIELD_ALIASES) as FieldKey[];

/** Whether a string names a field key (config keys are plain strings). */
export function isFieldKey(key: string): key is FieldKey {
  return Object.hasOwn(FIELD_ALIASES, key);
}

/** The paths to try for a field: operator aliases first, then the built-in ones. */
export function aliasesFor(key: FieldKey, opts: ShapeOptions): readonly string[] {
  const extra = opts.fields?.[key];
  const builtIn: readonly string[] = FIELD_ALIASES[key];
  if (!Array.isArray(extra) || extra.length === 0) return builtIn;
  return [...extra.filter((p): p is string => typeof p === 'string'), ...builtIn];
}
