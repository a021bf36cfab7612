/**
 * The status page rendered from an in-memory source: what it shows, that filters and
 * paging work without JavaScript, that upstream strings are text and never markup, and
 * the headers that keep it so.
 */
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/http/router.js';
import { addStatusPageRoutes, CHANNELS_PER_PAGE, parseQuery } from '../../src/http/status-page.js';
import { FakeSource, orgView, snapshot } from '../metrics/fixtures.js';

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

async function get(src: FakeSource, query = '') {
  const router = new Router();
  addStatusPageRoutes(router, { source: src, version: '9.9.9', now: () => AT });
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

describe('the status page', () => {
  it('shows orgs, live channels with title, speakers and since when, upcoming sessions and changes', async () => {
    const { body } = await get(source());
    expect(body).toContain('<h2 id="overview">');
    expect(body).toContain('acme');
    expect(body).toContain('Morning &#34;show&#34; &#60;b&#62;');
    expect(body).toContain('since <time');
    expect(body).toContain('Bo');
    expect(body).toContain('next: Later');
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

  it('ignores malformed filters instead of failing', () => {
    expect(parseQuery(new URLSearchParams('page=-3&status=<x>&q='))).toEqual({ page: 1 });
    expect(parseQuery(new URLSearchParams('page=2&status=live&org=acme'))).toEqual({
      page: 2,
      status: 'live',
      org: 'acme',
    });
  });
});
