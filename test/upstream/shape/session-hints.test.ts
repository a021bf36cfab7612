/**
 * A session's state from its flags and outcome times, and its planned end from a planned
 * length (src/upstream/shape/session-hints.ts), when its record names no status or end.
 */
import { describe, expect, it } from 'vitest';
import { normalizeSession } from '../../../src/upstream/shape/index.js';
import {
  parseGoDuration,
  parseIsoDuration,
  plannedLength,
  statusFromFlags,
  statusFromKind,
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

describe('a Go-style duration (`1h2m3s`)', () => {
  it.each([
    ['1h2m3s', 3_723_000],
    ['45m0s', 2_700_000],
    ['2h0m0s', 7_200_000],
    ['1.5s', 1_500],
    ['300ms', 300],
    ['0s', 0],
    ['1H30M', 5_400_000],
    ['90', undefined],
    ['1h 30m', undefined],
    ['PT1H', undefined],
    ['', undefined],
    ['h', undefined],
  ])('%s', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it('gives the planned end of a planned start', () => {
    expect(plannedLength({ duration: '1h30m0s' })).toEqual({ ms: 5_400_000, key: 'duration' });
    const { value } = normalizeSession(
      { id: 's1', status: 'scheduled', scheduled_at: iso(T), duration: '1h30m0s' },
      'c1',
      {},
    );
    expect(value?.scheduledEndAt).toBe(T + 5_400_000);
  });
});

// https://dev.twitch.tv/docs/api/reference/#get-channel-stream-schedule and #get-videos:
// a schedule segment (`start_time`, `end_time`, `canceled_until`) joined to its stream.
const H = 3_600_000;
const segment = { id: 'seg1', title: 'Morning Drive', start_time: iso(T), end_time: iso(T + H) };

describe('a start / end pair with no planned word beside is the planned range', () => {
  it('a segment only planned: scheduled, from its planned range', () => {
    const { value } = normalizeSession(segment, 'c1', {});
    expect(value).toMatchObject({ status: 'scheduled', scheduledAt: T, scheduledEndAt: T + H });
    expect(value?.startedAt).toBeUndefined();
    expect(value?.endedAt).toBeUndefined();
  });

  it('a segment on air: its end_time stays the plan, so it stays live', () => {
    const raw = { ...segment, type: 'live', started_at: iso(T + 60_000) };
    const { value } = normalizeSession(raw, 'c1', {});
    expect(value).toMatchObject({
      status: 'live',
      scheduledAt: T,
      scheduledEndAt: T + H,
      startedAt: T + 60_000,
    });
    expect(value?.endedAt).toBeUndefined();
  });

  it('a segment cancelled keeps its planned range', () => {
    const { value } = normalizeSession({ ...segment, canceled_until: iso(T + H) }, 'c1', {});
    expect(value).toMatchObject({ status: 'canceled', scheduledAt: T, scheduledEndAt: T + H });
    expect(value?.endedAt).toBeUndefined();
  });

  it('a lone end of a session over with no actual start of its own is its actual end (a Twilio call)', () => {
    const raw = { sid: 'CA1', status: 'completed', start_time: iso(T), end_time: iso(T + H) };
    const { value } = normalizeSession(raw, 'c1', {});
    expect(value).toMatchObject({ status: 'completed', scheduledAt: T, startedAt: T, endedAt: T + H });
    expect(value?.scheduledEndAt).toBeUndefined();
  });

  it('a lone end of a session still under way is its planned end', () => {
    const raw = { sid: 'CA1', status: 'in-progress', start_time: iso(T), end_time: iso(T + H) };
    const { value } = normalizeSession(raw, 'c1', {});
    expect(value).toMatchObject({ startedAt: T, scheduledEndAt: T + H });
    expect(value?.endedAt).toBeUndefined();
  });
});

describe('a session over ran for its length when its plan has an end of its own', () => {
  it('a segment archived ended at its actual start + duration, not at its planned end', () => {
    const raw = { ...segment, type: 'archive', started_at: iso(T + 60_000), duration: '1h2m3s' };
    const { value } = normalizeSession(raw, 'c1', {});
    expect(value).toMatchObject({
      status: 'archive',
      scheduledAt: T,
      scheduledEndAt: T + H,
      startedAt: T + 60_000,
      endedAt: T + 60_000 + 3_723_000,
    });
  });

  it('with no planned end of its own, a length is the planned one', () => {
    const raw = { id: 's1', status: 'ended', scheduled_at: iso(T), started_at: iso(T), duration: '1h0m0s' };
    const { value } = normalizeSession(raw, 'c1', {});
    expect(value).toMatchObject({ scheduledEndAt: T + H });
    expect(value?.endedAt).toBeUndefined();
  });
});

describe('a status word under the record kind, only when it names no status', () => {
  const begun = { startedAt: T };
  it.each<[Record<string, unknown>, { startedAt?: number; endedAt?: number }, string | undefined]>([
    [{ type: 'live' }, begun, 'live'],
    [{ type: 'archive' }, begun, 'archive'],
    [{ kind: 'ended' }, { startedAt: T, endedAt: T + H }, 'ended'],
    [{ stream_type: 'live' }, begun, 'live'],
    [{ type: 'cancelled' }, {}, 'cancelled'],
    // A kind, not a state: the record's kind names what it is.
    [{ type: 'broadcast' }, begun, undefined],
    [{ type: 'recording' }, begun, undefined],
    [{ type: 'sessions' }, begun, undefined],
    [{ type: 'live_event' }, begun, undefined],
    [{ type: 'LiveStream' }, begun, undefined],
    [{ type: 'Archive' }, begun, 'Archive'],
    // A planned live event of `type: "live"` has not begun: the word is its kind.
    [{ type: 'live' }, {}, undefined],
    // On air with an end, or planned after it began, contradicts the times.
    [{ type: 'live' }, { startedAt: T, endedAt: T + H }, undefined],
    [{ type: 'scheduled' }, begun, undefined],
    // Another's type says nothing of the record (`user_type`), nor does a number.
    [{ user_type: 'live' }, begun, undefined],
    [{ type: 2 }, begun, undefined],
  ])('%j with %j → %s', (raw, times, want) => {
    expect(statusFromKind(raw, times)?.status).toBe(want);
  });

  it('a status word wins over the kind', () => {
    const raw = { ...segment, status: 'scheduled', type: 'live', started_at: iso(T) };
    expect(normalizeSession(raw, 'c1', {}).value?.status).toBe('scheduled');
  });

  it('a kind that is no status word leaves the status to the times, and says so', () => {
    const raw = { ...segment, type: 'broadcast', started_at: iso(T) };
    const { value, drift } = normalizeSession(raw, 'c1', {});
    expect(value?.status).toBe('live');
    expect(drift.map((d) => `${d.field}: ${d.problem}`)).toEqual([
      "session.status: no status found; 'live' inferred from the times",
    ]);
  });
});
