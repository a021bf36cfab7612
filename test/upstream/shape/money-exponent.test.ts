import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyExponent, parseMoney } from '../../../src/upstream/shape/numbers.js';

describe('minor units follow the currency exponent', () => {
  it.each([
    [{ amount_cents: 1999, currency: 'USD' }, 19.99, 'USD'],
    [{ amount_minor: 1999, currency: 'jpy' }, 1999, 'JPY'],
    [{ minor_units: 12345, currency: 'KWD' }, 12.345, 'KWD'],
    [{ amountMinor: 500, currency: 'EUR' }, 5, 'EUR'],
    [{ minor_units: 12345, exponent: 3 }, 12.345, undefined],
    [{ amount_minor: 700, currency: 'JPY', decimals: 2 }, 7, 'JPY'],
    [{ cents: 250 }, 2.5, undefined],
  ])('%j → %d', (body, amount, currency) => {
    const m = parseMoney(body);
    expect(m?.amount).toBe(amount);
    expect(m?.currency).toBe(currency);
  });

  it('knows the ISO 4217 exponents that are not 2', () => {
    expect([
      currencyExponent('JPY'),
      currencyExponent('USD'),
      currencyExponent('KWD'),
      currencyExponent(undefined),
    ]).toEqual([0, 2, 3, 2]);
  });

  it('minor then major round-trips for any integer amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.constantFrom('USD', 'JPY', 'KWD', 'EUR'),
        (minor, cur) => {
          const m = parseMoney({ amount_minor: minor, currency: cur });
          expect(Math.round((m?.amount ?? Number.NaN) * 10 ** currencyExponent(cur))).toBe(minor);
        },
      ),
    );
  });
});
