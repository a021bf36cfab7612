/**
 * Bad input, upstream side: whatever a server answers — any JSON, garbage, odd statuses,
 * odd paging links — the real UpstreamClient reading it over loopback returns a Part
 * (complete, incomplete or failed) for every endpoint, and never throws or leaves an
 * unhandled rejection behind.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/upstream/client.js';
import { FIELD_ALIASES } from '../../src/upstream/shape/index.js';
import type { Part } from '../../src/snapshot/model.js';
import {
  captureLogger,
  clientOptions,
  type Loopback,
  startServer,
  watchUnhandled,
} from '../upstream/loopback.js';

/** One scripted answer. */
interface Answer {
  status: number;
  contentType: string;
  link: string | undefined;
  body: string;
}

const ORG = { slug: 'acme', token: 'tok-fuzz-0001' };
const STATES = new Set(['complete', 'incomplete', 'failed']);

// Keys tally looks for, so that generated bodies reach the interesting code, not only the first check.
const known = [
  ...new Set(Object.values(FIELD_ALIASES).flatMap((paths) => paths.map((p) => p.split(/[.[]/)[0] ?? p))),
  'data',
  'items',
  'results',
  'channels',
  'members',
  'sessions',
  'organization',
  'subscription',
  'session',
  'next',
  'next_cursor',
  'has_more',
  'page',
  'total',
  'total_pages',
  '__proto__',
  'constructor',
];
const key = fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 6 }));
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(
      'live',
      'ended',
      'scheduled',
      '2030-01-07T08:00:04.253Z',
      'http://127.0.0.1:1/x',
      -1,
      1e308,
    ),
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(key, tie('v'), { maxKeys: 6 }),
  ),
})).v;

const body: fc.Arbitrary<string> = fc.oneof(
  value.map((v) => JSON.stringify(v) ?? ''),
  // A list in an envelope, records with ids: the shape tally expects, with odd fields.
  fc
    .tuple(
      fc.constantFrom('data', 'items', 'channels', 'sessions', 'members'),
      fc.array(value, { maxLength: 4 }),
    )
    .map(([k, items]) =>
      JSON.stringify({
        [k]: items.map((v, i) => (typeof v === 'object' && v !== null ? { id: `x${i}`, ...v } : v)),
      }),
    ),
  fc.string({ maxLength: 40 }),
  value.map((v) => (JSON.stringify(v) ?? '').slice(0, 7)),
  fc.constant(''),
);

const answer: fc.Arbitrary<Answer> = fc.record({
  // 429 is left out: a garbage Retry-After pauses the budget for its fallback (30 s), by design.
  status: fc.constantFrom(200, 200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 410, 500, 503),
  contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/html', ''),
  link: fc.option(
    fc.constantFrom(
      '<?page=2>; rel="next"',
      '</v1/acme/channels?cursor=%ZZ>; rel="next"',
      '<http://127.0.0.2:9/elsewhere>; rel="next"',
      'garbage',
      '<>; rel=next',
    ),
    { nil: undefined },
  ),
  body,
});

let server: Loopback;
let current: Answer = { status: 200, contentType: 'application/json', link: undefined, body: '{}' };
let client: UpstreamClient;
const unhandled = watchUnhandled();

beforeAll(async () => {
  server = await startServer((_req, res) => {
    const headers: Record<string, string> = {};
    if (current.contentType) headers['content-type'] = current.contentType;
    if (current.link) headers['link'] = current.link;
    if (current.status === 301) headers['location'] = '/v1/acme/elsewhere';
    res.writeHead(current.status, headers);
    res.end(current.status === 204 ? undefined : current.body);
  });
  client = new UpstreamClient(
    clientOptions(server.origin, captureLogger().logger, {
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
      maxPages: 4,
      // Hundreds of requests in a few seconds: a short accounting window keeps the budget out of the way.
      budgetTuning: { windowMs: 100 },
    }),
  );
});

afterAll(async () => {
  await client.close();
  await server.close();
  unhandled.stop();
  expect(unhandled.errors).toEqual([]);
});

function isPart(p: Part<unknown>): boolean {
  if (!STATES.has(p.state) || typeof p.at !== 'number') return false;
  return p.state === 'failed' ? typeof p.error.reason === 'string' : p.value !== undefined;
}

describe('any answer from the server', () => {
  it('becomes a Part for every endpoint, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(answer, async (a) => {
        current = a;
        const parts: Part<unknown>[] = [
          await client.fetchOrg(ORG),
          await client.fetchTeam(ORG),
          await client.fetchSubscription(ORG),
          await client.fetchChannels(ORG),
          await client.fetchSessions(ORG, 'ch_1'),
          await client.fetchSessionDetail(ORG, 'ses_1'),
        ];
        for (const p of parts) expect(isPart(p), JSON.stringify(p).slice(0, 300)).toBe(true);
        // A failure is never dressed up as an empty list.
        if (a.status >= 400) for (const p of parts) expect(p.state).toBe('failed');
      }),
      { numRuns: 300, seed: 4242 },
    );
  });

  it('keeps the token out of every part error', async () => {
    current = { status: 500, contentType: 'text/plain', link: undefined, body: `oops ${ORG.token}` };
    const part = await client.fetchChannels(ORG);
    expect(part.state).toBe('failed');
    expect(JSON.stringify(part)).not.toContain(ORG.token);
  });
});
