/**
 * A channel read live by a word the org's session lists mostly give to sessions planned
 * more than an hour later is not known to be on air; most channels so → the channel list is
 * degraded (src/upstream/shape/channel-meaning.ts, docs/upstream-shapes.md "Blindness is loud").
 */
import { describe, expect, it } from 'vitest';
import { isBlindProblem } from '../../../src/upstream/shape/blindness.js';
import {
  CHANNEL_MEANING_FIELD,
  ChannelMeaning,
  liveWordsOf,
} from '../../../src/upstream/shape/channel-meaning.js';

const NOW = Date.UTC(2026, 10, 29, 9);
const MIN = 60_000;
const at = (minutes: number) => NOW + minutes * MIN;

// https://www.eventbrite.com/platform/api#/reference/event/list/list-events-by-organization:
// `live` is an event published (on sale), `started` one under way; an idle series is `live`.
const channels = [
  { id: 'c1', status: 'started' },
  { id: 'c2', status: 'live' },
  { id: 'c3', status: 'live' },
  { id: 'c4', status: 'draft' },
];
const lists: Record<string, { status: string; scheduledAt?: number }[]> = {
  c1: [
    { status: 'started', scheduledAt: at(-17) },
    { status: 'live', scheduledAt: at(346) },
  ],
  c2: [
    { status: 'ended', scheduledAt: at(-593) },
    { status: 'live', scheduledAt: at(15) },
  ],
  c3: [{ status: 'live', scheduledAt: at(252) }],
  c4: [{ status: 'live', scheduledAt: at(104) }],
};

describe('the live words of a session list', () => {
  it('counts each word read as on air, and those planned over an hour later', () => {
    const counts = liveWordsOf(lists['c1']!.concat(lists['c2']!), NOW);
    expect(Object.fromEntries(counts)).toEqual({
      started: { ahead: 0, total: 1 },
      live: { ahead: 1, total: 2 },
    });
  });
});

describe('a channel word for on air the sessions give to sessions planned later', () => {
  it('degrades the channel list once most channels read live say it (Eventbrite)', () => {
    const m = new ChannelMeaning();
    m.channels('o', channels);
    let last: ReturnType<ChannelMeaning['sessions']>;
    for (const id of ['c1', 'c2', 'c3', 'c4']) last = m.sessions('o', id, lists[id]!, NOW);
    expect(last!).toMatchObject({ endpoint: 'channels', field: CHANNEL_MEANING_FIELD, list: 'channels' });
    expect(last! !== 'seen' && last !== undefined && isBlindProblem(last.problem)).toBe(true);
  });

  it('is seen when the word read as on air is given to sessions on air', () => {
    const m = new ChannelMeaning();
    m.channels('o', [
      { id: 'c1', status: 'live' },
      { id: 'c2', status: 'live' },
      { id: 'c3', status: 'offline' },
    ]);
    m.sessions('o', 'c1', [{ status: 'live', scheduledAt: at(-30) }], NOW);
    m.sessions('o', 'c2', [{ status: 'scheduled', scheduledAt: at(600) }], NOW);
    expect(m.sessions('o', 'c3', [{ status: 'scheduled', scheduledAt: at(900) }], NOW)).toBe('seen');
  });

  it('is seen when only a minority of the channels read live use the doubted word', () => {
    const m = new ChannelMeaning();
    m.channels('o', [
      { id: 'c1', status: 'on_air' },
      { id: 'c2', status: 'on_air' },
      { id: 'c3', status: 'live' },
    ]);
    m.sessions('o', 'c1', [{ status: 'on_air', scheduledAt: at(-5) }], NOW);
    expect(m.sessions('o', 'c3', [{ status: 'live', scheduledAt: at(300) }], NOW)).toBe('seen');
  });

  it('says nothing while no channel reads live, nor for an org whose channels were not read', () => {
    const m = new ChannelMeaning();
    expect(m.sessions('o', 'c1', lists['c3']!, NOW)).toBeUndefined();
    m.channels('o', [{ id: 'c1', status: 'offline' }]);
    expect(m.sessions('o', 'c1', lists['c3']!, NOW)).toBeUndefined();
  });

  it('forgets the session lists of channels gone from the channel list', () => {
    const m = new ChannelMeaning();
    m.channels('o', channels);
    for (const id of ['c1', 'c2', 'c3', 'c4']) m.sessions('o', id, lists[id]!, NOW);
    // c3 and c4 are gone: the word `live` is now given to one session ahead of two.
    m.channels('o', channels.slice(0, 2));
    expect(m.sessions('o', 'c2', lists['c2']!, NOW)).toBe('seen');
  });
});
