import { describe, expect, it } from 'vitest';
import { simCommand } from '../../src/cli/sim.js';
import { captureIO } from '../helpers/io.js';

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 5000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  if (!cond()) throw new Error('condition never held');
}

describe('tally sim', () => {
  it('prints its usage on --help', async () => {
    const io = captureIO();
    expect(await simCommand(['--help'], io)).toBe(0);
    expect(io.out()).toContain('usage: tally sim');
    expect(io.out()).toContain('--rate-limit N');
  });

  it('serves a faithful dialect by name and says which', async () => {
    const io = captureIO();
    const done = simCommand(['--port', '0', '--channels', '2', '--dialect', 'graph'], io);
    await waitFor(() => io.out().includes('tokens:'));
    expect(io.out()).toContain('dialect: graph (Microsoft Graph');
    const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())![1]!;
    const res = await fetch(`${url}/v1/demo/channels`, { headers: { authorization: 'Bearer demo-token' } });
    const body = (await res.json()) as { value: unknown[] };
    expect(body.value).toHaveLength(2);
    io.stop();
    expect(await done).toBe(0);
  });

  it('lists every dialect with one line each on --list-dialects', async () => {
    const io = captureIO();
    expect(await simCommand(['--list-dialects'], io)).toBe(0);
    const lines = io.out().trim().split('\n');
    for (const name of [
      'stripe',
      'github',
      'graph',
      'google',
      'jsonapi',
      'hal',
      'paypal',
      'stripe-cursor',
      'rails',
    ]) {
      expect(lines.filter((l) => l.startsWith(`${name} `))).toHaveLength(1);
    }
    expect(lines.filter((l) => /\bfaithful\b/.test(l)).length).toBeGreaterThanOrEqual(15);
  });

  it.each([
    [['--dialect', 'soap'], '--dialect must be one of default'],
    [['--port', 'http'], '--port must be an integer'],
    [['--port', '70000'], '--port must be an integer from 0 to 65535'],
    [['--channels', '5001'], '--channels must be an integer from 0 to 5000'],
    [['--speed', '0'], '--speed must be a number'],
    [['--speed', 'fast'], '--speed must be a number'],
    [['--envelope', 'soap'], '--envelope must be one of bare, data, items, key'],
    [['--paging', 'scroll'], '--paging must be one of none, cursor, link, pages'],
    [['--case', 'kebab'], '--case must be one of snake, camel'],
    [['--rate-limit', '0'], '--rate-limit must be an integer from 1'],
    [['--rate-limit=-5'], '--rate-limit must be an integer'],
    [['--error-rate', '2'], '--error-rate must be a number from 0 to 1'],
    [['--token', 'demo:'], '--token "demo:" has no value'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--org', 'Not A Slug'], 'slug must be lower-case'],
    [
      ['--token', 'a', '--token', 'b', '--token', 'c', '--token', 'd', '--token', 'e', '--token', 'f'],
      'at most 5 may be active',
    ],
  ])('refuses %j with exit 2, naming the flag', async (args, message) => {
    const io = captureIO();
    expect(await simCommand(args, io)).toBe(2);
    expect(io.err()).toContain(message);
  });

  it('serves until stopped, printing its URL and tokens', async () => {
    const io = captureIO();
    const done = simCommand(
      [
        '--port',
        '0',
        '--seed',
        '4',
        '--org',
        'acme',
        '--org',
        'beta',
        '--channels',
        '3',
        '--sessions',
        '2',
        '--token',
        'beta:b-secret',
        '--token',
        'a-secret',
        '--envelope',
        'items',
        '--paging',
        'pages',
        '--case',
        'camel',
        '--rate-limit',
        '50',
        '--speed',
        '2',
        '--scenario',
        'lively',
      ],
      io,
    );
    await waitFor(() => io.out().includes('tokens:'));
    const out = io.out();
    const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    expect(out).toContain('org=beta label=cli-1 validity=unlimited token=b-secret');
    expect(out).toContain('org=acme label=cli-2 validity=unlimited token=a-secret');
    expect(out).toContain('envelope=items paging=pages page-size=50 case=camel');
    let res = await fetch(`${url}/v1/acme/channels`, { headers: { authorization: 'Bearer a-secret' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: unknown[]; totalPages: number };
    expect(body.items).toHaveLength(3);
    expect(body.totalPages).toBe(1);
    res = await fetch(`${url}/v1/acme`, { headers: { authorization: 'Bearer b-secret' } });
    expect(res.status).toBe(403);
    io.stop();
    expect(await done).toBe(0);
    expect(io.out()).toContain('stopped');
    await expect(fetch(`${url}/v1/acme`)).rejects.toThrow();
  });
});
