import { describe, expect, it } from 'vitest';
import { HeldBytes, PageBuffers } from '../../src/metrics/page-buffers.js';

describe('HeldBytes', () => {
  it('gives its buffer back once, when the last hold is let go', () => {
    const pool = new PageBuffers();
    const store = Buffer.alloc(100);
    const bytes = new HeldBytes(store.subarray(0, 10), store, pool);
    const a = bytes.hold();
    const b = bytes.hold();
    a();
    a();
    expect(pool.size).toBe(0);
    b();
    expect(pool.size).toBe(1);
    expect(pool.take(100)).toBe(store);
    expect(() => bytes.hold()).toThrow(/used again/);
  });

  it('holds for the rest of the turn', async () => {
    const pool = new PageBuffers();
    const store = Buffer.alloc(100);
    const bytes = new HeldBytes(store, store, pool);
    bytes.holdThisTurn();
    await Promise.resolve();
    const late = bytes.hold();
    expect(pool.size).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(pool.size).toBe(0);
    late();
    expect(pool.size).toBe(1);
  });
});

describe('PageBuffers', () => {
  it('keeps at most the buffers it was told to, each once', () => {
    const pool = new PageBuffers(2);
    const [a, b, c] = [Buffer.alloc(10), Buffer.alloc(20), Buffer.alloc(30)];
    pool.give(a);
    pool.give(a);
    pool.give(b);
    pool.give(c);
    expect(pool.size).toBe(2);
    expect(pool.take(10)).toBe(b);
    expect(pool.take(10)).toBe(a);
    expect(pool.take(10)).toBeUndefined();
  });

  it('hands out the largest, and drops buffers far larger than the page needs', () => {
    const pool = new PageBuffers(2);
    const big = Buffer.alloc(4 * 2 ** 20);
    const small = Buffer.alloc(2 ** 20);
    pool.give(small);
    pool.give(big);
    expect(pool.take(2 ** 20)).toBe(big);
    pool.give(big);
    // An org that shrank to a tenth: the largest is dropped, and then the next.
    expect(pool.take(100 * 1024)).toBeUndefined();
    expect(pool.take(100 * 1024)).toBeUndefined();
    expect(pool.size).toBe(0);
  });

  it("gives a format's first page any spare buffer, and keeps the others", () => {
    const pool = new PageBuffers(2);
    const a = Buffer.alloc(2 ** 20);
    const b = Buffer.alloc(2 * 2 ** 20);
    pool.give(a);
    pool.give(b);
    expect(pool.take(0)).toBe(b);
    expect(pool.size).toBe(1);
  });
});
