/**
 * One client spec per faithful dialect (faithful-harness.ts), each after the convention's
 * own documentation as cited at the top of src/sim/dialects/<name>.ts.
 */
import { expect } from 'vitest';
import { absolute, type DialectSpec, type Loose, linkNext, replaced } from './faithful-harness.js';
import { eventbrite, twitch, youtube } from './faithful-specs-media.js';

const stripe: DialectSpec = {
  name: 'stripe',
  items: (b) => {
    expect(b.object).toBe('list');
    return b.data;
  },
  next: (_res, b, cur) => (b.has_more ? replaced(cur, { starting_after: b.data.at(-1).id }) : null),
  small: { limit: '3' },
  live: { status: 'in_progress' },
  badFilter: { status: 'broadcasting' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.error).toMatchObject({ type: 'invalid_request_error', param: 'status' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.error.code).toBe('resource_missing');
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.error.code).toBe('rate_limit');
  },
  questions: async (d, via) => (await via.read(d.questions.url)).length,
  id: (x) => x.id,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.ai_funding.type).toBe('wallet');
    expect(Number.isInteger(subscription.ai_funding.wallet.balance)).toBe(true);
    expect(subscription.ai_funding.wallet.currency).toMatch(/^[a-z]{3}$/);
    expect(['on_air', 'ready', 'inactive']).toContain(channel.status);
    expect(typeof session.scheduled_for).toBe('number');
    expect(detail.questions.object).toBe('list');
    expect(detail.questions.url).toMatch(/\/questions$/);
  },
};

const github: DialectSpec = {
  name: 'github',
  items: (b) => {
    expect(Array.isArray(b)).toBe(true);
    return b;
  },
  next: (res) => linkNext(res),
  small: { per_page: '3' },
  live: { status: 'in_progress' },
  badFilter: { created: 'yesterday..soon' },
  refused: (status, b) => {
    expect(status).toBe(422);
    expect(b.message).toBe('Validation Failed');
    expect(b.errors[0].field).toBe('created');
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ message: 'Not Found', documentation_url: expect.any(String) });
  },
  tooMany: (status, _b, h) => {
    expect(status).toBe(429);
    expect(h.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(h.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(h.get('retry-after')).toBeNull();
  },
  questions: async (d, via) => (await via.read(d.questions_url)).length,
  id: (x) => String(x.id),
  shapes: ({ org, subscription, channel, session, detail }) => {
    expect(org.plan.name).toEqual(expect.any(String));
    expect(Number.isInteger(subscription.ai_billing.balance_in_cents)).toBe(true);
    expect(typeof channel.id).toBe('number');
    expect(session.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(['queued', 'in_progress', 'completed']).toContain(session.status);
    expect(detail.questions_url).toMatch(/\/questions$/);
    expect(detail.reactions.total_count).toEqual(expect.any(Number));
  },
};

const graph: DialectSpec = {
  name: 'graph',
  items: (b) => {
    expect(b['@odata.context']).toEqual(expect.any(String));
    return b.value;
  },
  next: (_res, b) => b['@odata.nextLink'] ?? null,
  small: { $top: '3' },
  live: { $filter: "status eq 'inProgress'" },
  badFilter: { $filter: "colour eq 'blue'" },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.error.code).toBe('BadRequest');
    expect(b.error.message).toContain("'colour'");
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.error.code).toBe('itemNotFound');
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.error.code).toBe('TooManyRequests');
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
  },
  questions: async (_d, via) => (await via.get(`${via.path}?$expand=questions`)).questions.length,
  id: (x) => x.id,
  shapes: ({ subscription, session, detail }) => {
    expect(subscription.aiFunding['@odata.type']).toBe('#microsoft.graph.walletFunding');
    expect(subscription.aiFunding.currencyCode).toBe('EUR');
    expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(session.scheduledStart.timeZone).toBe('UTC');
    expect(detail.questions).toBeUndefined();
  },
};

const google: DialectSpec = {
  name: 'google',
  items: (b) => {
    const keys = Object.keys(b).filter((k) => k !== 'nextPageToken');
    expect(keys).toHaveLength(1);
    expect(['members', 'channels', 'sessions', 'questions']).toContain(keys[0]);
    return b[keys[0]!];
  },
  next: (_res, b, cur) => (b.nextPageToken ? replaced(cur, { pageToken: b.nextPageToken }) : null),
  small: { pageSize: '3' },
  live: { filter: 'state = "RUNNING"' },
  badFilter: { filter: 'colour = "blue"' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.error.status).toBe('INVALID_ARGUMENT');
    expect(b.error.details[0].fieldViolations[0].field).toBe('filter');
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(b.error.details[0].retryDelay).toMatch(/^\d+s$/);
    expect(h.get('retry-after')).toBeNull();
  },
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  id: (x) => x.name.split('/').at(-1),
  shapes: ({ org, subscription, session }) => {
    expect(org.name).toBe('organizations/demo');
    expect(subscription.aiFunding.wallet.balance).toMatchObject({
      currencyCode: 'EUR',
      units: expect.any(String),
    });
    expect(session.state).toMatch(/^[A-Z_]+$/);
    expect(session.scheduleTime).toMatch(/Z$/);
  },
};

const jsonapi: DialectSpec = {
  name: 'jsonapi',
  items: (b) => {
    expect(b.jsonapi.version).toBe('1.1');
    for (const r of b.data) expect(r).toMatchObject({ type: expect.any(String), id: expect.any(String) });
    return b.data;
  },
  next: (_res, b) => b.links.next,
  small: { 'page[size]': '3' },
  live: { 'filter[status]': 'on-air' },
  badFilter: { from: '2030-01-01T00:00:00Z' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.errors[0]).toMatchObject({ status: '400', source: { parameter: 'from' } });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.errors[0].status).toBe('404');
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.errors[0].status).toBe('429');
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
    expect(h.get('content-type')).toBe('application/vnd.api+json');
  },
  questions: async (d, via) => {
    const n = d.data.relationships.questions.meta.count;
    expect((await via.read(d.data.relationships.questions.links.related)).length).toBe(n);
    return n;
  },
  id: (x) => x.id,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.data.attributes['ai-funding'].balance).toMatch(/^\d+\.\d\d$/);
    expect(channel.relationships.sessions.links.related).toMatch(/\/sessions$/);
    expect(session.attributes['scheduled-for']).toMatch(/\.\d{3}Z$/);
    expect(detail.data.relationships.questions.links.related).toMatch(/\/questions$/);
    expect(detail.data.relationships.questions.meta.count).toEqual(expect.any(Number));
  },
};

const hal: DialectSpec = {
  name: 'hal',
  items: (b) => {
    const rels = Object.keys(b._embedded);
    expect(rels).toHaveLength(1);
    expect(b.page).toMatchObject({ size: expect.any(Number), totalElements: expect.any(Number) });
    return b._embedded[rels[0]!];
  },
  next: (_res, b) => b._links.next?.href ?? null,
  small: { size: '3' },
  live: { status: 'IN_PROGRESS' },
  badFilter: { status: 'BROADCASTING' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(b.message).toContain('BROADCASTING');
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ status: 404, error: 'Not Found' });
  },
  tooMany: (status, _b, h) => {
    expect(status).toBe(429);
    expect(Number(h.get('x-rate-limit-retry-after-seconds'))).toBeGreaterThan(0);
  },
  questions: async (d, via) => (await via.read(d._links.questions.href)).length,
  id: (x) => {
    expect(x.id).toBeUndefined();
    return x._links.self.href.split('/').at(-1);
  },
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.aiFunding.wallet).toMatchObject({ amount: expect.any(Number), currency: 'EUR' });
    expect(['ON_AIR', 'STANDBY', 'OFF_AIR']).toContain(channel.status);
    expect(session.plannedStart).toMatch(/Z$/);
    expect(detail._links.questions.href).toMatch(/\/questions$/);
    expect(detail.questions).toBeUndefined();
  },
};

const shopify: DialectSpec = {
  name: 'shopify',
  items: (b) => {
    const keys = Object.keys(b);
    expect(keys).toHaveLength(1);
    return b[keys[0]!];
  },
  next: (res, _b, cur) => {
    const next = linkNext(res);
    if (next !== null) expect(new URL(next).searchParams.get('status')).toBeNull();
    return next === null ? null : new URL(next, cur).toString();
  },
  small: { limit: '3' },
  live: { status: 'open' },
  badFilter: { status: 'streaming' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.errors.status[0]).toContain('streaming');
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toEqual({ errors: 'Not Found' });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(h.get('retry-after')).toMatch(/^\d+\.0$/);
    expect(h.get('x-shopify-shop-api-call-limit')).toMatch(/^\d+\/\d+$/);
    expect(b.errors).toContain('Exceeded');
  },
  questions: (d) => d.session.questions.length,
  id: (x) => String(x.id),
  shapes: ({ subscription, session, detail }) => {
    const s = subscription.subscription;
    expect(s.ai_balance).toMatch(/^\d+\.\d\d$/);
    expect(s.ai_balance_set.shop_money.currency_code).toBe('EUR');
    expect(session.scheduled_at).toMatch(/-05:00$/);
    expect(Array.isArray(detail.session.questions)).toBe(true);
  },
};

const slack: DialectSpec = {
  name: 'slack',
  items: (b) => {
    expect(b.ok).toBe(true);
    const keys = Object.keys(b).filter((k) => k !== 'ok' && k !== 'response_metadata');
    return b[keys[0]!];
  },
  next: (_res, b, cur) =>
    b.response_metadata.next_cursor === ''
      ? null
      : replaced(cur, { cursor: b.response_metadata.next_cursor }),
  small: { limit: '3' },
  live: { types: 'active' },
  badFilter: { types: 'broadcasting' },
  refused: (status, b) => {
    expect(status).toBe(200);
    expect(b).toMatchObject({ ok: false, error: 'invalid_types' });
  },
  notFound: (status, b) => {
    expect(status).toBe(200);
    expect(b).toMatchObject({ ok: false, error: 'not_found' });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b).toEqual({ ok: false, error: 'ratelimited' });
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
  },
  questions: async (d, via) => {
    expect((await via.read(`${via.path}/questions`)).length).toBe(d.session.question_count);
    return d.session.question_count;
  },
  id: (x) => x.id,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.subscription.ai_credits.currency).toBe('EUR');
    expect(channel.id).toMatch(/^C0[0-9A-F]{9}$/);
    expect(typeof channel.is_archived).toBe('boolean');
    expect(session.scheduled_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(detail.session.question_count).toEqual(expect.any(Number));
  },
};

const twilio: DialectSpec = {
  name: 'twilio',
  items: (b) => {
    expect(b).toMatchObject({
      page: expect.any(Number),
      page_size: expect.any(Number),
      uri: expect.any(String),
    });
    const keys = Object.keys(b).filter((k) => Array.isArray(b[k]));
    return b[keys[0]!];
  },
  next: (_res, b, cur) => {
    if (b.next_page_uri !== null) expect(b.next_page_uri).toMatch(/^\/v1\/.*\.json\?/);
    return absolute(cur, b.next_page_uri);
  },
  small: { PageSize: '3' },
  live: { Status: 'in-progress' },
  badFilter: { Status: 'broadcasting' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ code: 20001, status: 400, more_info: expect.stringContaining('twilio') });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.code).toBe(20404);
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.code).toBe(20429);
  },
  questions: async (d, via) => (await via.read(d.subresource_uris.questions)).length,
  id: (x) => x.sid,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.ai_funding.balance).toMatch(/^\d+\.\d\d$/);
    expect(channel.sid).toMatch(/^CH[0-9a-f]{32}$/);
    expect(session.date_created).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000$/);
    expect(detail.subresource_uris.questions).toMatch(/\/questions\.json$/);
  },
};

const jira: DialectSpec = {
  name: 'jira',
  items: (b) => {
    expect(b).toMatchObject({
      startAt: expect.any(Number),
      maxResults: expect.any(Number),
      total: expect.any(Number),
    });
    return b.values;
  },
  next: (_res, b, cur) => (b.isLast ? null : replaced(cur, { startAt: String(b.startAt + b.maxResults) })),
  small: { maxResults: '3' },
  live: { jql: 'status = "On Air"' },
  badFilter: { jql: 'colour = "blue"' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.errorMessages[0]).toContain("'colour'");
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.errorMessages).toHaveLength(1);
  },
  tooMany: (status, _b, h) => {
    expect(status).toBe(429);
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
    expect(Date.parse(h.get('x-ratelimit-reset')!)).toBeGreaterThan(Date.now() - 1000);
  },
  questions: (d) => d.fields.questions.total,
  id: (x) => x.id ?? x.accountId,
  shapes: ({ subscription, session, detail }) => {
    expect(subscription.aiFunding.balance).toEqual(expect.any(Number));
    expect(session.key).toMatch(/^SES-\d+$/);
    expect(session.fields.status.statusCategory.key).toMatch(/^(new|indeterminate|done)$/);
    expect(session.fields.plannedStart).toMatch(/\.\d{3}\+0000$/);
    expect(detail.fields.questions).toMatchObject({ startAt: 0, total: expect.any(Number) });
  },
};

const salesforce: DialectSpec = {
  name: 'salesforce',
  headers: { 'sforce-query-options': 'batchSize=3' },
  items: (b) => {
    expect(b).toMatchObject({ totalSize: expect.any(Number), done: expect.any(Boolean) });
    for (const r of b.records) expect(r.attributes.type).toEqual(expect.any(String));
    return b.records;
  },
  next: (_res, b, cur) => {
    if (b.done) return null;
    expect(b.nextRecordsUrl).toMatch(/^\/v1\/demo\/query\/01g/);
    return absolute(cur, b.nextRecordsUrl);
  },
  small: {},
  live: { q: "SELECT Id FROM Session__c WHERE Status__c = 'Live'" },
  badFilter: { q: "SELECT Id FROM Session__c WHERE Colour__c = 'Blue'" },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b[0]).toMatchObject({ errorCode: 'INVALID_FIELD' });
    expect(b[0].message).toContain('Colour__c');
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b[0].errorCode).toBe('NOT_FOUND');
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(403);
    expect(b[0].errorCode).toBe('REQUEST_LIMIT_EXCEEDED');
    expect(h.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/\d+$/);
  },
  questions: (d) => d.Questions__r?.totalSize ?? 0,
  id: (x) => x.Id,
  shapes: ({ subscription, session, detail }) => {
    expect(subscription).toMatchObject({ AI_Balance__c: expect.any(Number), CurrencyIsoCode: 'EUR' });
    expect(session.Id).toMatch(/^a02[0-9A-F]{15}$/);
    expect(session.Scheduled_Start__c).toMatch(/\.\d{3}\+0000$/);
    if (detail.Questions__r !== null)
      expect(detail.Questions__r).toMatchObject({ done: true, records: expect.any(Array) });
  },
};

const zendesk: DialectSpec = {
  name: 'zendesk',
  items: (b) => {
    const keys = Object.keys(b).filter((k) => Array.isArray(b[k]));
    expect(keys).toHaveLength(1);
    return b[keys[0]!];
  },
  next: (_res, b) => b.next_page ?? null,
  small: { per_page: '3' },
  live: { query: 'status:open' },
  badFilter: { query: 'colour:blue' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ error: 'InvalidValue', description: expect.stringContaining('colour') });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toEqual({ error: 'RecordNotFound', description: 'Not found' });
  },
  tooMany: (status, _b, h) => {
    expect(status).toBe(429);
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
    expect(h.get('ratelimit-remaining')).toBe('0');
  },
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  id: (x) => String(x.id),
  shapes: ({ subscription, channel, session }) => {
    expect(subscription.subscription.ai_funding.balance).toEqual(expect.any(Number));
    expect(['online', 'away', 'offline']).toContain(channel.status);
    expect(session.url).toMatch(/\.json$/);
  },
};

const square: DialectSpec = {
  name: 'square',
  items: (b) => {
    const keys = Object.keys(b).filter((k) => k !== 'cursor');
    expect(keys).toHaveLength(1);
    return b[keys[0]!];
  },
  next: (_res, b, cur) => (b.cursor === undefined ? null : replaced(cur, { cursor: b.cursor })),
  small: { limit: '3' },
  live: { status: 'IN_PROGRESS' },
  badFilter: { status: 'LIVE' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.errors[0]).toMatchObject({
      category: 'INVALID_REQUEST_ERROR',
      code: 'INVALID_ENUM_VALUE',
      field: 'status',
    });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.errors[0].code).toBe('NOT_FOUND');
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.errors[0]).toMatchObject({ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED' });
  },
  questions: (d) => d.session.questions.length,
  id: (x) => x.id,
  shapes: ({ subscription, session, detail }) => {
    const money = subscription.subscription.ai_funding.balance_money;
    expect(Number.isInteger(money.amount)).toBe(true);
    expect(money.currency).toBe('EUR');
    expect(session.status).toMatch(/^[A-Z_]+$/);
    expect(Array.isArray(detail.session.questions)).toBe(true);
  },
};

const hubspot: DialectSpec = {
  name: 'hubspot',
  items: (b) => {
    for (const r of b.results) expect(typeof r.id).toBe('string');
    return b.results;
  },
  next: (_res, b, cur) => (b.paging?.next ? replaced(cur, { after: b.paging.next.after }) : null),
  small: { limit: '3' },
  live: null,
  badFilter: { limit: '500' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND' });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.errorType).toBe('RATE_LIMIT');
    expect(h.get('x-hubspot-ratelimit-remaining')).toBe('0');
    expect(h.get('retry-after')).toBeNull();
  },
  questions: async (_d, via) =>
    (await via.get(`${via.path}?associations=questions`)).associations?.questions.results.length ?? 0,
  id: (x) => x.id,
  shapes: ({ subscription, session }) => {
    expect(subscription.properties).toMatchObject({
      amount: expect.stringMatching(/^\d+\.\d\d$/),
      deal_currency_code: 'EUR',
    });
    for (const v of Object.values(session.properties)) expect(v === null || typeof v === 'string').toBe(true);
    expect(session.properties.hs_meeting_outcome).toMatch(/^[A-Z_]+$/);
  },
};

const notion: DialectSpec = {
  name: 'notion',
  items: (b) => {
    expect(b.object).toBe('list');
    return b.results;
  },
  next: (_res, b, cur) => (b.has_more ? replaced(cur, { start_cursor: b.next_cursor }) : null),
  small: { page_size: '3' },
  live: null,
  badFilter: { start_cursor: 'not-a-cursor' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ object: 'error', status: 400, code: 'validation_error' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ object: 'error', code: 'object_not_found' });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.code).toBe('rate_limited');
    expect(Number(h.get('retry-after'))).toBeGreaterThan(0);
  },
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  id: (x) => x.id,
  shapes: ({ subscription, session }) => {
    expect(subscription.properties.Balance).toMatchObject({ type: 'number', number: expect.any(Number) });
    expect(session.properties.Status.status.name).toEqual(expect.any(String));
    expect(session.properties.Scheduled.date.start).toMatch(/\.\d{3}Z$/);
  },
};

const paypal: DialectSpec = {
  name: 'paypal',
  items: (b) => {
    expect(Array.isArray(b.links)).toBe(true);
    const keys = Object.keys(b).filter((k) => k !== 'links' && Array.isArray(b[k]));
    expect(keys).toHaveLength(1);
    return b[keys[0]!];
  },
  next: (_res, b) => b.links.find((l: Loose) => l.rel === 'next')?.href ?? null,
  small: { page_size: '3' },
  live: { status: 'ACTIVE' },
  badFilter: { status: 'LIVE' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.name).toBe('INVALID_REQUEST');
    expect(b.details[0]).toMatchObject({ field: 'status', location: 'query' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.name).toBe('RESOURCE_NOT_FOUND');
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.name).toBe('RATE_LIMIT_REACHED');
  },
  questions: async (d, via) =>
    (await via.read(d.links.find((l: Loose) => l.rel === 'questions').href)).length,
  id: (x) => x.id,
  shapes: ({ subscription, session, detail }) => {
    expect(subscription.ai_funding.balance).toMatchObject({
      currency_code: 'EUR',
      value: expect.stringMatching(/^\d+\.\d\d$/),
    });
    expect(session.start_time).toMatch(/Z$/);
    expect(detail.links.find((l: Loose) => l.rel === 'questions').href).toMatch(/\/questions$/);
  },
};

/** Every spec, by dialect name. */
export const SPECS: readonly DialectSpec[] = [
  stripe,
  github,
  graph,
  google,
  jsonapi,
  hal,
  shopify,
  slack,
  twilio,
  jira,
  salesforce,
  zendesk,
  square,
  hubspot,
  notion,
  paypal,
  youtube,
  twitch,
  eventbrite,
];

export type { Loose };
