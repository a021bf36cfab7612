import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeSubscription } from '../../../src/upstream/shape/normalize-subscription.js';
import { currencyExponent, type MoneyHabit, parseMoney } from '../../../src/upstream/shape/numbers.js';

/** Reads `ai_funding` and what `--explain` is told of the balance. */
function wallet(ai: unknown, money?: MoneyHabit) {
  const sources: string[] = [];
  const trace = {
    field: (_e: string, key: string, path: string, how: string | undefined) => {
      if (key === 'funding.balance') sources.push(`${path} ${how ?? ''}`);
    },
    keys: () => {},
    page: () => {},
  };
  const r = normalizeSubscription({ plan: 'pro', ai_funding: ai }, { trace, money });
  return { funding: r.value.funding, drift: r.drift, explain: sources.join(' | ') };
}

describe('money as the big APIs write it (docs/upstream-shapes.md, "Values")', () => {
  it.each<[string, unknown, number, string, RegExp]>([
    [
      'Stripe: an integer balance beside a lowercase currency',
      { mode: 'wallet', balance: 1234, currency: 'usd' },
      12.34,
      'USD',
      /÷ 100 \(minor units, an integer beside a currency code; USD: exponent 2\)/,
    ],
    [
      'a money object {amount, currency}',
      { mode: 'wallet', wallet: { balance: { amount: 1234, currency: 'usd' } } },
      12.34,
      'USD',
      /an integer beside a currency code/,
    ],
    [
      'Square: amount_money deep in the funding object',
      { mode: 'wallet', account: { amount_money: { amount: 1234, currency: 'EUR' } } },
      12.34,
      'EUR',
      /minor units, an integer beside a currency code/,
    ],
    [
      'JPY has no minor unit',
      { mode: 'wallet', balance: 1234, currency: 'jpy' },
      1234,
      'JPY',
      /÷ 1 \(minor units, an integer beside a currency code; JPY: exponent 0\)/,
    ],
    [
      'KWD counts in thousandths',
      { mode: 'wallet', wallet: { balance: 12345, currency: 'Kwd' } },
      12.345,
      'KWD',
      /÷ 1000 .*KWD: exponent 3/,
    ],
    [
      'BHD counts in thousandths',
      { mode: 'wallet', wallet: { amount: 500, currency: 'bhd' } },
      0.5,
      'BHD',
      /÷ 1000/,
    ],
    [
      'a decimal string is major units',
      { mode: 'wallet', balance: '12.34', currency: 'usd' },
      12.34,
      'USD',
      /a decimal string: major units/,
    ],
    [
      'an integer string is major units',
      { mode: 'wallet', balance: '12', currency: 'eur' },
      12,
      'EUR',
      /a decimal string: major units/,
    ],
    [
      'a fraction is major units',
      { mode: 'wallet', wallet: { balance: 12.5, currency: 'EUR' } },
      12.5,
      'EUR',
      /a decimal number: major units/,
    ],
    [
      'Google: amount_micros',
      { mode: 'wallet', balance: { amount_micros: 12_340_000, currency_code: 'usd' } },
      12.34,
      'USD',
      /amount_micros ÷ 1000000/,
    ],
    [
      'Google Money: units + nanos',
      { mode: 'wallet', balance: { currency_code: 'USD', units: '12', nanos: 340_000_000 } },
      12.34,
      'USD',
      /units \+ nanos ÷ 1000000000/,
    ],
  ])('%s', (_name, ai, amount, currency, how) => {
    const r = wallet(ai);
    expect(r.funding).toEqual({ mode: 'wallet', balance: amount, currency });
    expect(r.drift).toEqual([]);
    expect(r.explain).toMatch(how);
  });

  it('an integer without a currency code beside it is major units, and says so', () => {
    const r = wallet({ mode: 'wallet', wallet: { balance: 40 } });
    expect(r.funding).toEqual({ mode: 'wallet', balance: 40 });
    expect(r.explain).toMatch(/a number without a currency code: major units/);
  });

  it('a server that wrote a fraction there writes major units: its integers are whole units', () => {
    const habit: MoneyHabit = { fractions: false };
    expect(
      wallet({ mode: 'wallet', wallet: { balance: 120, currency: 'EUR' } }, habit).funding,
    ).toMatchObject({
      balance: 1.2,
    });
    expect(
      wallet({ mode: 'wallet', wallet: { balance: 119.5, currency: 'EUR' } }, habit).funding,
    ).toMatchObject({
      balance: 119.5,
    });
    expect(habit.fractions).toBe(true);
    const r = wallet({ mode: 'wallet', wallet: { balance: 120, currency: 'EUR' } }, habit);
    expect(r.funding).toMatchObject({ balance: 120, currency: 'EUR' });
    expect(r.explain).toMatch(/an integer where this server writes fractions: major units/);
  });

  it('any integer beside any code reads back to the same minor amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.constantFrom('usd', 'EUR', 'jpy', 'KRW', 'kwd', 'BHD', 'gbp', 'Chf'),
        (minor, code) => {
          const m = parseMoney({ amount: minor, currency: code });
          expect(m?.currency).toBe(code.toUpperCase());
          const exp = currencyExponent(code);
          expect(Math.round((m?.amount ?? Number.NaN) * 10 ** exp)).toBe(minor);
        },
      ),
    );
  });

  it('currency codes in any case are upper case', () => {
    for (const code of ['usd', 'Usd', 'uSD', 'USD']) {
      expect(wallet({ mode: 'wallet', balance: '1.00', currency: code }).funding).toEqual({
        mode: 'wallet',
        balance: 1,
        currency: 'USD',
      });
    }
  });
});
