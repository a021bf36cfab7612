import { describe, expect, it } from 'vitest';
import { stringifyWellFormed, toWellFormed } from '../../src/core/well-formed.js';
import { json } from '../../src/http/reply.js';
import { formatLine, parseLine } from '../../src/store/event-segments.js';

/** A `\udXXX` escape that is not itself an escaped backslash followed by text. */
const LONE_ESCAPE = /(?<!\\)\\ud[89a-f][0-9a-f]{2}/;

describe('well-formed JSON', () => {
  it('writes lone surrogates as U+FFFD and keeps pairs and escaped text', () => {
    expect(toWellFormed('a\ud800b\udc00c\ud83d\ude00')).toBe('a\ufffdb\ufffdc\ud83d\ude00');
    const text = stringifyWellFormed({ name: 'x\ud800', ['k\udfff']: 1, ok: '\\ud800', emoji: '😀' });
    expect(text).not.toMatch(LONE_ESCAPE);
    expect(JSON.parse(text)).toEqual({ name: 'x\ufffd', 'k\ufffd': 1, ok: '\\ud800', emoji: '😀' });
    // Plain JSON.stringify would have written the escape.
    expect(JSON.stringify({ name: 'x\ud800' })).toMatch(LONE_ESCAPE);
  });

  it('in the event log and in API answers', () => {
    const line = formatLine(1, {
      id: 'e1',
      at: 0,
      org: 'acme',
      kind: 'channel.added',
      entity: { kind: 'channel', id: 'c\udc00' },
      labels: { channel: 'Main \ud800 stage' },
    } as never);
    expect(line).not.toMatch(LONE_ESCAPE);
    expect(parseLine(line.trim())).toMatchObject({
      entity: { id: 'c\ufffd' },
      labels: { channel: 'Main \ufffd stage' },
    });
    const reply = json(200, { title: 'q\ud800' });
    expect(String(reply.body)).toBe('{"title":"q\ufffd"}\n');
  });
});
