import { describe, expect, it } from 'vitest';
import { camelKey, toCamel } from '../../src/sim/case.js';
import { ChangeLog } from '../../src/sim/changes.js';
import { TimedHeap } from '../../src/sim/heap.js';
import { RateLimiter } from '../../src/sim/rate-limit.js';
import { deriveSeed, Rng } from '../../src/sim/rng.js';

describe('simulator building blocks', () => {
  it('draws the same numbers for the same seed, others for another', () => {
    const draw = (seed: number) =>
      Array.from(
        { length: 8 },
        (() => {
          const r = new Rng(seed);
          return () => r.next();
        })(),
      );
    expect(draw(1)).toEqual(draw(1));
    expect(draw(2)).not.toEqual(draw(1));
    expect(draw(1).every((x) => x >= 0 && x < 1)).toBe(true);
    expect(deriveSeed(1, 'a')).toBe(deriveSeed(1, 'a'));
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(1, 'b'));
    expect(deriveSeed(1, 'ab')).not.toBe(deriveSeed(1, 'a', 'b'));
  });

  it('keeps rng helpers in their ranges', () => {
    const r = new Rng(5);
    for (let i = 0; i < 1000; i++) {
      const n = r.int(3, 5);
      expect(n >= 3 && n <= 5 && Number.isInteger(n)).toBe(true);
      expect(r.weighted({ a: 1, b: 0 })).toBe('a');
      expect(r.exp(10)).toBeGreaterThanOrEqual(0);
    }
  });

  it('pops timed entries in (time, insertion) order', () => {
    const h = new TimedHeap<{ at: number; seq: number; name: string }>();
    const input = [5, 1, 3, 1, 9, 3, 0, 5].map((at, seq) => ({ at, seq, name: `${at}/${seq}` }));
    for (const x of input) h.push(x);
    const out: string[] = [];
    while (h.size > 0) out.push(h.pop()!.name);
    expect(out).toEqual(['0/6', '1/1', '1/3', '3/2', '3/5', '5/0', '5/7', '9/4']);
  });

  it.each([
    ['channel_id', 'channelId'],
    ['ai_funding', 'aiFunding'],
    ['key_status', 'keyStatus'],
    ['next_cursor', 'nextCursor'],
    ['id', 'id'],
  ])('camel-cases %s as %s', (snake, camel) => {
    expect(camelKey(snake)).toBe(camel);
  });

  it('camel-cases field names but not reaction kinds', () => {
    expect(
      toCamel({
        reactions: { total: 2, by_kind: { thumbs_up: 2 } },
        started_at: null,
        list: [{ posted_at: 'x' }],
      }),
    ).toEqual({
      reactions: { total: 2, byKind: { thumbs_up: 2 } },
      startedAt: null,
      list: [{ postedAt: 'x' }],
    });
  });

  it('reads the change log after a sequence number, per org, and says when it dropped entries', () => {
    const log = new ChangeLog(100);
    for (let i = 0; i < 250; i++) {
      log.append({
        at: i,
        simAt: i,
        org: i % 2 === 0 ? 'a' : 'b',
        entity: { kind: 'org', id: 'x' },
        field: 'f',
        from: i,
        to: i + 1,
        source: 'evolve',
      });
    }
    expect(log.seq).toBe(250);
    const tail = log.read(240);
    expect(tail.changes.map((c) => c.seq)).toEqual([241, 242, 243, 244, 245, 246, 247, 248, 249, 250]);
    expect(tail.truncated).toBe(false);
    expect(log.read(240, 'a').changes.every((c) => c.org === 'a')).toBe(true);
    const all = log.read(0);
    expect(all.truncated).toBe(true);
    expect(all.changes.length).toBeLessThanOrEqual(110);
    expect(all.changes.at(-1)!.seq).toBe(250);
    expect(log.read(0, undefined, 3).changes).toHaveLength(3);
  });

  it.each([
    // [limit, request times (s), expected outcome per request ('ok' or Retry-After seconds)]
    [3, [0, 1, 2, 3], ['ok', 'ok', 'ok', 57]],
    [3, [0, 1, 2, 60], ['ok', 'ok', 'ok', 'ok']],
    [3, [0, 1, 2, 59.5, 60, 61, 61.5], ['ok', 'ok', 'ok', 1, 'ok', 'ok', 1]],
    [1, [0, 30, 59.999, 60], ['ok', 30, 1, 'ok']],
  ] as const)('limits %i per sliding minute', (limit, times, expected) => {
    const rl = new RateLimiter(limit);
    const got = times.map((s) => {
      const d = rl.take('1.2.3.4', s * 1000);
      return d.ok ? 'ok' : d.retryAfterSeconds;
    });
    expect(got).toEqual(expected);
  });

  it('limits each IP on its own', () => {
    const rl = new RateLimiter(1);
    expect(rl.take('a', 0).ok).toBe(true);
    expect(rl.take('b', 0).ok).toBe(true);
    expect(rl.take('a', 1).ok).toBe(false);
    rl.reset();
    expect(rl.take('a', 2).ok).toBe(true);
  });
});
