import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  applyLearned,
  type Learned,
  MAX_ADAPTATIONS,
  QueryMemory,
  saferQuery,
  windowSlackMs,
} from '../../src/upstream/query/adapt.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { DEFAULT_FILTERS } from '../../src/upstream/query/filters.js';
import { CLOCK_START, ManualClock } from '../helpers/clock.js';
import { captureLogger, json, known, type Loopback, loopbackSuite, untimed } from './loopback.js';

const suite = loopbackSuite();

// Requests that adapt: a server that refuses the query tally chose (400/422) is asked again
// with a safer one, what worked is remembered per org and endpoint, a configured page size
// is never changed, and 401/403 adapt nothing.

const ACME = { slug: 'acme', token: 'tok-adapt-0001' };
const CHANNELS = Array.from({ length: 120 }, (_, i) => ({ id: `c${i}`, name: `C${i}`, status: 'offline' }));
const ctx = {
  perPageParam: 'per_page',
  pagingParams: new Set(['cursor', 'page']),
  timeParams: new Set(['from', 'to']),
  fixedPerPage: false,
};
const err = (status: number, words: string) =>
  new UpstreamError(`GET /v1/acme/channels: ${status} request failed (upstream: ${words})`, {
    reason: 'http_4xx',
    status,
    upstreamWords: words,
  });

describe('saferQuery', () => {
  const url = new URL(
    'http://api.test/v1/acme/channels?per_page=100&status=live&from=2030-01-07T09%3A00%3A00.000Z',
  );
  it.each<[string, string, string | undefined]>([
    [
      'a stated maximum',
      'per_page must be at most 50',
      'per_page=50&status=live&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    [
      'a range',
      'limit: must be between 1 and 25',
      'per_page=25&status=live&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    ['nothing but the name', 'invalid per_page', 'per_page=50&status=live&from=2030-01-07T09%3A00%3A00.000Z'],
    [
      'an unknown filter',
      'unknown query parameter "status"',
      'per_page=100&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    [
      'a time it cannot parse',
      "invalid date format for 'from'",
      'per_page=100&status=live&from=2030-01-07T09%3A00%3A00%2B00%3A00',
    ],
    ['nothing at all', '', 'per_page=50&status=live&from=2030-01-07T09%3A00%3A00.000Z'],
    [
      'unknown names, page size among them',
      'unknown query parameter: per_page, status',
      'from=2030-01-07T09%3A00%3A00.000Z',
    ],
    [
      'an unsupported page size parameter',
      'per_page is not supported',
      'status=live&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    ...(
      [
        ['JSON:API: does not support', "per_page: does not support the query parameter 'per_page'"],
        [
          'JSON:API with a title',
          "per_page: Invalid Query Parameter: The resource does not support the query parameter 'per_page'.",
        ],
        ['source.parameter and words that name nothing', 'per_page: this parameter is not supported'],
        ["doesn't support", "the endpoint doesn't support per_page"],
        ['unsupported', 'unsupported parameter: per_page'],
        ['unknown', 'unknown field per_page'],
        ['unrecognized', 'unrecognized query parameter "per_page"'],
        ['unrecognised', "unrecognised parameter 'per_page'"],
        ['not recognised', 'per_page: not recognised'],
        ['not allowed', 'per_page is not allowed'],
        ['not permitted', 'parameter per_page not permitted'],
        ['an errors entry by param', 'per_page: unrecognized'],
      ] as const
    ).map(
      ([what, words]) =>
        [
          `a page size parameter it does not take (${what})`,
          words,
          'status=live&from=2030-01-07T09%3A00%3A00.000Z',
        ] as [string, string, string],
    ),
    [
      'a maximum and an unknown filter, clause by clause',
      'per_page must be at most 50; unknown parameter: status',
      'per_page=50&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    [
      'a maximum phrased as not allowed',
      'per_page: values above 50 are not allowed',
      'per_page=50&status=live&from=2030-01-07T09%3A00%3A00.000Z',
    ],
    [
      'a JSON:API refusal of a time parameter: left out, not reformatted',
      "from: Invalid Query Parameter: The resource does not support the query parameter 'from'.",
      'per_page=100&status=live',
    ],
  ])('reads %s', (_what, words, query) => {
    const next = saferQuery(url, err(400, words), {}, ctx);
    expect(next?.url.search.slice(1)).toBe(query);
  });

  it('tries a numeric offset, then epoch seconds, then leaves out a time the server cannot parse', () => {
    const refused = err(400, "invalid date format for 'from'");
    const tried = new Map<string, Set<string>>();
    const first = saferQuery(url, refused, {}, ctx, tried);
    expect(first?.url.searchParams.get('from')).toBe('2030-01-07T09:00:00+00:00');
    expect(first?.learned).toEqual({ times: { from: 'iso_offset' } });
    const second = first && saferQuery(first.url, refused, first.learned, ctx, tried);
    expect(second?.url.searchParams.get('from')).toBe('1894006800');
    expect(second?.learned).toEqual({ times: { from: 'epoch_s' } });
    // Nothing else to try: left out, and with it what was learned of its format.
    const third = second && saferQuery(second.url, refused, second.learned, ctx, tried);
    expect(third?.url.search).toBe('?per_page=100&status=live');
    expect(third?.learned).toEqual({ drop: ['from'] });
  });

  it('halves down to the floor, then leaves the page size out, then drops the filters, then gives up', () => {
    let u = new URL('http://api.test/v1/acme/channels?per_page=40&from=x');
    const seen: string[] = [];
    let learned = {};
    for (let i = 0; i < 10; i++) {
      const next = saferQuery(u, err(422, ''), learned, ctx);
      if (!next) break;
      seen.push(next.url.search);
      u = next.url;
      learned = next.learned;
    }
    expect(seen).toEqual(['?per_page=20&from=x', '?per_page=10&from=x', '?from=x', '']);
  });

  it('never reformats or leaves out a filter parameter the config sets', () => {
    const fixedCtx = { ...ctx, fixedParams: new Set(['from', 'to']) };
    // A time the server cannot parse: nothing safer that keeps the configured format.
    expect(saferQuery(url, err(400, "invalid date format for 'from'"), {}, fixedCtx)).toBeUndefined();
    // A server that names it as unknown: not dropped either.
    expect(saferQuery(url, err(400, 'unknown query parameter: from'), {}, fixedCtx)).toBeUndefined();
    // A blanket refusal drops the other filters, never the configured ones.
    const blanket = saferQuery(
      new URL('http://api.test/v1/acme/x?status=live&from=a'),
      err(400, ''),
      {},
      fixedCtx,
    );
    expect(blanket?.url.search).toBe('?from=a');
    // What was learned before the config set it is not applied to it.
    const learned = { drop: ['from'], times: { to: 'epoch_s' } };
    const applied = applyLearned(
      new URL('http://api.test/x?from=2030-01-07T09:00:00Z&to=2030-01-08T09:00:00Z'),
      learned,
      fixedCtx,
    );
    expect(applied.search).toBe('?from=2030-01-07T09:00:00Z&to=2030-01-08T09:00:00Z');
  });

  it('never touches a configured page size', () => {
    const refused = err(400, 'per_page must be at most 50');
    expect(saferQuery(url, refused, {}, { ...ctx, fixedPerPage: true })).toBeUndefined();
    const next = saferQuery(url, err(400, ''), {}, { ...ctx, fixedPerPage: true });
    expect(next?.url.searchParams.get('per_page')).toBe('100');
  });
});

describe('saferQuery: time parameters', () => {
  const tctx = { ...ctx, endParams: new Set(['to']) };
  const sessions = new URL(
    'http://api.test/v1/acme/channels/c1/sessions?from=2026-11-24T17%3A25%3A46.407Z&to=2026-12-02T17%3A25%3A46.407Z',
  );
  /** Climbs the ladder with the server's words for each step; returns each query tried and what was learned. */
  function climb(url: URL, words: (u: URL) => string | undefined, c = tctx) {
    const tried = new Map<string, Set<string>>();
    const queries: string[] = [];
    let learned: Learned = {};
    let u = url;
    for (let i = 0; i < 20; i++) {
      const w = words(u);
      if (w === undefined) break;
      const next = saferQuery(u, err(400, w), learned, c, tried);
      if (!next) break;
      // As a server reads the query (`+` is a space in a query string).
      queries.push(decodeURIComponent(next.url.search.replace(/\+/g, ' ')));
      u = next.url;
      learned = next.learned;
    }
    return { queries, learned };
  }

  it('honours a format the error states, and tries the format that worked for from first for to', () => {
    // One parameter refused at a time, naming the format it expects (a server that reads `YYYY-MM-DD HH:MM:SS`).
    const DT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
    const { queries, learned } = climb(sessions, (u) => {
      const bad = ['from', 'to'].find((p) => !DT.test(u.searchParams.get(p) ?? ''));
      return bad && `Bad Request: invalid date format for '${bad}' (expected YYYY-MM-DD HH:MM:SS)`;
    });
    expect(queries).toEqual([
      '?from=2026-11-24 17:25:46&to=2026-12-02T17:25:46.407Z',
      '?from=2026-11-24 17:25:46&to=2026-12-02 17:25:47',
    ]);
    expect(learned).toEqual({ times: { from: 'YYYY-MM-DD HH:mm:ss', to: 'YYYY-MM-DD HH:mm:ss' } });
  });

  it("tries the other parameter's format first when the error states none", () => {
    // The server reads epoch seconds only, and says nothing about what it expects.
    const { queries, learned } = climb(sessions, (u) => {
      const bad = ['from', 'to'].find((p) => !/^\d+$/.test(u.searchParams.get(p) ?? ''));
      return bad && `invalid date format for '${bad}'`;
    });
    expect(queries).toEqual([
      '?from=2026-11-24T17:25:46+00:00&to=2026-12-02T17:25:46.407Z',
      '?from=1795541146&to=2026-12-02T17:25:46.407Z',
      // to: from's format first, not the whole ladder again.
      '?from=1795541146&to=1796232347',
    ]);
    expect(learned).toEqual({ times: { from: 'epoch_s', to: 'epoch_s' } });
  });

  it('changes both at once when the error names both', () => {
    const { queries } = climb(sessions, (u) =>
      u.searchParams.get('from')?.includes('T')
        ? "invalid date format for 'from', 'to' (expected YYYY-MM-DD)"
        : undefined,
    );
    expect(queries).toEqual(['?from=2026-11-24&to=2026-12-03']);
  });

  it('leaves out both time parameters when no format works, within one read, and says so truthfully', () => {
    const { queries, learned } = climb(new URL(`${sessions.href}&per_page=100`), (u) => {
      if (u.searchParams.has('per_page')) return 'unknown parameter per_page';
      const bad = ['from', 'to'].find((p) => u.searchParams.has(p));
      return bad && `invalid date format for '${bad}'`;
    });
    expect(queries.length).toBeLessThanOrEqual(MAX_ADAPTATIONS);
    expect(queries.at(-1)).toBe('');
    // Nothing about the format of a parameter that is left out.
    expect(learned).toEqual({ drop: ['per_page', 'from', 'to'] });
  });
});

describe('QueryMemory.load', () => {
  it('reads what earlier versions saved (epoch and offset lists) as time formats, and drops what is malformed', () => {
    const m = new QueryMemory(undefined, TEACH_AT_ONCE);
    m.load({
      'acme sessions': { isoOffset: ['from', 'to'], epoch: ['from'], drop: ['per_page'] },
      'acme team': { times: { from: 'YYYY-MM-DD HH:mm:ss', to: 'rm -rf /', x: 3 }, refused: true },
      'beta sessions': { epoch: ['to'], drop: ['to'] },
      nonsense: { perPage: 5 },
    });
    expect(known(m, 'acme', 'sessions')).toEqual({
      drop: ['per_page'],
      times: { from: 'epoch_s', to: 'iso_offset' },
    });
    expect(known(m, 'acme', 'team')).toEqual({ refused: true, times: { from: 'YYYY-MM-DD HH:mm:ss' } });
    // A parameter left out has no format.
    expect(known(m, 'beta', 'sessions')).toEqual({ drop: ['to'] });
    expect(m.toJSON()['nonsense']).toBeUndefined();
  });

  it('widens the window a server is seen to ignore by two steps of the coarsest format learned', () => {
    expect(windowSlackMs(undefined)).toBe(0);
    expect(windowSlackMs({ times: { from: 'epoch_s' } })).toBe(2000);
    expect(windowSlackMs({ times: { from: 'YYYY-MM-DD HH:mm:ss', to: 'YYYY-MM-DD' } })).toBe(2 * 86_400_000);
  });
});

describe('a client against servers that refuse its queries', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  /** Channels paged by page numbers, refusing page sizes over `max` in the server's words. */
  function capped(max: number, refuse: (res: ServerResponse, size: number) => void) {
    return (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== `Bearer ${ACME.token}`)
        return json(res, 401, { error: 'unauthorized' });
      const size = Number(url.searchParams.get('per_page') ?? 20);
      if (size > max) return refuse(res, size);
      const page = Number(url.searchParams.get('page') ?? 1);
      const items = CHANNELS.slice((page - 1) * size, page * size);
      json(res, 200, { data: items, meta: { page, per_page: size, total: CHANNELS.length } });
    };
  }

  it.each<[string, (res: ServerResponse, size: number) => void]>([
    [
      'problem+json naming the maximum',
      (res) =>
        json(
          res,
          400,
          { type: 'about:blank', title: 'Bad Request', detail: 'per_page must be at most 50' },
          {
            'content-type': 'application/problem+json',
          },
        ),
    ],
    [
      'an errors list by field',
      (res) =>
        json(res, 422, { errors: [{ field: 'per_page', message: 'must be less than or equal to 50' }] }),
    ],
    [
      'plain text',
      (res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('per_page too large (max 50)'),
    ],
    ['nothing at all', (res) => res.writeHead(400).end()],
  ])('reads every channel from a server that caps the page size and says so in %s', async (_what, refuse) => {
    server = await suite.serve(capped(50, refuse));
    const saved: unknown[] = [];
    const memory = new QueryMemory((all) => saved.push(all), TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value).toHaveLength(120);
    const learned = memory.get('acme', 'channels')?.perPage;
    expect(learned).toBeLessThanOrEqual(50);
    // Saved as it was learned, and last as the query that was answered.
    expect(saved.length).toBeGreaterThanOrEqual(1);
    expect(untimed(saved.at(-1))).toEqual({ 'acme channels': { perPage: learned } });
    // The next read asks for the learned size at once.
    const before = server.received.length;
    await client.fetchChannels(ACME);
    expect(server.received[before]?.url).toContain(`per_page=${learned}`);
    expect(server.received.slice(before).every((r) => !r.url.includes('per_page=100'))).toBe(true);
  });

  it('keeps a configured page size, and the read fails loudly instead', async () => {
    server = await suite.serve(
      capped(50, (res) => json(res, 400, { detail: 'per_page must be at most 50' })),
    );
    const logs = captureLogger();
    client = suite.client(server.origin, {
      logger: logs.logger,
      shape: { perPage: 100 },
      fixedPerPage: true,
    });
    const part = await client.fetchChannels(ACME);
    expect(part.state).toBe('failed');
    expect(part.state === 'failed' && part.error.message).toContain('per_page must be at most 50');
  });

  it('keeps configured filter names and time format, and the read fails loudly instead', async () => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('since')) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end("invalid date format for 'since'");
        return;
      }
      json(res, 200, { data: [] });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, {
      memory,
      filters: { ...DEFAULT_FILTERS, from_param: 'since', to_param: 'until', time_format: 'epoch_s' },
    });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('failed');
    expect(part.state === 'failed' && part.error.message).toContain("invalid date format for 'since'");
    // Every request kept the configured parameter in its configured format.
    for (const r of server.received)
      expect(new URL(r.url, 'http://x').searchParams.get('since')).toMatch(/^\d+$/);
    expect(memory.get('acme', 'sessions')?.drop ?? []).not.toContain('since');
  });

  it('adapts nothing on a 401', async () => {
    server = await suite.serve(capped(50, (res) => json(res, 400, {})));
    client = suite.client(server.origin);
    const part = await client.fetchChannels({ slug: 'acme', token: 'tok-wrong-0002' });
    expect(part.state).toBe('failed');
    expect(server.received).toHaveLength(1);
  });

  it('drops a filter the server refuses, and remembers it', async () => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('from')) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown parameter: from');
        return;
      }
      json(res, 200, {
        data: [{ id: 's1', status: 'scheduled', title: 'x', scheduled_at: new Date().toISOString() }],
      });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'c1');
    expect(part.state).toBe('complete');
    expect(memory.get('acme', 'sessions')?.drop).toContain('from');
    const before = server.received.length;
    expect((await client.fetchSessions(ACME, 'c2')).state).toBe('complete');
    expect(server.received.length - before).toBe(1);
  });

  it('learns again when what it learned stops working', async () => {
    let max = 50;
    server = await suite.serve(capped(1000, () => {}));
    // Replace the handler's cap by hand: first 50, later 20.
    await server.close();
    server = await suite.serve((req, res) => {
      capped(max, (r) => json(r, 400, { detail: `per_page must be at most ${max}` }))(req, res);
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(memory.get('acme', 'channels')?.perPage).toBe(50);
    max = 20;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(memory.get('acme', 'channels')?.perPage).toBe(20);
  });

  it('fails, naming the endpoint, when the server refuses every query', async () => {
    server = await suite.serve((_req, res) => json(res, 400, { detail: 'no' }));
    const logs = captureLogger();
    const drift: { field: string; fatal: boolean; problem: string }[] = [];
    client = suite.client(server.origin, {
      logger: logs.logger,
      observer: { onDrift: (i) => drift.push(i) },
    });
    const part = await client.fetchChannels(ACME);
    expect(part.state).toBe('failed');
    // Loud: a fatal drift (the default rules alert on it) and a warn line, never an empty list.
    expect(drift).toEqual([
      {
        endpoint: 'channels',
        org: 'acme',
        field: 'query',
        fatal: true,
        problem: 'the server refused every query tally tried (400: no)',
      },
    ]);
    expect(logs.text()).toMatch(/"level":"?(warn|40)"?.*schema drift|schema drift.*"level":"?(warn|40)/);
    expect(part.state === 'failed' && part.error.message).toMatch(/^GET \/v1\/acme\/channels/);
    expect(server.received.length).toBeLessThanOrEqual(1 + 6);
    expect(logs.text()).toContain('the server refused a query');
  });
});

describe('JSON:API and problem errors that name the parameter', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  it.each<[string, (p: string) => unknown]>([
    [
      'source.parameter',
      (p) => ({
        errors: [{ detail: `does not support the query parameter '${p}'`, source: { parameter: p } }],
      }),
    ],
    [
      'source.parameter with words that do not name it',
      (p) => ({
        errors: [
          { title: 'Invalid Query Parameter', detail: 'Not supported here.', source: { parameter: p } },
        ],
      }),
    ],
    [
      'source.pointer',
      (p) => ({ errors: [{ detail: 'is not permitted', source: { pointer: `/query/${p}` } }] }),
    ],
    ['param', (p) => ({ errors: [{ param: p, message: 'unrecognized' }] })],
    [
      'field (problem+json)',
      (p) => ({ title: 'Bad Request', errors: [{ field: p, message: 'not allowed' }] }),
    ],
  ])('leaves out a page size refused by %s at once, without halving it first', async (_what, body) => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('per_page')) {
        return json(res, 400, body('per_page'), { 'content-type': 'application/vnd.api+json' });
      }
      json(res, 200, { data: CHANNELS.slice(0, 5) });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchChannels(ACME);
    expect(part.state === 'complete' && part.value).toHaveLength(5);
    expect(server.received.map((r) => r.url)).toEqual([
      '/v1/acme/channels?per_page=100',
      '/v1/acme/channels',
      // Whether a page follows that the list does not show: the same records, by number,
      // by offset and after the last record's id, so the list is whole as answered.
      '/v1/acme/channels?page=2',
      '/v1/acme/channels?offset=5',
      '/v1/acme/channels?starting_after=c4',
      '/v1/acme/channels?after=c4',
      '/v1/acme/channels?after_id=c4',
      '/v1/acme/channels?since_id=c4',
    ]);
    expect(known(memory, 'acme', 'channels')).toEqual({
      drop: ['per_page'],
      pagedAs: 0,
      wholeUpTo: 5,
    });
  });

  it('leaves out every parameter a JSON:API errors list names, in one step, however long the list', async () => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const bad = [...url.searchParams.keys()];
      if (bad.length > 0)
        return json(res, 400, {
          errors: bad.map((p) => ({
            status: '400',
            code: 'invalid_query_parameter',
            title: 'Invalid Query Parameter',
            detail: `The resource does not support the query parameter '${p}'.`,
            source: { parameter: p },
          })),
        });
      json(res, 200, { data: [] });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    expect((await client.fetchSessions(ACME, 'c1')).state).toBe('complete');
    expect(server.received).toHaveLength(2);
    expect(memory.get('acme', 'sessions')?.drop?.sort()).toEqual(['from', 'per_page', 'to']);
  });
});

describe('a server that refuses everything tally tries', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  it('asks again only when the wait is over, one request each time, warns once, and recovers when answered', async () => {
    let refuse = true;
    server = await suite.serve((_req, res) => {
      if (refuse) return json(res, 400, { detail: 'no' });
      json(res, 200, { data: CHANNELS.slice(0, 3) });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    const logs = captureLogger();
    const clock = new ManualClock();
    client = suite.client(server.origin, { logger: logs.logger, memory, clock });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    const ladder = server.received.length;
    expect(ladder).toBeGreaterThan(1);
    expect(memory.get('acme', 'channels')?.refused).toBe(true);
    // Until the wait is over, reads fail at once, saying so, without a request.
    for (const s of [0, 60, 299]) {
      clock.time = CLOCK_START + s * 1000;
      const part = await client.fetchChannels(ACME);
      expect(part.state).toBe('failed');
      expect(part.state === 'failed' && part.error).toMatchObject({
        reason: 'http_4xx',
        message: expect.stringMatching(
          /^GET \/v1\/acme\/channels: not sent: the server refused every query tally tried \(400: no\); asked again from 2026-11-01T12:05:00/,
        ),
      });
    }
    expect(server.received.length).toBe(ladder);
    // Then one request; refused again, the wait doubles (10 minutes).
    clock.time = CLOCK_START + 300_000;
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    expect(server.received.length).toBe(ladder + 1);
    clock.time = CLOCK_START + 899_000;
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    expect(server.received.length).toBe(ladder + 1);
    expect(logs.text().match(/"level":"?(warn|40)"?[^\n]*asking again with a safer one/g)?.length).toBe(1);
    refuse = false;
    clock.time = CLOCK_START + 900_000;
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    // The list, and the page after it by number, by offset and after the last record's id
    // (four parameters): the same records, so the list is whole.
    expect(server.received.length).toBe(ladder + 8);
    expect(memory.get('acme', 'channels')?.refused).toBeUndefined();
    expect(memory.get('acme', 'channels')?.wholeUpTo).toBe(3);
    expect(memory.refusal('acme', 'channels')).toBeUndefined();
    // Answered: the next read asks at once.
    expect((await client.fetchChannels(ACME)).state).toBe('complete');
    expect(server.received.length).toBe(ladder + 9);
  });

  it('a wall clock set back 25 h does not strand the wait, nor does one set forward end it early', async () => {
    server = await suite.serve((_req, res) => json(res, 400, { detail: 'no' }));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    const clock = new ManualClock();
    client = suite.client(server.origin, { memory, clock });
    expect((await client.fetchChannels(ACME)).state).toBe('failed');
    const ladder = server.received.length;
    // Set back 25 h: the wait (5 minutes) still ends 5 minutes of elapsed time later.
    clock.stepWall(-25 * 3600_000);
    clock.time += 299_000;
    await client.fetchChannels(ACME);
    expect(server.received.length).toBe(ladder);
    clock.time += 1_000;
    await client.fetchChannels(ACME);
    expect(server.received.length).toBe(ladder + 1);
    // Refused again, the wait is 10 minutes; a step forward of 25 h does not end it.
    clock.stepWall(25 * 3600_000);
    clock.time += 60_000;
    await client.fetchChannels(ACME);
    expect(server.received.length).toBe(ladder + 1);
    clock.time += 540_000;
    await client.fetchChannels(ACME);
    expect(server.received.length).toBe(ladder + 2);
  });

  it('counts the refusal as drift when the server said it, not for reads that were not sent', async () => {
    server = await suite.serve((_req, res) => json(res, 400, { detail: 'no' }));
    const drift: string[] = [];
    client = suite.client(server.origin, {
      memory: new QueryMemory(undefined, TEACH_AT_ONCE),
      clock: new ManualClock(),
      observer: { onDrift: (i) => drift.push(`${i.endpoint} ${i.field}`) },
    });
    await client.fetchChannels(ACME);
    await client.fetchChannels(ACME);
    await client.fetchChannels(ACME);
    expect(drift).toEqual(['channels query']);
  });
});

describe('filters the server refuses or ignores', () => {
  const H = 3_600_000;
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const SESSIONS = [
    { id: 's-old', status: 'ended', started_at: iso(NOW - 900 * H), ended_at: iso(NOW - 899 * H) },
    { id: 's-in', status: 'ended', started_at: iso(NOW - 2 * H), ended_at: iso(NOW - H) },
    { id: 's-live', status: 'live', started_at: iso(NOW - 900 * H) },
    { id: 's-far', status: 'scheduled', scheduled_at: iso(NOW + 900 * H) },
    { id: 's-undated', status: 'scheduled' },
  ];
  const window = { from: NOW - 24 * H, to: NOW + 24 * H };
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;
  const ids = (p: Awaited<ReturnType<UpstreamClient['fetchSessions']>>) =>
    p.state === 'failed' ? [] : p.value.map((x) => x.id);

  it('drops a window filter the server refuses and keeps only what lies in the window', async () => {
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('from')) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown query parameter: from');
        return;
      }
      json(res, 200, { data: SESSIONS });
    });
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    const part = await client.fetchSessions(ACME, 'ch-1', { window });
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['s-in', 's-live', 's-undated']);
    expect(known(memory, 'acme', 'sessions')).toMatchObject({ drop: ['from'], ignored: ['window'] });
  });

  it('records a server that takes the window but ignores it, and filters on tally side', async () => {
    server = await suite.serve((_req, res) => json(res, 200, { data: SESSIONS }));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    expect(ids(await client.fetchSessions(ACME, 'ch-1', { window }))).toEqual([
      's-in',
      's-live',
      's-undated',
    ]);
    expect(memory.get('acme', 'sessions')?.ignored).toEqual(['window']);
  });

  it('applies the statuses asked for when the server ignores them', async () => {
    server = await suite.serve((_req, res) => json(res, 200, { data: SESSIONS }));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, {
      memory,
      filters: { ...DEFAULT_FILTERS, send_status: true },
    });
    const part = await client.fetchSessions(ACME, 'ch-1', { window, statuses: ['live'] });
    expect(ids(part)).toEqual(['s-live']);
    expect(memory.get('acme', 'sessions')?.ignored).toEqual(['status', 'window']);
  });

  it('statuses are matched by class: asking for live keeps what the server calls on air', async () => {
    const words = [
      { id: 'a', status: 'On Air', started_at: iso(NOW - H) },
      { id: 'b', status: 'broadcasting', started_at: iso(NOW - H) },
      { id: 'c', status: 'finished', started_at: iso(NOW - 2 * H), ended_at: iso(NOW - H) },
    ];
    // The server applies the filter in its own words: it sends only what it calls live.
    server = await suite.serve((_req, res) => json(res, 200, { data: words.slice(0, 2) }));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, {
      memory,
      filters: { ...DEFAULT_FILTERS, send_status: true },
    });
    const part = await client.fetchSessions(ACME, 'ch-1', { window, statuses: ['live'] });
    expect(ids(part)).toEqual(['a', 'b']);
    // It honoured the filter: nothing recorded as ignored.
    expect(memory.get('acme', 'sessions')?.ignored ?? []).toEqual([]);
  });

  it('a server that honours the window is recorded as nothing', async () => {
    server = await suite.serve((_req, res) => json(res, 200, { data: SESSIONS.slice(1, 3) }));
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    client = suite.client(server.origin, { memory });
    expect(ids(await client.fetchSessions(ACME, 'ch-1', { window }))).toEqual(['s-in', 's-live']);
    // Nothing about its filters (that it shows no paging, and answers the same list for
    // any page asked for, is all).
    expect(known(memory, 'acme', 'sessions')).toEqual({ pagedAs: 100, wholeUpTo: 2 });
  });
});
