import { describe, expect, it } from 'vitest';
import { buildTokens, isActive, TokenRegistry } from '../../src/sim/auth.js';
import { SimConfigError, SimRequestError, startSimulator } from '../../src/sim/index.js';
import type { TokenSpec } from '../../src/sim/types.js';

const NOW = Date.UTC(2030, 0, 1);
const DAY = 24 * 60 * 60 * 1000;
const ORGS = new Set(['demo', 'other']);

describe('simulator tokens', () => {
  it.each([
    [30, NOW + 30 * DAY],
    [90, NOW + 90 * DAY],
    [365, NOW + 365 * DAY],
    ['unlimited', null],
  ] as const)('a %s-day token expires at its creation plus its validity', (validity, expiresAt) => {
    const [t] = buildTokens([{ value: 'v', org: 'demo', validity, createdAt: NOW }], ORGS, NOW);
    expect(t).toEqual({
      value: 'v',
      org: 'demo',
      label: 'token-1',
      validity,
      access: 'read',
      createdAt: NOW,
      expiresAt,
    });
    expect(isActive(t!, NOW)).toBe(true);
    if (expiresAt !== null) {
      expect(isActive(t!, expiresAt - 1)).toBe(true);
      expect(isActive(t!, expiresAt)).toBe(false);
    }
  });

  it('accepts ISO creation times', () => {
    const [t] = buildTokens(
      [{ value: 'v', org: 'demo', validity: 30, createdAt: '2029-12-01T00:00:00Z' }],
      ORGS,
      NOW,
    );
    expect(t!.expiresAt).toBe(Date.UTC(2029, 11, 31));
  });

  const five = (org: string): TokenSpec[] =>
    Array.from({ length: 5 }, (_, i) => ({ value: `${org}-${i}`, org, label: `${org} ${i}` }));

  it('allows 5 active tokens per org, and expired ones beside them', () => {
    const expired: TokenSpec = {
      value: 'x',
      org: 'demo',
      label: 'old',
      validity: 30,
      createdAt: NOW - 31 * DAY,
    };
    expect(buildTokens([...five('demo'), ...five('other'), expired], ORGS, NOW)).toHaveLength(11);
  });

  it.each<[string, TokenSpec[], RegExp]>([
    [
      'a 6th active token',
      [...five('demo'), { value: 'six', org: 'demo', label: 'sixth' }],
      /org demo would have 6 active tokens.*sixth.*at most 5/,
    ],
    [
      'an unknown org',
      [{ value: 'v', org: 'nosuch' }],
      /tokens\[0\]\.org "nosuch" is not one of the simulated orgs/,
    ],
    [
      'a duplicate value',
      [
        { value: 'v', org: 'demo' },
        { value: 'v', org: 'other' },
      ],
      /tokens\[1\]\.value is configured twice/,
    ],
    ['a value with a space', [{ value: 'a b', org: 'demo' }], /tokens\[0\]\.value must be/],
    ['an empty value', [{ value: '', org: 'demo' }], /tokens\[0\]\.value must be/],
    [
      'a bad validity',
      [{ value: 'v', org: 'demo', validity: 7 as never }],
      /tokens\[0\]\.validity must be one of/,
    ],
    [
      'a bad creation time',
      [{ value: 'v', org: 'demo', createdAt: 'soon' }],
      /tokens\[0\]\.createdAt is not a valid time/,
    ],
  ])('refuses %s with a clear error', (_name, specs, message) => {
    expect(() => buildTokens(specs, ORGS, NOW)).toThrow(SimConfigError);
    expect(() => buildTokens(specs, ORGS, NOW)).toThrow(message);
  });

  it('refuses to start with a 6th active token', async () => {
    const tokens = [...five('demo'), { value: 'six', org: 'demo' }];
    await expect(startSimulator({ tokens })).rejects.toThrow(/at most 5 may be active/);
  });

  it.each([
    [undefined, 401, 'unauthorized'],
    ['Token abc', 401, 'unauthorized'],
    ['Bearer', 401, 'unauthorized'],
    ['Bearer a b', 401, 'unauthorized'],
    ['Bearer nope', 401, 'unauthorized'],
    ['Bearer old', 401, 'token_expired'],
    ['Bearer future', 401, 'token_expired'],
  ])('authenticate(%j) → %i %s', (header, status, code) => {
    const reg = new TokenRegistry(
      buildTokens(
        [
          { value: 'good', org: 'demo' },
          { value: 'old', org: 'demo', validity: 30, createdAt: NOW - 30 * DAY },
          { value: 'future', org: 'demo', createdAt: NOW + DAY },
        ],
        ORGS,
        NOW,
      ),
    );
    expect(reg.authenticate('bearer good', NOW).value).toBe('good');
    let caught: unknown;
    try {
      reg.authenticate(header, NOW);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SimRequestError);
    expect(caught).toMatchObject({ status, code });
  });

  it('expires a token while the simulator runs', async () => {
    let now = NOW;
    const clock = {
      now: () => now,
      monotonic: () => now,
      setTimeout: () => ({ cancel() {} }),
      sleep: async () => {},
    };
    const sim = await startSimulator({
      clock,
      channels: 1,
      sessionsPerChannel: 0,
      tokens: [{ value: 't30', org: 'demo', label: 'monthly', validity: 30 }],
    });
    try {
      const read = () => fetch(`${sim.url}/v1/demo`, { headers: { authorization: 'Bearer t30' } });
      expect((await read()).status).toBe(200);
      now += 30 * DAY - 1;
      expect((await read()).status).toBe(200);
      now += 1;
      expect((await read()).status).toBe(401);
      expect(sim.tokens[0]).toMatchObject({ label: 'monthly', expiresAt: NOW + 30 * DAY });
    } finally {
      await sim.close();
    }
  });

  it('revokes, moves and reissues tokens while it runs (setTokens)', async () => {
    const sim = await startSimulator({ orgs: ['demo', 'other'], channels: 1, sessionsPerChannel: 0 });
    try {
      const read = (org: string, token: string) =>
        fetch(`${sim.url}/v1/${org}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await read('demo', 'demo-token')).status).toBe(200);
      // Revoked: the value is unknown.
      sim.setTokens([{ value: 'other-token', org: 'other' }]);
      expect(sim.tokens.map((t) => t.value)).toEqual(['other-token']);
      expect((await read('demo', 'demo-token')).status).toBe(401);
      // Issued for another org: known, but it does not open demo.
      sim.setTokens([{ value: 'demo-token', org: 'other', label: 'moved' }]);
      expect((await read('demo', 'demo-token')).status).toBe(403);
      expect((await read('other', 'demo-token')).status).toBe(200);
      // Reissued for demo.
      sim.setTokens([{ value: 'demo-token', org: 'demo', label: 'again' }]);
      expect((await read('demo', 'demo-token')).status).toBe(200);
      expect(sim.requests().map((r) => [r.status, r.tokenLabel])).toEqual([
        [200, 'default'],
        [401, null],
        [403, 'moved'],
        [200, 'moved'],
        [200, 'again'],
      ]);
      // An invalid set is refused and the one in force stays.
      expect(() => sim.setTokens([{ value: 'x', org: 'nosuch' }])).toThrow(SimConfigError);
      expect((await read('demo', 'demo-token')).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
