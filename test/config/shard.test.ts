import { describe, expect, it } from 'vitest';
import { inShard, parseShard, shardOf } from '../../src/config/shard.js';

const orgs = Array.from({ length: 300 }, (_, i) => ({ slug: `org-${i}` }));

describe('sharding', () => {
  it.each([
    ['1/3', { index: 1, count: 3 }],
    [' 2 / 2 ', { index: 2, count: 2 }],
    ['0/3', 'shard 0/3: I must be from 1 to N'],
    ['4/3', 'shard 4/3: I must be from 1 to N'],
    ['one', "a shard is written I/N, e.g. 1/3; got 'one'"],
  ])('parseShard(%j)', (text, expected) => {
    expect(parseShard(text)).toEqual(expected);
  });

  it('splits the orgs into disjoint shards that together cover all of them, evenly enough', () => {
    const shards = [1, 2, 3].map((index) => inShard(orgs, { index, count: 3 }));
    const all = shards.flat().map((o) => o.slug);
    expect(new Set(all).size).toBe(orgs.length);
    expect(all.length).toBe(orgs.length);
    for (const s of shards) expect(s.length).toBeGreaterThan(60);
  });

  it('is stable: a slug stays on its shard whatever the order of the config', () => {
    const reversed = [...orgs].reverse();
    expect(
      inShard(reversed, { index: 2, count: 3 })
        .map((o) => o.slug)
        .sort(),
    ).toEqual(
      inShard(orgs, { index: 2, count: 3 })
        .map((o) => o.slug)
        .sort(),
    );
    expect(shardOf('acme', 5)).toBe(shardOf('acme', 5));
  });
});
