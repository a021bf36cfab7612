import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ENDPOINTS,
  FIELD_ALIASES,
  normalizeChannel,
  normalizeMember,
  normalizeOrg,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
  parseLinkHeader,
  parseTime,
  readListPage,
  readObject,
  SchemaDriftError,
  type ShapeOptions,
} from '../../../src/upstream/shape/index.js';
import { looseKey, prop } from '../../../src/upstream/shape/json.js';

const url = new URL('https://api.test/v1/acme/channels?page=2&per_page=3');
const RUNS = { numRuns: 300 };

// Keys tally looks for, so generated bodies hit the interesting paths, not only random ones.
const knownKeys = [
  ...new Set(Object.values(FIELD_ALIASES).flatMap((paths) => paths.map((p) => p.split(/[.[]/)[0] ?? p))),
  'data',
  'items',
  'results',
  'records',
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
  'links',
  'meta',
  'paging',
  'pagination',
  'limits',
  'usage',
  'ai_funding',
  'wallet',
  'byok',
  'reactions',
  'questions',
  '__proto__',
  'constructor',
  'toString',
];
const key = fc.oneof(fc.constantFrom(...knownKeys), fc.string());
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
    fc.array(tie('value'), { maxLength: 4 }),
  ),
})).value;
const body = fc.oneof(fc.jsonValue(), json);
const headers = fc.dictionary(
  fc.constantFrom(
    'link',
    'Link',
    'x-total-count',
    'X-Total-Pages',
    'x-page',
    'x-next-page',
    'x-per-page',
    'other',
  ),
  fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(undefined)),
);
const opts: fc.Arbitrary<ShapeOptions> = fc.record(
  {
    paging: fc.constantFrom('auto', 'link', 'cursor', 'page', 'none'),
    perPage: fc.integer({ min: -2, max: 500 }),
    envelope: fc.dictionary(
      fc.constantFrom(...ENDPOINTS),
      fc.oneof(fc.constantFrom('', 'data', 'data.items', 'a.b[0]'), fc.string()),
    ),
    fields: fc.constant({ 'channel.status': ['liveState', 'x.y'], 'member.id': ['login'] }),
  },
  { requiredKeys: [] },
);
const state = fc.record({
  page: fc.integer({ min: 0, max: 50 }),
  perPage: fc.integer({ min: 0, max: 500 }),
  seen: fc.nat(1000),
});

function onlySchemaDrift(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SchemaDriftError);
  }
}

describe('any JSON value', () => {
  it('readListPage throws nothing but SchemaDriftError, and a next URL is absolute', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENDPOINTS), body, headers, opts, state, (endpoint, b, h, o, st) => {
        onlySchemaDrift(() => {
          const lp = readListPage(endpoint, b, h, url, o, st);
          expect(Array.isArray(lp.items)).toBe(true);
          if (lp.next?.kind === 'url')
            expect(() => new URL(lp.next?.kind === 'url' ? lp.next.url : '')).not.toThrow();
        });
      }),
      RUNS,
    );
  });

  it('readObject throws nothing but SchemaDriftError and returns an object', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENDPOINTS), body, opts, (endpoint, b, o) => {
        onlySchemaDrift(() => {
          const obj = readObject(endpoint, b, o);
          expect(typeof obj === 'object' && obj !== null && !Array.isArray(obj)).toBe(true);
        });
      }),
      RUNS,
    );
  });

  const noUndefined = (v: unknown): boolean =>
    v !== undefined && v !== null && (typeof v !== 'object' || Object.values(v as object).every(noUndefined));

  /** Records built from the keys a normalizer looks for, so its paths are actually exercised. */
  const recordOf = (...prefixes: string[]): fc.Arbitrary<unknown> => {
    const keys = Object.entries(FIELD_ALIASES)
      .filter(([k]) => prefixes.some((p) => k.startsWith(p)))
      .flatMap(([, paths]) => paths.map((p) => p.split(/[.[]/)[0] ?? p));
    return fc.oneof(body, fc.dictionary(fc.constantFrom(...new Set(keys)), json, { maxKeys: 8 }));
  };
  const normalizers: [
    string,
    fc.Arbitrary<unknown>,
    (b: unknown, o: ShapeOptions) => { value: unknown; drift: unknown[] },
  ][] = [
    ['normalizeOrg', recordOf('org.'), (b, o) => normalizeOrg(b as Record<string, unknown>, 'acme', o)],
    ['normalizeMember', recordOf('member.'), (b, o) => normalizeMember(b, o)],
    [
      'normalizeSubscription',
      recordOf('subscription.', 'funding.', 'limit.'),
      (b, o) => normalizeSubscription(b as Record<string, unknown>, o),
    ],
    ['normalizeChannel', recordOf('channel.'), (b, o) => normalizeChannel(b, o)],
    ['normalizeSession', recordOf('session.'), (b, o) => normalizeSession(b, 'c1', o)],
    [
      'normalizeSessionDetail',
      recordOf('session.', 'detail.', 'question.', 'speaker.', 'announcement.', 'reaction.'),
      (b, o) => normalizeSessionDetail(b as Record<string, unknown>, 's1', o),
    ],
  ];

  it.each(normalizers)('%s never throws; its value holds no undefined or null', (_name, arb, normalize) => {
    fc.assert(
      fc.property(arb, opts, (b, o) => {
        const r = normalize(b, o);
        expect(Array.isArray(r.drift)).toBe(true);
        if (r.value !== undefined) expect(noUndefined(r.value)).toBe(true);
        // A record value is absent exactly when a fatal problem was found.
        else expect((r.drift as { fatal: boolean }[]).some((d) => d.fatal)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('parseTime and parseLinkHeader never throw', () => {
    fc.assert(
      fc.property(body, fc.string(), (b, s) => {
        const t = parseTime(b);
        expect(t === undefined || Number.isFinite(t)).toBe(true);
        expect(Array.isArray(parseLinkHeader(s))).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('prop', () => {
  /** The first key in the record's order whose loose spelling matches, as a plain scan finds it. */
  const scan = (o: Record<string, unknown>, k: string) => {
    if (Object.hasOwn(o, k)) return o[k];
    const found = Object.keys(o).find((x) => looseKey(x) === looseKey(k));
    return found === undefined ? undefined : o[found];
  };
  const spelled = fc.constantFrom(
    'scheduled_at',
    'scheduledAt',
    'ScheduledAt',
    'scheduled-at',
    'title',
    'Title',
    'id',
  );

  it('answers as a scan of every key, in small records and in records with hundreds of keys', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(spelled, fc.string({ maxLength: 12 })), fc.integer()), { maxLength: 40 }),
        fc.integer({ min: 0, max: 300 }),
        spelled,
        (pairs, filler, asked) => {
          const o: Record<string, unknown> = {};
          for (let i = 0; i < filler; i++)
            Object.defineProperty(o, `custom_${i}`, { value: i, enumerable: true });
          for (const [k, v] of pairs)
            Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true });
          // Asked twice: the second answer comes from the index a record of many keys keeps.
          expect(prop(o, asked)).toEqual(scan(o, asked));
          expect(prop(o, asked)).toEqual(scan(o, asked));
          expect(prop(o, 'no such key')).toBeUndefined();
        },
      ),
      RUNS,
    );
  });
});
