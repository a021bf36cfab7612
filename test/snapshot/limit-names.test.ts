/** One name per limit (src/snapshot/limit-names.ts): a limit and its usage pair up whatever the server calls them. */
import { describe, expect, it } from 'vitest';
import { limitName, withLimitNames } from '../../src/snapshot/limit-names.js';
import { normalizeSubscription } from '../../src/upstream/shape/index.js';

describe('limit names', () => {
  it.each([
    ['max_channels', 'channels'],
    ['channels_limit', 'channels'],
    ['maximum_members', 'members'],
    ['channels_used', 'channels'],
    ['channels_in_use', 'channels'],
    ['ai_minutes_quota', 'ai_minutes'],
    ['concurrent_live', 'concurrent_live'],
    ['max', 'max'],
    ['limit', 'limit'],
  ])('%s → %s', (raw, want) => {
    expect(limitName(raw)).toBe(want);
  });

  it('the name a server uses already keeps its value when two become one', () => {
    expect(withLimitNames({ max_channels: 9, channels: 5 })).toEqual({ channels: 5 });
    expect(withLimitNames({ channels: 5, max_channels: 9 })).toEqual({ channels: 5 });
  });

  it('a limit and its usage under different words pair up', () => {
    const { value } = normalizeSubscription(
      {
        plan: 'pro',
        limits: { maxChannels: '50', max_members: 10 },
        usage: { channels_used: 3, membersInUse: 4 },
      },
      {},
    );
    expect(value.limits).toEqual({ channels: 50, members: 10 });
    expect(value.usage).toEqual({ channels: 3, members: 4 });
  });
});

it('a stored snapshot is given the limit names on load: no limit reads as removed', async () => {
  const { emptySnapshot } = await import('../../src/snapshot/model.js');
  const { upgradeSnapshot } = await import('../../src/snapshot/upgrade.js');
  const stored = emptySnapshot('acme', 1);
  stored.subscription = {
    state: 'complete',
    at: 1,
    value: {
      plan: 'pro',
      limits: { max_channels: 50 },
      usage: { channels_used: 3 },
      funding: { mode: 'unknown' },
    },
  };
  const loaded = upgradeSnapshot(stored);
  expect(loaded.subscription?.state === 'complete' && loaded.subscription.value.limits).toEqual({
    channels: 50,
  });
  expect(loaded.subscription?.state === 'complete' && loaded.subscription.value.usage).toEqual({
    channels: 3,
  });
});
