import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../src/store/json-chunks.js';

describe('jsonPieces', () => {
  it('gives exactly the text of JSON.stringify, at every depth', () => {
    fc.assert(
      fc.property(
        fc.anything({ withObjectString: true, withNullPrototype: true }),
        fc.nat(6),
        (value, depth) => {
          expect([...jsonPieces(value, depth)].join('')).toBe(JSON.stringify(value) ?? 'null');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('skips undefined members of objects and writes null for them in arrays, as JSON.stringify does', () => {
    const value = { a: undefined, b: [undefined, () => 1, 2], c: { d: undefined }, e: new Date(0) };
    expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
  });

  it('hands a large value out in pieces of about 64 KiB, never as one string', () => {
    const sessions = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [
        `ch_${i}`,
        {
          state: 'complete',
          value: Array.from({ length: 20 }, (_, j) => ({ id: `s_${i}_${j}`, status: 'ended' })),
        },
      ]),
    );
    const value = { format: 'tally-snapshot', snapshot: { sessions } };
    const pieces = [...jsonPieces(value)];
    expect(pieces.join('')).toBe(JSON.stringify(value));
    expect(pieces.length).toBeGreaterThan(50);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(64 * 1024 + 4096);
  });
});
