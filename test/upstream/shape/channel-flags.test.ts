/**
 * A boolean read where a channel's status was expected is an on-air flag only when an
 * alias names it or its own key says so: YouTube's channel `status` part holds
 * `isLinked: true`, which says nothing of air.
 */
import { describe, expect, it } from 'vitest';
import { normalizeChannel } from '../../../src/upstream/shape/normalize-channel.js';

const youtubeChannel = {
  kind: 'youtube#channel',
  etag: 'e',
  id: 'UCabc',
  snippet: { title: 'Morning', publishedAt: '2030-01-01T00:00:00Z' },
  status: { privacyStatus: 'public', isLinked: true, longUploadsStatus: 'allowed', madeForKids: false },
};

describe('booleans as a channel status', () => {
  it('a boolean of a status part named for something else is no status: unknown, and drift says so', () => {
    const r = normalizeChannel(youtubeChannel, {});
    expect(r.value?.status).toBe('unknown');
    expect(r.drift.map((d) => d.field)).toContain('channel.status');
  });

  it('a boolean under a status alias is still on air', () => {
    expect(normalizeChannel({ id: 'c1', status: true }, {}).value?.status).toBe('live');
    expect(normalizeChannel({ id: 'c1', status: false }, {}).value?.status).toBe('offline');
  });

  it('a boolean whose own key says status is still read', () => {
    expect(normalizeChannel({ id: 'c1', streamStatus: true }, {}).value?.status).toBe('live');
  });
});
