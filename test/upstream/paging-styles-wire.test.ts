/**
 * Paging in the documented style of widely used public APIs, one loopback server each,
 * written from that API's documentation (cited beside it): tally reads every list whole
 * with no paging configured. Keyset paging (Stripe) has its own file,
 * paging-keyset.test.ts. Records carry their fields at the top level: reading fields is
 * not what these servers test.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import type { UpstreamClientOptions } from '../../src/upstream/client.js';
import { TEACH_AT_ONCE } from '../../src/upstream/query/evidence.js';
import { json, loopbackSuite } from './loopback.js';

const ORG = { slug: 'acme', token: 'tok-styles-90be' };
const { serve, client } = loopbackSuite({ secret: ORG.token });

const ALL = Array.from({ length: 7 }, (_, i) => ({
  id: `c${i + 1}`,
  name: `Channel ${i + 1}`,
  status: 'idle',
  visibility: 'public',
}));
const SIZE = 3;

type Handler = (req: IncomingMessage, res: ServerResponse, origin: string) => void;
interface Style {
  name: string;
  handler: Handler;
  over?: Partial<UpstreamClientOptions>;
}

const q = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://x').searchParams;
const int = (v: string | null, d: number) => (v === null || v === '' ? d : Number(v));
const slice = (from: number) => ALL.slice(from, from + SIZE);
const more = (from: number) => from + SIZE < ALL.length;
const token = (n: number) => Buffer.from(`o:${n}`).toString('base64url');
const untoken = (t: string | null) =>
  t === null ? 0 : Number(Buffer.from(t, 'base64url').toString().slice(2));

const STYLES: Style[] = [
  {
    // Django REST framework, PageNumberPagination: https://www.django-rest-framework.org/api-guide/pagination/
    name: 'next URL in the body (count, next, previous, results)',
    handler: (req, res, origin) => {
      const page = int(q(req).get('page'), 1);
      const from = (page - 1) * SIZE;
      const url = (p: number) => `${origin}/v1/acme/channels?page=${p}`;
      json(res, 200, {
        count: ALL.length,
        next: more(from) ? url(page + 1) : null,
        previous: page > 1 ? url(page - 1) : null,
        results: slice(from),
      });
    },
  },
  {
    // JSON:API, https://jsonapi.org/format/#fetching-pagination: links.next, absent on the last page.
    name: 'links.next (JSON:API)',
    handler: (req, res) => {
      const n = int(q(req).get('page[number]'), 1);
      const from = (n - 1) * SIZE;
      const link = (p: number) => `/v1/acme/channels?page%5Bnumber%5D=${p}&page%5Bsize%5D=${SIZE}`;
      json(res, 200, {
        data: slice(from).map(({ id, ...attributes }) => ({ type: 'channels', id, attributes })),
        links: { self: link(n), first: link(1), last: link(3), ...(more(from) ? { next: link(n + 1) } : {}) },
      });
    },
  },
  {
    // HAL as Spring Data REST writes it (0-based page, _links.next.href):
    // https://docs.spring.io/spring-data/rest/reference/paging-and-sorting.html
    name: '_links.next.href (HAL)',
    handler: (req, res, origin) => {
      const n = int(q(req).get('page'), 0);
      const from = n * SIZE;
      const href = (p: number) => ({ href: `${origin}/v1/acme/channels?page=${p}&size=${SIZE}` });
      json(res, 200, {
        _embedded: { channels: slice(from) },
        _links: { self: href(n), ...(more(from) ? { next: href(n + 1) } : {}) },
        page: { size: SIZE, totalElements: ALL.length, totalPages: 3, number: n },
      });
    },
  },
  {
    // Microsoft Graph: @odata.nextLink holding a $skiptoken, followed as is:
    // https://learn.microsoft.com/en-us/graph/paging
    name: '@odata.nextLink with $skiptoken (OData v4)',
    // Where the list is (OData's `value`) is the envelope reader's business, not this test's.
    over: { shape: { envelope: { channels: 'value' } } },
    handler: (req, res, origin) => {
      const from = untoken(q(req).get('$skiptoken'));
      json(res, 200, {
        '@odata.context': `${origin}/v1/$metadata#channels`,
        value: slice(from),
        ...(more(from)
          ? { '@odata.nextLink': `${origin}/v1/acme/channels?$skiptoken=${token(from + SIZE)}` }
          : {}),
      });
    },
  },
  {
    // Salesforce query: done + nextRecordsUrl (a locator path):
    // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query_more_results.htm
    name: 'nextRecordsUrl + done:false (Salesforce)',
    handler: (req, res) => {
      const m = /\/query\/01gQL-(\d+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      const from = m === null ? 0 : Number(m[1]);
      json(res, 200, {
        totalSize: ALL.length,
        done: !more(from),
        ...(more(from) ? { nextRecordsUrl: `/v1/acme/channels/query/01gQL-${from + SIZE}` } : {}),
        records: slice(from),
      });
    },
  },
  {
    // HubSpot CRM: paging.next.after and paging.next.link, no paging object on the last page:
    // https://developers.hubspot.com/docs/api/crm/understanding-the-crm (paging)
    name: 'paging.next.link / after (HubSpot)',
    handler: (req, res) => {
      const from = int(q(req).get('after'), 0);
      const after = String(from + SIZE);
      json(res, 200, {
        results: slice(from),
        ...(more(from) ? { paging: { next: { after, link: `?after=${after}&limit=${SIZE}` } } } : {}),
      });
    },
  },
  {
    // Twilio 2010 API: next_page_uri with Page, PageSize, PageToken; null on the last page:
    // https://developer.signalwire.com/compatibility-api/rest/overview/paging (Twilio-compatible)
    name: 'next_page_uri (Twilio)',
    handler: (req, res) => {
      const page = int(q(req).get('Page'), 0);
      const from = untoken(q(req).get('PageToken'));
      const uri = (p: number, t?: string) =>
        `/v1/acme/channels?Page=${p}&PageSize=${SIZE}${t === undefined ? '' : `&PageToken=${t}`}`;
      json(res, 200, {
        channels: slice(from),
        page,
        page_size: SIZE,
        uri: uri(page),
        first_page_uri: uri(0),
        next_page_uri: more(from) ? uri(page + 1, token(from + SIZE)) : null,
        previous_page_uri: null,
      });
    },
  },
  {
    // Twilio's newer (v1/v2 domain) APIs: the paging under `meta`, `next_page_url` absolute
    // and null on the last page, `key` naming the list:
    // https://www.twilio.com/docs/conversations/api/conversation-resource
    name: 'meta.next_page_url (Twilio Conversations)',
    handler: (req, res, origin) => {
      const page = int(q(req).get('Page'), 0);
      const from = untoken(q(req).get('PageToken'));
      const url = (p: number, t?: string) =>
        `${origin}/v1/acme/channels?PageSize=${SIZE}&Page=${p}${t === undefined ? '' : `&PageToken=${t}`}`;
      json(res, 200, {
        conversations: slice(from),
        meta: {
          page,
          page_size: SIZE,
          first_page_url: url(0),
          previous_page_url: page > 0 ? url(page - 1) : null,
          url: url(page),
          next_page_url: more(from) ? url(page + 1, token(from + SIZE)) : null,
          key: 'conversations',
        },
      });
    },
  },
  {
    // X API v2: `meta.next_token` (absent on the last page), taken back as
    // `pagination_token`; an unknown query parameter is refused, naming those it takes:
    // https://docs.x.com/x-api/fundamentals/pagination
    name: 'meta.next_token → pagination_token (X API v2)',
    handler: (req, res) => {
      const known = ['max_results', 'pagination_token'];
      const unknown = [...q(req).keys()].filter((k) => !known.includes(k));
      if (unknown.length > 0) {
        json(res, 400, {
          errors: [
            {
              parameters: { [unknown[0]!]: [q(req).get(unknown[0]!)] },
              message: `The query parameter [${unknown[0]}] is not one of [${known.join(',')}]`,
            },
          ],
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          type: 'https://api.twitter.com/2/problems/invalid-request',
        });
        return;
      }
      const from = untoken(q(req).get('pagination_token'));
      const rows = slice(from);
      json(res, 200, {
        data: rows,
        meta: { result_count: rows.length, ...(more(from) ? { next_token: token(from + SIZE) } : {}) },
      });
    },
  },
  {
    // Zendesk offset pagination: next_page as a URL, null on the last page:
    // https://developer.zendesk.com/api-reference/introduction/pagination/
    name: 'next_page URL (Zendesk)',
    handler: (req, res, origin) => {
      const page = int(q(req).get('page'), 1);
      const from = (page - 1) * SIZE;
      json(res, 200, {
        channels: slice(from),
        next_page: more(from) ? `${origin}/v1/acme/channels.json?page=${page + 1}` : null,
        previous_page: null,
        count: ALL.length,
      });
    },
  },
  {
    // Slack: response_metadata.next_cursor, "" on the last page; `cursor` goes back:
    // https://api.slack.com/docs/pagination
    name: 'response_metadata.next_cursor (Slack)',
    handler: (req, res) => {
      const from = untoken(q(req).get('cursor'));
      json(res, 200, {
        ok: true,
        channels: slice(from),
        response_metadata: { next_cursor: more(from) ? token(from + SIZE) : '' },
      });
    },
  },
  {
    // Google AIP-158: nextPageToken back as pageToken (or page_token); an unknown query
    // parameter is a 400 INVALID_ARGUMENT naming it: https://google.aip.dev/158
    name: 'nextPageToken (Google AIP-158), refusing unknown parameters',
    handler: (req, res) => {
      const params = q(req);
      for (const k of params.keys()) {
        if (['pageToken', 'page_token', 'pageSize', 'page_size'].includes(k)) continue;
        return json(res, 400, {
          error: {
            code: 400,
            message: `Invalid JSON payload received. Unknown name "${k}": Cannot bind query parameter. Field '${k}' could not be found in request message.`,
            status: 'INVALID_ARGUMENT',
          },
        });
      }
      const from = untoken(params.get('pageToken') ?? params.get('page_token'));
      json(res, 200, { channels: slice(from), ...(more(from) ? { nextPageToken: token(from + SIZE) } : {}) });
    },
  },
  {
    // Notion: next_cursor + has_more, back as start_cursor; other parameters ignored here:
    // https://developers.notion.com/reference/intro#pagination
    name: 'next_cursor + has_more, back as start_cursor (Notion)',
    handler: (req, res) => {
      const from = untoken(q(req).get('start_cursor'));
      json(res, 200, {
        object: 'list',
        results: slice(from),
        next_cursor: more(from) ? token(from + SIZE) : null,
        has_more: more(from),
        type: 'page_or_database',
      });
    },
  },
  {
    name: 'meta.next_cursor',
    handler: (req, res) => {
      const from = untoken(q(req).get('cursor'));
      json(res, 200, { data: slice(from), meta: { next_cursor: more(from) ? token(from + SIZE) : null } });
    },
  },
  {
    // Square: a `cursor` in the body only while there is more:
    // https://developer.squareup.com/docs/working-with-apis/pagination
    name: 'a bare cursor (Square)',
    handler: (req, res) => {
      const from = untoken(q(req).get('cursor'));
      json(res, 200, { channels: slice(from), ...(more(from) ? { cursor: token(from + SIZE) } : {}) });
    },
  },
  {
    // Jira Cloud: startAt, maxResults, total, isLast beside `values`:
    // https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#pagination
    name: 'startAt / maxResults / total / isLast (Jira)',
    // Where the list is (Jira's `values`) is the envelope reader's business, not this test's.
    over: { shape: { envelope: { channels: 'values' } } },
    handler: (req, res) => {
      const from = int(q(req).get('startAt'), 0);
      json(res, 200, {
        startAt: from,
        maxResults: SIZE,
        total: ALL.length,
        isLast: !more(from),
        values: slice(from),
      });
    },
  },
  {
    name: 'offset / limit / total',
    handler: (req, res) => {
      const from = int(q(req).get('offset'), 0);
      json(res, 200, { data: slice(from), offset: from, limit: SIZE, total: ALL.length });
    },
  },
  {
    name: 'page / per_page / total_pages',
    handler: (req, res) => {
      const page = int(q(req).get('page'), 1);
      json(res, 200, { data: slice((page - 1) * SIZE), page, per_page: SIZE, total_pages: 3 });
    },
  },
  {
    // GitHub: Link header with rel="next" and rel="last":
    // https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api
    name: 'Link header (GitHub)',
    handler: (req, res, origin) => {
      const page = int(q(req).get('page'), 1);
      const from = (page - 1) * SIZE;
      const link = (p: number, rel: string) =>
        `<${origin}/v1/acme/channels?page=${p}&per_page=${SIZE}>; rel="${rel}"`;
      const links = [...(more(from) ? [link(page + 1, 'next')] : []), link(3, 'last')];
      json(res, 200, slice(from), { link: links.join(', ') });
    },
  },
  {
    // Shopify: Link header with page_info, which takes no other parameter but limit:
    // https://shopify.dev/docs/api/usage/pagination-rest
    name: 'Link header with page_info (Shopify)',
    handler: (req, res, origin) => {
      const params = q(req);
      if (params.has('page_info') && [...params.keys()].some((k) => k !== 'page_info' && k !== 'limit'))
        return json(res, 400, { errors: 'page_info cannot be combined with other parameters' });
      const from = untoken(params.get('page_info'));
      const link = `<${origin}/v1/acme/channels?limit=${SIZE}&page_info=${token(from + SIZE)}>; rel="next"`;
      json(res, 200, { channels: slice(from) }, more(from) ? { link } : {});
    },
  },
];

describe('paging in every documented style', () => {
  it.each(STYLES.map((s) => [s.name, s] as const))('%s: the whole list, complete', async (_name, style) => {
    let origin = '';
    const s = await serve((req, res) => style.handler(req, res, origin));
    origin = s.origin;
    // A refused first query teaches at once (query/evidence.ts): one read learns it all.
    const memory = new QueryMemory(undefined, TEACH_AT_ONCE);
    const c = client(origin, { memory, ...style.over });
    const part = await c.fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.map((ch) => ch.id)).toEqual(ALL.map((ch) => ch.id));
    // Learned once: the next read asks no more than the pages and the first query.
    const first = s.received.length;
    const again = await c.fetchChannels(ORG);
    expect(again.state).toBe('complete');
    expect(s.received.length - first).toBeLessThanOrEqual(3);
  });

  it('a Google list learns where its token goes back from the refusal naming `cursor`', async () => {
    const google = STYLES.find((s) => s.name.startsWith('nextPageToken'))!;
    const s = await serve((req, res) => google.handler(req, res, ''));
    const memory = new QueryMemory();
    expect((await client(s.origin, { memory }).fetchChannels(ORG)).state).toBe('complete');
    expect(memory.get('acme', 'channels')?.cursorParam).toBe('page_token');
    expect(s.received.filter((r) => /[?&]cursor=/.test(r.url))).toHaveLength(1);
  });

  it('a Notion list learns start_cursor, and asks with it at once the next time', async () => {
    const notion = STYLES.find((s) => s.name.includes('Notion'))!;
    const s = await serve((req, res) => notion.handler(req, res, ''));
    const memory = new QueryMemory();
    const c = client(s.origin, { memory });
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    expect(memory.get('acme', 'channels')?.cursorParam).toBe('start_cursor');
    const before = s.received.length;
    expect((await c.fetchChannels(ORG)).state).toBe('complete');
    expect(
      s.received.slice(before).map((r) => new URL(r.url, 'http://x').searchParams.has('start_cursor')),
    ).toEqual([false, true, true]);
  });
});
