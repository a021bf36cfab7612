/**
 * Sharding: several replicas split a large fleet of orgs, each taking a stable share by
 * a hash of the org's slug. The same slug always lands on the same shard for a given
 * shard count, whatever the order of orgs in the config.
 */
import { createHash } from 'node:crypto';

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `I/N` (1 ≤ I ≤ N); returns an error message when malformed. */
export function parseShard(text: string): Shard | string {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return `a shard is written I/N, e.g. 1/3; got '${text}'`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) return `shard ${text}: I must be from 1 to N`;
  return { index, count };
}

/** The shard (1-based) a slug belongs to among `count`. */
export function shardOf(slug: string, count: number): number {
  const digest = createHash('sha256').update(slug).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

/** Keeps the items whose slug falls into `shard`. */
export function inShard<T extends { slug: string }>(items: readonly T[], shard: Shard | undefined): T[] {
  if (!shard || shard.count === 1) return [...items];
  return items.filter((o) => shardOf(o.slug, shard.count) === shard.index);
}
