import { describe, expect, it } from 'vitest';
import { normalizeOrg } from '../../../src/upstream/shape/index.js';

describe('normalizeOrg', () => {
  it('reads the canonical shape', () => {
    const raw = {
      slug: 'acme',
      name: 'Acme',
      plan: 'pro',
      settings: { default_visibility: 'public', ai_enabled: true, language: 'en', max: 3 },
      created_at: '2024-01-01T00:00:00Z',
    };
    expect(normalizeOrg(raw, 'acme', {})).toEqual({
      value: {
        slug: 'acme',
        name: 'Acme',
        plan: 'pro',
        settings: { default_visibility: 'public', ai_enabled: true, language: 'en', max: 3 },
      },
      drift: [],
    });
  });

  it.each<[string, Record<string, unknown>, { name?: string; plan?: string }]>([
    ['display_name', { display_name: 'Acme' }, { name: 'Acme' }],
    ['displayName (camel)', { displayName: 'Acme' }, { name: 'Acme' }],
    ['title', { title: 'Acme' }, { name: 'Acme' }],
    ['name wins over title', { title: 'T', name: 'N' }, { name: 'N' }],
    ['trimmed', { name: '  Acme  ' }, { name: 'Acme' }],
    ['empty name is absent', { name: '' }, {}],
    ['plan object', { plan: { id: 'p1', name: 'Pro' } }, { plan: 'Pro' }],
    ['plan_name', { plan_name: 'pro' }, { plan: 'pro' }],
    ['PlanName (Pascal)', { PlanName: 'pro' }, { plan: 'pro' }],
    ['tier', { tier: 'enterprise' }, { plan: 'enterprise' }],
  ])('%s', (_name, raw, expected) => {
    const { value, drift } = normalizeOrg(raw, 'acme', {});
    expect({ name: value.name, plan: value.plan }).toEqual({ name: undefined, plan: undefined, ...expected });
    // A body without a plan says so (drift, not fatal); nothing else is reported.
    expect(drift.filter((d) => d.problem !== 'no plan found')).toEqual([]);
    expect(drift.length).toBe(expected.plan === undefined ? 1 : 0);
  });

  it('the slug asked for is authoritative', () => {
    expect(normalizeOrg({ slug: 'other' }, 'acme', {}).value.slug).toBe('acme');
  });

  it('flattens nested settings, keeps scalar lists as JSON, drops deep objects and lists of objects with a note', () => {
    const raw = {
      plan: 'pro',
      settings: {
        notifications: { email: true, digest: { frequency: 'daily', deep: { x: 1 } } },
        languages: ['en', 'de'],
        webhooks: [{ url: 'x' }],
        nothing: null,
        preferences: {},
      },
    };
    const { value, drift } = normalizeOrg(raw, 'acme', {});
    expect(value.settings).toEqual({
      'notifications.email': true,
      'notifications.digest.frequency': 'daily',
      languages: '["en","de"]',
    });
    expect(drift.map((d) => [d.field, d.fatal, d.problem])).toEqual([
      ['org.settings', false, "dropped 'notifications.digest.deep': nested deeper than 3 levels"],
      ['org.settings', false, "dropped 'webhooks': an array (1 item) of objects"],
    ]);
  });

  it('reads settings under preferences and by an operator alias', () => {
    expect(normalizeOrg({ preferences: { a: 1 } }, 'acme', {}).value.settings).toEqual({ a: 1 });
    const opts = { fields: { 'org.settings': ['profile.options'] } };
    expect(normalizeOrg({ profile: { options: { b: 'x' } } }, 'acme', opts).value.settings).toEqual({
      b: 'x',
    });
  });

  it('keeps a key named __proto__ as data', () => {
    const raw = JSON.parse('{"settings":{"__proto__":{"polluted":1},"a":1}}');
    const { value } = normalizeOrg(raw, 'acme', {});
    expect(Object.keys(value.settings).sort()).toEqual(['__proto__.polluted', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['name is a number', { name: 42 }, 'org.name', "'name' is a number, expected a string"],
    ['name is an object', { name: { first: 1 } }, 'org.name', "'name' is an object, expected a string"],
    ['settings is a string', { settings: 'x' }, 'org.settings', "'settings' is a string, expected an object"],
    ['plan is a boolean', { plan: true }, 'org.plan', "'plan' is a boolean, expected a string"],
  ])('drift: %s', (_name, raw, field, problem) => {
    const { drift } = normalizeOrg({ plan: 'pro', ...raw }, 'acme', {});
    expect(drift).toEqual([{ endpoint: 'org', field, problem, fatal: false }]);
  });

  it('a number name is still used (as text) besides being reported', () => {
    expect(normalizeOrg({ name: 42 }, 'acme', {}).value.name).toBe('42');
  });

  it('a non-object record is fatal but still yields an org', () => {
    const r = normalizeOrg([] as unknown as Record<string, unknown>, 'acme', {});
    expect(r.value).toEqual({ slug: 'acme', settings: {} });
    expect(r.drift[0]?.fatal).toBe(true);
  });
});
