import { describe, expect, it } from 'vitest';
import { normalizeSessionDetail, readObject } from '../../../src/upstream/shape/index.js';

const T = Date.UTC(2024, 0, 15, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('normalizeSessionDetail', () => {
  it('reads the canonical shape', () => {
    const raw = {
      id: 's1',
      channel_id: 'c1',
      title: 'Morning',
      status: 'live',
      scheduled_at: iso(T),
      started_at: iso(T),
      ended_at: null,
      questions: [{ id: 'q1', text: 'Why?', author: 'ann', asked_at: iso(T + 1) }],
      announcements: [{ id: 'a1', text: 'Welcome', posted_at: iso(T + 2) }],
      reactions: { total: 12, by_kind: { clap: 7, heart: 5 } },
      speakers: [{ id: 'u1', name: 'Ann', joined_at: iso(T + 3) }],
      ai: { status: 'transcribing', enabled: true },
    };
    expect(normalizeSessionDetail(raw, 's1', {})).toEqual({
      value: {
        id: 's1',
        channelId: 'c1',
        title: 'Morning',
        status: 'live',
        questions: { count: 1, items: [{ id: 'q1', text: 'Why?', at: T + 1 }] },
        announcements: { count: 1, items: [{ id: 'a1', text: 'Welcome', at: T + 2 }] },
        reactions: { count: 12, byKind: { clap: 7, heart: 5 } },
        speakers: { count: 1, items: [{ id: 'u1', text: 'Ann', at: T + 3 }] },
        ai: { status: 'transcribing', enabled: true },
      },
      drift: [],
    });
  });

  const full = { announcements: [], speakers: [], reactions: 0 };

  it.each<[string, Record<string, unknown>, { count: number; ids: string[] }]>([
    ['array', { questions: [{ id: 1 }, { id: 2 }] }, { count: 2, ids: ['1', '2'] }],
    ['{ items, total }', { questions: { items: [{ id: 'a' }], total: 9 } }, { count: 9, ids: ['a'] }],
    ['{ data, count }', { questions: { data: [{ id: 'a' }], count: 4 } }, { count: 4, ids: ['a'] }],
    [
      '{ items } without total',
      { questions: { items: [{ id: 'a' }, { id: 'b' }] } },
      { count: 2, ids: ['a', 'b'] },
    ],
    ['count only', { questions: 12 }, { count: 12, ids: [] }],
    ['questions_count only', { questions_count: 5 }, { count: 5, ids: [] }],
    [
      'questionsCount beside a page of items',
      { questionsCount: 30, questions: [{ id: 'x' }] },
      { count: 30, ids: ['x'] },
    ],
    ['counts.questions', { counts: { questions: 3 } }, { count: 3, ids: [] }],
    [
      'Relay edges',
      { questions: { edges: [{ node: { id: 'n1' } }], totalCount: 8 } },
      { count: 8, ids: ['n1'] },
    ],
  ])('questions as %s', (_name, fields, expected) => {
    const r = normalizeSessionDetail({ id: 's', status: 'live', ai: {}, ...full, ...fields }, 's', {});
    expect(r.value.questions.count).toBe(expected.count);
    expect(r.value.questions.items.map((i) => i.id)).toEqual(expected.ids);
    expect(r.drift).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'question body + created_at',
      { questions: [{ id: 1, body: 'B', created_at: T / 1000 }] },
      { id: '1', text: 'B', at: T },
    ],
    [
      'question camelCase',
      { questions: [{ id: 1, question: 'Q', askedAt: iso(T) }] },
      { id: '1', text: 'Q', at: T },
    ],
    [
      'announcement message + published_at',
      { announcements: [{ uuid: 'u', message: 'M', publishedAt: iso(T) }] },
      { id: 'u', text: 'M', at: T },
    ],
    [
      'speaker display_name + user_id',
      { speakers: [{ user_id: 5, display_name: 'D' }] },
      { id: '5', text: 'D' },
    ],
    ['speaker given by name only', { speakers: ['Ann'] }, { id: 'Ann', text: 'Ann' }],
  ])('item fields: %s', (_name, fields, expected) => {
    const r = normalizeSessionDetail({ id: 's', questions: [], ...full, ...fields }, 's', {});
    const all = [...r.value.questions.items, ...r.value.announcements.items, ...r.value.speakers.items];
    expect(all).toEqual([expected]);
  });

  it.each<[string, unknown, { count: number; byKind: Record<string, number> }]>([
    [
      '{ total, by_kind }',
      { total: 12, by_kind: { clap: 7, heart: 5 } },
      { count: 12, byKind: { clap: 7, heart: 5 } },
    ],
    [
      '{ byKind } without total sums',
      { byKind: { clap: 2, heart: 1 } },
      { count: 3, byKind: { clap: 2, heart: 1 } },
    ],
    ['map of kind → count', { clap: 7, heart: 5 }, { count: 12, byKind: { clap: 7, heart: 5 } }],
    ['map with total beside kinds', { total: 20, clap: 7 }, { count: 20, byKind: { clap: 7 } }],
    ['map of kind → { count }', { clap: { count: 4 } }, { count: 4, byKind: { clap: 4 } }],
    [
      'array of { kind, count }',
      [
        { kind: 'clap', count: 7 },
        { type: 'heart', count: '5' },
      ],
      { count: 12, byKind: { clap: 7, heart: 5 } },
    ],
    ['array of { emoji, count }', [{ emoji: '👏', count: 2 }], { count: 2, byKind: { '👏': 2 } }],
    [
      'array of events (one each)',
      [{ kind: 'clap' }, { kind: 'clap' }, { kind: 'heart' }],
      { count: 3, byKind: { clap: 2, heart: 1 } },
    ],
    ['a number', 12, { count: 12, byKind: {} }],
    ['a numeric string', '12', { count: 12, byKind: {} }],
  ])('reactions as %s', (_name, reactions, expected) => {
    const r = normalizeSessionDetail({ id: 's', questions: [], ...full, reactions }, 's', {});
    expect(r.value.reactions).toEqual(expected);
    expect(r.drift).toEqual([]);
  });

  it('reaction_count wins over the sum', () => {
    const r = normalizeSessionDetail(
      { id: 's', ...full, questions: [], reactions: { clap: 1 }, reaction_count: 40 },
      's',
      {},
    );
    expect(r.value.reactions.count).toBe(40);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['ai object', { ai: { status: 'Done', enabled: false } }, { status: 'done', enabled: false }],
    ['ai_status / ai_enabled', { ai_status: 'idle', ai_enabled: 'true' }, { status: 'idle', enabled: true }],
    ['ai: true', { ai: true }, { enabled: true }],
    ['ai state', { ai: { state: 'summarizing' } }, { status: 'summarizing' }],
    ['unknown ai status kept', { ai: { status: 'queued' } }, { status: 'queued' }],
  ])('ai: %s', (_name, fields, expected) => {
    const r = normalizeSessionDetail({ id: 's', questions: [], ...full, ...fields }, 's', {});
    expect(r.value.ai).toEqual(expected);
  });

  it('the id asked for is authoritative; missing sub-resources are unread, not 0', () => {
    const r = normalizeSessionDetail({ id: 'other', status: 'live' }, 's1', {});
    expect(r.value).toMatchObject({ id: 's1' });
    expect(r.value.unread).toEqual(['questions', 'announcements', 'reactions', 'speakers', 'ai']);
    // The client looks elsewhere first and reports what it cannot read (sub-resource-reader.ts).
    expect(r.drift).toEqual([]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a path', { questions: '/v1/acme/sessions/s1/questions' }],
    ['an absolute URL', { questions: 'https://api.example/v1/acme/sessions/s1/questions' }],
    ['an object of links', { questions: { href: '/q' } }],
    ['a JSON:API relationship with links only', { questions: { links: { related: '/q' } } }],
  ])('a sub-resource given as %s is unread, without drift', (_name, fields) => {
    const r = normalizeSessionDetail({ id: 's1', status: 'live', ...fields }, 's1', {});
    expect(r.value.unread).toContain('questions');
    expect(r.drift).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'item without id, text or time',
      { questions: [{ colour: 'x' }] },
      'question.id',
      'item [0] has no usable id; skipped',
    ],
    [
      'item not an object',
      { questions: [true] },
      'detail.questions',
      'item [0] is a boolean, expected an object',
    ],
    [
      'questions is a boolean',
      { questions: true },
      'detail.questions',
      'is a boolean, expected a list or a count',
    ],
    [
      'questions object without items',
      { questions: { foo: 1 } },
      'detail.questions',
      'is an object without items or a count',
    ],
    [
      'reaction count is a word',
      { reactions: { clap: 'many' } },
      'detail.reactions',
      "'clap' is a string, expected a count",
    ],
    [
      'reaction entry without kind',
      { reactions: [{ count: 2 }] },
      'detail.reactions',
      'entry [0] has no kind',
    ],
    [
      'ai status is a number',
      { ai: { status: 3 } },
      'detail.aiStatus',
      "'ai.status' is a number, expected a string",
    ],
  ])('drift: %s', (_name, fields, field, problem) => {
    const r = normalizeSessionDetail({ id: 's', questions: [], ...full, ...fields }, 's', {});
    expect(r.drift).toEqual([{ endpoint: 'session', field, problem, fatal: false }]);
  });
});

describe('a detail body that is not a session', () => {
  it('is fatal drift naming the keys, never their values, and never a session whose counts fell to zero', async () => {
    const { normalizeSessionDetail } = await import('../../../src/upstream/shape/normalize-detail.js');
    const r = normalizeSessionDetail({ message: 'maintenance', retry: 30 }, 's1', {});
    const fatal = r.drift.filter((i) => i.fatal);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.problem).toBe(
      'none of the fields tally reads is in the body; keys seen: "message", "retry"',
    );
    // Any one field tally reads makes it a session's detail.
    expect(normalizeSessionDetail({ questions: [] }, 's1', {}).drift.filter((i) => i.fatal)).toEqual([]);
    expect(normalizeSessionDetail({ ai: true }, 's1', {}).drift.filter((i) => i.fatal)).toEqual([]);
  });
});

describe('sub-resources in JSON:API and HAL documents', () => {
  it('reads a JSON:API compound document: to-many relationships with meta.count, texts from included', () => {
    const body = {
      data: {
        id: 's1',
        type: 'session',
        attributes: { title: 'Ask me', status: 'live', reaction_counts: { clap: 7, heart: 5 } },
        relationships: {
          channel: { data: { type: 'channel', id: 'c9' } },
          questions: {
            data: [
              { type: 'question', id: 'q1' },
              { type: 'question', id: 'q2' },
            ],
            meta: { count: 3 },
          },
          speakers: { data: [{ type: 'speaker', id: 'p1' }] },
          announcements: { data: [], meta: { count: 0 } },
        },
      },
      included: [
        { type: 'question', id: 'q1', attributes: { text: 'Hello?' } },
        { type: 'question', id: 'q2', attributes: { text: 'Why?' } },
        { type: 'speaker', id: 'p1', attributes: { name: 'Host' } },
      ],
    };
    const r = normalizeSessionDetail(readObject('session', body, {}), 's1', {});
    expect(r.value).toMatchObject({
      channelId: 'c9',
      questions: {
        count: 3,
        items: [
          { id: 'q1', text: 'Hello?' },
          { id: 'q2', text: 'Why?' },
        ],
      },
      speakers: { count: 1, items: [{ id: 'p1', text: 'Host' }] },
      announcements: { count: 0, items: [] },
      reactions: { count: 12 },
    });
    expect(r.drift.filter((d) => d.field.startsWith('detail.'))).toEqual([]);
  });

  it('reads HAL: sub-resources under _embedded, a reactions total beside them', () => {
    const body = {
      id: 's2',
      status: 'LIVE',
      reactionsTotal: 9,
      _embedded: {
        questions: [
          { id: 'q1', text: 'Hello?' },
          { id: 'q2', text: 'Why?' },
        ],
        announcements: [],
        speakers: [{ id: 'sp1', name: 'Host' }],
      },
      _links: { self: { href: '/v1/o/sessions/s2' } },
    };
    const r = normalizeSessionDetail(readObject('session', body, {}), 's2', {});
    expect(r.value).toMatchObject({
      questions: { count: 2 },
      speakers: { count: 1, items: [{ id: 'sp1', text: 'Host' }] },
      announcements: { count: 0 },
      reactions: { count: 9 },
    });
    expect(r.drift.filter((d) => d.field.startsWith('detail.'))).toEqual([]);
  });

  it("a record's own field wins over an embedded one of the same name", () => {
    const r = normalizeSessionDetail({ id: 's3', questions: 4, _embedded: { questions: [] } }, 's3', {});
    expect(r.value.questions.count).toBe(4);
  });
});
