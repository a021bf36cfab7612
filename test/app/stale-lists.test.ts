/**
 * A list not read for longer than its interval × 3 is stale: the org's health says `stale`,
 * naming the list, on /api/v1/status, /-/ready and tally_org_health, instead of `ok`
 * (docs/polling.md, "Health"). A burst of 400s on the channel list makes it stale while it
 * lasts; the reads go on, and once the server answers again the list is read with tally's own
 * query (nothing was learned of the burst) and health is `ok` again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { waitFor } from '../helpers/wait.js';
import { json, type Loopback, startServer } from '../upstream/loopback.js';

let server: Loopback;
let dir: string;
let app: App | undefined;
/** While set, the channel list answers 400 to any query. */
let burst = false;

beforeEach(async () => {
  burst = false;
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v1/demo') return json(res, 200, { slug: 'demo', name: 'Demo', plan: 'pro' });
    if (path === '/v1/demo/team') return json(res, 200, { data: [{ id: 'u1', role: 'owner' }] });
    if (path === '/v1/demo/subscription') return json(res, 200, { plan: 'pro', limits: { channels: 10 } });
    if (path === '/v1/demo/channels') {
      if (burst) return json(res, 400, { detail: 'bad request' });
      return json(res, 200, { data: [{ id: 'c1', name: 'C1', status: 'offline' }], has_more: false });
    }
    if (path.endsWith('/sessions')) return json(res, 200, { data: [], has_more: false });
    json(res, 404, { detail: 'not found' });
  });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-stale-'));
});
afterEach(async () => {
  await app?.stop(3000);
  app = undefined;
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const channelReads = () =>
  server.received.filter((r) => new URL(r.url, 'http://x').pathname === '/v1/demo/channels');

async function start(): Promise<App> {
  const loaded = await parseConfig(
    `upstream: { base_url: ${server.origin}, retries: { attempts: 1 } }
orgs: [{ slug: demo, token: demo-token }]
intervals: { channels: 1s, sweep: 2s, sweep_min: 1s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
`,
    { source: 'test', env: {}, baseDir: dir },
  );
  const registry = new Registry();
  app = App.create(loaded, {
    registry,
    clock: systemClock,
    logger: silentLogger(),
    console: new PassThrough(),
  });
  await app.start();
  return app;
}

interface Health {
  state: string;
  stale: string[];
}
const health = async (a: App): Promise<Health> => {
  const body = (await (await fetch(`${a.url()}/api/v1/status`)).json()) as { orgs: { health: Health }[] };
  return body.orgs[0]!.health;
};

describe('stale lists', () => {
  it('a 400 burst on the channel list: stale while it lasts, read with tally’s own query after', async () => {
    const a = await start();
    await waitFor(() => (a.ready() ? true : undefined), 'ready', 15_000);
    expect((await health(a)).state).toBe('ok');
    burst = true;
    const from = channelReads().length;
    const stale = await waitFor(
      async () => {
        const h = await health(a);
        return h.state === 'stale' ? h : undefined;
      },
      'health stale',
      15_000,
    );
    expect(stale.stale).toContain('channels');
    const ready = await fetch(`${a.url()}/-/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { stale?: string }).stale).toMatch(
      /^\d+ lists? of 1 org not read for longer than 3 intervals$/,
    );
    const metrics = await (await fetch(`${a.url()}/metrics`)).text();
    expect(metrics).toMatch(/tally_org_health\{org="demo",state="stale"\} 1/);
    // Reads went on through the burst, every interval.
    expect(channelReads().length - from).toBeGreaterThanOrEqual(3);
    burst = false;
    const end = channelReads().length;
    await waitFor(
      async () => ((await health(a)).state === 'ok' ? true : undefined),
      'health ok again',
      15_000,
    );
    expect((await health(a)).stale).toEqual([]);
    // The first read after the burst asks tally's own query: nothing was learned of it.
    expect(new URL(channelReads()[end]!.url, 'http://x').searchParams.get('per_page')).toBe('100');
    expect(a.orgs()[0]?.learned?.['channels']?.drop).toBeUndefined();
  });
});
