/**
 * The status page rendered from an in-memory source: what it shows, that filters and
 * paging work without JavaScript, that upstream strings are text and never markup, and
 * the headers that keep it so.
 */
import { describe, expect, it } from 'vitest';
import type { AlertView } from '../../src/alerts/engine.js';
import { Router } from '../../src/http/router.js';
import { STATUS_PAGE_CSS } from '../../src/http/status-page-assets.js';
import {
  addStatusPageRoutes,
  CHANNELS_PER_PAGE,
  parseQuery,
  type StatusPageDeps,
} from '../../src/http/status-page/index.js';
import type { StateView } from '../../src/poll/status.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { FakeSource, orgView, snapshot, testBudget, testPlan } from '../metrics/fixtures.js';

const AT = 1_700_000_000_000;
const HOSTILE = '<script>alert(1)</script>';

function source(channels = 3) {
  const list = Array.from({ length: channels }, (_, i) => ({
    id: `ch-${String(i).padStart(5, '0')}`,
    name: i === 1 ? HOSTILE : `Channel ${i}`,
    status: i === 0 ? 'on_air' : 'idle',
    visibility: 'public',
  }));
  const snap = snapshot({
    org: 'acme',
    at: AT,
    channels: list,
    sessions: {
      'ch-00000': [{ id: 's-live', status: 'live', title: 'Morning "show" <b>', startedAt: AT - 600_000 }],
      'ch-00002': [{ id: 's-next', status: 'scheduled', title: 'Later', scheduledAt: AT + 3_600_000 }],
    },
    details: {
      's-live': {
        speakers: {
          count: 2,
          items: [
            { id: 'u1', text: '<img src=x onerror=alert(2)>' },
            { id: 'u2', text: 'Bo' },
          ],
        },
      },
    },
  });
  const s = new FakeSource([
    orgView(snap, {
      drift: [
        {
          endpoint: 'channels',
          field: 'channel.status',
          reason: 'unknown_word',
          problem: 'unknown status word "<i>"',
          fatal: false,
          firstAt: AT,
          lastAt: AT,
          count: 1,
        },
      ],
    }),
  ]);
  s.log = [
    {
      id: 'e1',
      at: AT - 60_000,
      org: 'acme',
      kind: 'channel.status_changed',
      entity: { kind: 'channel', id: 'ch-00001' },
      from: 'idle',
      to: HOSTILE,
      labels: { channel: HOSTILE },
    },
  ];
  return s;
}

async function get(src: FakeSource, query = '', more: Partial<StatusPageDeps> = {}) {
  const router = new Router();
  addStatusPageRoutes(router, { source: src, version: '9.9.9', now: () => AT, ...more });
  const url = new URL(`http://x/${query}`);
  const m = router.match('GET', '/');
  if (m.kind !== 'found') throw new Error('no route');
  const reply = await m.handler({
    method: 'GET',
    url,
    params: {},
    query: url.searchParams,
    headers: {},
    req: undefined as never,
    json: async () => undefined as never,
  });
  return { headers: reply.headers ?? {}, body: String(reply.body) };
}

/** The text from `start` to the next `end` after it. */
function section(body: string, start: string, end: string): string {
  const i = body.indexOf(start);
  expect(i, `${start} in the page`).toBeGreaterThanOrEqual(0);
  const j = body.indexOf(end, i);
  return body.slice(i, j < 0 ? undefined : j + end.length);
}

/** The rows of the recent changes table. */
function eventRows(body: string) {
  const table = section(body, '<h2 id="events">', '</section>');
  return [
    ...table.matchAll(
      /<tr><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td><a href="([^"]*)">([^<]*)<\/a>/g,
    ),
  ].map((m) => ({ org: m[1], kind: m[2], href: m[3]!.replace(/&#38;/g, '&'), entity: m[4] }));
}

function event(id: string, org: string, channel: string, at: number): ChangeEvent {
  return {
    id,
    at,
    org,
    kind: 'channel.status_changed',
    entity: { kind: 'channel', id: channel },
    from: 'idle',
    to: 'on_air',
    labels: {},
  };
}

describe('the status page', () => {
  it('shows orgs, live channels with title, speakers and since when, upcoming sessions and changes', async () => {
    const { body } = await get(source());
    expect(body).toContain('<h2 id="overview">');
    expect(body).toContain('acme');
    expect(body).toContain('Morning &#34;show&#34; &#60;b&#62;');
    expect(body).toContain('since <time');
    expect(body).toContain('Bo');
    expect(body).toContain('next: <bdi>Later</bdi>');
    expect(body).toContain('channel.status_changed');
    expect(body).toContain('baseline');
    expect(body).toContain('unknown status word');
    // Live first.
    expect(body.indexOf('ch-00000')).toBeLessThan(body.indexOf('ch-00002'));
  });

  it('renders every upstream string as text, never as markup', async () => {
    const { body } = await get(source());
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<i>');
    expect(body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    // The only scripts are tally's own file.
    expect(body.match(/<script/g)).toEqual(['<script']);
    expect(body).toContain('<script src="-/status-page.js" defer></script>');
  });

  it('sends a policy that allows no inline script or style, and no caching', async () => {
    const { headers } = await get(source());
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['cache-control']).toBe('no-store');
  });

  it('filters by status and search text with plain GET parameters', async () => {
    const live = await get(source(), '?status=live');
    expect(live.body).toContain('ch-00000');
    expect(live.body).not.toContain('<code>ch-00002</code>');
    const search = await get(source(), '?q=channel%202');
    expect(search.body).toContain('<code>ch-00002</code>');
    expect(search.body).not.toContain('<code>ch-00000</code>');
    expect(search.body).toContain('value="channel 2"');
  });

  it('pages long channel lists, with links that keep the filters', async () => {
    const many = source(CHANNELS_PER_PAGE * 2 + 5);
    const first = await get(many, '?status=offline');
    expect(first.body).toContain('page 1 of 3');
    expect(first.body).toContain('href="./?status=offline&#38;page=2#channels"');
    const third = await get(many, '?status=offline&page=3');
    expect((third.body.match(/<tr class="offline">/g) ?? []).length).toBe(
      CHANNELS_PER_PAGE * 2 + 4 - 2 * CHANNELS_PER_PAGE,
    );
  });

  it('the fragment is the main part only, for the refresh without reload', async () => {
    const full = await get(source());
    const part = await get(source(), '?fragment=1');
    expect(part.body).not.toContain('<html');
    expect(full.body).toContain(part.body.trim().slice(0, 200));
  });

  it('shows channels whose ids are awkward for JavaScript objects', async () => {
    const snap = snapshot({
      org: 'acme',
      at: AT,
      channels: ['__proto__', 'constructor', 'toString'].map((id) => ({ id, name: id, status: 'idle' })),
    });
    const { body } = await get(new FakeSource([orgView(snap)]));
    for (const id of ['__proto__', 'constructor', 'toString']) expect(body).toContain(`<code>${id}</code>`);
    expect(body).toContain('0/3 channels');
  });

  it('shows the state directory: writable or not, events missing, the lock', async () => {
    const src = source();
    const state: StateView = {
      writable: false,
      failingPaths: ['outbox'],
      failures: { outbox: { disk_full: 3 } },
      lastError: {
        path: '/s/outbox/x.json',
        area: 'outbox',
        reason: 'disk_full',
        message: 'write failed: ENOSPC',
        at: AT,
      },
      eventLog: {
        highestSeq: 40,
        missingEvents: 12,
        missing: [{ from: 1, to: 12, reason: 'deleted', at: AT }],
      },
      lock: { held: true, lastHeartbeatAt: AT - 5000 },
    };
    Object.assign(src, { state: () => state });
    const { body } = await get(src);
    expect(body).toContain(
      'state directory cannot be written</span> (outbox: disk_full — write failed: ENOSPC)',
    );
    expect(body).toContain('12 logged events missing</span>: seq 1–12 (deleted)');
    state.writable = true;
    state.eventLog = { highestSeq: 40, missingEvents: 0, missing: [] };
    expect((await get(src)).body).toContain('<span class="ok">state directory writable</span>');
  });

  it('isolates right-to-left text and override characters in upstream names', async () => {
    const rlo = 'evil\u202Egnp.exe';
    const snap = snapshot({
      org: 'acme',
      at: AT,
      channels: [
        { id: 'c1', name: rlo, status: 'idle' },
        { id: 'c2', name: 'שלום', status: 'idle' },
      ],
    });
    const { body } = await get(new FakeSource([orgView(snap)]));
    // The name sits in its own isolate: an override in it ends there, before the id and the status.
    expect(body).toContain(`<bdi>${rlo}</bdi><br><code>c1</code>`);
    expect(body).toContain('<bdi>שלום</bdi>');
    expect(STATUS_PAGE_CSS).toContain('bdi,code,td,dd{unicode-bidi:isolate}');
  });

  it("shows each org's last success, last error, learned shape, budget use and planner bound", async () => {
    const src = source();
    src.views = [
      {
        ...src.views[0]!,
        health: {
          state: 'unreachable',
          lastSuccessAt: AT - 120_000,
          lastError: { reason: 'timeout', message: 'no answer in 10s <from upstream>' },
        },
        learned: { sessions: { perPage: 25, drop: ['status'] } },
      },
    ];
    src.currentBudget = testBudget({ usedLastMinute: 17, effective: 240 });
    src.currentPlan = testPlan({ sweepBoundMs: 900_000 });
    const { body } = await get(src);
    const card = section(body, '<article class="card" aria-label="org acme">', '</article>');
    expect(card).toContain('<span class="bad">unreachable</span>');
    expect(card).toMatch(
      /<dt>last success<\/dt><dd><time datetime="2023-11-14T22:11:20\.000Z"[^>]*>2m ago<\/time>/,
    );
    expect(card).toContain(
      '<dt>last error</dt><dd class="warn">timeout: no answer in 10s &#60;from upstream&#62;</dd>',
    );
    expect(card).toContain(
      '<dt>learned</dt><dd>sessions: {&#34;perPage&#34;:25,&#34;drop&#34;:[&#34;status&#34;]}</dd>',
    );
    expect(body).toContain('budget 17/240 requests in the last minute');
    expect(body).toContain("every channel's sessions read within 900s");
  });

  it('shows the limit learned for the address when it is below the configured budget', async () => {
    const src = source();
    src.currentBudget = testBudget({
      effective: 240,
      learned: { perMinute: 240, from: 'configured', decreases: 0 },
    });
    expect((await get(src)).body).not.toContain('configured (');
    src.currentBudget = testBudget({
      usedLastMinute: 90,
      effective: 97,
      learned: { perMinute: 97, from: 'refusals', loweredAt: AT - 5_000, decreases: 2 },
    });
    const { body } = await get(src);
    expect(body).toContain('budget 90/97 requests in the last minute');
    expect(body).toContain('<span class="warn">limit 97/min of 240 configured (learned from 429s)</span>');
  });

  it('lists what is scheduled soon, soonest first, with title, channel and org', async () => {
    const snap = snapshot({
      org: 'acme',
      at: AT,
      channels: [
        { id: 'c1', name: 'One', status: 'idle' },
        { id: 'c2', name: 'Two <i>', status: 'idle' },
      ],
      sessions: {
        c1: [
          { id: 's-late', status: 'scheduled', title: 'Evening', scheduledAt: AT + 5 * 3_600_000 },
          { id: 's-far', status: 'scheduled', title: 'Next week', scheduledAt: AT + 3 * 86_400_000 },
        ],
        c2: [{ id: 's-early', status: 'scheduled', title: 'Noon', scheduledAt: AT + 1_800_000 }],
      },
    });
    const { body } = await get(new FakeSource([orgView(snap)]));
    const soon = section(body, '<h2 id="soon">', '</section>');
    const items = [...soon.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    expect(items).toEqual(['in 30m · Noon on Two &#60;i&#62; (acme)', 'in 5h · Evening on One (acme)']);
    expect(soon).not.toContain('Next week');
  });

  it('filters channels, upcoming sessions and changes by org', async () => {
    const a = snapshot({
      org: 'acme',
      at: AT,
      channels: [{ id: 'a1', name: 'Acme one', status: 'idle' }],
      sessions: { a1: [{ id: 'sa', status: 'scheduled', title: 'Acme talk', scheduledAt: AT + 60_000 }] },
    });
    const b = snapshot({
      org: 'beta',
      at: AT,
      channels: [{ id: 'b1', name: 'Beta one', status: 'on_air' }],
      sessions: { b1: [{ id: 'sb', status: 'scheduled', title: 'Beta talk', scheduledAt: AT + 60_000 }] },
    });
    const src = new FakeSource([orgView(a), orgView(b)]);
    src.log = [event('e2', 'beta', 'b1', AT - 1000), event('e1', 'acme', 'a1', AT - 2000)];
    const all = await get(src);
    expect(all.body).toContain('<code>a1</code>');
    expect(all.body).toContain('<code>b1</code>');
    const beta = await get(src, '?org=beta');
    const channels = section(beta.body, '<table class="channels">', '</table>');
    expect(channels).toContain('<code>b1</code>');
    expect(channels).not.toContain('a1');
    const soon = section(beta.body, '<h2 id="soon">', '</section>');
    expect(soon).toContain('Beta talk');
    expect(soon).not.toContain('Acme talk');
    expect(eventRows(beta.body).map((r) => r.org)).toEqual(['beta']);
    expect(beta.body).toContain('<option selected>beta</option>');
    // Both event queries of the render (the list and the channels' last change) ask for beta only.
    expect(src.queries.slice(-2).map((q) => q.org)).toEqual(['beta', 'beta']);
    // Both org cards stay: the overview is of everything tally watches.
    expect(beta.body).toContain('aria-label="org acme"');
  });

  it('filters changes by kind and by entity, and asks the source for just those', async () => {
    const src = source();
    src.log = [
      { ...event('e3', 'acme', 'ch-00000', AT - 1000), kind: 'session.started' },
      event('e2', 'acme', 'ch-00002', AT - 2000),
      event('e1', 'acme', 'ch-00000', AT - 3000),
    ];
    const byKind = await get(src, '?kind=session.started');
    expect(eventRows(byKind.body).map((r) => r.kind)).toEqual(['session.started']);
    expect(src.queries.find((q) => q.kinds !== undefined)).toEqual({ limit: 50, kinds: ['session.started'] });
    expect(byKind.body).toContain('value="session.started"');
    expect(byKind.body).toContain('<a href="./#events">all changes</a>');

    const before = src.queries.length;
    const byEntity = await get(src, '?entity=ch-00000');
    expect(eventRows(byEntity.body).map((r) => r.kind)).toEqual([
      'session.started',
      'channel.status_changed',
    ]);
    expect(src.queries.slice(before)).toContainEqual({ limit: 50, entityId: 'ch-00000' });
    expect(byEntity.body).toContain('<h2 id="events">Recent changes of <code>ch-00000</code></h2>');

    const both = await get(src, '?org=acme&kind=channel.status_changed&entity=ch-00002');
    expect(eventRows(both.body).map((r) => r.entity)).toEqual(['ch-00002']);
    expect(src.queries.at(-2)).toEqual({
      limit: 50,
      org: 'acme',
      entityId: 'ch-00002',
      kinds: ['channel.status_changed'],
    });
  });

  it("links every change and every channel to that entity's history", async () => {
    const { body } = await get(source());
    // The change of ch-00001 in the events table.
    expect(eventRows(body)[0]!.href).toBe('./?entity=ch-00001#events');
    // The channel table: the channel with a change links its kind, the others "history".
    const channels = section(body, '<table class="channels">', '</table>');
    expect(channels).toContain('<a href="./?entity=ch-00001#events">channel.status_changed</a>');
    expect(channels).toContain('<a href="./?entity=ch-00002#events">history</a>');
  });

  it('lists the channels that changed last, newest first, with kind, time and a link to their history', async () => {
    const src = source(14);
    src.log = [
      // A session event counts for its channel.
      {
        id: 's1',
        at: AT - 30_000,
        org: 'acme',
        kind: 'session.started',
        entity: { kind: 'session', id: 's-live' },
        labels: { channel_id: 'ch-00000', session: 'Morning' },
      },
      event('e13', 'acme', 'ch-00003', AT - 60_000),
      // Only the newest change of a channel is listed.
      event('e12', 'acme', 'ch-00000', AT - 90_000),
      ...Array.from({ length: 11 }, (_, i) =>
        event(`e${i}`, 'acme', `ch-${String(i + 4).padStart(5, '0')}`, AT - 2 * 3_600_000 - i * 60_000),
      ),
    ];
    const { body } = await get(src);
    const part = section(body, '<h2 id="changed">', '</section>');
    const items = [...part.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]!);
    expect(items).toHaveLength(10);
    expect(items[0]).toBe(
      '<time datetime="2023-11-14T22:12:50.000Z" title="2023-11-14T22:12:50.000Z">30s ago</time> · <a href="./?entity=ch-00000#events"><bdi>Channel 0</bdi></a> <code>ch-00000</code> · session.started <span class="muted">(acme)</span>',
    );
    expect(items[1]).toContain(
      '<a href="./?entity=ch-00003#events"><bdi>Channel 3</bdi></a> <code>ch-00003</code> · channel.status_changed → <bdi>on_air</bdi>',
    );
    expect(items[1]).toContain('>60s ago</time>');
    expect(items.slice(2).map((i) => /<code>([^<]+)<\/code>/.exec(i)?.[1])).toEqual(
      ['04', '05', '06', '07', '08', '09', '10', '11'].map((n) => `ch-000${n}`),
    );
    expect(part).toContain('<a href="./?status=changed#channels">2 channels changed in the last hour</a>');
  });

  it('filters the channel table to the channels changed in the last hour, newest change first', async () => {
    const src = source(6);
    src.log = [
      event('e3', 'acme', 'ch-00004', AT - 60_000),
      event('e2', 'acme', 'ch-00001', AT - 120_000),
      event('e1', 'acme', 'ch-00005', AT - 2 * 3_600_000),
    ];
    const { body } = await get(src, '?status=changed');
    const channels = section(body, '<table class="channels">', '</table>');
    expect([...channels.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1])).toEqual([
      'ch-00004',
      'ch-00001',
    ]);
    expect(body).toContain('2 channels changed in the last hour, newest change first');
    expect(body).toContain('<option selected>changed</option>');
    // Another org's change of the same channel id does not count.
    const other = source(6);
    other.log = [event('x1', 'elsewhere', 'ch-00002', AT - 1000)];
    const none = await get(other, '?status=changed');
    expect(none.body).toContain('<p>0 channels changed in the last hour');
    expect(section(none.body, '<table class="channels">', '</table>')).not.toContain('<code>');
  });

  it('shows firing and pending alerts, silences, maintenance windows, the outbox backlog and failing receivers', async () => {
    const alert = (over: Partial<AlertView>): AlertView => ({
      fingerprint: 'f',
      labels: { alertname: 'ChannelLive', org: 'acme' },
      annotations: { summary: 'a summary' },
      state: 'firing',
      activeAt: AT - 300_000,
      rule: 'channel_live',
      receivers: ['ops'],
      silenced_by: [],
      inhibited_by: [],
      ...over,
    });
    const alerts = [
      alert({ fingerprint: 'f1', startsAt: AT - 120_000, annotations: { summary: `${HOSTILE} is live` } }),
      alert({
        fingerprint: 'f2',
        state: 'pending',
        labels: { alertname: 'UpstreamDown', org: 'acme' },
        annotations: { summary: 'upstream down' },
        silenced_by: ['sil-1'],
      }),
      alert({ fingerprint: 'f3', state: 'resolved', labels: { alertname: 'OldNews' } }),
    ];
    const silences = [
      {
        id: 'sil-1',
        matchers: ['org="acme"'],
        status: 'active' as const,
        starts_at: '2023-11-14T00:00:00.000Z',
        ends_at: '2023-11-15T00:00:00.000Z',
        created_by: 'ops',
        comment: 'deploy <b>',
        created_at: '2023-11-14T00:00:00.000Z',
        updated_at: '2023-11-14T00:00:00.000Z',
        source: 'api' as const,
      },
      {
        id: 'sil-0',
        matchers: ['org="gone"'],
        status: 'expired' as const,
        starts_at: '2023-11-01T00:00:00.000Z',
        ends_at: '2023-11-02T00:00:00.000Z',
        created_by: 'ops',
        comment: 'long over',
        created_at: '2023-11-01T00:00:00.000Z',
        updated_at: '2023-11-01T00:00:00.000Z',
        source: 'api' as const,
      },
    ];
    const maintenance = [
      { name: 'nightly', matchers: [], active: true, ends_at: '2023-11-14T23:00:00.000Z' },
      { name: 'sunday', matchers: [], active: false, starts_at: '2023-11-19T02:00:00.000Z' },
    ];
    const { body } = await get(source(), '', {
      alerts: async () => ({
        alerts: () => alerts,
        silences: () => silences,
        maintenance: () => maintenance,
      }),
      outbox: () => ({
        receivers: () => [
          { name: 'ops', depth: 3, oldestAgeMs: 120_000 },
          { name: 'team', depth: 0, oldestAgeMs: 0 },
        ],
        failing: () => [
          { receiver: 'ops', attempts: 4, lastError: 'HTTP 503 <html>', createdAt: AT - 60_000 },
        ],
      }),
    });
    const part = section(body, '<h2 id="alerts">', '</section>');
    const rows = [...part.matchAll(/<tr><td><span class="badge (\w+)">(\w+)<\/span><\/td><td>(\w+)/g)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]}`,
    );
    expect(rows).toEqual(['bad firing ChannelLive', 'warn pending UpstreamDown']);
    expect(part).toContain('&#60;script&#62;alert(1)&#60;/script&#62; is live');
    expect(part).toContain('<td>sil-1</td>');
    expect(part).not.toContain('OldNews');
    expect(part).toContain(
      '<li>active: [&#34;org=\\&#34;acme\\&#34;&#34;] until 2023-11-15T00:00:00.000Z — deploy &#60;b&#62;</li>',
    );
    expect(part).not.toContain('long over');
    expect(part).toContain('<li>nightly: <strong>open</strong> until 2023-11-14T23:00:00.000Z</li>');
    expect(part).toContain('<li>sunday: next 2023-11-19T02:00:00.000Z</li>');
    expect(part).toContain('<li>ops: <span class="warn">3 waiting, oldest 2m ago</span></li>');
    expect(part).toContain('<li>team: <span class="ok">empty</span></li>');
    expect(part).toContain(
      '<p class="bad">failing deliveries:</p><ul><li>ops, 4 attempts: HTTP 503 &#60;html&#62;</li></ul>',
    );
  });

  it('says so when no alerting is configured, or when nothing fires', async () => {
    const none = await get(source());
    expect(section(none.body, '<h2 id="alerts">', '</section>')).toContain('no alert rules configured');
    const quiet = await get(source(), '', {
      alerts: async () => ({ alerts: () => [], silences: () => [], maintenance: () => [] }),
    });
    const part = section(quiet.body, '<h2 id="alerts">', '</section>');
    expect(part).toContain('nothing firing or pending');
    expect(part).toContain('no receivers');
  });

  it('sets the refresh interval on the page, 10 s unless ?refresh= says otherwise, and offers to stop it', async () => {
    const plain = await get(source());
    expect(plain.body).toContain('<html lang="en" data-refresh="10000">');
    expect(plain.body).toContain('auto-refresh every 10s (<a href="./?refresh=0">stop</a>)');
    // The main part is not a live region: a screen reader would read it all every refresh.
    expect(plain.body).toContain('<main id="main" tabindex="-1">');
    expect(plain.body).not.toContain('aria-live');

    const fast = await get(source(), '?refresh=2&status=live');
    expect(fast.body).toContain('data-refresh="2000"');
    expect(fast.body).toContain('auto-refresh every 2s (<a href="./?status=live&#38;refresh=0">stop</a>)');
    // Links and both filter forms keep the interval.
    expect(fast.body).toContain('href="./?entity=ch-00001&#38;refresh=2#events"');
    expect(fast.body.match(/<input type="hidden" name="refresh" value="2">/g)).toHaveLength(2);

    const off = await get(source(), '?refresh=0&q=x');
    expect(off.body).toContain('data-refresh="0"');
    expect(off.body).toContain('auto-refresh off (<a href="./?q=x">turn on</a>)');
    expect(off.body).toContain('href="./?status=changed&#38;refresh=0#channels"');
  });

  it('ignores malformed filters instead of failing', () => {
    for (const bad of ['refresh=-1', 'refresh=1.5', 'refresh=x', 'refresh=99999', 'refresh=10'])
      expect(parseQuery(new URLSearchParams(bad))).toEqual({ page: 1 });
    expect(parseQuery(new URLSearchParams('refresh=0')).refresh).toBe(0);
    expect(parseQuery(new URLSearchParams('page=-3&status=<x>&q='))).toEqual({ page: 1 });
    expect(parseQuery(new URLSearchParams('status=changed')).status).toBe('changed');
    expect(parseQuery(new URLSearchParams('page=2&status=live&org=acme'))).toEqual({
      page: 2,
      status: 'live',
      org: 'acme',
    });
  });
});
