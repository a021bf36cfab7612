/**
 * Parsing a response body as JSON without losing ids. `JSON.parse` reads every number
 * as a double, so two integers beyond 2^53 that differ only in their last digits (the
 * snowflake ids some servers send unquoted) become the same number and two records
 * would share one id. Here an integer literal that a double cannot hold exactly becomes
 * the string of its digits, as a quoted id would have been; every other value is what
 * `JSON.parse` gives, duplicate keys included (the last one wins).
 *
 * Most bodies hold no such literal, and `JSON.parse` (native, fast) reads them; only a
 * body where a run of 16 or more digits stands where a number can stand is read again,
 * digit for digit, by lossless-json.
 */
import { parse as parseLossless } from 'lossless-json';

/**
 * A run of 16+ digits where a JSON number can stand: after `[`, `:`, `,` or at the start,
 * before `,`, `]`, `}` or the end. Every integer beyond Number.MAX_SAFE_INTEGER
 * (9007199254740991, 16 digits) has 16 digits or more; a string holding such a pattern
 * only costs the slower parse, never a wrong value.
 */
const LONG_INTEGER = /(?:^|[[:,])\s*-?\d{16,}\s*(?:$|[\]},])/;

/** A number literal as tally keeps it: an integer a double cannot hold exactly stays its digits. */
function numberOf(literal: string): number | string {
  const n = Number(literal);
  return /^-?\d+$/.test(literal) && !Number.isSafeInteger(n) ? literal : n;
}

/** Parses a JSON text; throws a SyntaxError when it is not JSON. */
export function parseJsonBody(text: string): unknown {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  try {
    return parseLossless(text, null, {
      parseNumber: numberOf,
      // JSON.parse keeps the last of repeated keys; so does this.
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch (err) {
    // The lossless parser recurses: a body nested deeper than the stack allows is read
    // by JSON.parse (which does not), losing only the precision of such integers.
    if (err instanceof RangeError) return JSON.parse(text);
    throw err;
  }
}
