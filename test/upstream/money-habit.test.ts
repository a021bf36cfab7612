import { describe, expect, it } from 'vitest';
import { json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-SECRET-money-51c0';
const { serve, client } = loopbackSuite({ secret: TOKEN });

describe('money habits are learned per org (docs/upstream-shapes.md, "Subscription")', () => {
  it('an integer beside a code is minor units until the org writes a fraction there; other orgs unaffected', async () => {
    const balances: Record<string, unknown[]> = { acme: [1234, 119.5, 120], beta: [120] };
    const s = await serve((req, res) => {
      const org = (req.url ?? '').split('/')[2] ?? '';
      const balance = balances[org]?.shift();
      json(res, 200, { plan: 'pro', ai_funding: { mode: 'wallet', wallet: { balance, currency: 'usd' } } });
    });
    const c = client(s.origin);
    const read = async (slug: string) => {
      const part = await c.fetchSubscription({ slug, token: TOKEN });
      return part.state === 'complete' ? part.value.funding : undefined;
    };
    expect(await read('acme')).toEqual({ mode: 'wallet', balance: 12.34, currency: 'USD' });
    expect(await read('acme')).toEqual({ mode: 'wallet', balance: 119.5, currency: 'USD' });
    expect(await read('acme')).toEqual({ mode: 'wallet', balance: 120, currency: 'USD' });
    expect(await read('beta')).toEqual({ mode: 'wallet', balance: 1.2, currency: 'USD' });
  });
});
