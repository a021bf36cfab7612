/**
 * JSON that every tool reads: a lone surrogate (half of a UTF-16 pair, which upstream
 * text can carry) is written as U+FFFD, the replacement character, instead of the `\udXXX`
 * escape `JSON.stringify` gives it, which strict parsers (and UTF-8 encoders) refuse.
 */

/** A `\udXXX` escape: what JSON.stringify writes for a lone surrogate (or, rarely, `\\` then text). */
const LONE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/;

/** A high surrogate without its low half, or a low one without its high half (code units). */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `s` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed). */
export function toWellFormed(s: string): string {
  return s.replace(LONE, '\ufffd');
}

function wellFormed(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.some((k) => toWellFormed(k) !== k)) {
      const out: Record<string, unknown> = {};
      for (const k of keys)
        Object.defineProperty(out, toWellFormed(k), {
          value: (value as Record<string, unknown>)[k],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
  }
  return value;
}

/**
 * `JSON.stringify(value, undefined, space)` with lone surrogates replaced by U+FFFD. Text
 * without them (nearly all) is stringified once; only text with them a second time.
 */
export function stringifyWellFormed(value: unknown, space?: number): string {
  const text = JSON.stringify(value, undefined, space) as string | undefined;
  if (text === undefined || !LONE_ESCAPE.test(text)) return text as string;
  return JSON.stringify(value, wellFormed, space);
}
