/**
 * JSON text in pieces: the same text as `JSON.stringify(value)`, produced a piece at a time
 * so that a large state file (a snapshot of 100k sessions is some 18 MiB) is never one
 * string in memory, and its writing leaves the event loop free between pieces.
 */

/** Pieces are joined up to about this size before they are handed out. */
const PIECE_CHARS = 64 * 1024;

/**
 * The text of `JSON.stringify(value)` in pieces of about 64 KiB. Objects and arrays are
 * walked `depth` levels down; below that each value is stringified whole. Values must be
 * plain JSON data (objects, arrays, strings, numbers, booleans, null, undefined), read
 * lazily: they must not change until the last piece is taken.
 */
export function* jsonPieces(value: unknown, depth = 3): Generator<string> {
  let buffer = '';
  for (const part of walk(value, depth)) {
    buffer += part;
    if (buffer.length >= PIECE_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}

function* walk(value: unknown, depth: number): Generator<string> {
  if (depth <= 0 || value === null || typeof value !== 'object' || hasToJSON(value)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
      else yield* walk(item, depth - 1);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* walk(item, depth - 1);
  }
  yield '}';
}

function hasToJSON(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
