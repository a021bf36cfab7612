import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  MAX_QUERY_LIMIT,
  selectEntries,
} from '../../src/store/event-query.js';
import { Interner, type IndexEntry, scanSegment } from '../../src/store/event-segments.js';

function entries(from: number, to: number): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (let seq = from; seq <= to; seq++) {
    out.push({
      seq,
      id: `e${seq}`,
      at: seq,
      org: 'acme',
      kind: 'channel.added',
      entityId: 'c',
      segment: 1,
      offset: 0,
      length: 1,
    });
  }
  return out;
}

describe('cursors', () => {
  it.each([0, 1, 42, 100_000, Number.MAX_SAFE_INTEGER])('round-trip %d', (seq) => {
    expect(decodeCursor(encodeCursor(seq))).toBe(seq);
  });

  it.each(['', '42', 's', 's-1', 'sZZ', 's123456789012', 'x1'])('refuse %j', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(InvalidCursorError);
  });
});

describe('selectEntries', () => {
  const segments = [entries(1, 3), [], entries(4, 6), entries(7, 9)];

  it.each([
    [{ limit: 4 }, [9, 8, 7, 6], 6],
    [{ limit: 4, cursor: encodeCursor(6) }, [5, 4, 3, 2], 2],
    [{ limit: 4, cursor: encodeCursor(2) }, [1], undefined],
    [{ limit: 4, order: 'oldest' as const }, [1, 2, 3, 4], 4],
    [{ limit: 4, order: 'oldest' as const, cursor: encodeCursor(4) }, [5, 6, 7, 8], 8],
    [{ limit: 4, order: 'oldest' as const, cursor: encodeCursor(8) }, [9], undefined],
    [{ limit: 9 }, [9, 8, 7, 6, 5, 4, 3, 2, 1], undefined],
    [{ limit: 0 }, [9], 9],
    [{ limit: 3, since: 3, until: 8 }, [7, 6, 5], 5],
    [{ limit: 3, cursor: encodeCursor(100) }, [9, 8, 7], 7],
    [{ limit: 3, order: 'oldest' as const, cursor: encodeCursor(0) }, [1, 2, 3], 3],
  ])('%j', (q, seqs, next) => {
    const sel = selectEntries(segments, q);
    expect(sel.entries.map((e) => e.seq)).toEqual(seqs);
    expect(sel.nextCursor).toEqual(next === undefined ? undefined : encodeCursor(next));
  });

  it('caps the page size', () => {
    expect(selectEntries([entries(1, MAX_QUERY_LIMIT + 5)], { limit: 1e9 }).entries).toHaveLength(
      MAX_QUERY_LIMIT,
    );
  });
});

describe('scanSegment', () => {
  const line = (seq: number) =>
    JSON.stringify({
      seq,
      id: `e${seq}`,
      at: 1,
      org: 'acme',
      kind: 'channel.added',
      entity: { kind: 'channel', id: 'c' },
      labels: {},
    });

  it.each([
    ['clean', `${line(1)}\n${line(2)}\n`, [1, 2], 0, 'all'],
    ['torn tail', `${line(1)}\n{"seq":2,`, [1], 0, 'first'],
    ['bad middle line', `${line(1)}\nnope\n${line(3)}\n`, [1, 3], 1, 'all'],
    ['bad last line', `${line(1)}\nnope\n`, [1], 0, 'first'],
    ['not an event', `${line(1)}\n{"seq":2}\n`, [1], 0, 'first'],
    ['empty', '', [], 0, 'all'],
  ])('%s', (_n, text, seqs, skipped, valid) => {
    const buf = Buffer.from(text);
    const scan = scanSegment(buf, 1, new Interner());
    expect(scan.entries.map((e) => e.seq)).toEqual(seqs);
    expect(scan.skippedLines).toBe(skipped);
    expect(scan.validBytes).toBe(valid === 'all' ? buf.length : line(1).length + 1);
    for (const e of scan.entries) {
      expect(JSON.parse(buf.toString('utf8', e.offset, e.offset + e.length)).seq).toBe(e.seq);
    }
  });
});
