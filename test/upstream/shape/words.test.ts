/**
 * Fields by meaning (docs/upstream-shapes.md, "Fields"): keys split into words, matched to
 * a field's concepts and confirmed by their values; equal candidates are drift.
 */
import { describe, expect, it } from 'vitest';
import { normalizeChannel, normalizeMember, normalizeSession } from '../../../src/upstream/shape/index.js';
import { conceptScore, findByWords } from '../../../src/upstream/shape/words-tier.js';
import { CONCEPTS } from '../../../src/upstream/shape/concepts.js';
import { isIdLikeKey, splitWords } from '../../../src/upstream/shape/words.js';
import { outsideWindow } from '../../../src/snapshot/diff-window.js';

describe('splitWords', () => {
  it.each<[string, string[]]>([
    ['scheduled_start_time', ['scheduled', 'start', 'time']],
    ['scheduledStartTime', ['scheduled', 'start', 'time']],
    ['ScheduledStartTime', ['scheduled', 'start', 'time']],
    ['scheduled-start-time', ['scheduled', 'start', 'time']],
    ['scheduled.start.time', ['scheduled', 'start', 'time']],
    ['@odata.nextLink', ['odata', 'next', 'link']],
    ['$scheduledStart', ['scheduled', 'start']],
    ['_id', ['id']],
    ['channelID', ['channel', 'id']],
    ['HTTPStatusCode', ['http', 'status', 'code']],
    ['startsAt2', ['starts', 'at', '2']],
  ])('%s', (key, words) => {
    expect(splitWords(key)).toEqual(words);
  });

  it('tells id-like keys', () => {
    expect(['id', 'channelId', 'session_uuid', '@id', 'slug'].every(isIdLikeKey)).toBe(true);
    expect(['idle', 'video', 'name'].some(isIdLikeKey)).toBe(false);
  });
});

describe('conceptScore', () => {
  const planned = CONCEPTS['session.scheduledAt']?.[0];
  it('needs a word of every group, and no ruled-out word', () => {
    if (planned === undefined) throw new Error('no concept');
    expect(conceptScore(['planned', 'start', 'at'], planned)).toBe(1);
    expect(conceptScore(['expected', 'begin', 'local'], planned)).toBeCloseTo(2 / 3);
    expect(conceptScore(['start', 'at'], planned)).toBe(0);
    expect(conceptScore(['actual', 'start', 'scheduled'], planned)).toBe(0);
  });
});

const t1 = '2030-01-01T10:00:00Z';
const t2 = '2030-01-01T11:00:00Z';

describe('session times by their words', () => {
  it.each<[string, Record<string, unknown>, Record<string, number>]>([
    ['planned start, camelCase', { plannedStartTime: t1 }, { scheduledAt: Date.parse(t1) }],
    ['a lone `begins`', { begins: t1, finishes: t2 }, { scheduledAt: Date.parse(t1) }],
    ['`slot.from`', { slot: { from: t1, to: t2 } }, { scheduledAt: Date.parse(t1) }],
    [
      'actual start and end',
      { actualBeginTime: t1, realEndTime: t2 },
      { startedAt: Date.parse(t1), endedAt: Date.parse(t2) },
    ],
    ['went live', { wentLive: t1 }, { startedAt: Date.parse(t1) }],
    ['epoch seconds', { 'expected-start': 1893492000 }, { scheduledAt: 1893492000000 }],
  ])('%s', (_name, fields, times) => {
    const { value, drift } = normalizeSession({ id: 's1', status: 'scheduled', ...fields }, 'c1', {});
    expect(value).toMatchObject(times);
    expect(drift).toEqual([]);
  });

  it('a value that is no time is not read as one', () => {
    const { value } = normalizeSession({ id: 's1', status: 'scheduled', begins: 'soon', start: 3 }, 'c1', {});
    expect(value?.scheduledAt).toBeUndefined();
  });

  it('two keys that say the same equally well: drift naming both, neither read', () => {
    const { value, drift } = normalizeSession(
      { id: 's1', status: 'scheduled', scheduledBegin: t1, expectedStart: t2 },
      'c1',
      {},
    );
    expect(value?.scheduledAt).toBeUndefined();
    expect(drift).toContainEqual({
      endpoint: 'sessions',
      field: 'session.scheduledAt',
      problem: 'ambiguous: keys "scheduledBegin", "expectedStart" each look like it; none was read',
      fatal: false,
    });
  });

  it('an alias wins over the words of other keys', () => {
    const { value } = normalizeSession({ id: 's1', scheduled_at: t1, plannedStart: t2 }, 'c1', {});
    expect(value?.scheduledAt).toBe(Date.parse(t1));
  });

  it('a named field left empty is not looked for by its words', () => {
    expect(findByWords({ begins: t1 }, 'session.scheduledAt')).toMatchObject({ match: { path: 'begins' } });
    const { value } = normalizeSession({ id: 's1', scheduled_at: null, begins: t1 }, 'c1', {});
    expect(value?.scheduledAt).toBeUndefined();
  });

  it('`{ begins, finishes }` in the past lies outside a window of today', () => {
    const { value } = normalizeSession(
      { id: 's1', status: 'scheduled', begins: '2020-01-01T10:00:00Z', finishes: '2020-01-01T11:00:00Z' },
      'c1',
      {},
    );
    if (value === undefined) throw new Error('no session');
    const window = { from: Date.parse('2030-01-01T00:00:00Z'), to: Date.parse('2030-01-02T00:00:00Z') };
    expect(outsideWindow(value, window)).toBe(true);
  });
});

describe('other fields by their words', () => {
  it('a channel status under a key tally has no alias for, confirmed by the vocabulary', () => {
    const { value, drift } = normalizeChannel({ id: 'c1', broadcastPhase: 'ON_AIR' }, {});
    expect(value?.status).toBe('on_air');
    expect(drift).toEqual([]);
  });

  it('a word that is no status is not taken for one', () => {
    const { value } = normalizeChannel({ id: 'c1', phase: 'banana' }, {});
    expect(value?.status).toBe('unknown');
  });

  it('a member id and email under their own names', () => {
    const { value } = normalizeMember({ personKey: 'p1', mailAddress: 'a@b.c' }, {});
    expect(value).toMatchObject({ id: 'p1', email: 'a@b.c' });
  });
});

describe('keys that name something else', () => {
  it('a host name is no title, a recording status no session status, a role name no member name', () => {
    const s = normalizeSession({ id: 's1', host_name: 'Ann', recordingStatus: 'recording' }, 'c1', {});
    expect(s.value?.title).toBeUndefined();
    expect(s.value?.status).toBe('unknown');
    const m = normalizeMember({ id: 'm1', roleName: 'Admin' }, {});
    expect(m.value?.name).toBeUndefined();
  });
});
