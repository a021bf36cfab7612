/**
 * `tally once --explain`, continued: the keys of a server's records that no model field
 * was read from (names and counts, never values), a drift line for what the server says
 * that tally cannot place, and the django and legacy dialects explained as the others are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import type { EndpointExplain } from '../../src/cli/explain.js';
import { startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { type Loopback, startServer } from '../upstream/loopback.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-explain-more-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Explained = Record<string, Record<string, EndpointExplain>>;

/** Runs `tally once --explain` (and `--json` when asked) against `url`. */
async function once(
  url: string,
  name: string,
  json = false,
  upstream = '',
): Promise<{ code: number; out: string; err: string }> {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(
    file,
    `upstream:\n  base_url: ${url}\n${upstream}orgs:\n  - slug: demo\n    token: demo-token\n`,
  );
  const io = captureIO({}, dir);
  const code = await onceCommand(['--config', file, '--explain', ...(json ? ['--json'] : [])], io);
  return { code, out: io.out(), err: io.err() };
}

/** The lines of one endpoint's block in the text output. */
function block(out: string, endpoint: string): string[] {
  const lines = out.split('\n');
  const start = lines.indexOf(`  ${endpoint}`);
  if (start < 0) return [];
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith('    '));
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * A server in front of the simulator that passes every request through and lets
 * `rewrite` change JSON bodies (links to the simulator are pointed back at the proxy).
 */
async function proxy(
  target: string,
  rewrite: (pathname: string, body: unknown) => unknown,
): Promise<Loopback> {
  let origin = '';
  const server = await startServer(async (req: IncomingMessage, res: ServerResponse) => {
    const upstream = await fetch(`${target}${req.url ?? '/'}`, {
      headers: { authorization: req.headers.authorization ?? '' },
    });
    const type = upstream.headers.get('content-type') ?? '';
    let text = await upstream.text();
    if (type.includes('json') && upstream.ok) {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      text = JSON.stringify(rewrite(pathname, JSON.parse(text))).replaceAll(target, origin);
    }
    const headers: Record<string, string> = { 'content-type': type };
    const link = upstream.headers.get('link');
    if (link) headers['link'] = link.replaceAll(target, origin);
    res.writeHead(upstream.status, headers).end(text);
  });
  origin = server.origin;
  return server;
}

/** Applies `fn` to every item of a `{ data: [...] }` body. */
const eachItem = (
  body: unknown,
  fn: (item: Record<string, unknown>, i: number) => Record<string, unknown>,
) => {
  const b = body as { data?: Record<string, unknown>[] };
  return Array.isArray(b.data) ? { ...b, data: b.data.map(fn) } : body;
};

describe('keys not read', () => {
  it('names every key no field was read from, per endpoint, and none that was read', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    try {
      const r = await once(sim.url, 'keys-default');
      expect(r.code).toBe(0);
      expect(block(r.out, 'org')).toContain('    keys not read: slug, created_at');
      expect(block(r.out, 'team')).toContain('    keys not read: joined_at');
      expect(block(r.out, 'subscription')).toContain('    keys not read: status');
      expect(block(r.out, 'channels')).toContain('    keys not read: created_at');
      expect(block(r.out, 'sessions')).toContain('    keys not read: channel_id');
      // Keys fields were read from never show up as unread.
      for (const endpoint of ['team', 'channels', 'sessions']) {
        const line = block(r.out, endpoint).find((l) => l.includes('keys not read')) ?? '';
        expect(line.replace('keys not read', '')).not.toMatch(
          /\b(id|name|status|visibility|title|email|role)\b/,
        );
      }
    } finally {
      await sim.close();
    }
  });

  it('counts each unread key over the records, with --json, and never shows its values', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    const front = await proxy(sim.url, (pathname, body) =>
      pathname === '/v1/demo/channels'
        ? eachItem(body, (c, i) => ({
            ...c,
            internal_region: `zz-secret-region-${i}`,
            ...(i === 0 ? { legacy_flags: { beta: 'zz-secret-flag' } } : {}),
          }))
        : body,
    );
    try {
      const text = await once(front.origin, 'keys-proxy');
      expect(text.code).toBe(0);
      expect(block(text.out, 'channels')).toContain(
        '    keys not read: created_at, internal_region, legacy_flags',
      );
      expect(text.out).not.toContain('zz-secret');

      const r = await once(front.origin, 'keys-proxy-json', true);
      expect(r.code).toBe(0);
      const explain = (JSON.parse(r.out) as { explain: Explained }).explain['demo']!;
      expect(explain['channels']?.ignoredKeys).toEqual({
        created_at: 3,
        internal_region: 3,
        legacy_flags: 1,
      });
      expect(JSON.stringify(explain)).not.toContain('zz-secret');
    } finally {
      await front.close();
      await sim.close();
    }
  });
});

describe('drift in the explanation', () => {
  it('a status word tally does not know is a drift line of its endpoint', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    const front = await proxy(sim.url, (pathname, body) => {
      if (pathname === '/v1/demo/channels')
        return eachItem(body, (c, i) => (i === 0 ? { ...c, status: 'Frobnicating' } : c));
      if (pathname.endsWith('/sessions')) return eachItem(body, (s) => ({ ...s, status: 'Zonked' }));
      return body;
    });
    try {
      const r = await once(front.origin, 'drift-text');
      expect(r.code).toBe(0);
      const channels = block(r.out, 'channels');
      expect(channels.filter((l) => l.startsWith('    drift: '))).toEqual([
        '    drift: channel.status: unknown status word "frobnicating"; its class is unknown',
      ]);
      expect(block(r.out, 'sessions').filter((l) => l.startsWith('    drift: '))).toEqual([
        '    drift: session.status: unknown status word "zonked"; its class is unknown',
      ]);
      // Endpoints without drift have no drift line.
      expect(block(r.out, 'team').some((l) => l.includes('drift:'))).toBe(false);

      const j = await once(front.origin, 'drift-json', true);
      const explain = (JSON.parse(j.out) as { explain: Explained }).explain['demo']!;
      expect(explain['channels']?.drift).toEqual([
        'channel.status: unknown status word "frobnicating"; its class is unknown',
      ]);
      expect(explain['org']?.drift).toEqual([]);
    } finally {
      await front.close();
      await sim.close();
    }
  });

  it('a list tally cannot find is a fatal drift line', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    const front = await proxy(sim.url, (pathname, body) =>
      pathname === '/v1/demo/team' ? { message: 'ok', version: 3 } : body,
    );
    try {
      const r = await once(front.origin, 'drift-fatal');
      const drift = block(r.out, 'team').filter((l) => l.startsWith('    drift: '));
      expect(drift).toHaveLength(1);
      expect(drift[0]).toMatch(/\(fatal: the read failed\)$/);
      // Keys seen, never values.
      expect(drift[0]).not.toContain('"ok"');
    } finally {
      await front.close();
      await sim.close();
    }
  });
});

describe('the django and legacy dialects, no overrides', () => {
  async function explainOf(dialect: string, channels: number, sessionsPerChannel?: number) {
    const sim = await startSimulator({
      orgs: ['demo'],
      channels,
      seed: 2,
      frozen: true,
      dialect,
      ...(sessionsPerChannel === undefined ? {} : { sessionsPerChannel }),
    });
    try {
      // No pacing: a long list's many session reads would only cost time here.
      const text = await once(sim.url, `${dialect}-text`, false, '  burst: 300\n');
      const json = await once(sim.url, `${dialect}-json`, true, '  burst: 300\n');
      expect(text.code).toBe(0);
      expect(json.code).toBe(0);
      return { out: text.out, explain: (JSON.parse(json.out) as { explain: Explained }).explain['demo']! };
    } finally {
      await sim.close();
    }
  }

  it('django: relative next links in the body, page size 20 learned for every list', async () => {
    const { out, explain } = await explainOf('django', 3);
    for (const endpoint of ['team', 'channels', 'sessions']) {
      const e = explain[endpoint]!;
      expect(e.learned).toEqual({ perPage: 20 });
      expect(e.request).toMatch(/[?&]per_page=20(&|$)/);
      expect(Object.keys(e.paging)).toEqual(['url']);
      expect(e.listAt).toEqual(['data']);
      expect(e.drift).toEqual([]);
    }
    expect(block(out, 'channels')).toEqual(
      expect.arrayContaining([
        '    request: GET /v1/demo/channels?per_page=20',
        '    list at: data; paging: url (1 page); 3 items',
        '    learned: page size 20',
        '    channel.status ← status',
      ]),
    );
    // Filters are applied by this server: nothing is recorded as ignored.
    expect(explain['sessions']?.learned?.ignored).toBeUndefined();
    expect(explain['sessions']?.request).toMatch(/[?&]from=/);
    expect(block(out, 'subscription')).toContain(
      '    funding.balance ← wallet.balance (a decimal string: major units)',
    );
  });

  it('django: a list longer than the learned page size follows its next links', async () => {
    const { out, explain } = await explainOf('django', 41, 0);
    expect(explain['channels']).toMatchObject({ paging: { url: 3 }, items: 41, learned: { perPage: 20 } });
    expect(block(out, 'channels')).toContain('    list at: data; paging: url (3 pages); 41 items');
  });

  it('legacy: lists under their own key without paging, epoch seconds, minor units, ignored window', async () => {
    const { out, explain } = await explainOf('legacy', 3);
    expect(explain['team']).toMatchObject({ listAt: ['members'], paging: { none: 1 } });
    expect(explain['channels']).toMatchObject({ listAt: ['channels'], paging: { none: 1 }, items: 3 });
    expect(explain['sessions']?.listAt).toEqual(['sessions']);
    expect(Object.keys(explain['sessions']?.paging ?? {})).toEqual(['none']);
    // Nothing refused: the page size was never learned; the window filter is not applied
    // by it, and it answers the same records whatever page is asked for.
    for (const endpoint of ['team', 'channels'])
      expect(explain[endpoint]?.learned).toEqual({
        pagedAs: 100,
        wholeUpTo: explain[endpoint]?.items,
      });
    expect(explain['sessions']?.learned).toMatchObject({
      ignored: ['window'],
      pagedAs: 100,
    });
    expect(block(out, 'sessions')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^ {4}learned: server ignores the window filter \(tally filters\); no page found after \d+ records without paging signs$/,
        ),
        '    session.scheduledAt ← scheduled_at (epoch seconds)',
      ]),
    );
    expect(block(out, 'channels')).toContain('    list at: channels; paging: none (1 page); 3 items');
    expect(block(out, 'subscription')).toEqual(
      expect.arrayContaining([
        '    funding.balance ← details.wallet.balance_minor (÷ 100 (minor units; EUR: exponent 2))',
        '    funding.mode ← type',
      ]),
    );
    for (const e of Object.values(explain)) expect(e.drift).toEqual([]);
  });
});
