/**
 * General reading rules (docs/upstream-shapes.md, "Fields"): times named by a lone planned
 * word, a plain start beside a planned one, a run's own times, a status split into status
 * and outcome, a word given as an object, a record's fields in one bag beside its
 * identity, link relations in a list, AI funding under any funding word.
 */
import { describe, expect, it } from 'vitest';
import {
  normalizeMember,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
  readListPage,
} from '../../../src/upstream/shape/index.js';
import { splitWords } from '../../../src/upstream/shape/words.js';

const T = Date.UTC(2024, 0, 15, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const session = (raw: Record<string, unknown>) => normalizeSession({ id: 's', ...raw }, 'c1', {});

describe('session times by their words', () => {
  it.each<[string, Record<string, unknown>, Record<string, number | undefined>]>([
    ['a lone planned word (due)', { due_at: iso(T) }, { scheduledAt: T }],
    ['a lone planned word with a ts string', { scheduled_ts: `${T / 1000}.000200` }, { scheduledAt: T }],
    [
      'a plain start with no planned time is the planned start, and the actual one of a session under way',
      { start_time: iso(T) },
      { scheduledAt: T, startedAt: T },
    ],
    [
      'a plain start and end beside a planned start are the actual ones',
      { scheduledStart: { dateTime: iso(T) }, startDateTime: iso(T + 5_000), endDateTime: iso(T + 9_000) },
      { scheduledAt: T, startedAt: T + 5_000, endedAt: T + 9_000 },
    ],
    [
      'epoch seconds beside a planned ts',
      { scheduled_ts: String(T / 1000), date_start: T / 1000 + 5, date_end: T / 1000 + 9 },
      { scheduledAt: T, startedAt: T + 5_000, endedAt: T + 9_000 },
    ],
    ['the run started', { run_started_at: iso(T) }, { startedAt: T }],
    [
      'the run time object',
      { start_time: iso(T), run_time: { start_time: iso(T + 1_000), end_time: iso(T + 2_000) } },
      { scheduledAt: T, startedAt: T + 1_000, endedAt: T + 2_000 },
    ],
    [
      'a glued date (resolutiondate)',
      { started: iso(T), resolutiondate: iso(T + 1_000) },
      { startedAt: T, endedAt: T + 1_000 },
    ],
    [
      'creation stands for the planned start only when nothing else does',
      { created_at: iso(T) },
      { scheduledAt: T },
    ],
    [
      'a plain start wins over creation',
      { created_at: iso(T), start: iso(T + 1_000) },
      { scheduledAt: T + 1_000, startedAt: T + 1_000 },
    ],
  ])('%s', (_name, fields, want) => {
    const r = session({ status: 'live', ...fields });
    expect({
      scheduledAt: r.value?.scheduledAt,
      startedAt: r.value?.startedAt,
      endedAt: r.value?.endedAt,
    }).toEqual({
      scheduledAt: undefined,
      startedAt: undefined,
      endedAt: undefined,
      ...want,
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, number | string | undefined>]>([
    [
      'a call queued: its creation is its plan, nothing began',
      { status: 'queued', date_created: 'Mon, 15 Jan 2024 10:00:00 +0000', start_time: null, end_time: null },
      { status: 'queued', scheduledAt: T },
    ],
    [
      'a call placed: start_time is when it began',
      {
        status: 'in-progress',
        date_created: 'Mon, 15 Jan 2024 09:00:00 +0000',
        start_time: 'Mon, 15 Jan 2024 10:00:00 +0000',
      },
      { status: 'in-progress', scheduledAt: T, startedAt: T },
    ],
    [
      'a meeting scheduled behind a vendor prefix and its type',
      {
        properties: { hs_meeting_outcome: 'SCHEDULED', hs_timestamp: iso(T), hs_meeting_start_time: iso(T) },
      },
      { status: 'scheduled', scheduledAt: T },
    ],
    [
      'a meeting completed began at its start',
      {
        properties: { hs_meeting_title: 'Q', hs_meeting_outcome: 'COMPLETED', hs_meeting_start_time: iso(T) },
      },
      { status: 'completed', scheduledAt: T, startedAt: T },
    ],
    [
      'one key with a short first word: no vendor prefix, no lone start',
      { status: 'live', ab_start: iso(T) },
      { status: 'live' },
    ],
    [
      'a planned start under a planned word makes no actual start',
      { state: 'live', scheduled_for: iso(T) },
      { status: 'live', scheduledAt: T },
    ],
  ])('%s', (_name, fields, want) => {
    const r = normalizeSession({ id: 's', ...fields }, 'c1', {});
    expect({
      status: r.value?.status,
      scheduledAt: r.value?.scheduledAt,
      startedAt: r.value?.startedAt,
      endedAt: r.value?.endedAt,
    }).toEqual({ scheduledAt: undefined, startedAt: undefined, endedAt: undefined, ...want });
  });

  it('splits glued date and time words, not short ones', () => {
    expect(splitWords('resolutiondate')).toEqual(['resolution', 'date']);
    expect(splitWords('duedate')).toEqual(['due', 'date']);
    expect(splitWords('update')).toEqual(['update']);
  });
});

describe('a status by its outcome and its object', () => {
  it.each([
    ['failure', 'failure'],
    ['cancelled', 'cancelled'],
    ['success', 'completed'],
  ])('completed + conclusion %s reads %s', (conclusion, want) => {
    expect(session({ status: 'completed', conclusion }).value?.status).toBe(want);
  });

  it('an outcome does not override a status that is not "finished"', () => {
    expect(session({ status: 'in_progress', conclusion: 'failure' }).value?.status).toBe('in_progress');
  });

  it('a status object gives its name', () => {
    expect(session({ status: { name: 'On Air', id: '3', statusCategory: { key: 'x' } } }).value?.status).toBe(
      'on air',
    );
  });
});

describe('a record whose fields sit in one bag beside its identity', () => {
  it('reads the bag, the identity wins', () => {
    const r = normalizeSession(
      { id: 7, key: 'S-7', self: 'https://x/7', fields: { id: 'no', status: 'Done', plannedStart: iso(T) } },
      'c1',
      {},
    );
    expect(r.value).toMatchObject({ id: '7', status: 'done', scheduledAt: T });
  });

  it('a record with other fields of its own is not a bag holder', () => {
    const r = normalizeSession(
      { id: 7, status: 'live', ai: { status: 'failed', enabled: true, x: 1 } },
      'c1',
      {},
    );
    expect(r.value?.status).toBe('live');
  });
});

describe('link relations in a list', () => {
  const url = new URL('https://api.test/v1/acme/channels');
  const read = (body: unknown) =>
    readListPage('channels', body, {}, url, {}, { page: 1, perPage: 2, seen: 0 });
  const links = (...rels: string[]) =>
    rels.map((rel) => ({ href: `https://api.test/v1/acme/channels?page=${rel}`, rel }));

  it('follows the next relation', () => {
    const p = read({ items: [{ id: 1 }, { id: 2 }], links: links('self', 'next', 'last') });
    expect(p.next).toEqual({ kind: 'url', url: 'https://api.test/v1/acme/channels?page=next' });
  });

  it('paging relations without next end the list', () => {
    const p = read({ items: [{ id: 1 }, { id: 2 }], links: links('self', 'first', 'last') });
    expect(p.next).toBeUndefined();
  });
});

describe('AI funding under any funding word', () => {
  it('an object under ai_credits', () => {
    const r = normalizeSubscription(
      { plan: 'pro', ai_credits: { type: 'wallet', balance: 12.5, currency: 'EUR' } },
      {},
    );
    expect(r.value?.funding).toMatchObject({ mode: 'wallet', balance: 12.5 });
  });

  it('a flat funding source word', () => {
    const r = normalizeSubscription(
      { plan: 'pro', ai_funding_source: 'wallet', balance: '3.20', currency: 'USD' },
      {},
    );
    expect(r.value?.funding).toMatchObject({ mode: 'wallet', balance: 3.2 });
  });
});

describe('a balance in minor units by its words', () => {
  it('balance_in_cents beside a currency is minor units', () => {
    const r = normalizeSubscription(
      { plan: 'pro', ai_billing: { source: 'wallet', balance_in_cents: 1234, currency: 'USD' } },
      {},
    );
    expect(r.value?.funding).toMatchObject({ mode: 'wallet', balance: 12.34 });
  });
});

describe('more by words', () => {
  it('the plan under any plan word (plan_type, skuPartNumber)', () => {
    expect(normalizeSubscription({ plan_type: 'pro', ai_funding: 'byok' }, {}).value?.plan).toBe('pro');
    expect(normalizeSubscription({ skuPartNumber: 'pro', ai_funding: 'byok' }, {}).value?.plan).toBe('pro');
  });

  it('a link beside reaction counts is no kind of reaction', () => {
    const r = normalizeSessionDetail(
      { id: 's1', status: 'live', reactions: { url: 'https://x/r', total_count: 3, heart: 3 } },
      's1',
      {},
    );
    expect(r.value?.reactions).toEqual({ count: 3, byKind: { heart: 3 } });
    expect(r.drift).toEqual([]);
  });

  it('a name given as an object of its parts', () => {
    const r = normalizeMember({ id: 'm1', name: { given_name: 'Ann', surname: 'Lee' } }, {});
    expect(r.value?.name).toBe('Ann Lee');
    expect(r.drift).toEqual([]);
  });
});

describe('paging signals beside a deep list and at the top of the body', () => {
  const url = new URL('https://api.test/v1/acme/channels');
  const read = (body: unknown) =>
    readListPage('channels', body, {}, url, {}, { page: 1, perPage: 2, seen: 0 });
  const items = [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ];

  it('a next link at the top of the body, the list two levels down', () => {
    expect(read({ response: { value: items }, next: '/v1/acme/channels?after=2' }).next).toEqual({
      kind: 'url',
      url: 'https://api.test/v1/acme/channels?after=2',
    });
  });

  it('a next link beside the list, in its holder', () => {
    expect(read({ response: { value: items, next: '/v1/acme/channels?after=2' } }).next).toEqual({
      kind: 'url',
      url: 'https://api.test/v1/acme/channels?after=2',
    });
  });
});
