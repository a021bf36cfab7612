import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot, type Part, type SessionDetail } from '../../src/snapshot/model.js';
import type { UpstreamObserver } from '../../src/upstream/observer.js';
import { REPROBE_MS } from '../../src/upstream/sub-resource-reader.js';
import { ManualClock } from '../helpers/clock.js';
import { json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-SECRET-sub-7d1e';
const ACME = { slug: 'acme', token: TOKEN };
const { serve, client } = loopbackSuite({ secret: TOKEN });

const DETAIL = '/v1/acme/sessions/s1';
const QUESTIONS = Array.from({ length: 14 }, (_, i) => ({ id: `q${i + 1}`, text: `Question ${i + 1}` }));
const SPEAKERS = Array.from({ length: 6 }, (_, i) => ({ id: `sp${i + 1}`, name: `Speaker ${i + 1}` }));
const REACTIONS = { total: 9, by_kind: { clap: 9 } };
const AI = { status: 'idle', enabled: true };
const CORE = { id: 's1', title: 'Talk', status: 'live', channel_id: 'c1' };

type Route = (url: URL) => unknown;

/** A server answering `routes` by path (404 otherwise); `url` is what the route sees. */
async function server(routes: Record<string, Route>) {
  return serve((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = routes[url.pathname];
    const body = route?.(url);
    if (body === undefined) return json(res, 404, { error: 'not found' });
    json(res, 200, body);
  });
}

/** A client whose drift is collected. */
function reader(origin: string, clock?: ManualClock) {
  const drift: string[] = [];
  const observer: UpstreamObserver = {
    onDrift: (i) => drift.push(`${i.endpoint} ${i.field}: ${i.problem}`),
  };
  const c = client(origin, { observer, ...(clock ? { clock } : {}) });
  return { c, drift };
}

async function detailOf(c: ReturnType<typeof client>): Promise<SessionDetail> {
  const part = await c.fetchSessionDetail(ACME, 's1');
  if (part.state !== 'complete') throw new Error(`detail not read: ${part.error.message}`);
  return part.value;
}

const counts = (d: SessionDetail) => ({
  questions: d.questions.count,
  speakers: d.speakers.count,
  reactions: d.reactions.count,
  ai: d.ai,
  unread: d.unread,
});

const SUBS: Record<string, Route> = {
  '/v1/acme/sessions/s1/questions': () => ({ data: QUESTIONS, meta: { total: 14 } }),
  '/v1/acme/sessions/s1/speakers': () => SPEAKERS,
  '/v1/acme/sessions/s1/reactions': () => REACTIONS,
  '/v1/acme/sessions/s1/ai': () => AI,
  '/v1/acme/sessions/s1/announcements': () => ({ items: [], total: 0 }),
};
const ALL_READ = { questions: 14, speakers: 6, reactions: 9, ai: AI, unread: undefined };

describe('sub-resources behind links in the detail (docs/upstream-shapes.md, "Session detail")', () => {
  const styles: [string, (origin: string) => Record<string, unknown>][] = [
    [
      'HAL _links.*.href',
      () => ({
        ...CORE,
        _links: Object.fromEntries(Object.keys(SUBS).map((p) => [p.split('/').pop(), { href: p }])),
      }),
    ],
    [
      '*_url, absolute',
      (origin) =>
        Object.fromEntries([
          ...Object.entries(CORE),
          ...Object.keys(SUBS).map((p) => [`${p.split('/').pop()}_url`, `${origin}${p}`]),
        ]),
    ],
    [
      'links.* as strings, relative to the detail',
      () => ({
        ...CORE,
        links: Object.fromEntries(
          Object.keys(SUBS).map((p) => [p.split('/').pop(), `s1/${p.split('/').pop()}`]),
        ),
      }),
    ],
    [
      'JSON:API relationships.*.links.related',
      () => ({
        data: {
          type: 'sessions',
          id: 's1',
          attributes: { title: 'Talk', status: 'live' },
          relationships: Object.fromEntries(
            Object.keys(SUBS).map((p) => [p.split('/').pop(), { links: { related: p } }]),
          ),
        },
      }),
    ],
    [
      'OData *@odata.navigationLink',
      () =>
        Object.fromEntries([
          ...Object.entries(CORE),
          ...Object.keys(SUBS).map((p) => [`${p.split('/').pop()}@odata.navigationLink`, p]),
        ]),
    ],
  ];

  it.each(styles)('%s: read there, counted right, no drift', async (_name, body) => {
    const s = await server({ [DETAIL]: () => body(s.origin), ...SUBS });
    const { c, drift } = reader(s.origin);
    expect(counts(await detailOf(c))).toEqual(ALL_READ);
    expect(drift).toEqual([]);
    // One request for the detail and one per sub-resource: no probing when links say where.
    expect(s.received[0]?.url).toBe(DETAIL);
    expect(s.received).toHaveLength(1 + 5);
  });

  it('a link to another origin is refused: nothing is sent there, the sub-resource is unread, not 0', async () => {
    const other = await server({ '/steal/questions': () => QUESTIONS });
    const s = await server({
      [DETAIL]: () => ({
        ...CORE,
        speakers: SPEAKERS,
        reactions: REACTIONS,
        ai: AI,
        announcements: [],
        _links: { questions: { href: `${other.origin}/steal/questions` } },
      }),
    });
    const { c, drift } = reader(s.origin);
    const d = await detailOf(c);
    expect(d.unread).toEqual(['questions']);
    expect(other.received).toEqual([]);
    expect(drift).toEqual([
      'session detail.questions: its link leads to another origin; not followed (the token stays with the API)',
    ]);
    // Nor is the session's own path probed for a sub-resource the detail links elsewhere.
    expect(s.received).toHaveLength(1);
  });

  it('a link that answers 404 leaves the sub-resource unread, never 0', async () => {
    const s = await server({
      [DETAIL]: () => ({
        ...CORE,
        speakers: SPEAKERS,
        reactions: REACTIONS,
        ai: AI,
        announcements: [],
        questions_url: '/gone',
      }),
    });
    const { c, drift } = reader(s.origin);
    const d = await detailOf(c);
    expect(d.unread).toEqual(['questions']);
    expect(drift).toEqual([
      'session detail.questions: its link in the detail could not be read; unknown (not counted as 0)',
    ]);
  });
});

describe('sub-resources on their own paths and on request, probed once per org and remembered', () => {
  it('own paths: probed on the first read, then read straight away', async () => {
    const s = await server({ [DETAIL]: () => CORE, ...SUBS });
    const { c, drift } = reader(s.origin);
    expect(counts(await detailOf(c))).toEqual(ALL_READ);
    expect(drift).toEqual([]);
    const first = s.received.length;
    expect(first).toBe(1 + 5);
    expect(counts(await detailOf(c))).toEqual(ALL_READ);
    expect(s.received.length - first).toBe(1 + 5);
  });

  it.each([
    ['include', 'include', (u: URL) => (u.searchParams.get('include') ?? '').split(',')],
    ['$expand', '$expand', (u: URL) => (u.searchParams.get('$expand') ?? '').split(',')],
    ['expand[]', 'expand[]', (u: URL) => u.searchParams.getAll('expand[]')],
    ['expand', 'expand', (u: URL) => (u.searchParams.get('expand') ?? '').split(',')],
    ['embed', 'embed', (u: URL) => (u.searchParams.get('embed') ?? '').split(',')],
  ])('expansion by %s: learned once, then asked for directly', async (_name, param, asked) => {
    const full: Record<string, unknown> = {
      questions: QUESTIONS,
      speakers: SPEAKERS,
      reactions: REACTIONS,
      ai: AI,
      announcements: [],
    };
    const s = await server({
      [DETAIL]: (u) => ({
        ...CORE,
        ...Object.fromEntries(
          asked(u)
            .filter((n) => n in full)
            .map((n) => [n, full[n]]),
        ),
      }),
    });
    const { c, drift } = reader(s.origin);
    expect(counts(await detailOf(c))).toEqual(ALL_READ);
    expect(drift).toEqual([]);
    const first = s.received.length;
    expect(counts(await detailOf(c))).toEqual(ALL_READ);
    // The detail, then the detail with every sub-resource expanded: no probe again.
    const again = s.received.slice(first).map((r) => new URL(r.url, 'http://x'));
    expect(again).toHaveLength(2);
    expect(again[1]!.searchParams.has(param)).toBe(true);
  });

  it('details read side by side: the org is probed once, the others use what it learned', async () => {
    const full: Record<string, unknown> = {
      questions: QUESTIONS,
      speakers: SPEAKERS,
      reactions: REACTIONS,
      ai: AI,
      announcements: [],
    };
    const detail = (id: string) => (u: URL) => {
      const asked = (u.searchParams.get('include') ?? '').split(',').filter((n) => n in full);
      return { ...CORE, id, ...Object.fromEntries(asked.map((n) => [n, full[n]])) };
    };
    const s = await server({
      '/v1/acme/sessions/s1': detail('s1'),
      '/v1/acme/sessions/s2': detail('s2'),
      '/v1/acme/sessions/s3': detail('s3'),
    });
    const { c, drift } = reader(s.origin);
    const parts = await Promise.all(['s1', 's2', 's3'].map((id) => c.fetchSessionDetail(ACME, id)));
    for (const part of parts) expect(part.state === 'complete' && part.value.questions.count).toBe(14);
    expect(drift).toEqual([]);
    // One probe: 3 details, 5 own paths (404), the expansion; then 2 × (detail, expansion).
    expect(s.received).toHaveLength(3 + 5 + 1 + 2);
  });

  it('404 everywhere: unread, reported, not 0; not probed again for an hour, then probed again', async () => {
    const clock = new ManualClock();
    const s = await server({
      [DETAIL]: () => ({ ...CORE, speakers: SPEAKERS, reactions: REACTIONS, ai: AI, announcements: [] }),
    });
    const { c, drift } = reader(s.origin, clock);
    const d = await detailOf(c);
    expect(d.unread).toEqual(['questions']);
    expect(d.questions).toEqual({ count: 0, items: [] });
    expect(drift).toEqual([
      'session detail.questions: not in the detail, behind a link, on request or on its own path; unknown (not counted as 0)',
    ]);
    const probes = s.received.length - 1;
    // The own path and each expansion style, once.
    expect(probes).toBe(1 + 5);
    await detailOf(c);
    expect(s.received.length).toBe(1 + probes + 1);
    clock.advance(REPROBE_MS);
    await detailOf(c);
    expect(s.received.length).toBe(1 + probes + 1 + 1 + probes);
  });

  it('JSON:API include: the included resources give the questions their text', async () => {
    const resource = (u: URL) => {
      const asked = u.searchParams.get('include')?.split(',') ?? [];
      const rel = (name: string, items: { id: string }[]) =>
        asked.includes(name) ? { [name]: { data: items.map((i) => ({ type: name, id: i.id })) } } : {};
      return {
        data: {
          type: 'sessions',
          id: 's1',
          attributes: { title: 'Talk', status: 'live', reactions: REACTIONS, ai: AI, announcements: [] },
          relationships: { ...rel('questions', QUESTIONS), ...rel('speakers', SPEAKERS) },
        },
        ...(asked.length > 0
          ? {
              included: [
                ...QUESTIONS.filter(() => asked.includes('questions')).map((q) => ({
                  type: 'questions',
                  id: q.id,
                  attributes: { text: q.text },
                })),
                ...SPEAKERS.filter(() => asked.includes('speakers')).map((sp) => ({
                  type: 'speakers',
                  id: sp.id,
                  attributes: { name: sp.name },
                })),
              ],
            }
          : {}),
      };
    };
    const s = await server({ [DETAIL]: resource });
    const { c, drift } = reader(s.origin);
    const d = await detailOf(c);
    expect(counts(d)).toEqual(ALL_READ);
    expect(d.questions.items[13]).toEqual({ id: 'q14', text: 'Question 14' });
    expect(d.speakers.items[0]).toEqual({ id: 'sp1', text: 'Speaker 1' });
    expect(drift).toEqual([]);
  });

  it('drift in a sub-resource read on its own path is reported, that of the session around it is not', async () => {
    const s = await server({
      [DETAIL]: () => ({ ...CORE, speakers: SPEAKERS, reactions: REACTIONS, ai: AI, announcements: [] }),
      '/v1/acme/sessions/s1/questions': () => [...QUESTIONS, { colour: 'no id, text or time' }],
    });
    const { c, drift } = reader(s.origin);
    expect((await detailOf(c)).questions.count).toBe(14);
    expect(drift).toEqual(['session question.id: item [14] has no usable id; skipped']);
  });

  it('--explain is told where each sub-resource was read', async () => {
    const s = await server({
      [DETAIL]: (u) => (u.searchParams.get('include') ? { ...CORE, ai: AI } : CORE),
      ...SUBS,
      '/v1/acme/sessions/s1/ai': () => undefined,
    });
    const seen: string[] = [];
    const trace = {
      field: (_e: string, key: string, path: string, how: string | undefined) => {
        if (how !== undefined && key.startsWith('detail.')) seen.push(`${key} ${path} ${how}`);
      },
      keys: () => {},
      page: () => {},
    };
    const c = client(s.origin, { shape: { trace } });
    await detailOf(c);
    expect(seen).toEqual(
      expect.arrayContaining(['detail.questions  on its own path', 'detail.ai ai expanded by include']),
    );
  });

  it('a way that stops working is forgotten and relearned', async () => {
    let mode: 'path' | 'include' = 'path';
    const s = await server({
      [DETAIL]: (u) =>
        mode === 'include' && u.searchParams.get('include') === 'questions'
          ? { ...CORE, questions: QUESTIONS }
          : CORE,
      '/v1/acme/sessions/s1/questions': () => (mode === 'path' ? QUESTIONS : undefined),
      ...Object.fromEntries(Object.entries(SUBS).filter(([p]) => !p.endsWith('/questions'))),
    });
    const { c } = reader(s.origin);
    expect((await detailOf(c)).questions.count).toBe(14);
    mode = 'include';
    // The learned path answers 404: forgotten, and the same read probes again and learns
    // the expansion, so the questions are never taken for 0.
    expect((await detailOf(c)).questions.count).toBe(14);
    const relearned = s.received.length;
    expect((await detailOf(c)).questions.count).toBe(14);
    // From then on: the detail and the four own paths still served, then the expansion.
    expect(s.received.length - relearned).toBe(1 + 4 + 1);
    const last = new URL(s.received.at(-1)!.url, 'http://x');
    expect(last.pathname).toBe(DETAIL);
    expect(last.searchParams.get('include')).toBe('questions');
  });

  it('sub-resource requests go through the one budget: none beyond it', async () => {
    const clock = new ManualClock();
    const s = await server({ [DETAIL]: () => CORE, ...SUBS });
    const c = client(s.origin, { clock, budgetPerMinute: 4 });
    const reading = c.fetchSessionDetail(ACME, 's1');
    await until(() => s.received.length >= 4);
    await new Promise((r) => setTimeout(r, 50));
    // The detail and three probes; the rest wait for the window to move.
    expect(s.received).toHaveLength(4);
    expect(c.budget.stats().usedLastMinute).toBe(4);
    for (let i = 0; i < 10 && s.received.length < 6; i++) {
      clock.advance(61_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    const part = await reading;
    expect(part.state === 'complete' && counts(part.value)).toEqual(ALL_READ);
  });
});

/** Waits (real time, at most 2 s) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

describe('news from sub-resources behind links', () => {
  it('a question added behind a HAL link is reported once, and nothing else', async () => {
    const questions = [...QUESTIONS];
    const s = await server({
      [DETAIL]: () => ({
        ...CORE,
        _links: {
          questions: { href: `${DETAIL}/questions` },
          speakers: { href: `${DETAIL}/speakers` },
        },
        reactions: REACTIONS,
        ai: AI,
        announcements: [],
      }),
      [`${DETAIL}/questions`]: () => ({ _embedded: { questions }, total: questions.length }),
      [`${DETAIL}/speakers`]: () => SPEAKERS,
    });
    const { c, drift } = reader(s.origin);
    const snap = (part: Part<SessionDetail>, at: number) => ({
      ...emptySnapshot('acme', at),
      details: { s1: part },
    });
    const before = await c.fetchSessionDetail(ACME, 's1');
    expect(before.state === 'complete' && counts(before.value)).toEqual({
      questions: 14,
      speakers: 6,
      reactions: 9,
      ai: AI,
      unread: undefined,
    });
    questions.push({ id: 'q15', text: 'And the new one?' });
    const after = await c.fetchSessionDetail(ACME, 's1');
    const events = diff(snap(before, 1), snap(after, 2));
    expect(events.map((e) => [e.kind, e.to])).toEqual([['session.question_added', 'And the new one?']]);
    expect(drift).toEqual([]);
  });
});
