import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeOrg } from '../../../src/upstream/shape/normalize-org.js';
import { normalizeSubscription } from '../../../src/upstream/shape/normalize-subscription.js';
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

describe('a body that is not the resource fails the read; absent is not null', () => {
  it.each([
    ['subscription, no known key', () => normalizeSubscription({ foo: 1, bar: { baz: 2 } }, {}).drift],
    ['org, no known key', () => normalizeOrg({ error: 'x', ok: false }, 'acme', {}).drift],
  ])('%s → fatal drift naming the keys, never their values', (_name, read) => {
    const fatal = read().filter((i) => i.fatal);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.problem).toMatch(/none of the fields tally reads is in the body; keys seen: /);
    expect(fatal[0]?.problem).not.toMatch(/"x"|\b1\b|\b2\b/);
  });

  it('an explicit null names a known field: the body is the resource', () => {
    expect(normalizeOrg({ name: null }, 'acme', {}).drift.filter((i) => i.fatal)).toEqual([]);
    expect(normalizeSubscription({ plan: null }, {}).drift.filter((i) => i.fatal)).toEqual([]);
  });

  it('a wallet without a readable balance is drift', () => {
    const r = normalizeSubscription({ plan: 'pro', ai_funding: { mode: 'wallet' } }, {});
    expect(r.drift.map((i) => i.problem)).toContain('wallet funding but no readable balance');
  });

  it('a wallet balance in minor units follows its currency', () => {
    const r = normalizeSubscription(
      { plan: 'pro', ai_funding: { mode: 'wallet', balance_minor: 1500, currency: 'JPY' } },
      {},
    );
    expect(r.value.funding).toEqual({ mode: 'wallet', balance: 1500, currency: 'JPY' });
  });
});

describe('a wallet balance anywhere in the funding object', () => {
  const wallet = (ai: unknown) => {
    const sources: string[] = [];
    const trace = {
      field: (_e: string, key: string, path: string, how: string | undefined) => {
        if (key === 'funding.balance') sources.push(`${path} ${how ?? ''}`);
      },
      keys: () => {},
      page: () => {},
    };
    const r = normalizeSubscription({ plan: 'pro', ai_funding: ai }, { trace });
    return { funding: r.value.funding, drift: r.drift, sources };
  };

  it.each<[string, unknown, number, string | undefined]>([
    [
      'three levels down, decimal string',
      { mode: 'wallet', details: { account: { remaining: '12.50' } } },
      12.5,
      undefined,
    ],
    [
      'minor units by name, JPY',
      { mode: 'wallet', billing: { wallet: { balance_minor: 1200, currency: 'jpy' } } },
      1200,
      'JPY',
    ],
    [
      'minor units by name, KWD',
      { mode: 'wallet', x: { y: { credits_cents: 12345, currency: 'KWD' } } },
      12.345,
      'KWD',
    ],
    [
      'an explicit exponent',
      { mode: 'wallet', w: { balance: { amount_minor: 5005, exponent: 3, currency: 'USD' } } },
      5.005,
      'USD',
    ],
  ])('%s', (_name, ai, amount, currency) => {
    const r = wallet(ai);
    expect(r.funding).toMatchObject({ mode: 'wallet', balance: amount });
    if (currency) expect(r.funding).toMatchObject({ currency });
    expect(r.drift.filter((i) => i.field === 'funding.balance')).toEqual([]);
    expect(r.sources.length).toBeGreaterThan(0);
  });

  it('names the conversion of minor units for --explain', () => {
    const r = wallet({ mode: 'wallet', wallet: { balance_cents: 1999, currency: 'USD' } });
    expect(r.funding).toMatchObject({ balance: 19.99, currency: 'USD' });
    expect(r.sources.join(' ')).toMatch(/÷ 100/);
  });

  it.each<[string, unknown, number, string]>([
    [
      'unit: "cents" beside the balance',
      { mode: 'wallet', wallet: { balance: 1999, unit: 'cents', currency: 'USD' } },
      19.99,
      'USD',
    ],
    [
      'in_minor_units: true, KWD',
      { mode: 'wallet', wallet: { balance: 12345, in_minor_units: true, currency: 'kwd' } },
      12.345,
      'KWD',
    ],
    [
      'denomination: minor, JPY (exponent 0)',
      { mode: 'wallet', balance: 1500, denomination: 'minor', currency: 'JPY' },
      1500,
      'JPY',
    ],
    [
      'unit: "minor_units" deep down',
      { mode: 'wallet', account: { funds: { available: 250, unit: 'minor_units', currency: 'EUR' } } },
      2.5,
      'EUR',
    ],
    [
      'an amount object saying cents',
      { mode: 'wallet', wallet: { balance: { amount: 4200, unit: 'cents', currency: 'GBP' } } },
      42,
      'GBP',
    ],
  ])('siblings that say minor units: %s', (_name, ai, amount, currency) => {
    const r = wallet(ai);
    expect(r.funding).toEqual({ mode: 'wallet', balance: amount, currency });
    expect(r.sources.join(' ')).toMatch(/minor units, said beside it/);
  });

  it('unit as a currency code is a currency, not a scale', () => {
    const r = wallet({ mode: 'wallet', wallet: { balance: { amount: 19.5, unit: 'usd' } } });
    expect(r.funding).toEqual({ mode: 'wallet', balance: 19.5, currency: 'USD' });
    expect(parseMoney({ amount: 7, unit: 'cents' })).toEqual(expect.objectContaining({ amount: 0.07 }));
    expect(parseMoney({ amount: 7, unit: 'cents' })?.currency).toBeUndefined();
  });

  it('a wallet with nothing that reads as a balance is drift', () => {
    const r = wallet({ mode: 'wallet', wallet: { note: 'ask sales' } });
    expect(r.funding).toEqual({ mode: 'wallet' });
    expect(r.drift.map((i) => i.problem)).toContain('wallet funding but no readable balance');
  });

  it.each<[string, unknown, number, string | undefined, RegExp]>([
    [
      'an integer value beside a stated exponent',
      { mode: 'wallet', remaining: { value: 1234, exponent: 2, currency: 'EUR' } },
      12.34,
      'EUR',
      /value ÷ 100 .*exponent given by the server/,
    ],
    [
      'an integer amount beside scale 3, as a string',
      { mode: 'wallet', wallet: { balance: { amount: '12345', scale: 3, currencyCode: 'kwd' } } },
      12.345,
      'KWD',
      /amount ÷ 1000/,
    ],
    [
      'millionths (amount_micros)',
      { mode: 'wallet', wallet: { balance: { amount_micros: 12340000, currency_code: 'USD' } } },
      12.34,
      'USD',
      /amount_micros ÷ 1000000/,
    ],
    [
      'whole units and billionths (units, nanos)',
      { mode: 'wallet', wallet: { balance: { currencyCode: 'USD', units: '12', nanos: 340000000 } } },
      12.34,
      'USD',
      /units \+ nanos/,
    ],
  ])('scaled integers: %s', (_name, ai, amount, currency, how) => {
    const r = wallet(ai);
    expect(r.funding).toEqual({ mode: 'wallet', balance: amount, currency });
    expect(r.sources.join(' ')).toMatch(how);
  });

  it('a fractional amount beside an exponent is already major: the exponent is its precision', () => {
    expect(parseMoney({ value: 12.34, exponent: 2, currency: 'EUR' })).toMatchObject({
      amount: 12.34,
      currency: 'EUR',
    });
  });
});
