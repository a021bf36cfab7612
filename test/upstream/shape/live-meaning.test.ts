/**
 * A status word read as on air that the server gives to sessions planned hours ahead does
 * not mean on air (src/upstream/shape/blindness.ts, `session.status.meaning`): loud, never
 * silent. Eventbrite's `live` means "published, on sale"
 * (https://www.eventbrite.com/developer/v3/response_formats/event/).
 */
import { describe, expect, it } from 'vitest';
import { blindSpots, LIVE_AHEAD_MS } from '../../../src/upstream/shape/blindness.js';

const NOW = Date.UTC(2026, 10, 29, 12);
const H = 3_600_000;
const session = (status: string, scheduledAt: number) => ({ id: `s${scheduledAt}`, status, scheduledAt });

describe('a word read as on air, given to sessions planned hours ahead', () => {
  it('most live sessions planned later: the word may not mean on air (blind)', () => {
    const list = [session('live', NOW + 24 * H), session('live', NOW + 48 * H), session('live', NOW - H)];
    const { blind, seen } = blindSpots('sessions', list, NOW);
    expect(blind.map((b) => b.field)).toContain('session.status.meaning');
    expect(seen).not.toContain('session.status.meaning');
  });

  it('live sessions that began, or start within the hour: seen', () => {
    const list = [
      session('live', NOW - H),
      session('live', NOW + LIVE_AHEAD_MS - 1),
      session('scheduled', NOW + 24 * H),
    ];
    const { blind, seen } = blindSpots('sessions', list, NOW);
    expect(blind.map((b) => b.field)).not.toContain('session.status.meaning');
    expect(seen).toContain('session.status.meaning');
  });

  it('one early start beside a session on air is no pattern', () => {
    const { blind } = blindSpots('sessions', [session('on_air', NOW + 3 * H), session('live', NOW - H)], NOW);
    expect(blind).toEqual([]);
  });

  it('no session read live says nothing either way', () => {
    const { blind, seen } = blindSpots(
      'sessions',
      [session('scheduled', NOW + 24 * H), session('ended', NOW - 24 * H)],
      NOW,
    );
    expect(blind).toEqual([]);
    expect(seen).not.toContain('session.status.meaning');
  });
});
