import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonFileStreamed } from '../../src/store/atomic.js';
import { jsonPieces } from '../../src/store/json-chunks.js';
import { JsonTextError, parseJsonPieces, PiecewiseJsonParser } from '../../src/store/json-stream.js';

/** Cuts `text` at the given places (taken modulo its length). */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((n) => (text.length === 0 ? 0 : n % (text.length + 1))))].sort(
    (a, b) => a - b,
  );
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

/** JSON text with white space between tokens (as a person or another writer might lay it out). */
function spaced(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

describe('PiecewiseJsonParser', () => {
  it('gives what JSON.parse gives, for any JSON text cut anywhere, at every depth', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(5),
        fc.boolean(),
        async (value, at, depth, pretty) => {
          const text = pretty ? spaced(value) : JSON.stringify(value);
          const parsed = await parseJsonPieces(cut(text, at), depth);
          expect(parsed).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 800 },
    );
  });

  it('reads back what jsonPieces writes, piece by piece', async () => {
    const value = {
      format: 'tally-snapshot',
      savedAt: 1,
      snapshot: {
        sessions: Object.fromEntries(
          Array.from({ length: 300 }, (_, i) => [
            `ch_${i}`,
            { state: 'complete', value: [{ id: `s_${i}`, title: 'Q&A "live" \\ ✓ 🎙', at: 1.5e12 + i }] },
          ]),
        ),
        empty: {},
        list: [],
      },
    };
    expect(await parseJsonPieces(jsonPieces(value))).toEqual(value);
  });

  it('hands each value parsed whole to revive with the keys leading to it, and keeps what it returns', () => {
    const text = JSON.stringify({ a: { b: { c: [1, 2], d: 'x' } }, e: [{ f: 1 }, 2], g: 3 });
    const seen: string[] = [];
    const parser = new PiecewiseJsonParser(3, (keys, value) => {
      seen.push(`${keys.join('/')}=${JSON.stringify(value)}`);
      return keys.join('/') === 'a/b/c' ? 'revived' : value;
    });
    for (const piece of cut(text, [3, 11, 20, 29])) parser.push(piece);
    expect(parser.end()).toEqual({ a: { b: { c: 'revived', d: 'x' } }, e: [{ f: 1 }, 2], g: 3 });
    expect(seen).toEqual(['a/b/c=[1,2]', 'a/b/d="x"', 'e//f=1', 'e/=2', 'g=3']);
  });

  it('keeps a __proto__ key as an own property, as JSON.parse does', async () => {
    const text = '{"a":{"__proto__":{"polluted":true},"b":1}}';
    const parsed = (await parseJsonPieces([text.slice(0, 9), text.slice(9)])) as {
      a: Record<string, unknown>;
    };
    expect(Object.keys(parsed.a)).toEqual(['__proto__', 'b']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(parsed.a)).toBe(Object.prototype);
  });

  it.each([
    ['', 'empty text'],
    ['   \n', 'empty text'],
    ['{"a":1', 'unexpected end of text'],
    ['{"a":"x', 'unterminated string'],
    ['{"a":1}}', 'unexpected text after the end'],
    ['{"a" 1}', "expected ':'"],
    ['{a:1}', 'expected a property name'],
    ['[1 2]', "expected ',' or ']'"],
    ['{"a":[1,}', 'invalid JSON value'],
    ['{"a":tru}', 'invalid JSON value'],
  ])('refuses %j: %s, saying where', async (text, problem) => {
    const parser = new PiecewiseJsonParser();
    let error: unknown;
    try {
      for (const piece of cut(text, [3])) parser.push(piece);
      parser.end();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(JsonTextError);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).toMatch(/at character \d+/);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('holds one piece and one value at a time, not the text', () => {
    const parser = new PiecewiseJsonParser();
    const value = {
      snapshot: {
        sessions: Object.fromEntries(
          Array.from({ length: 5000 }, (_, i) => [`ch_${i}`, { v: 'x'.repeat(200) }]),
        ),
      },
    };
    let held = 0;
    for (const piece of jsonPieces(value)) {
      parser.push(piece);
      held = Math.max(held, (parser as unknown as { buf: string }).buf.length);
    }
    expect(parser.end()).toEqual(value);
    // The text is over a megabyte; the buffer never more than a piece and a value.
    expect(JSON.stringify(value).length).toBeGreaterThan(1_000_000);
    expect(held).toBeLessThan(64 * 1024 + 1024);
  });
});

describe('readJsonFileStreamed', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-json-stream-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file as readJsonFile would, multi-byte characters across read boundaries included', async () => {
    const value = { a: '✓'.repeat(200_000), b: ['🎙'.repeat(100_000)], c: { d: 1 } };
    const file = path.join(dir, 'ok.json');
    await writeFile(file, `${JSON.stringify(value)}\n`);
    expect(await readJsonFileStreamed(file)).toEqual({ status: 'ok', value });
  });

  it('tells a missing file, an empty one, a directory and a cut one apart', async () => {
    expect(await readJsonFileStreamed(path.join(dir, 'none.json'))).toEqual({ status: 'missing' });
    await writeFile(path.join(dir, 'empty.json'), '\n');
    expect(await readJsonFileStreamed(path.join(dir, 'empty.json'))).toEqual({
      status: 'corrupt',
      problem: 'empty file',
    });
    expect(await readJsonFileStreamed(dir)).toEqual({ status: 'corrupt', problem: 'is a directory' });
    await writeFile(path.join(dir, 'cut.json'), '{"format":"tally-snapshot","snapshot":{"sessions":{"a"');
    const cutRead = await readJsonFileStreamed(path.join(dir, 'cut.json'));
    expect(cutRead).toEqual({
      status: 'corrupt',
      problem: expect.stringMatching(/^invalid JSON: unexpected end of text at character \d+$/),
    });
  });
});
