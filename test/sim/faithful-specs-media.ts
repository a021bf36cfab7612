/**
 * Client specs (faithful-harness.ts) for the broadcasting and events conventions, each
 * after the documentation cited at the top of src/sim/dialects/<name>.ts.
 */
import { expect } from 'vitest';
import { type DialectSpec, type Loose, replaced } from './faithful-harness.js';

export const youtube: DialectSpec = {
  name: 'youtube',
  items: (b) => {
    expect(b.kind).toMatch(/^youtube#\w+ListResponse$/);
    expect(b.pageInfo.resultsPerPage).toEqual(expect.any(Number));
    return b.items;
  },
  next: (_res, b, cur) => (b.nextPageToken ? replaced(cur, { pageToken: b.nextPageToken }) : null),
  small: { maxResults: '3' },
  live: { broadcastStatus: 'active' },
  badFilter: { broadcastStatus: 'onAir' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.error.code).toBe(400);
    expect(b.error.errors[0]).toMatchObject({ reason: 'invalidFilters', location: 'broadcastStatus' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.error.errors[0].reason).toBe('notFound');
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(403);
    expect(b.error.errors[0].reason).toBe('quotaExceeded');
    expect(h.get('retry-after')).toBeNull();
  },
  // A member item has no id of its own: it is known by its channel.
  id: (x) => x.id ?? x.snippet.memberDetails.channelId,
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.aiFunding.balance.amountMicros).toMatch(/^\d+$/);
    expect(['live', 'upcoming', 'none']).toContain(channel.snippet.liveBroadcastContent);
    expect(session.snippet.scheduledStartTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(['ready', 'live', 'complete', 'revoked']).toContain(session.status.lifeCycleStatus);
    expect(detail.items).toHaveLength(1);
    expect(detail.items[0].id).toBe(session.id);
  },
};

export const twitch: DialectSpec = {
  name: 'twitch',
  items: (b) => {
    expect(Array.isArray(b.data)).toBe(true);
    return b.data;
  },
  next: (_res, b, cur) => (b.pagination?.cursor ? replaced(cur, { after: b.pagination.cursor }) : null),
  small: { first: '3' },
  live: { type: 'live' },
  badFilter: { type: 'vodcast' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ error: 'Bad Request', status: 400, message: expect.stringContaining('type') });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ error: 'Not Found', status: 404 });
  },
  tooMany: (status, b, h) => {
    expect(status).toBe(429);
    expect(b.status).toBe(429);
    expect(h.get('ratelimit-remaining')).toBe('0');
    expect(Number(h.get('ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(h.get('retry-after')).toBeNull();
  },
  id: (x) => x.id ?? x.user_id,
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  shapes: ({ org, subscription, channel, session, detail }) => {
    expect(org.data).toHaveLength(1);
    expect(subscription.data[0].ai_funding.balance).toMatchObject({
      value: expect.any(Number),
      decimal_places: 2,
    });
    expect(typeof channel.is_live).toBe('boolean');
    expect(session.start_time).toMatch(/Z$/);
    expect(detail.data[0].id).toBe(session.id);
  },
};

export const eventbrite: DialectSpec = {
  name: 'eventbrite',
  items: (b) => {
    expect(b.pagination).toMatchObject({
      page_number: expect.any(Number),
      has_more_items: expect.any(Boolean),
    });
    const keys = Object.keys(b).filter((k) => k !== 'pagination' && Array.isArray(b[k]));
    expect(keys).toHaveLength(1);
    return b[keys[0]!];
  },
  next: (_res, b, cur) =>
    b.pagination.has_more_items ? replaced(cur, { continuation: b.pagination.continuation }) : null,
  small: { page_size: '3' },
  live: { status: 'started' },
  badFilter: { status: 'on_air' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b).toMatchObject({ error: 'ARGUMENTS_ERROR', status_code: 400 });
    expect(b.error_detail.ARGUMENTS_ERROR.status).toEqual(['INVALID']);
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b).toMatchObject({ error: 'NOT_FOUND', status_code: 404 });
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.error).toBe('HIT_RATE_LIMIT');
  },
  id: (x) => x.id,
  questions: async (_d, via) => (await via.read(`${via.path}/questions`)).length,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(Number.isInteger(subscription.ai_funding.balance.value)).toBe(true);
    expect(subscription.ai_funding.balance.major_value).toMatch(/^\d+\.\d\d$/);
    expect(channel.is_series_parent).toBe(true);
    expect(session.name).toMatchObject({ text: expect.any(String), html: expect.any(String) });
    expect(session.start).toMatchObject({ timezone: expect.any(String), utc: expect.stringMatching(/Z$/) });
    expect(session.start.local).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(detail.id).toBe(session.id);
  },
};

export type { Loose };
