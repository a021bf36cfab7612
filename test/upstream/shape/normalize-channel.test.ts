import { describe, expect, it } from 'vitest';
import { normalizeChannel, normalizeSession, type ShapeTrace } from '../../../src/upstream/shape/index.js';

describe('normalizeChannel', () => {
  it('reads the canonical shape', () => {
    const raw = {
      id: 'c1',
      name: 'News',
      status: 'live',
      visibility: 'public',
      created_at: '2024-01-01T00:00:00Z',
    };
    expect(normalizeChannel(raw, {})).toEqual({
      value: { id: 'c1', name: 'News', status: 'live', visibility: 'public' },
      drift: [],
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['numeric id', { id: 3, status: 'idle' }, { id: '3', status: 'idle' }],
    ['slug as id', { slug: 'news', status: 'idle' }, { id: 'news', status: 'idle' }],
    ['id wins over slug', { slug: 'news', id: 7, status: 'idle' }, { id: '7', status: 'idle' }],
    ['key as id', { key: 'k', status: 'idle' }, { id: 'k', status: 'idle' }],
    ['title as name', { id: 1, title: 'T', status: 'idle' }, { id: '1', name: 'T', status: 'idle' }],
    ['displayName', { id: 1, displayName: 'D', status: 'idle' }, { id: '1', name: 'D', status: 'idle' }],
    ['state', { id: 1, state: 'offline' }, { id: '1', status: 'offline' }],
    ['status upper-case and padded', { id: 1, status: ' LIVE ' }, { id: '1', status: 'live' }],
    ['live: true', { id: 1, live: true }, { id: '1', status: 'live' }],
    ['is_live: false', { id: 1, is_live: false }, { id: '1', status: 'offline' }],
    ['isLive: "true"', { id: 1, isLive: 'true' }, { id: '1', status: 'live' }],
    ['status as a boolean', { id: 1, status: true }, { id: '1', status: 'live' }],
    ['status wins over live', { id: 1, status: 'idle', live: true }, { id: '1', status: 'idle' }],
    [
      'an enablement word gives way to the on-air flag',
      { id: 1, state: 'ACTIVE', onAir: false },
      { id: '1', status: 'offline' },
    ],
    ['an enabled channel on air', { id: 1, state: 'enabled', is_live: true }, { id: '1', status: 'live' }],
    ['active with no flag stays live', { id: 1, state: 'active' }, { id: '1', status: 'active' }],
    [
      'privacy',
      { id: 1, status: 'offline', privacy: 'Unlisted' },
      { id: '1', status: 'offline', visibility: 'unlisted' },
    ],
    [
      'access',
      { id: 1, status: 'offline', access: 'private' },
      { id: '1', status: 'offline', visibility: 'private' },
    ],
    [
      'is_public: false',
      { id: 1, status: 'offline', is_public: false },
      { id: '1', status: 'offline', visibility: 'private' },
    ],
    [
      'isPrivate: false',
      { id: 1, status: 'offline', isPrivate: false },
      { id: '1', status: 'offline', visibility: 'public' },
    ],
  ])('%s', (_name, raw, expected) => {
    const r = normalizeChannel(raw, {});
    expect(r.value).toEqual(expected);
    expect(r.drift).toEqual([]);
  });

  it('an unknown status or visibility word is kept verbatim and reported by name', () => {
    const r = normalizeChannel({ id: 1, status: 'Warming_Up', visibility: 'Galactic' }, {});
    expect(r.value).toEqual({ id: '1', status: 'warming_up', visibility: 'galactic' });
    expect(r.drift.map((i) => [i.field, i.problem])).toEqual([
      ['channel.status', 'unknown status word "warming_up"; its class is unknown'],
      ['channel.visibility', 'unknown visibility word "galactic"; its class is unknown'],
    ]);
  });

  it.each([
    ['ON_AIR', 'live'],
    ['Broadcasting', 'live'],
    ['idle', 'offline'],
    ['Off-Air', 'offline'],
    ['ended', 'offline'],
  ])('status %s is known (%s): no drift', (word, _cls) => {
    expect(normalizeChannel({ id: 1, status: word }, {}).drift).toEqual([]);
  });

  it('reads a JSON:API resource object', () => {
    const raw = {
      id: '9',
      type: 'channels',
      attributes: { name: 'N', status: 'Live', visibility: 'public' },
    };
    expect(normalizeChannel(raw, {})).toEqual({
      value: { id: '9', name: 'N', status: 'live', visibility: 'public' },
      drift: [],
    });
  });

  it('operator aliases: { channel.status: [liveState] }', () => {
    expect(
      normalizeChannel(
        { id: 1, liveState: 'ON_AIR', status: 'x' },
        { fields: { 'channel.status': ['liveState'] } },
      ).value,
    ).toEqual({ id: '1', status: 'on_air' });
  });

  it.each<[string, Record<string, unknown>, string, string, string]>([
    [
      'status is an object with no word in it',
      { id: 1, status: { since: 3 } },
      'channel.status',
      "'status' is an object, expected a string",
      'unknown',
    ],
    ['no status at all', { id: 1 }, 'channel.status', 'no status found', 'unknown'],
    [
      'status is a number',
      { id: 1, status: 2 },
      'channel.status',
      "'status' is a number, expected a string",
      '2',
    ],
  ])('drift: %s', (_name, raw, field, problem, status) => {
    const r = normalizeChannel(raw, {});
    expect(r.value?.status).toBe(status);
    expect(r.drift).toEqual([{ endpoint: 'channels', field, problem, fatal: false }]);
  });

  it('a wrong-typed status next to a usable state is not drift', () => {
    expect(normalizeChannel({ id: 1, status: { code: 1 }, state: 'live' }, {})).toEqual({
      value: { id: '1', status: 'live' },
      drift: [],
    });
  });

  it.each<[string, unknown]>([
    ['no id', { name: 'x', status: 'live' }],
    ['id null', { id: null, status: 'live' }],
    ['id is a boolean', { id: true }],
    ['not an object', 42],
  ])('fatal: %s', (_name, raw) => {
    const r = normalizeChannel(raw, {});
    expect(r.value).toBeUndefined();
    expect(r.drift.filter((d) => d.fatal)).toHaveLength(1);
    expect(r.drift.every((d) => d.endpoint === 'channels')).toBe(true);
  });
});

describe('what --explain is told about ids and times', () => {
  function traced(read: (trace: ShapeTrace) => void): Map<string, string | undefined> {
    const fields = new Map<string, string | undefined>();
    read({
      field: (_e, key, path, how) => fields.set(`${key} ← ${path}`, how),
      keys: () => {},
      page: () => {},
    });
    return fields;
  }

  it('an id never has an epoch unit, however large or time-like', () => {
    for (const id of [1_700_000_000_000, '1700000000000', '1462947128391651330', 1_700_000_000]) {
      const fields = traced((trace) => normalizeChannel({ id, status: 'idle' }, { trace }));
      expect(fields.get('channel.id ← id')).toBeUndefined();
    }
    const session = traced((trace) => normalizeSession({ session_id: 1_700_000_000_000 }, 'c1', { trace }));
    expect(session.get('session.id ← session_id')).toBeUndefined();
  });

  it('a time says its epoch unit, by the size parseTime goes by', () => {
    const fields = traced((trace) =>
      normalizeSession(
        {
          id: 's1',
          scheduled_at: 1_700_000_000,
          started_at: '1700000000000',
          ended_at: 1_700_000_000_000_000,
        },
        'c1',
        { trace },
      ),
    );
    expect(fields.get('session.scheduledAt ← scheduled_at')).toBe('epoch seconds');
    expect(fields.get('session.startedAt ← started_at')).toBe('epoch milliseconds');
    expect(fields.get('session.endedAt ← ended_at')).toBe('epoch microseconds');
  });
});
