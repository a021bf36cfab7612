import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, LOG_LEVELS, scrub, uniqueKeys } from '../src/core/log.js';
import { duplicateKeys } from './helpers/json-keys.js';

const TOKEN = 'tok_live_9f8e7d6c5b4a';

function capture(format: 'json' | 'pretty') {
  const dest = new PassThrough();
  let text = '';
  dest.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const log = createLogger({ level: 'trace', format, destination: dest, secrets: [TOKEN, 'smtp-pass-1'] });
  return { log, text: () => text };
}

describe('logging', () => {
  it.each(['json', 'pretty'] as const)(
    'never writes a configured secret at any level (%s)',
    async (format) => {
      const { log, text } = capture(format);
      const child = log.child({ component: 'upstream' });
      for (const level of LOG_LEVELS.filter((l) => l !== 'silent')) {
        child[level]({ token: TOKEN }, 'field named token');
        child[level]({ headers: { authorization: `Bearer ${TOKEN}` } }, 'auth header');
        child[level]({ err: new Error(`request failed with ${TOKEN}`) }, 'error carrying it');
        child[level]({ url: `https://user:${TOKEN}@api.example.com/v1/acme` }, 'credentials in a URL');
        child[level]({ nested: { deeper: { note: `x${TOKEN}y` } } }, `in the message ${TOKEN}`);
        child[level]({ password: 'smtp-pass-1' }, 'smtp');
      }
      await new Promise((r) => setImmediate(r));
      const out = text();
      expect(out.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(36);
      expect(out).not.toContain(TOKEN);
      expect(out).not.toContain('smtp-pass-1');
      expect(out).toContain('[REDACTED]');
    },
  );

  it.each(['json', 'pretty'] as const)(
    'never writes a secret holding a quote, a backslash or a control character (%s)',
    async (format) => {
      const secret = 'pa"ss\\wörd\t-123';
      const dest = new PassThrough();
      let out = '';
      dest.on('data', (c: Buffer) => {
        out += c.toString();
      });
      const log = createLogger({ level: 'info', format, destination: dest, secrets: [secret] });
      log.info({ detail: `login failed for ${secret}` }, 'refused');
      log.info(`in the message ${secret}`);
      await new Promise((r) => setImmediate(r));
      expect(out).not.toContain(secret);
      expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
      expect(out).not.toContain('wörd');
      expect(out.match(/\[REDACTED\]/g)).toHaveLength(2);
    },
  );

  it('writes each key once: the innermost binding or call field wins', async () => {
    const { log, text } = capture('json');
    const child = log.child({ component: 'app' }).child({ component: 'upstream', org: 'acme' });
    child.warn({ org: 'beta', endpoint: 'team' }, 'read failed');
    child.info('plain');
    await new Promise((r) => setImmediate(r));
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(duplicateKeys(l)).toEqual([]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 'warn',
      component: 'upstream',
      org: 'beta',
      endpoint: 'team',
      msg: 'read failed',
    });
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      component: 'upstream',
      org: 'acme',
      msg: 'plain',
    });
    // A line without repeats is passed through as it is.
    const plain = '{"level":"info","msg":"a, \\"b\\": c"}\n';
    expect(uniqueKeys(plain)).toBe(plain);
  });

  it('writes JSON lines with a level label and component', async () => {
    const { log, text } = capture('json');
    log.child({ component: 'poller' }).warn({ org: 'acme' }, 'fetch failed');
    await new Promise((r) => setImmediate(r));
    const line = JSON.parse(text().trim());
    expect(line).toMatchObject({ level: 'warn', component: 'poller', org: 'acme', msg: 'fetch failed' });
  });

  it.each([
    ['https://u:p@host/x', 'https://[REDACTED]@host/x'],
    ['Authorization: Bearer abc.def-123', 'Authorization: Bearer [REDACTED]'],
    ['no secrets here', 'no secrets here'],
  ])('scrub(%j)', (input, expected) => {
    expect(scrub(input, [])).toBe(expected);
  });
});
