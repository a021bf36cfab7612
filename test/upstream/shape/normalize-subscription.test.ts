import { describe, expect, it } from 'vitest';
import { normalizeSubscription } from '../../../src/upstream/shape/index.js';
import { parseMoney } from '../../../src/upstream/shape/numbers.js';

describe('normalizeSubscription', () => {
  it('reads the canonical wallet shape', () => {
    const raw = {
      plan: 'pro',
      status: 'active',
      limits: { channels: 50, members: 25, ai_minutes: 1000, concurrent_live: null },
      usage: { channels: 3, members: 4, ai_minutes: 12, concurrent_live: 1 },
      ai_funding: { mode: 'wallet', wallet: { balance: 42.5, currency: 'EUR' } },
    };
    expect(normalizeSubscription(raw, {})).toEqual({
      value: {
        plan: 'pro',
        limits: { channels: 50, members: 25, ai_minutes: 1000 },
        usage: { channels: 3, members: 4, ai_minutes: 12, concurrent_live: 1 },
        funding: { mode: 'wallet', balance: 42.5, currency: 'EUR' },
      },
      drift: [],
    });
  });

  it('reads the canonical BYOK shape in camelCase', () => {
    const raw = {
      plan: 'pro',
      limits: {},
      usage: {},
      aiFunding: { mode: 'byok', byok: { provider: 'openai', keyStatus: 'Valid' } },
    };
    expect(normalizeSubscription(raw, {}).value.funding).toEqual({
      mode: 'byok',
      provider: 'openai',
      keyStatus: 'valid',
    });
  });
});

describe('limits and usage', () => {
  it.each<[string, unknown, Record<string, number>, Record<string, number>]>([
    ['map of numbers', { channels: 50 }, { channels: 50 }, {}],
    ['numeric strings', { channels: '50' }, { channels: 50 }, {}],
    [
      'camelCase names become snake_case',
      { aiMinutes: 10, concurrentLive: 2 },
      { ai_minutes: 10, concurrent_live: 2 },
      {},
    ],
    ['null is unlimited', { channels: null }, {}, {}],
    ['-1 is unlimited', { channels: -1 }, {}, {}],
    ['"unlimited" is unlimited', { channels: 'Unlimited' }, {}, {}],
    ['"∞" is unlimited', { channels: '∞' }, {}, {}],
    ['map of { limit, used }', { channels: { limit: 50, used: 3 } }, { channels: 50 }, { channels: 3 }],
    ['map of { max, current }', { channels: { max: 50, current: 3 } }, { channels: 50 }, { channels: 3 }],
    [
      '{ limit: null, used } is unlimited with usage',
      { channels: { limit: null, used: 3 } },
      {},
      { channels: 3 },
    ],
    ['{ unlimited: true }', { channels: { unlimited: true, used: 2 } }, {}, { channels: 2 }],
    [
      'array of { name, limit, used }',
      [
        { name: 'channels', limit: 50, used: 3 },
        { name: 'aiMinutes', limit: null, used: 7 },
      ],
      { channels: 50 },
      { channels: 3, ai_minutes: 7 },
    ],
    ['array of { key, max }', [{ key: 'members', max: '25' }], { members: 25 }, {}],
    [
      'array of { resource, quota, usage }',
      [{ resource: 'channels', quota: 5, usage: 1 }],
      { channels: 5 },
      { channels: 1 },
    ],
  ])('%s', (_name, limits, expectedLimits, expectedUsage) => {
    const r = normalizeSubscription({ plan: 'p', limits, ai_funding: { mode: 'wallet', balance: 0 } }, {});
    expect(r.value.limits).toEqual(expectedLimits);
    expect(r.value.usage).toEqual(expectedUsage);
    expect(r.drift).toEqual([]);
  });

  it('usage given on its own wins over usage inside the limits', () => {
    const r = normalizeSubscription(
      { limits: { channels: { limit: 5, used: 1 } }, usage: { channels: 2 }, ai_funding: 'wallet' },
      {},
    );
    expect(r.value.usage).toEqual({ channels: 2 });
  });

  it('limits under quotas, usage under used', () => {
    const r = normalizeSubscription(
      { quotas: { channels: 5 }, used: { channels: 1 }, ai_funding: 'wallet' },
      {},
    );
    expect(r.value).toMatchObject({ limits: { channels: 5 }, usage: { channels: 1 } });
  });

  it.each<[string, unknown, string]>([
    ['a boolean limit', { sso: true }, "'sso' is a boolean, expected a number"],
    ['a word limit', { channels: 'lots' }, "'channels' is a string, expected a number"],
    ['an object without a limit', { channels: { note: 'x' } }, "'channels' has no limit"],
    ['an entry without a name', [{ limit: 5 }], 'entry [0] has no name'],
    ['an entry that is not an object', [5], 'entry [0] is a number, expected an object'],
    ['limits as a string', 'none', 'is a string, expected an object or a list'],
  ])('drift: %s', (_name, limits, problem) => {
    const r = normalizeSubscription({ plan: 'p', limits, ai_funding: { mode: 'wallet', balance: 1 } }, {});
    expect(r.drift).toEqual([
      { endpoint: 'subscription', field: 'subscription.limits', problem, fatal: false },
    ]);
  });
});

describe('AI funding', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    [
      'wallet with balance object',
      { ai_funding: { mode: 'wallet', wallet: { balance: { amount: 12.5, currency: 'usd' } } } },
      { mode: 'wallet', balance: 12.5, currency: 'USD' },
    ],
    [
      'wallet balance in minor units',
      { ai_funding: { mode: 'wallet', wallet: { balance: { amount_cents: 1250, currency: 'EUR' } } } },
      { mode: 'wallet', balance: 12.5, currency: 'EUR' },
    ],
    [
      'balance_cents',
      { ai_funding: { mode: 'wallet', wallet: { balance_cents: 999 } } },
      { mode: 'wallet', balance: 9.99 },
    ],
    [
      'balance as numeric string',
      { ai_funding: { mode: 'wallet', balance: '42.50', currency: 'EUR' } },
      { mode: 'wallet', balance: 42.5, currency: 'EUR' },
    ],
    [
      'balance "42.50 EUR"',
      { funding: { type: 'wallet', wallet_balance: '42.50 EUR' } },
      { mode: 'wallet', balance: 42.5, currency: 'EUR' },
    ],
    [
      'funding under ai.funding',
      { ai: { funding: { source: 'Wallet', wallet: { balance: 1 } } } },
      { mode: 'wallet', balance: 1 },
    ],
    ['funding as a word', { ai_funding: 'byok' }, { mode: 'byok' }],
    [
      'funding mode at the root',
      { funding_mode: 'wallet', wallet: { balance: 3 } },
      { mode: 'wallet', balance: 3 },
    ],
    [
      'mode inferred from a wallet object',
      { ai_funding: { wallet: { balance: 5.25, currency: 'EUR' } } },
      { mode: 'wallet', balance: 5.25, currency: 'EUR' },
    ],
    [
      'mode inferred from a byok object',
      { ai_funding: { byok: { provider: 'anthropic' } } },
      { mode: 'byok', provider: 'anthropic' },
    ],
    [
      'disabled wallet beside an enabled byok',
      { ai_funding: { wallet: { enabled: false }, byok: { enabled: true, provider: 'x' } } },
      { mode: 'byok', provider: 'x' },
    ],
    [
      'byok spelled out',
      { ai_funding: { mode: 'bring-your-own-key', provider: 'openai', key_status: 'INVALID' } },
      { mode: 'byok', provider: 'openai', keyStatus: 'invalid' },
    ],
    [
      'byok key status at byok.status',
      { ai_funding: { mode: 'byok', byok: { provider: 'p', status: 'expired' } } },
      { mode: 'byok', provider: 'p', keyStatus: 'expired' },
    ],
    ['unknown mode kept', { ai_funding: { mode: 'Sponsored' } }, { mode: 'unknown', raw: 'sponsored' }],
  ])('%s', (_name, raw, expected) => {
    // A plan beside the funding: without one the read also reports a missing plan.
    const r = normalizeSubscription({ plan: 'p', ...raw }, {});
    expect(r.value.funding).toEqual(expected);
    expect(r.drift).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no funding at all', { plan: 'p' }, 'subscription.funding', 'no AI funding found'],
    [
      'funding is a number',
      { ai_funding: 3 },
      'subscription.funding',
      'is a number, expected an object or a word',
    ],
    [
      'balance is a word',
      { ai_funding: { mode: 'wallet', wallet: { balance: 'lots' } } },
      'funding.balance',
      'is a string, expected an amount',
    ],
  ])('drift: %s', (_name, raw, field, problem) => {
    const r = normalizeSubscription({ plan: 'p', ...raw }, {});
    expect(r.drift).toEqual([{ endpoint: 'subscription', field, problem, fatal: false }]);
  });
});

describe('parseMoney', () => {
  it.each<[unknown, unknown]>([
    [42.5, { amount: 42.5 }],
    ['42.5', { amount: 42.5 }],
    ['EUR 3', { amount: 3, currency: 'EUR' }],
    ['3 eur', { amount: 3, currency: 'EUR' }],
    // An integer beside a currency code counts minor units, as payment APIs write money.
    [
      { amount: 1, currency: 'EUR' },
      { amount: 0.01, currency: 'EUR' },
    ],
    [
      { amount: 1.5, currency: 'EUR' },
      { amount: 1.5, currency: 'EUR' },
    ],
    [
      { amount: '1', currency: 'eur' },
      { amount: 1, currency: 'EUR' },
    ],
    [{ value: '2.5' }, { amount: 2.5 }],
    [
      { amount_cents: 250, currency: 'usd' },
      { amount: 2.5, currency: 'USD' },
    ],
    [{ cents: 5 }, { amount: 0.05 }],
    [
      { amount: { value: 7 }, currency: 'GBP' },
      { amount: 7, currency: 'GBP' },
    ],
    ['EUR 3 USD', undefined],
    ['lots', undefined],
    [{ currency: 'EUR' }, undefined],
    [null, undefined],
    [true, undefined],
  ])('%j', (input, expected) => {
    const m = parseMoney(input);
    // `how` names the conversion for --explain; toEqual ignores it when undefined.
    expect(m === undefined ? m : { ...m, how: undefined }).toEqual(expected);
  });
});

describe('a missing plan', () => {
  it('is drift in the subscription and in the profile, and the rest is still read', async () => {
    const { normalizeOrg } = await import('../../../src/upstream/shape/index.js');
    const sub = normalizeSubscription(
      { limits: { channels: 5 }, ai_funding: { mode: 'wallet', balance: 3 } },
      {},
    );
    expect(sub.drift).toEqual([
      { endpoint: 'subscription', field: 'subscription.plan', problem: 'no plan found', fatal: false },
    ]);
    expect(sub.value).toMatchObject({ limits: { channels: 5 }, funding: { mode: 'wallet', balance: 3 } });
    const org = normalizeOrg({ name: 'Acme' }, 'acme', {});
    expect(org.drift).toEqual([
      { endpoint: 'org', field: 'org.plan', problem: 'no plan found', fatal: false },
    ]);
    expect(org.value.name).toBe('Acme');
    // An explicit null is a plan: none.
    expect(normalizeSubscription({ plan: null, limits: {} }, {}).drift.map((d) => d.field)).not.toContain(
      'subscription.plan',
    );
  });
});

describe('limits and usage a few levels down', () => {
  it('finds them under any usual name, the shallowest first, and says where for --explain', () => {
    const sources: string[] = [];
    const trace = {
      field: (_e: string, key: string, path: string) => {
        if (key === 'subscription.limits' || key === 'subscription.usage') sources.push(`${key} ← ${path}`);
      },
      keys: () => {},
      page: () => {},
    };
    const r = normalizeSubscription(
      {
        plan: 'pro',
        account: {
          billing: { limits: { channels: 50, aiMinutes: 1000 }, usage: { channels: 3 } },
          deeper: { x: { y: { limits: { channels: 1 } } } },
        },
        ai_funding: { mode: 'wallet', balance: 1 },
      },
      { trace },
    );
    expect(r.value.limits).toEqual({ channels: 50, ai_minutes: 1000 });
    expect(r.value.usage).toEqual({ channels: 3 });
    expect(sources).toEqual([
      'subscription.limits ← account.billing.limits',
      'subscription.usage ← account.billing.usage',
    ]);
    expect(r.drift).toEqual([]);
  });

  it('a limits list deep down, as entries', () => {
    const r = normalizeSubscription(
      {
        plan: 'pro',
        plan_details: { entitlements: [{ name: 'channels', limit: 9, used: 2 }] },
        ai_funding: 'wallet',
      },
      {},
    );
    expect(r.value).toMatchObject({ limits: { channels: 9 }, usage: { channels: 2 } });
  });
});
