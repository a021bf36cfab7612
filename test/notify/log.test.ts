import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatBlock, LogNotifier } from '../../src/notify/log/log.js';
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
      notifier: new LogNotifier('console', logSinkSchema.parse({}), out),
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
        '── [FIRING:1] ChannelOffline (org=acme) ── ops · 2025-03-01 14:05:14 UTC',
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

  it('writes tally JSON lines with format: json', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => {
      text += c.toString();
    });
    const n = new LogNotifier('console', logSinkSchema.parse({ format: 'json' }), out);
    await n.send(firingNotification(), { signal: AbortSignal.timeout(1000), idempotencyKey: 'k' });
    expect(JSON.parse(text)).toMatchObject({ version: '1', status: 'firing', counts: { firing: 3 } });
  });
});
