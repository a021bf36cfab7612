/**
 * Learning that forgets (docs/upstream-shapes.md, "Requests that adapt"; query/evidence.ts):
 * a burst of refusals neither teaches nor stops reads; refusals that repeat over minutes
 * teach; what was learned is re-tried now and then and dropped when the server no longer
 * refuses; stored knowledge carries when it was learned and confirmed, and older files load.
 */
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import { RETRIAL_MIN_MS, TEACH_SPAN_MS } from '../../src/upstream/query/evidence.js';
import { CLOCK_START, ManualClock } from '../helpers/clock.js';
import { json, loopbackSuite } from './loopback.js';

const ACME = { slug: 'acme', token: 'tok-forgets-0001' };
const CHANNELS = Array.from({ length: 3 }, (_, i) => ({ id: `c${i}`, name: `C${i}`, status: 'offline' }));
const suite = loopbackSuite({ secret: ACME.token });

/** A channel list server; `refuse(url)` says the words of a 400 for a query, or undefined to answer. */
function channels(refuse: (url: URL) => string | undefined) {
  return suite.serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const words = refuse(url);
    if (words !== undefined) return json(res, 400, { detail: words });
    // One page, saying it is the last: nothing else to ask after.
    json(res, 200, { data: CHANNELS, has_more: false });
  });
}

const perPages = (urls: readonly { url: string }[]) =>
  urls.map((r) => new URL(r.url, 'http://x').searchParams.get('per_page'));

describe('a burst of refusals', () => {
  it('two refused reads in 8 s teach nothing and stop no read: the next one asks its own query', async () => {
    const clock = new ManualClock();
    let burst = true;
    const server = await channels(() => (burst ? 'bad request' : undefined));
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const client = suite.client(server.origin, { clock, memory });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    clock.time = CLOCK_START + 8_000;
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    // Nothing learned, nothing waiting.
    expect(memory.get('acme', 'channels')).toBeUndefined();
    expect(memory.refusal('acme', 'channels')).toBeUndefined();
    burst = false;
    clock.time = CLOCK_START + 15_000;
    const before = server.received.length;
    const part = await client.fetchChannels(ACME);
    expect(part.state === 'complete' && part.value).toHaveLength(3);
    // Sent, with tally's own page size: the burst left nothing behind.
    expect(perPages(server.received.slice(before))).toEqual(['100']);
    expect(memory.get('acme', 'channels')?.perPage).toBeUndefined();
  });

  it('refused reads seconds apart are read without what was refused, and do not teach', async () => {
    const clock = new ManualClock();
    const server = await channels((u) =>
      u.searchParams.has('per_page') ? 'unknown parameter: per_page' : undefined,
    );
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const client = suite.client(server.origin, { clock, memory });
    for (const s of [0, 2, 4, 6, 8]) {
      clock.time = CLOCK_START + s * 1000;
      const before = server.received.length;
      const part = await client.fetchChannels(ACME);
      expect(part.state === 'complete' && part.value).toHaveLength(3);
      // Its own query first, then without the page size; later reads start where that was
      // answered: one request a read, never a wait.
      expect(perPages(server.received.slice(before))).toEqual(s === 0 ? ['100', null] : [null]);
    }
    expect(memory.get('acme', 'channels')?.drop).toBeUndefined();
  });

  it('a refused query is asked again once a minute while refusals are tallied; answered, it is asked again by every read', async () => {
    const clock = new ManualClock();
    let refusing = true;
    const server = await channels((u) =>
      refusing && u.searchParams.has('per_page') ? 'unknown parameter: per_page' : undefined,
    );
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const client = suite.client(server.origin, { clock, memory });
    const asked: (string | null)[][] = [];
    const readAt = async (ms: number) => {
      clock.time = CLOCK_START + ms;
      const before = server.received.length;
      expect((await client.fetchChannels(ACME)).state).toBe('complete');
      asked.push(perPages(server.received.slice(before)));
    };
    for (let s = 0; s <= 60; s += 5) await readAt(s * 1000);
    // One read a minute asks tally's query (the first and the one at 60 s); the others one request.
    expect(asked.filter((a) => a.length === 2)).toEqual([
      ['100', null],
      ['100', null],
    ]);
    expect(asked[0]).toEqual(['100', null]);
    expect(asked.at(-1)).toEqual(['100', null]);
    expect(asked.slice(1, -1).every((a) => a.length === 1 && a[0] === null)).toBe(true);
    // The server takes the page size again: the next minute's read finds it, and reads after ask it.
    refusing = false;
    await readAt(100_000);
    expect(asked.at(-1)).toEqual([null]);
    await readAt(120_000);
    expect(asked.at(-1)).toEqual(['100']);
    await readAt(125_000);
    expect(asked.at(-1)).toEqual(['100']);
    expect(memory.get('acme', 'channels')).toBeUndefined();
  });
});

describe('refusals that repeat over minutes', () => {
  /** Reads at 0, 1 and 2 minutes against a server that never takes `per_page`: learned at the third. */
  async function learnedOver(clock: ManualClock, memory: QueryMemory, takesPerPage: () => boolean) {
    const server = await channels((u) =>
      u.searchParams.has('per_page') && !takesPerPage() ? 'unknown parameter: per_page' : undefined,
    );
    const client = suite.client(server.origin, { clock, memory });
    for (const at of [0, 60_000, TEACH_SPAN_MS]) {
      clock.time = CLOCK_START + at;
      expect((await client.fetchChannels(ACME)).state).toBe('complete');
      if (at < TEACH_SPAN_MS) expect(memory.get('acme', 'channels')).toBeUndefined();
    }
    return { server, client };
  }

  it('teach, with when it was learned; later reads ask the learned query at once', async () => {
    const clock = new ManualClock();
    const saved: Record<string, unknown>[] = [];
    const memory = new QueryMemory((all) => saved.push(all), { rng: () => 0 });
    const { server, client } = await learnedOver(clock, memory, () => false);
    const learnedAt = CLOCK_START + TEACH_SPAN_MS;
    expect(memory.get('acme', 'channels')).toEqual({ drop: ['per_page'], learnedAt, confirmedAt: learnedAt });
    expect(saved.at(-1)).toEqual({
      'acme channels': { drop: ['per_page'], learnedAt, confirmedAt: learnedAt },
    });
    clock.time = learnedAt + 60_000;
    const before = server.received.length;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(perPages(server.received.slice(before))).toEqual([null]);
  });

  it('are re-tried after a while: dropped when the server takes the query again', async () => {
    const clock = new ManualClock();
    let takes = false;
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const { server, client } = await learnedOver(clock, memory, () => takes);
    const learnedAt = CLOCK_START + TEACH_SPAN_MS;
    takes = true;
    // Not before the re-trial wait (30 minutes with this draw).
    clock.time = learnedAt + RETRIAL_MIN_MS - 1000;
    let before = server.received.length;
    await client.fetchChannels(ACME);
    expect(perPages(server.received.slice(before))).toEqual([null]);
    // Then tally's own query once: answered, so what was learned goes.
    clock.time = learnedAt + RETRIAL_MIN_MS;
    before = server.received.length;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(perPages(server.received.slice(before))).toEqual(['100']);
    expect(memory.get('acme', 'channels')?.drop).toBeUndefined();
    before = server.received.length;
    await client.fetchChannels(ACME);
    expect(perPages(server.received.slice(before))).toEqual(['100']);
  });

  it('are re-tried after a while: kept and confirmed when the server still refuses', async () => {
    const clock = new ManualClock();
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const { server, client } = await learnedOver(clock, memory, () => false);
    const learnedAt = CLOCK_START + TEACH_SPAN_MS;
    const retrial = learnedAt + RETRIAL_MIN_MS;
    clock.time = retrial;
    let before = server.received.length;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    // Its own query refused, then the learned one at once (not the ladder).
    expect(perPages(server.received.slice(before))).toEqual(['100', null]);
    expect(memory.get('acme', 'channels')).toEqual({ drop: ['per_page'], learnedAt, confirmedAt: retrial });
    // The next re-trial is a full wait away.
    clock.time = retrial + RETRIAL_MIN_MS - 1000;
    before = server.received.length;
    await client.fetchChannels(ACME);
    expect(perPages(server.received.slice(before))).toEqual([null]);
  });
});

describe('stored knowledge', () => {
  it('older state without times loads, is used, and is re-tried a wait after it was loaded', async () => {
    const clock = new ManualClock();
    const server = await channels(() => undefined);
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    memory.load({ 'acme channels': { drop: ['per_page'] } });
    expect(memory.get('acme', 'channels')).toEqual({ drop: ['per_page'] });
    const client = suite.client(server.origin, { clock, memory });
    await client.fetchChannels(ACME);
    expect(perPages(server.received)).toEqual([null]);
    clock.time = CLOCK_START + RETRIAL_MIN_MS;
    await client.fetchChannels(ACME);
    expect(perPages(server.received.slice(1))).toEqual(['100']);
    expect(memory.get('acme', 'channels')).toEqual({});
  });

  it('keeps learnedAt, confirmedAt and the filter style through a save and a load, and drops malformed ones', () => {
    const m = new QueryMemory();
    m.load({
      'acme channels': { drop: ['per_page'], learnedAt: 5, confirmedAt: 9 },
      'acme team': { perPage: 20, learnedAt: 'yesterday', confirmedAt: -1 },
      'acme sessions': { filterStyle: { kind: 'odata', field: 'startDateTime', status: 'status' } },
      'beta sessions': { filterStyle: { kind: 'params', from: 'a b', to: 'x', status: 's' } },
    });
    const again = new QueryMemory();
    again.load(JSON.parse(JSON.stringify(m.toJSON())));
    expect(again.get('acme', 'channels')).toEqual({ drop: ['per_page'], learnedAt: 5, confirmedAt: 9 });
    expect(again.get('acme', 'team')).toEqual({ perPage: 20 });
    expect(again.get('acme', 'sessions')).toEqual({
      filterStyle: { kind: 'odata', field: 'startDateTime', status: 'status' },
    });
    // A name that could not be a parameter: the style is dropped.
    expect(again.get('beta', 'sessions')).toEqual({});
  });
});
