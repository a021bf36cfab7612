/**
 * Single-object bodies as servers that answer every read as a list write them (Twitch
 * Helix's `data: [obj]`, YouTube's `items: [obj]` for a resource asked by id), and a
 * record with an id whose id-less objects are its parts, not rivals (YouTube's `snippet`).
 */
import { describe, expect, it } from 'vitest';
import { readObject } from '../../../src/upstream/shape/envelope.js';

describe('a single object kept as the one item of a list', () => {
  it('reads the org from a one-item data array', () => {
    const org = { id: '9001', login: 'demo', display_name: 'Demo', plan: 'pro' };
    expect(readObject('org', { data: [org] }, {})).toBe(org);
  });

  it('reads the session detail from a one-item items array beside list metadata', () => {
    const item = {
      id: 'abc',
      snippet: { title: 'Talk', scheduledStartTime: '2030-01-07T09:00:00Z' },
      status: { lifeCycleStatus: 'live' },
    };
    const body = {
      kind: 'x#listResponse',
      etag: 'e',
      pageInfo: { totalResults: 1, resultsPerPage: 5 },
      items: [item],
    };
    expect(readObject('session', body, {})).toBe(item);
  });

  it('does not take one item of a longer list for the record', () => {
    const body = {
      data: [
        { id: '1', plan: 'pro' },
        { id: '2', plan: 'free' },
      ],
    };
    const got = readObject('org', body, {});
    expect(got).toBe(body);
    expect(body.data).not.toContain(got);
  });
});

describe('objects without an id inside a record that has one', () => {
  it('are its parts: no ambiguity between them', () => {
    const body = {
      kind: 'youtube#contentOwner',
      id: 'demo',
      snippet: { title: 'Demo', publishedAt: '2029-01-01T00:00:00Z' },
      contentOwnerDetails: { plan: 'pro', timeZone: 'UTC' },
    };
    expect(readObject('org', body, {})).toBe(body);
  });

  it('an object with an id of its own is still weighed as the record', () => {
    const org = { id: 'o1', name: 'Demo', plan: 'pro', settings: { language: 'en' } };
    expect(readObject('org', { id: 'req-1', organization: org }, {})).toBe(org);
  });
});
