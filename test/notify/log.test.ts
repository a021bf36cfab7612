import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { formatBlock, LogNotifier } from '../../src/notify/log/log.js';
import { duplicateKeys } from '../helpers/json-keys.js';
import { logSinkSchema } from '../../src/notify/log/schema.js';
import { runNotifierContract } from './contract.js';
import { firingNotification, resolvedNotification } from './helpers/fixtures.js';

/** A stream that records writes, fails them, or never finishes them. */
function stream(mode: 'ok' | 'transient' | 'hang'): { out: Writable; lines: string[] } {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (mode === 'hang') return;
      if (mode === 'transient') {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        return;
      }
      lines.push(chunk.toString());
      cb();
    },
  });
  out.on('error', () => {});
  return { out, lines };
}

runNotifierContract('log', {
  secrets: [],
  reasons: { transient: 'write' },
  unsupported: ['permanent'],
  async setup(mode) {
    const { out, lines } = stream(mode === 'permanent' ? 'ok' : mode);
    return {
      notifier: new LogNotifier('console', logSinkSchema.parse({}), out, {
        clock: systemClock,
        streamFormat: 'json',
      }),
      delivered: () => lines.length,
      close: async () => {
        out.destroy();
      },
    };
  },
});

describe('console sink', () => {
  it('prints a readable block per notification', () => {
    expect(formatBlock(firingNotification({}, 1))).toBe(
      [
        '── [FIRING:1] Channel news-1 went offline ── ops · 2025-03-01 14:05:14 UTC',
        '  ● FIRING  Channel news-1 went offline',
        '      The channel news-1 of acme stopped streaming while a session was scheduled.',
        '      org=acme channel=news-1 severity=critical',
        '      since 2025-03-01 14:05:09 UTC',
        '      https://tally.example.com/orgs/acme/channels/news-1',
        '',
      ].join('\n'),
    );
    expect(formatBlock(resolvedNotification({}, 1))).toContain('○ RESOLVED  Channel news-1 went offline');
  });

  async function capture(
    format: 'auto' | 'json' | 'text',
    streamFormat: 'json' | 'pretty',
    resolved = false,
  ) {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => {
      text += c.toString();
    });
    const n = new LogNotifier('console', logSinkSchema.parse({ format }), out, {
      clock: { now: () => Date.parse('2025-03-01T14:05:20Z') } as typeof systemClock,
      streamFormat,
    });
    const notification = resolved ? resolvedNotification({}, 2) : firingNotification();
    await n.send(notification, { signal: AbortSignal.timeout(1000), idempotencyKey: 'k' });
    return text;
  }

  it('writes one JSON log record per notification into a JSON log (the default)', async () => {
    const text = await capture('auto', 'json');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(duplicateKeys(text.trim())).toEqual([]);
    const record = JSON.parse(text) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: 'info',
      time: '2025-03-01T14:05:20.000Z',
      component: 'notification',
      receiver: 'ops',
      status: 'firing',
      firing: 3,
      msg: expect.stringMatching(/^\[FIRING:3\]/),
      notification: { version: '1', status: 'firing', counts: { firing: 3 } },
    });
    expect(Object.keys(record).slice(0, 3)).toEqual(['level', 'time', 'component']);
    const resolved = JSON.parse(await capture('json', 'pretty', true)) as Record<string, unknown>;
    expect(resolved).toMatchObject({ status: 'resolved', firing: 0, notification: { status: 'resolved' } });
  });

  it('writes the readable block next to a pretty log, or when asked', async () => {
    expect(await capture('auto', 'pretty')).toMatch(/^── \[FIRING:3\]/);
    expect(await capture('text', 'json')).toMatch(/^── \[FIRING:3\]/);
  });
});
