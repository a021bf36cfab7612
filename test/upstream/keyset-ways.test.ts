/** The ways to ask for the page after a "more" without a pointer, and the wait after all failed (lists/keyset.ts). */
import { describe, expect, it } from 'vitest';
import {
  byRefusal,
  keysetWays,
  PAGER_RETRY_MAX_MS,
  PAGER_RETRY_MS,
  PagerLedger,
} from '../../src/upstream/lists/keyset.js';

const AT = { lastId: 'cus_9', nextPage: 2, pageParam: 'page', seen: 10 };

describe('keysetWays', () => {
  it('asks after the last id, then by page number and offset', () => {
    expect(keysetWays(AT, undefined)).toEqual([
      { param: 'starting_after', value: 'cus_9', kind: 'keyset' },
      { param: 'after', value: 'cus_9', kind: 'keyset' },
      { param: 'page', value: '2', kind: 'page' },
      { param: 'offset', value: '10', kind: 'offset' },
      { param: 'after_id', value: 'cus_9', kind: 'keyset' },
      { param: 'since_id', value: 'cus_9', kind: 'keyset' },
    ]);
  });

  it('puts the way learned first, once', () => {
    expect(keysetWays(AT, 'since_id').map((w) => w.param)).toEqual([
      'since_id',
      'starting_after',
      'after',
      'page',
      'offset',
      'after_id',
    ]);
    expect(keysetWays({ ...AT, pageParam: 'p' }, 'p')[0]).toEqual({ param: 'p', value: '2', kind: 'page' });
    expect(keysetWays(AT, 'startAfter')[0]).toEqual({ param: 'startAfter', value: 'cus_9', kind: 'keyset' });
  });
});

describe('byRefusal', () => {
  const others = keysetWays(AT, undefined).slice(1);

  it('tries first the ways a refusal names', () => {
    const order = byRefusal(
      others,
      'unknown parameter starting_after; allowed: limit, offset',
      'starting_after',
    );
    expect(order.map((w) => w.param)).toEqual(['offset', 'after', 'page', 'after_id', 'since_id']);
  });

  it('adds a parameter it names that asks after something, with the last id', () => {
    const order = byRefusal(others, 'use start_after or page_cursor instead', 'starting_after', 'cus_9');
    expect(order.slice(0, 3)).toEqual([
      { param: 'start_after', value: 'cus_9', kind: 'keyset' },
      { param: 'page_cursor', value: 'cus_9', kind: 'keyset' },
      { param: 'after', value: 'cus_9', kind: 'keyset' },
    ]);
  });

  it('never offers the parameter refused, nor invents one from words that name none', () => {
    expect(
      byRefusal(others, 'bad request; try again thereafter', 'after', 'cus_9').map((w) => w.param),
    ).toEqual(['page', 'offset', 'after_id', 'since_id']);
  });
});

describe('PagerLedger', () => {
  it('waits 5 minutes, doubling per failure to an hour; one read asks when the wait is over', () => {
    const l = new PagerLedger();
    expect(l.waiting('o', 'channels', 0)).toBeUndefined();
    expect(l.refuse('o', 'channels', ['a', 'b'], 0)).toEqual({
      retryAt: PAGER_RETRY_MS,
      times: 1,
      tried: ['a', 'b'],
    });
    expect(l.waiting('o', 'channels', PAGER_RETRY_MS - 1)?.tried).toEqual(['a', 'b']);
    // Another list is not held.
    expect(l.waiting('o', 'sessions', 1)).toBeUndefined();
    // The wait over: this read asks, the ones with it wait again.
    expect(l.waiting('o', 'channels', PAGER_RETRY_MS)).toBeUndefined();
    expect(l.waiting('o', 'channels', PAGER_RETRY_MS + 1)).toBeDefined();
    expect(l.refuse('o', 'channels', ['a'], PAGER_RETRY_MS).retryAt).toBe(3 * PAGER_RETRY_MS);
    for (let i = 0; i < 10; i++) l.refuse('o', 'channels', ['a'], 0);
    expect(l.waiting('o', 'channels', 0)?.retryAt).toBe(PAGER_RETRY_MAX_MS);
    l.clear('o', 'channels');
    expect(l.waiting('o', 'channels', 0)).toBeUndefined();
  });
});
