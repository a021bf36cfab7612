import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/upstream/transport/json-body.js';

/** Whether a value holds an integer a double cannot hold exactly (which JSON.parse rounds). */
function hasUnsafeInteger(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v);
  if (Array.isArray(v)) return v.some(hasUnsafeInteger);
  if (v !== null && typeof v === 'object') return Object.values(v).some(hasUnsafeInteger);
  return false;
}

describe('parseJsonBody', () => {
  it('keeps integers beyond 2^53 as the string of their digits', () => {
    const body = parseJsonBody(
      '{"data":[{"id":1462947128391651330,"n":1},{"id": 1462947128391651331 ,"n":2}],"total":2}',
    );
    expect(body).toEqual({
      data: [
        { id: '1462947128391651330', n: 1 },
        { id: '1462947128391651331', n: 2 },
      ],
      total: 2,
    });
  });

  it('keeps safe integers, fractions, negatives and exponents as numbers', () => {
    const body = parseJsonBody(
      '[9007199254740991,-9007199254740992,1234567890123456,12345678901234567.5,1e300,-0,0.1]',
    );
    expect(body).toEqual([
      9007199254740991,
      '-9007199254740992',
      1234567890123456,
      Number('12345678901234567.5'),
      1e300,
      -0,
      0.1,
    ]);
  });

  it('reads a lone unsafe integer and one at the end of an object', () => {
    expect(parseJsonBody('18446744073709551615')).toBe('18446744073709551615');
    expect(parseJsonBody('{"a":{"id":18446744073709551615}}')).toEqual({ a: { id: '18446744073709551615' } });
  });

  it('answers what JSON.parse answers for repeated keys and __proto__', () => {
    const text = '{"id":18446744073709551615,"a":1,"a":2,"__proto__":{"polluted":true}}';
    const body = parseJsonBody(text) as Record<string, unknown>;
    expect(body['a']).toBe(2);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.hasOwn(body, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects what is not JSON, with or without long digit runs', () => {
    expect(() => parseJsonBody('{"id":18446744073709551615')).toThrow(SyntaxError);
    expect(() => parseJsonBody('[18446744073709551615,]')).toThrow(SyntaxError);
    expect(() => parseJsonBody('<html>')).toThrow(SyntaxError);
  });

  it('a string holding long digit runs stays a string', () => {
    expect(parseJsonBody('{"note":"a,12345678901234567890,b","id":"12345678901234567890"}')).toEqual({
      note: 'a,12345678901234567890,b',
      id: '12345678901234567890',
    });
  });

  it('equals JSON.parse on any JSON without unsafe integers (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        fc.pre(!hasUnsafeInteger(v));
        const text = JSON.stringify(v);
        expect(parseJsonBody(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('any integer literal survives exactly (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), (n) => {
        const got = parseJsonBody(`{"id":${n}}`) as { id: unknown };
        expect(String(got.id)).toBe(String(n));
        expect(typeof got.id).toBe(Number.isSafeInteger(Number(n)) ? 'number' : 'string');
      }),
      { numRuns: 300 },
    );
  });
});
