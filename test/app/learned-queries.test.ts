/**
 * What tally learned about a server's queries outlives the process: the App keeps it in
 * `<state>/upstream/learned-queries.json` per org and endpoint, and a later start asks for
 * the learned page size at once instead of climbing down the ladder again.
 */
import { Registry } from 'prom-client';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { DIALECTS } from '../../src/sim/dialect.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { RequestLogEntry } from '../../src/sim/types.js';
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import { waitFor } from '../helpers/wait.js';

/** The canonical server, except that it refuses page sizes above 30 with a 400 naming the maximum. */
const CAPPED = { ...DIALECTS['default']!, name: 'capped-30', maxPageSize: 30 };

let sim: Simulator;
let dir: string;
let app: App | undefined;

beforeEach(async () => {
  sim = await startSimulator({ seed: 7, channels: 4, sessionsPerChannel: 1, frozen: true, dialect: CAPPED });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-learned-'));
});
afterEach(async () => {
  await app?.stop(3000);
  app = undefined;
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

const stateDir = () => path.join(dir, 'state');
const learnedFile = () => path.join(stateDir(), 'upstream', 'learned-queries.json');

async function start(upstream = ''): Promise<App> {
  const loaded = await parseConfig(
    `upstream: { base_url: ${sim.url}${upstream} }
orgs: [{ slug: demo, token: demo-token }]
intervals: { channels: 1s, sweep: 2s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(stateDir())} }
`,
    { source: 'test', env: {}, baseDir: dir },
  );
  const started = App.create(loaded, {
    registry: new Registry(),
    clock: systemClock,
    logger: silentLogger(),
    console: new PassThrough(),
    // The ladder itself is under test here: a refusal teaches at once.
    queryEvidence: TEACH_AT_ONCE,
  });
  await started.start();
  app = started;
  return started;
}

const channelReads = (log: readonly RequestLogEntry[]) => log.filter((r) => r.path === '/v1/demo/channels');

async function readLearned(): Promise<Record<string, { perPage?: number }> | undefined> {
  try {
    return JSON.parse(await readFile(learnedFile(), 'utf8')) as Record<string, { perPage?: number }>;
  } catch {
    return undefined;
  }
}

describe('learned queries in the state directory', () => {
  it('keeps the learned page size per org and endpoint, and a later start asks for it first', async () => {
    const first = await start();
    await waitFor(async () => {
      const l = await readLearned();
      return l?.['demo channels'] && l['demo team'] ? true : undefined;
    }, 'the learned page sizes of the channel and team lists on disk');
    // The first start climbed down from its default: a refused 100, then the stated maximum.
    const before = channelReads(sim.requests());
    expect(before[0]?.query['per_page']).toBe('100');
    expect(before[0]?.status).toBe(400);
    expect(before.some((r) => r.status === 200 && r.query['per_page'] === '30')).toBe(true);
    await first.stop(3000);
    app = undefined;

    const stored = await readLearned();
    // With when it was learned and last confirmed (re-tried later: query/evidence.ts).
    expect(stored?.['demo channels']).toEqual({
      perPage: 30,
      learnedAt: expect.any(Number),
      confirmedAt: expect.any(Number),
    });
    // Learned per endpoint: the team list is capped the same way and learned on its own.
    expect(stored?.['demo team']).toMatchObject({ perPage: 30 });

    sim.resetRequests();
    await start();
    const again = await waitFor(() => {
      const reads = channelReads(sim.requests());
      return reads.length > 0 ? reads : undefined;
    }, 'the channel list read again');
    expect(again[0]?.query['per_page']).toBe('30');
    expect(again[0]?.status).toBe(200);
    // Nothing was refused this time: no request climbed the ladder again.
    await waitFor(
      () => (sim.requests().some((r) => r.path === '/v1/demo/team') ? true : undefined),
      'the team list read again',
    );
    const lists = sim.requests().filter((r) => r.path === '/v1/demo/channels' || r.path === '/v1/demo/team');
    expect(lists.filter((r) => r.status !== 200)).toEqual([]);
    expect(lists.every((r) => r.query['per_page'] === '30')).toBe(true);
  });

  it('learns again from scratch when the stored file is unreadable', async () => {
    await mkdir(path.dirname(learnedFile()), { recursive: true });
    await writeFile(learnedFile(), '{ not json');
    await start();
    await waitFor(
      async () => ((await readLearned())?.['demo channels']?.perPage === 30 ? true : undefined),
      'the page size learned again and saved over the unreadable file',
    );
    expect(channelReads(sim.requests())[0]?.query['per_page']).toBe('100');
  });

  it('a configured page size wins over what is stored', async () => {
    await mkdir(path.dirname(learnedFile()), { recursive: true });
    await writeFile(learnedFile(), JSON.stringify({ 'demo channels': { perPage: 30 } }));
    await start();
    // Without an override, the stored size is what goes out first.
    expect((await waitFor(() => channelReads(sim.requests())[0], 'a channel read')).query['per_page']).toBe(
      '30',
    );
    await app?.stop(3000);
    app = undefined;

    sim.resetRequests();
    await start(', shape: { per_page: 20 }');
    const reads = await waitFor(() => {
      const r = channelReads(sim.requests());
      return r.length > 0 ? r : undefined;
    }, 'a channel read with the override');
    expect(reads.every((r) => r.query['per_page'] === '20')).toBe(true);
  });
});
