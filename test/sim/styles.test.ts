import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENVELOPE_STYLES,
  FIELD_CASES,
  PAGING_STYLES,
  type Simulator,
  startSimulator,
} from '../../src/sim/index.js';
import { get, listOf, ManualClock, nextLink, objectOf, readAll } from './helpers.js';

type Body = Record<string, unknown>;

function camel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      k === 'by_kind' ? v : camel(v),
    ]),
  );
}

// `silent` shows no way on by design: it has its own test below.
const combos = ENVELOPE_STYLES.flatMap((envelope) =>
  PAGING_STYLES.filter((p) => p !== 'silent').flatMap((paging) =>
    FIELD_CASES.map((fieldCase) => ({ envelope, paging, fieldCase })),
  ),
);

/** The world's subscription as the wire writes it: a wallet balance as a decimal string (major units). */
function asWritten(sub: unknown): unknown {
  const f = (sub as { ai_funding?: { wallet?: { balance: number; currency: string } } }).ai_funding;
  if (f?.wallet === undefined) return sub;
  const exp = ({ JPY: 0, KWD: 3 } as Record<string, number>)[f.wallet.currency] ?? 2;
  return {
    ...(sub as object),
    ai_funding: { ...f, wallet: { ...f.wallet, balance: f.wallet.balance.toFixed(exp) } },
  };
}

describe('simulator response styles', () => {
  const clock = new ManualClock();
  let sim: Simulator;
  let busy: string;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 11,
      orgs: [{ slug: 'demo', channels: 23, sessionsPerChannel: 30, members: 17 }],
      rateLimitPerMinute: 1_000_000,
      pageSize: 7,
    });
    busy = sim.view('demo').channels[5]!.id as string;
  });
  afterAll(async () => {
    await sim.close();
  });

  it.each(combos)('reassembles every list in $envelope / $paging / $fieldCase', async (style) => {
    sim.setStyle(style);
    const view = sim.view('demo');
    const conv = (x: unknown) => (style.fieldCase === 'camel' ? camel(x) : x);
    const channels = await readAll(sim, '/v1/demo/channels');
    expect(channels.items).toEqual(conv(view.channels));
    expect(channels.pages).toBe(style.paging === 'none' ? 1 : 4);
    const team = await readAll(sim, '/v1/demo/team');
    expect(team.items).toEqual(conv(view.team));
    const sessions = await readAll(sim, `/v1/demo/channels/${busy}/sessions?per_page=4&limit=4`);
    expect(sessions.items).toEqual(conv(view.sessions[busy]));
    expect(sessions.pages).toBe(style.paging === 'none' ? 1 : 8);
    const ended = await readAll(sim, `/v1/demo/channels/${busy}/sessions?status=ended`);
    expect(ended.items).toEqual(conv(view.sessions[busy]!.filter((s) => s.status === 'ended')));
    expect(ended.items.length).toBeGreaterThan(10);
  });

  it.each(ENVELOPE_STYLES.flatMap((envelope) => FIELD_CASES.map((fieldCase) => ({ envelope, fieldCase }))))(
    'wraps single objects in $envelope / $fieldCase',
    async (style) => {
      sim.setStyle(style);
      const view = sim.view('demo');
      const conv = (x: unknown) => (style.fieldCase === 'camel' ? camel(x) : x);
      const org = (await (await get(sim, '/v1/demo')).json()) as Body;
      const sub = (await (await get(sim, '/v1/demo/subscription')).json()) as Body;
      const sid = view.sessions[busy]![0]!.id as string;
      const detail = (await (await get(sim, `/v1/demo/sessions/${sid}`)).json()) as Body;
      const key = { organization: org, subscription: sub, session: detail };
      for (const [name, body] of Object.entries(key)) {
        if (style.envelope === 'data') expect(Object.keys(body)).toEqual(['data']);
        else if (style.envelope === 'key') expect(Object.keys(body)).toEqual([name]);
        else expect(Object.keys(body)).not.toContain('data');
      }
      expect(objectOf(org)).toEqual(conv(view.organization));
      expect(objectOf(sub)).toEqual(conv(asWritten(view.subscription)));
      expect(objectOf(detail)).toEqual(conv(sim.sessionDetail('demo', sid)));
      if (style.fieldCase === 'camel') expect(objectOf(sub)).toHaveProperty('aiFunding');
    },
  );

  it('silent paging cuts every page at the page size and shows no way on; page and offset reach the rest', async () => {
    sim.setStyle({ envelope: 'data', paging: 'silent', fieldCase: 'snake' });
    const view = sim.view('demo');
    const first = await get(sim, '/v1/demo/channels?per_page=100');
    const body = (await first.json()) as Body;
    expect(Object.keys(body)).toEqual(['data']);
    expect(first.headers.get('link')).toBeNull();
    expect(first.headers.get('x-total-count')).toBeNull();
    expect(listOf(body)).toEqual(view.channels.slice(0, 7));
    const second = (await (await get(sim, '/v1/demo/channels?per_page=100&page=2')).json()) as Body;
    expect(listOf(second)).toEqual(view.channels.slice(7, 14));
    const byOffset = (await (await get(sim, '/v1/demo/channels?offset=20')).json()) as Body;
    expect(listOf(byOffset)).toEqual(view.channels.slice(20, 27));
    const past = (await (await get(sim, '/v1/demo/channels?page=9')).json()) as Body;
    expect(listOf(past)).toEqual([]);
  });

  it('carries the documented paging fields and headers', async () => {
    sim.setStyle({ envelope: 'data', paging: 'cursor', fieldCase: 'snake' });
    let body = (await (await get(sim, '/v1/demo/channels')).json()) as Body;
    expect(body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    sim.setStyle({ paging: 'pages' });
    body = (await (await get(sim, '/v1/demo/channels?page=2')).json()) as Body;
    expect(body).toMatchObject({ page: 2, per_page: 7, total: 23, total_pages: 4 });
    sim.setStyle({ envelope: 'bare', paging: 'pages' });
    let res = await get(sim, '/v1/demo/channels?page=4');
    expect(res.headers.get('x-total-count')).toBe('23');
    expect(res.headers.get('x-total-pages')).toBe('4');
    expect(((await res.json()) as unknown[]).length).toBe(2);
    // bare cannot carry a cursor: it falls back to Link paging.
    sim.setStyle({ envelope: 'bare', paging: 'cursor' });
    res = await get(sim, '/v1/demo/channels?per_page=10');
    expect(nextLink(res.headers.get('link'))).toBe(`${sim.url}/v1/demo/channels?page=2&per_page=10`);
    expect(res.headers.get('link')).toContain('rel="last"');
    res = await get(sim, '/v1/demo/channels?per_page=1000');
    expect(((await res.json()) as unknown[]).length).toBe(23);
    expect(nextLink(res.headers.get('link'))).toBeNull();
  });

  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=abc', 'per_page'],
    ['page=0', 'page'],
  ])('answers 400 to %s', async (query, word) => {
    sim.setStyle({ envelope: 'data', paging: 'pages' });
    const res = await get(sim, `/v1/demo/channels?${query}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(word);
  });

  it('answers 400 to a forged cursor', async () => {
    sim.setStyle({ envelope: 'items', paging: 'cursor' });
    const res = await get(sim, '/v1/demo/channels?cursor=bm9wZQ');
    expect(res.status).toBe(400);
  });
});

describe('simulator session filters', () => {
  const clock = new ManualClock();
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 5,
      channels: 6,
      sessionsPerChannel: 40,
      paging: 'none',
      scenario: 'lively',
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  const sessionsOf = async (path: string) => ((await (await get(sim, path)).json()) as { data: Body[] }).data;

  it.each([['live'], ['scheduled'], ['ended'], ['live,scheduled'], ['ended,failed,cancelled']])(
    'filters by status=%s',
    async (status) => {
      const wanted = status.split(',');
      const view = sim.view('demo');
      let matched = 0;
      for (const ch of view.channels) {
        const got = await sessionsOf(`/v1/demo/channels/${ch.id as string}/sessions?status=${status}`);
        const expected = view.sessions[ch.id as string]!.filter((s) => wanted.includes(s.status as string));
        expect(got).toEqual(expected);
        matched += got.length;
      }
      if (status !== 'live') expect(matched).toBeGreaterThan(0);
    },
  );

  it('filters by time range: a session matches when its span overlaps [from, to]', async () => {
    const view = sim.view('demo');
    const now = clock.now();
    const from = new Date(now - 6 * 60 * 60 * 1000).toISOString();
    const to = new Date(now + 60 * 1000).toISOString();
    const ms = (s: unknown) => (s === null ? null : Date.parse(s as string));
    let total = 0;
    for (const ch of view.channels) {
      const got = await sessionsOf(`/v1/demo/channels/${ch.id as string}/sessions?from=${from}&to=${to}`);
      const expected = view.sessions[ch.id as string]!.filter((s) => {
        const begin =
          s.status === 'scheduled' || s.status === 'cancelled'
            ? ms(s.scheduled_at)!
            : (ms(s.started_at) ?? ms(s.scheduled_at)!);
        const end = s.status === 'live' ? now : (ms(s.ended_at) ?? begin);
        return begin <= Date.parse(to) && end >= Date.parse(from);
      });
      expect(got).toEqual(expected);
      total += got.length;
    }
    expect(total).toBeGreaterThan(0);
    const all = Object.values(view.sessions).flat().length;
    expect(total).toBeLessThan(all);
  });

  it('combines status and time range', async () => {
    const view = sim.view('demo');
    const ch = view.channels[0]!.id as string;
    const from = new Date(clock.now() + 1000).toISOString();
    const got = await sessionsOf(`/v1/demo/channels/${ch}/sessions?status=scheduled,ended&from=${from}`);
    expect(got.every((s) => s.status === 'scheduled')).toBe(true);
  });

  it.each([
    ['status=bogus', 'status'],
    ['from=yesterday', 'from'],
    ['to=2030-13-45', 'to'],
    ['from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', 'from must not be after to'],
  ])('answers 400 to %s', async (query, word) => {
    const ch = sim.view('demo').channels[0]!.id as string;
    const res = await get(sim, `/v1/demo/channels/${ch}/sessions?${query}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(word);
  });
});

describe('simulator session filters in every envelope and paging style', () => {
  const clock = new ManualClock();
  const HOUR = 60 * 60 * 1000;
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 5,
      channels: 3,
      sessionsPerChannel: 40,
      scenario: 'lively',
      rateLimitPerMinute: 1_000_000,
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  /** A filter: its query, and which sessions of the canonical view it must keep. */
  interface Filter {
    name: string;
    status?: string[];
    /** Offsets from now (ms) of `from` and `to`. */
    range?: { from?: number; to?: number };
  }
  const FILTERS: Filter[] = [
    { name: 'status=ended', status: ['ended'] },
    { name: 'status=live,scheduled,cancelled', status: ['live', 'scheduled', 'cancelled'] },
    { name: 'status=ended,failed,cancelled', status: ['ended', 'failed', 'cancelled'] },
    { name: 'from and to', range: { from: -6 * HOUR, to: 60_000 } },
    { name: 'from only', range: { from: -24 * HOUR } },
    { name: 'to only', range: { to: -48 * HOUR } },
    { name: 'status, from and to', status: ['ended', 'scheduled'], range: { from: -12 * HOUR, to: HOUR } },
  ];

  const ms = (s: unknown) => (s === null || s === undefined ? null : Date.parse(s as string));
  /** The documented overlap rule, applied to a canonical session. */
  function keeps(f: Filter, s: Body, now: number): boolean {
    if (f.status !== undefined && !f.status.includes(s.status as string)) return false;
    if (f.range === undefined) return true;
    const begin =
      s.status === 'scheduled' || s.status === 'cancelled'
        ? ms(s.scheduled_at)!
        : (ms(s.started_at) ?? ms(s.scheduled_at)!);
    const end = s.status === 'live' ? now : (ms(s.ended_at) ?? begin);
    const { from, to } = f.range;
    return (to === undefined || begin <= now + to) && (from === undefined || end >= now + from);
  }
  function query(f: Filter, now: number): string {
    const q = new URLSearchParams();
    if (f.status !== undefined) q.set('status', f.status.join(','));
    if (f.range?.from !== undefined) q.set('from', new Date(now + f.range.from).toISOString());
    if (f.range?.to !== undefined) q.set('to', new Date(now + f.range.to).toISOString());
    return q.toString();
  }

  // These lists are read by the signs each style shows: `silent` shows none.
  const rows = ENVELOPE_STYLES.flatMap((envelope) =>
    PAGING_STYLES.filter((p) => p !== 'silent').flatMap((paging) =>
      FILTERS.map((filter) => ({ envelope, paging, filter })),
    ),
  );
  it.each(rows)('$filter.name in $envelope / $paging', async ({ envelope, paging, filter }) => {
    sim.setStyle({ envelope, paging, fieldCase: 'snake' });
    const view = sim.view('demo');
    const now = clock.now();
    const expected = view.channels.map((ch) =>
      view.sessions[ch.id as string]!.filter((s) => keeps(filter, s, now)),
    );
    // Pages small enough that the longest filtered list spans at least two.
    const longest = Math.max(...expected.map((e) => e.length));
    expect(longest).toBeGreaterThan(1);
    const perPage = Math.max(1, Math.floor(longest / 2));
    for (const [i, ch] of view.channels.entries()) {
      const path = `/v1/demo/channels/${ch.id as string}/sessions?${query(filter, now)}&per_page=${perPage}`;
      const got = await readAll(sim, path);
      expect(got.items).toEqual(expected[i]);
      // The filter runs before paging: every page but the last is full of matches.
      const pages = paging === 'none' ? 1 : Math.max(1, Math.ceil(expected[i]!.length / perPage));
      expect(got.pages).toBe(pages);
    }
    // The filter chose: something, and not everything.
    const kept = expected.flat().length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(Object.values(view.sessions).flat().length);
  });
});
