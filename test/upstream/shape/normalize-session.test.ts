import { describe, expect, it } from 'vitest';
import { normalizeSession } from '../../../src/upstream/shape/index.js';

const T = Date.UTC(2024, 0, 15, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('normalizeSession', () => {
  it('gives every combination of fields present the same object, fields in the model order', () => {
    const optional = [
      ['title', 'title', 'Morning', 'Morning'],
      ['scheduled_at', 'scheduledAt', iso(T), T],
      ['started_at', 'startedAt', iso(T + 1), T + 1],
      ['ended_at', 'endedAt', iso(T + 2), T + 2],
    ] as const;
    for (let mask = 0; mask < 16; mask++) {
      const raw: Record<string, unknown> = { id: 's1', status: 'ended' };
      const want: Record<string, unknown> = { id: 's1', channelId: 'c1', status: 'ended' };
      optional.forEach(([field, key, given, read], bit) => {
        if ((mask & (1 << bit)) === 0) return;
        raw[field] = given;
        want[key] = read;
      });
      const got = normalizeSession(raw, 'c1', {}).value;
      expect(got).toStrictEqual(want);
      // The same order as the model lists them, so snapshot files and API answers keep theirs.
      expect(JSON.stringify(got)).toBe(
        JSON.stringify(want, ['id', 'channelId', 'status', 'title', 'scheduledAt', 'startedAt', 'endedAt']),
      );
    }
  });

  it('reads the canonical shape', () => {
    const raw = {
      id: 's1',
      channel_id: 'c1',
      title: 'Morning',
      status: 'live',
      scheduled_at: iso(T),
      started_at: iso(T + 60_000),
      ended_at: null,
    };
    expect(normalizeSession(raw, 'c1', {})).toEqual({
      value: {
        id: 's1',
        channelId: 'c1',
        title: 'Morning',
        status: 'live',
        scheduledAt: T,
        startedAt: T + 60_000,
      },
      drift: [],
    });
  });

  it('reads the camelCase shape', () => {
    const raw = {
      id: 's1',
      channelId: 'c1',
      title: 'M',
      status: 'ended',
      scheduledAt: iso(T),
      startedAt: iso(T),
      endedAt: iso(T + 1),
    };
    expect(normalizeSession(raw, 'c1', {}).value).toEqual({
      id: 's1',
      channelId: 'c1',
      title: 'M',
      status: 'ended',
      scheduledAt: T,
      startedAt: T,
      endedAt: T + 1,
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    // A lone start is the planned one, and the actual one of a session under way.
    ['start_time', { start_time: iso(T) }, { scheduledAt: T, startedAt: T }],
    ['starts_at', { starts_at: T / 1000 }, { scheduledAt: T, startedAt: T }],
    ['scheduledFor', { scheduledFor: T }, { scheduledAt: T }],
    [
      'scheduled_at wins over start_time, then the actual start (docs/upstream-shapes.md, "Fields")',
      { scheduled_at: iso(T), start_time: iso(T + 5) },
      { scheduledAt: T, startedAt: T + 5 },
    ],
    ['actual_start', { actual_start: String(T / 1000) }, { startedAt: T }],
    ['scheduled_end_at', { scheduled_end_at: iso(T) }, { scheduledEndAt: T }],
    ['ends_at', { ends_at: T / 1000 }, { scheduledEndAt: T }],
    ['planned_end', { planned_end: iso(T) }, { scheduledEndAt: T }],
    [
      'a planned range',
      { planned_start: iso(T), scheduled_end: iso(T + 3_600_000) },
      { scheduledAt: T, scheduledEndAt: T + 3_600_000 },
    ],
    ['finished_at', { finished_at: iso(T) }, { endedAt: T }],
    // A lone end (no planned word beside it) is the planned end, as a lone start is the planned start.
    ['end_time, a lone end', { end_time: iso(T) }, { scheduledEndAt: T }],
    ['name as title', { name: 'N' }, { title: 'N' }],
    ['topic as title', { topic: 'To' }, { title: 'To' }],
    ['state', { status: undefined, state: 'Scheduled' }, { status: 'scheduled' }],
    ['numeric id', { id: 99 }, { id: '99' }],
    ['broadcast_id', { id: undefined, broadcast_id: 'b7' }, { id: 'b7' }],
  ])('%s', (_name, fields, expected) => {
    const raw = { id: 's', status: 'live', ...fields };
    const r = normalizeSession(raw, 'c1', {});
    expect(r.value).toEqual({ id: 's', channelId: 'c1', status: 'live', ...expected });
    expect(r.drift).toEqual([]);
  });

  it('an unknown status word is kept verbatim, classed unknown and reported by name', () => {
    const r = normalizeSession({ id: 's', status: 'Rehearsal' }, 'c1', {});
    expect(r.value?.status).toBe('rehearsal');
    expect(r.drift.map((i) => i.problem)).toEqual(['unknown status word "rehearsal"; its class is unknown']);
  });

  it('the channel listed under is authoritative; the record is the fallback', () => {
    expect(normalizeSession({ id: 's', status: 'x', channel_id: 'other' }, 'c1', {}).value?.channelId).toBe(
      'c1',
    );
    expect(normalizeSession({ id: 's', status: 'x', channel: { id: 4 } }, '', {}).value?.channelId).toBe('4');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'ended from ended_at',
      { ended_at: iso(T), started_at: iso(T - 1) },
      'ended',
      "no status found; 'ended' inferred from the times",
    ],
    [
      'live from started_at',
      { started_at: iso(T) },
      'live',
      "no status found; 'live' inferred from the times",
    ],
    [
      'scheduled from scheduled_at',
      { scheduled_at: iso(T) },
      'scheduled',
      "no status found; 'scheduled' inferred from the times",
    ],
    ['unknown without times', {}, 'unknown', 'no status found'],
  ])('missing status: %s', (_name, fields, status, problem) => {
    const r = normalizeSession({ id: 's', ...fields }, 'c1', {});
    expect(r.value?.status).toBe(status);
    expect(r.drift).toEqual([{ endpoint: 'sessions', field: 'session.status', problem, fatal: false }]);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'unparseable time',
      { scheduled_at: 'next tuesday' },
      'session.scheduledAt',
      "'scheduled_at' is not a recognizable time",
    ],
    [
      'time is an object',
      { started_at: { at: 1 } },
      'session.startedAt',
      "'started_at' is an object, expected a time",
    ],
    ['title is a list', { title: ['a'] }, 'session.title', "'title' is an array (1 item), expected a string"],
  ])('drift: %s', (_name, fields, field, problem) => {
    const r = normalizeSession({ id: 's', status: 'live', ...fields }, 'c1', {});
    expect(r.value).toBeDefined();
    expect(r.drift).toEqual([{ endpoint: 'sessions', field, problem, fatal: false }]);
  });

  it('no id is fatal', () => {
    const r = normalizeSession({ title: 'x', status: 'live' }, 'c1', {});
    expect(r.value).toBeUndefined();
    expect(r.drift).toEqual([
      {
        endpoint: 'sessions',
        field: 'session.id',
        problem: 'no usable id; keys seen: "title", "status"',
        fatal: true,
      },
    ]);
  });
});
