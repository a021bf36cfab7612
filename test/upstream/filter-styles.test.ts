/**
 * Filters in every documented query style (src/upstream/query/filter-styles.ts): each server
 * below speaks one style only, refuses tally's own `from`/`to`/`status` in its own error
 * shape, and says in that answer how it wants them. tally reads the answer, writes the
 * filters that way, remembers it, and the server applies the window (nothing is recorded
 * as ignored).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import { DEFAULT_FILTERS } from '../../src/upstream/query/filters.js';
import { styleFromWords } from '../../src/upstream/query/filter-styles.js';
import { RETRIAL_MIN_MS, TEACH_AT_ONCE, TEACH_SPAN_MS } from '../../src/upstream/query/evidence.js';
import { ManualClock } from '../helpers/clock.js';
import { json, loopbackSuite } from './loopback.js';

const ACME = { slug: 'acme', token: 'tok-styles-0001' };
const suite = loopbackSuite({ secret: ACME.token });
const H = 3_600_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SESSIONS = [
  { id: 's-old', status: 'ended', started_at: iso(NOW - 900 * H), ended_at: iso(NOW - 899 * H) },
  { id: 's-in', status: 'ended', started_at: iso(NOW - 2 * H), ended_at: iso(NOW - H) },
  { id: 's-live', status: 'live', started_at: iso(NOW - H) },
];
const window = { from: NOW - 24 * H, to: NOW + 24 * H };
/** The sessions a server that applies `[from, to]` and `status` answers. */
const within = (from: number, to: number, status?: string) =>
  SESSIONS.filter((s) => {
    const t = Date.parse(s.started_at);
    return t >= from && t <= to && (status === undefined || s.status === status);
  });

/** A server taking only `accepted` parameters; `refuse(p, res)` answers one it does not take. */
function server(
  accepted: readonly string[],
  refuse: (param: string, res: ServerResponse) => void,
  answer: (q: URLSearchParams, res: ServerResponse) => void,
) {
  return suite.serve((req: IncomingMessage, res: ServerResponse) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const bad = [...q.keys()].find((k) => !accepted.includes(k));
    if (bad !== undefined) return refuse(bad, res);
    answer(q, res);
  });
}

async function readWith(origin: string, statuses?: string[]) {
  const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
  const client = suite.client(origin, { memory, filters: { ...DEFAULT_FILTERS, send_status: true } });
  const part = await client.fetchSessions(ACME, 'c1', { window, ...(statuses ? { statuses } : {}) });
  return { memory, client, part };
}

const ids = (p: { state: string; value?: { id: string }[] }) => (p.value ?? []).map((s) => s.id).sort();
const lastQuery = (received: readonly { url: string }[]) =>
  new URL(received.at(-1)!.url, 'http://x').searchParams;

describe('a server that speaks one filter style', () => {
  it('plain names it lists (since/until): asked that way, and remembered', async () => {
    const s = await server(
      ['since', 'until', 'status'],
      (p, res) => json(res, 400, { error: `unknown parameter '${p}'; supported: since, until, status` }),
      (q, res) =>
        json(res, 200, {
          data: within(Date.parse(q.get('since')!), Date.parse(q.get('until')!)),
          has_more: false,
        }),
    );
    const { memory, client, part } = await readWith(s.origin);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')).toMatchObject({
      filterStyle: { kind: 'params', from: 'since', to: 'until', status: 'status' },
    });
    expect(memory.get('acme', 'sessions')?.ignored).toBeUndefined();
    // The next read asks that way at once: one request.
    const before = s.received.length;
    await client.fetchSessions(ACME, 'c2', { window });
    expect(s.received.length - before).toBe(1);
    expect(lastQuery(s.received).get('since')).toBe(iso(window.from));
  });

  it('Shopify-style created_at_min / created_at_max from an errors map by field', async () => {
    const s = await server(
      ['created_at_min', 'created_at_max', 'status'],
      (p, res) =>
        json(res, 422, {
          errors: { [p]: 'is not a permitted parameter; use created_at_min and created_at_max' },
        }),
      (q, res) =>
        json(res, 200, {
          data: within(Date.parse(q.get('created_at_min')!), Date.parse(q.get('created_at_max')!)),
          has_more: false,
        }),
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toEqual({
      kind: 'params',
      from: 'created_at_min',
      to: 'created_at_max',
      status: 'status',
    });
  });

  it('Stripe-style created[gte] / created[lte] in epoch seconds, from its error object (message and param)', async () => {
    // https://docs.stripe.com/api/errors: { error: { type, message, param } }; a range is
    // `created[gte]` / `created[lte]`, a Unix timestamp.
    const stripeError = (res: ServerResponse, message: string, param: string) =>
      json(res, 400, { error: { type: 'invalid_request_error', message, param } });
    const s = await server(
      ['created[gte]', 'created[lte]', 'status', 'limit'],
      (p, res) => stripeError(res, `Received unknown parameter: ${p}. Did you mean created[gte]?`, p),
      (q, res) => {
        for (const p of ['created[gte]', 'created[lte]']) {
          const v = q.get(p);
          if (v !== null && !/^\d+$/.test(v)) return stripeError(res, `Invalid integer: ${v}`, p);
        }
        json(res, 200, {
          object: 'list',
          data: within(Number(q.get('created[gte]')) * 1000, Number(q.get('created[lte]')) * 1000),
          has_more: false,
        });
      },
    );
    const { memory, part } = await readWith(s.origin);
    expect(part.state).toBe('complete');
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    const q = lastQuery(s.received);
    expect(q.get('created[gte]')).toBe(String(Math.floor(window.from / 1000)));
    expect(q.get('created[lte]')).toMatch(/^\d+$/);
    expect(memory.get('acme', 'sessions')).toMatchObject({
      filterStyle: { kind: 'params', from: 'created[gte]', to: 'created[lte]' },
      times: { 'created[gte]': 'epoch_s', 'created[lte]': 'epoch_s' },
    });
    expect(memory.get('acme', 'sessions')?.ignored).toBeUndefined();
  });

  it('JSON:API filter[...] members the error lists, from a JSON:API errors list', async () => {
    const family = ['filter[status]', 'filter[starts_at][gte]', 'filter[starts_at][lte]'];
    const s = await server(
      family,
      (p, res) =>
        json(
          res,
          400,
          {
            errors: [
              {
                status: '400',
                title: 'Invalid Query Parameter',
                detail: `The resource does not support the query parameter '${p}'. Supported filters: ${family.join(', ')}.`,
                source: { parameter: p },
              },
            ],
          },
          { 'content-type': 'application/vnd.api+json' },
        ),
      (q, res) =>
        json(res, 200, {
          data: within(Date.parse(q.get(family[1]!)!), Date.parse(q.get(family[2]!)!)),
          links: { next: null },
        }),
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toEqual({
      kind: 'params',
      from: 'filter[starts_at][gte]',
      to: 'filter[starts_at][lte]',
      status: 'filter[status]',
    });
  });

  it('OData $filter (Microsoft Graph-style error), with the status in the expression', async () => {
    const s = await server(
      ['$filter', '$top'],
      (p, res) =>
        json(res, 400, {
          error: {
            code: 'BadRequest',
            message: `Query option '${p}' is not supported. Filter with $filter on startDateTime and status.`,
          },
        }),
      (q, res) => {
        const f = q.get('$filter') ?? '';
        const ge = /startDateTime ge (\S+)/.exec(f)?.[1];
        const le = /startDateTime le (\S+)/.exec(f)?.[1];
        const status = /status eq '(\w+)'/.exec(f)?.[1];
        if (!ge || !le)
          return json(res, 400, { error: { code: 'BadRequest', message: `Invalid $filter: ${f}` } });
        // Graph answers under `value`; where tally finds a list is not under test here.
        json(res, 200, { data: within(Date.parse(ge), Date.parse(le), status) });
      },
    );
    const { memory, part } = await readWith(s.origin, ['live']);
    expect(ids(part as never)).toEqual(['s-live']);
    expect(lastQuery(s.received).get('$filter')).toBe(
      `status eq 'live' and startDateTime ge ${iso(window.from)} and startDateTime le ${iso(window.to)}`,
    );
    expect(memory.get('acme', 'sessions')).toMatchObject({
      filterStyle: { kind: 'odata', field: 'startDateTime', status: 'status' },
    });
    expect(memory.get('acme', 'sessions')?.ignored).toBeUndefined();
  });

  it('Google AIP-160 filter expression (google.rpc.Status error)', async () => {
    const s = await server(
      ['filter', 'pageSize'],
      (p, res) =>
        json(res, 400, {
          error: {
            code: 400,
            message: `Invalid JSON payload received. Unknown name "${p}": Cannot bind query parameter. Lists are filtered with filter (AIP-160) on start_time and status.`,
            status: 'INVALID_ARGUMENT',
          },
        }),
      (q, res) => {
        const f = q.get('filter') ?? '';
        const ge = /start_time >= "([^"]+)"/.exec(f)?.[1];
        const le = /start_time <= "([^"]+)"/.exec(f)?.[1];
        if (!ge || !le) return json(res, 400, { error: { code: 400, message: 'invalid filter' } });
        json(res, 200, { sessions: within(Date.parse(ge), Date.parse(le)), nextPageToken: '' });
      },
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(lastQuery(s.received).get('filter')).toBe(
      `start_time >= "${iso(window.from)}" AND start_time <= "${iso(window.to)}"`,
    );
    expect(memory.get('acme', 'sessions')?.filterStyle).toEqual({
      kind: 'aip160',
      field: 'start_time',
      status: 'status',
    });
  });

  it('problem details (RFC 9457) with invalid-params, bracketed operators in the detail', async () => {
    const s = await server(
      ['starts_at[gte]', 'starts_at[lte]', 'status', 'per_page'],
      (p, res) =>
        json(
          res,
          400,
          {
            type: 'https://example.net/problems/invalid-query',
            title: 'Your request parameters did not validate.',
            detail: 'Filter a time range with starts_at[gte] and starts_at[lte].',
            'invalid-params': [{ name: p, reason: 'unknown parameter' }],
          },
          { 'content-type': 'application/problem+json' },
        ),
      (q, res) =>
        json(res, 200, {
          data: within(Date.parse(q.get('starts_at[gte]')!), Date.parse(q.get('starts_at[lte]')!)),
          has_more: false,
        }),
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toEqual({
      kind: 'params',
      from: 'starts_at[gte]',
      to: 'starts_at[lte]',
      status: 'status',
    });
  });

  it('a list of allowed parameters beside a message that names none', async () => {
    const allowed = ['starts_after', 'starts_before', 'state', 'per_page'];
    const s = await server(
      allowed,
      (_p, res) => json(res, 400, { message: 'Unknown query parameter', allowed_parameters: allowed }),
      (q, res) =>
        json(res, 200, {
          data: within(Date.parse(q.get('starts_after')!), Date.parse(q.get('starts_before')!)),
          has_more: false,
        }),
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toEqual({
      kind: 'params',
      from: 'starts_after',
      to: 'starts_before',
      status: 'state',
    });
    // Asked that way after one refusal: the page size it takes was kept.
    expect(s.received).toHaveLength(2);
    expect(lastQuery(s.received).get('per_page')).toBe('100');
  });

  it('an error that says nothing of another style: the filter is left out and tally keeps the window itself', async () => {
    const s = await server(
      ['per_page'],
      (p, res) => json(res, 400, { error: `unknown parameter: ${p}` }),
      (_q, res) => json(res, 200, { data: SESSIONS, has_more: false }),
    );
    const { memory, part } = await readWith(s.origin);
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toBeUndefined();
    expect(memory.get('acme', 'sessions')).toMatchObject({ ignored: ['window'] });
  });
});

describe('styleFromWords', () => {
  const names = { from: 'from', to: 'to', status: 'status' };
  const sent = ['from', 'to', 'status', 'per_page'];
  it.each<[string, string, unknown]>([
    ['nothing it offers', 'unknown parameter: from', undefined],
    ['prose only', 'unable to parse the request, try again later', undefined],
    [
      'a bracket with its opposite implied',
      'Received unknown parameter: from. Did you mean starts_at[gt]?',
      { kind: 'params', from: 'starts_at[gt]', to: 'starts_at[lt]', status: 'status' },
    ],
    [
      'camelCase plain names',
      "unknown query parameter 'from' (expected startsAfter, startsBefore)",
      { kind: 'params', from: 'startsAfter', to: 'startsBefore', status: 'status' },
    ],
    [
      'a JSON:API family it only mentions',
      'use filter[...] parameters',
      { kind: 'params', from: 'filter[from]', to: 'filter[to]', status: 'filter[status]' },
    ],
  ])('%s', (_what, words, style) => {
    expect(styleFromWords(words, names, undefined, sent, new Set())).toEqual(style);
  });

  it('never offers a style already tried', () => {
    const tried = new Set([JSON.stringify({ kind: 'params', from: 'since', to: 'until', status: 'status' })]);
    expect(styleFromWords('supported: since, until', names, undefined, sent, tried)).toBeUndefined();
  });
});

describe('a filter style learned over minutes, and forgotten', () => {
  it('is learned after refusals over two minutes, and dropped when the server takes tally’s own names again', async () => {
    const clock = new ManualClock(NOW);
    let names = ['since', 'until'];
    const s = await suite.serve((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const bad = [...q.keys()].find((k) => ![...names, 'per_page'].includes(k));
      if (bad !== undefined)
        return json(res, 400, { error: `unknown parameter '${bad}'; supported: ${names.join(', ')}` });
      json(res, 200, {
        data: within(Date.parse(q.get(names[0]!)!), Date.parse(q.get(names[1]!)!)),
        has_more: false,
      });
    });
    const memory = new QueryMemory(undefined, { rng: () => 0 });
    const client = suite.client(s.origin, { memory, clock });
    /** The first filter parameter of each request since `from`. */
    const firstParam = (from: number) =>
      s.received
        .slice(from)
        .map((r) => [...new URL(r.url, 'http://x').searchParams.keys()].find((k) => k !== 'per_page'));
    for (const at of [0, 60_000, TEACH_SPAN_MS]) {
      clock.time = NOW + at;
      const before = s.received.length;
      const part = await client.fetchSessions(ACME, 'c1', { window });
      expect(ids(part as never)).toEqual(['s-in', 's-live']);
      // Each read asks tally's own names first, then the style the refusal taught.
      expect(firstParam(before)).toEqual(['from', 'since']);
    }
    expect(memory.get('acme', 'sessions')?.filterStyle).toMatchObject({ from: 'since', to: 'until' });
    let before = s.received.length;
    await client.fetchSessions(ACME, 'c1', { window });
    expect(firstParam(before)).toEqual(['since']);
    // The server changes: it takes from/to now. The next re-trial (30 minutes with this draw) finds out.
    names = ['from', 'to'];
    clock.time = NOW + TEACH_SPAN_MS + RETRIAL_MIN_MS;
    before = s.received.length;
    const part = await client.fetchSessions(ACME, 'c1', { window });
    expect(ids(part as never)).toEqual(['s-in', 's-live']);
    expect(firstParam(before)).toEqual(['from']);
    expect(memory.get('acme', 'sessions')?.filterStyle).toBeUndefined();
  });
});
