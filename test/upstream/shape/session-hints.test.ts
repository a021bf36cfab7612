/**
 * A session's state from its flags and outcome times, and its planned end from a planned
 * length (src/upstream/shape/session-hints.ts), when its record names no status or end.
 */
import { describe, expect, it } from 'vitest';
import { normalizeSession } from '../../../src/upstream/shape/index.js';
import {
  parseIsoDuration,
  plannedLength,
  statusFromFlags,
} from '../../../src/upstream/shape/session-hints.js';

const T = Date.UTC(2026, 10, 29, 9);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('a state from flags and outcome times', () => {
  it.each([
    [{ is_cancelled: true, is_live: false }, 'canceled'],
    [{ live: true }, 'live'],
    [{ isOnAir: true }, 'live'],
    [{ cancelled_at: iso(T) }, 'canceled'],
    [{ failedAt: iso(T) }, 'failed'],
    // https://dev.twitch.tv/docs/api/reference/#get-channel-stream-schedule (`canceled_until`)
    [{ canceled_until: iso(T) }, 'canceled'],
    [{ is_live: true, is_cancelled: true }, 'canceled'],
  ])('%j → %s', (flags, want) => {
    expect(statusFromFlags(flags)?.status).toBe(want);
    const { value, drift } = normalizeSession({ id: 's1', scheduled_at: iso(T), ...flags }, 'c1', {});
    expect(value?.status).toBe(want);
    expect(drift).toEqual([]);
  });

  it.each([
    [{ is_active: true }],
    [{ is_live: false }],
    [{ is_recording: true }],
    [{ live: 'yes please' }],
    [{ live_at: iso(T) }],
  ])('says nothing: %j', (flags) => {
    expect(statusFromFlags(flags)).toBeUndefined();
  });

  it('a status word wins over any flag', () => {
    const { value } = normalizeSession({ id: 's1', status: 'scheduled', is_cancelled: true }, 'c1', {});
    expect(value?.status).toBe('scheduled');
  });
});

describe('a planned end from a planned length', () => {
  it.each([
    ['PT1H30M', 90 * 60_000],
    ['PT45M', 45 * 60_000],
    ['P1DT2H', 26 * 3_600_000],
    ['pt90s', 90_000],
    ['PT', undefined],
    ['P', undefined],
    ['1h', undefined],
  ])('ISO 8601 %s', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms);
  });

  it.each([
    [{ duration: 'PT1H' }, 3_600_000],
    [{ duration_minutes: 45 }, 45 * 60_000],
    [{ lengthSeconds: '1800' }, 1_800_000],
    [{ durationMs: 60_000 }, 60_000],
  ])('%j', (fields, ms) => {
    expect(plannedLength(fields)?.ms).toBe(ms);
    const { value } = normalizeSession(
      { id: 's1', status: 'scheduled', scheduled_at: iso(T), ...fields },
      'c1',
      {},
    );
    expect(value?.scheduledEndAt).toBe(T + ms);
  });

  it.each([[{ duration: 60 }], [{ actual_duration_minutes: 50 }], [{ duration_minutes: 0 }]])(
    'no planned length: %j',
    (fields) => {
      expect(plannedLength(fields)).toBeUndefined();
    },
  );

  it('a planned end the record names wins over its length', () => {
    const { value } = normalizeSession(
      {
        id: 's1',
        status: 'scheduled',
        scheduled_at: iso(T),
        scheduled_end_at: iso(T + 7_200_000),
        duration: 'PT1H',
      },
      'c1',
      {},
    );
    expect(value?.scheduledEndAt).toBe(T + 7_200_000);
  });
});

it('a key spelled in another case is still claimed by its alias (EndTime is the actual end)', () => {
  const { value } = normalizeSession(
    { ID: 'S5', Title: 'M', StartTime: iso(T), EndTime: iso(T + 3_600_000), Status: 'ended' },
    'c1',
    {},
  );
  expect(value?.endedAt).toBe(T + 3_600_000);
  expect(value?.scheduledEndAt).toBeUndefined();
});
