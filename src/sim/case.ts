/**
 * Field case: bodies are built in snake case and turned into camel case on request.
 * Keys under `by_kind` are data (reaction kinds), not field names, and stay as they are.
 */

const cache = new Map<string, string>();

/** `channel_id` → `channelId`. */
export function camelKey(key: string): string {
  let out = cache.get(key);
  if (out === undefined) {
    // A leading underscore is part of the name (`_embedded`, `_links`).
    out = key.replace(/(?!^)_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (cache.size < 10_000) cache.set(key, out);
  }
  return out;
}

/** A deep copy of a JSON value with every field name in camel case. */
export function toCamel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCamel);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[camelKey(k)] = k === 'by_kind' ? v : toCamel(v);
  }
  return out;
}
