/**
 * Servers tally has never seen: envelope keys and field names drawn from a thesaurus and
 * from random words kept here (never in src/), in random casings and nestings. The reader
 * finds the list and the fields, or reports drift where two keys say the same thing
 * equally well (docs/upstream-shapes.md, "Envelopes", "Fields").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIELD_ALIASES, normalizeSession, readListPage } from '../../../src/upstream/shape/index.js';
import { looseKey } from '../../../src/upstream/shape/json.js';

const url = new URL('https://api.test/v1/acme/channels/c1/sessions');
const state = { page: 1, perPage: 100, seen: 0 };
const RUNS = { numRuns: 200 };

// ---- the thesaurus -------------------------------------------------------------------

const LIST_KEYS = [
  'value',
  'elements',
  'entries',
  'rows',
  'docs',
  'hits',
  'payload',
  'content',
  'objects',
  'collection',
  'resources',
  'broadcasts',
  'sessions',
  'data',
  'items',
];
const WRAPPERS = ['response', 'result', '_embedded', 'body', 'page', 'envelope', 'output'];
const PLANNED = ['scheduled', 'planned', 'expected', 'slot'];
const START = ['start', 'begin', 'starts', 'begins'];
const ACTUAL = ['actual', 'real'];
const ENDED = ['ended', 'finished', 'stopped'];
const STATUS_KEYS = ['status', 'state', 'phase', 'lifecycle', 'stage'];
const STATUS_WORDS = ['scheduled', 'live', 'ended', 'ON_AIR', 'Finished', 'in progress', 'cancelled'];
const ID_KEYS = ['id', '_id', 'uuid', '@id', 'sessionId', 'broadcast_uuid', 'Id'];
const NOISE = ['color', 'weight', 'notes', 'owner', 'priority', 'language', 'region', 'capacity', 'tags'];
/** Words that mean something to a reader of sessions: random words must not be one. */
const MEANINGFUL = new Set([
  ...PLANNED,
  ...START,
  ...ACTUAL,
  ...ENDED,
  ...STATUS_KEYS,
  'id',
  'uuid',
  'guid',
  'uid',
  'key',
  'slug',
  'title',
  'name',
  'subject',
  'topic',
  'label',
  'headline',
  'from',
  'end',
  'live',
  'error',
  'errors',
  'warnings',
  'messages',
  'included',
  'went',
  'began',
  'started',
  'closed',
]);

/** Random lower-case words of 4–9 letters that mean nothing here. */
const randomWord = fc
  .stringMatching(/^[a-z]{4,9}$/)
  .filter((w) => !MEANINGFUL.has(w) && ![...MEANINGFUL].some((m) => w.includes(m)));

type Casing = (words: readonly string[]) => string;
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const CASINGS: Casing[] = [
  (w) => w.join('_'),
  (w) => w.join('-'),
  (w) => w.map((x, i) => (i === 0 ? x : cap(x))).join(''),
  (w) => w.map(cap).join(''),
  (w) => w.join('_').toUpperCase(),
  (w) => w.join('.'),
  (w) => `@${w.map((x, i) => (i === 0 ? x : cap(x))).join('')}`,
];
const casing = fc.constantFrom(...CASINGS);
/** A two-word key, one word of each group, in either order and any casing. */
const keyOf = (a: readonly string[], b: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...a), fc.constantFrom(...b), fc.boolean(), casing)
    .map(([x, y, swap, c]) => c(swap ? [y, x] : [x, y]));

const time = fc
  .integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2034-01-01T00:00:00Z') })
  .map((ms) => Math.floor(ms / 1000) * 1000);
const timeValue = fc.tuple(time, fc.constantFrom('iso', 'seconds', 'millis')).map(([ms, as]) => ({
  ms,
  raw: as === 'iso' ? new Date(ms).toISOString() : as === 'seconds' ? ms / 1000 : ms,
}));

/** Vendor prefixes of property names (`hs_`, `sf_` …) and the names of a record's own type. */
const VENDORS = ['hs', 'sf', 'x', 'zd', 'ms', 'gh', 'ext'];
const TYPES = ['meeting', 'call', 'session', 'event'];
/** Short words that mean something to a reader (fillers, ids, other processes): no vendor prefix. */
const SHORT_MEANINGFUL = new Set([
  'at',
  'on',
  'is',
  'the',
  'of',
  'ts',
  'utc',
  'iso',
  'id',
  'uid',
  'sid',
  'key',
]);
const vendor = fc.oneof(
  fc.constantFrom(...VENDORS),
  fc
    .stringMatching(/^[a-z]{2,3}$/)
    .filter(
      (w) =>
        !SHORT_MEANINGFUL.has(w) &&
        ![...MEANINGFUL, 'ai', 'air', 'run', 'due', 'end', 'to', 'no', 'not', 'non'].includes(w),
    ),
);
/** A key of the record's vendor prefix (when it has one), maybe its type name, and one word of each group, in any casing. */
const leadKeyOf = (vendor: string | undefined, groups: readonly (readonly string[])[]) =>
  fc
    .tuple(
      fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
      fc.tuple(...groups.map((g) => fc.constantFrom(...g))),
      casing,
    )
    .map(([t, words, c]) =>
      c([...(vendor === undefined ? [] : [vendor]), ...(t === undefined ? [] : [t]), ...words]),
    );

const aliasesOf = (field: keyof typeof FIELD_ALIASES) =>
  new Set((FIELD_ALIASES[field] as readonly string[]).map((p) => looseKey(p)));
const scheduledAliases = aliasesOf('session.scheduledAt');

// ---- the properties --------------------------------------------------------------------

describe('servers tally has never seen', () => {
  it('finds the list of records wherever it sits, under any name, beside noise', () => {
    const arb = fc.record({
      listKey: fc.oneof(fc.constantFrom(...LIST_KEYS), randomWord),
      wrappers: fc.array(fc.oneof(fc.constantFrom(...WRAPPERS), randomWord), { maxLength: 2 }),
      idKey: fc.constantFrom(...ID_KEYS),
      count: fc.integer({ min: 1, max: 6 }),
      noise: fc.array(fc.oneof(fc.constantFrom(...NOISE), randomWord), { maxLength: 3 }),
      keyCase: casing,
    });
    fc.assert(
      fc.property(arb, ({ listKey, wrappers, idKey, count, noise, keyCase }) => {
        const records = Array.from({ length: count }, (_, i) => ({ [idKey]: `s${i}`, title: `T${i}` }));
        const key = keyCase([listKey]);
        let holder: Record<string, unknown> = {
          [key]: records,
          links: [{ href: '/next', rel: 'next' }],
          meta: { total: count, took: 3 },
        };
        for (const n of noise) holder[keyCase([n])] = [n, 'x'];
        let path = key;
        for (const w of [...wrappers].reverse()) {
          if (w === key) continue;
          holder = { [w]: holder, requestId: 'r1' };
          path = `${w}.${path}`;
        }
        const page = readListPage('sessions', holder, {}, url, {}, state);
        expect(page.items).toBe(records);
        expect(page.listPath).toBe(path);
      }),
      RUNS,
    );
  });

  it('reads session times, status and id by what their keys say', () => {
    const arb = fc.record({
      plannedKey: keyOf(PLANNED, START),
      endKey: keyOf(ACTUAL, ENDED),
      statusKey: fc.tuple(fc.constantFrom(...STATUS_KEYS), casing).map(([k, c]) => c([k])),
      status: fc.constantFrom(...STATUS_WORDS),
      idKey: fc.constantFrom(...ID_KEYS),
      planned: timeValue,
      ended: timeValue,
      noise: fc.dictionary(randomWord, fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 4 }),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const raw = {
          ...a.noise,
          [a.idKey]: 's1',
          [a.statusKey]: a.status,
          [a.plannedKey]: a.planned.raw,
          [a.endKey]: a.ended.raw,
        };
        const { value, drift } = normalizeSession(raw, 'c1', {});
        expect(value?.id).toBe('s1');
        expect(value?.status).toBe(a.status.toLowerCase());
        expect(value?.scheduledAt).toBe(a.planned.ms);
        expect(value?.endedAt).toBe(a.ended.ms);
        expect(drift.filter((d) => d.field.startsWith('session.'))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('two keys that say "planned start" equally well: drift naming both, neither guessed', () => {
    const arb = fc
      .tuple(keyOf(PLANNED, START), keyOf(PLANNED, START), timeValue, timeValue)
      .filter(([a, b]) => looseKey(a.replace(/^@/, '')) !== looseKey(b.replace(/^@/, '')));
    fc.assert(
      fc.property(arb, ([keyA, keyB, t1, t2]) => {
        const { value, drift } = normalizeSession(
          { id: 's1', status: 'scheduled', [keyA]: t1.raw, [keyB]: t2.raw },
          'c1',
          {},
        );
        const aliased = [keyA, keyB].filter((k) => scheduledAliases.has(looseKey(k)));
        if (aliased.length > 0) {
          // An exact alias is the first tier: it is read, whatever the other key says.
          expect([t1.ms, t2.ms]).toContain(value?.scheduledAt);
          return;
        }
        expect(value?.scheduledAt).toBeUndefined();
        expect(drift).toContainEqual(
          expect.objectContaining({
            field: 'session.scheduledAt',
            problem: expect.stringMatching(/^ambiguous: keys /),
          }),
        );
      }),
      RUNS,
    );
  });

  it('reads keys behind the vendor prefix of the record and its type (`hs_meeting_outcome`), confirmed by values', () => {
    const arb = fc.option(vendor, { nil: undefined }).chain((v) =>
      fc.record({
        plannedKey: leadKeyOf(v, [PLANNED, START]),
        endKey: leadKeyOf(v, [ACTUAL, ENDED]),
        statusKey: leadKeyOf(v, [[...STATUS_KEYS, 'outcome']]),
        status: fc.constantFrom(...STATUS_WORDS),
        planned: timeValue,
        ended: timeValue,
        noise: fc.dictionary(randomWord, fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 4 }),
      }),
    );
    fc.assert(
      fc.property(arb, (a) => {
        const raw = {
          ...a.noise,
          id: 's1',
          [a.statusKey]: a.status,
          [a.plannedKey]: a.planned.raw,
          [a.endKey]: a.ended.raw,
        };
        const { value, drift } = normalizeSession(raw, 'c1', {});
        expect(value?.status).toBe(a.status.toLowerCase());
        expect(value?.scheduledAt).toBe(a.planned.ms);
        expect(value?.endedAt).toBe(a.ended.ms);
        expect(drift.filter((d) => d.field.startsWith('session.'))).toEqual([]);
      }),
      RUNS,
    );
  });

  it("a short first word of one key is no vendor prefix; shared by the record's keys, it is", () => {
    fc.assert(
      fc.property(vendor, fc.constantFrom(...START), timeValue, (v, start, t) => {
        const lone = normalizeSession({ id: 's1', [`${v}_${start}`]: t.raw }, 'c1', {});
        expect(lone.value?.scheduledAt).toBeUndefined();
        const shared = normalizeSession(
          { id: 's1', [`${v}_${start}`]: t.raw, [`${v}_title`]: 'T', [`${v}_owner`]: 'o' },
          'c1',
          {},
        );
        expect(shared.value?.scheduledAt).toBe(t.ms);
      }),
      RUNS,
    );
  });

  it('a prefixed key whose value is no time or status word is not read', () => {
    const arb = fc
      .option(vendor, { nil: undefined })
      .chain((v) =>
        fc.tuple(
          leadKeyOf(v, [PLANNED, START]),
          leadKeyOf(v, [STATUS_KEYS]),
          fc.constantFrom('soon', 'n/a', 'tbd'),
        ),
      );
    fc.assert(
      fc.property(arb, ([plannedKey, statusKey, word]) => {
        const { value } = normalizeSession(
          { id: 's1', [plannedKey]: word, [statusKey]: 'rehearsal-x' },
          'c1',
          {},
        );
        expect(value?.scheduledAt).toBeUndefined();
        expect(value?.status).not.toBe(word);
      }),
      RUNS,
    );
  });

  it('two prefixed keys saying "planned start" alike: drift, neither guessed; the bare key beats a prefixed one', () => {
    const arb = fc
      .tuple(
        vendor,
        fc.shuffledSubarray(TYPES, { minLength: 2, maxLength: 2 }),
        keyOf(PLANNED, START),
        timeValue,
        timeValue,
      )
      .filter(([, , key]) => !scheduledAliases.has(looseKey(key.replace(/^@/, ''))));
    fc.assert(
      fc.property(arb, ([v, [t1, t2], key, a, b]) => {
        const bare = key.replace(/^@/, '');
        const own = { [`${v}_title`]: 'T', [`${v}_owner`]: 'o' };
        const twin = normalizeSession(
          { id: 's1', ...own, [`${v}_${t1}_${bare}`]: a.raw, [`${v}_${t2}_${bare}`]: b.raw },
          'c1',
          {},
        );
        expect(twin.value?.scheduledAt).toBeUndefined();
        expect(twin.drift).toContainEqual(
          expect.objectContaining({
            field: 'session.scheduledAt',
            problem: expect.stringMatching(/^ambiguous/),
          }),
        );
        const plain = normalizeSession(
          { id: 's1', ...own, [`${v}_${t1}_${bare}`]: a.raw, [bare]: b.raw },
          'c1',
          {},
        );
        expect(plain.value?.scheduledAt).toBe(b.ms);
      }),
      RUNS,
    );
  });
});
