import { describe, expect, it } from 'vitest';
import { parseTime } from '../../../src/upstream/shape/index.js';

const T = Date.UTC(2024, 0, 15, 10, 30, 0);

describe('parseTime', () => {
  it.each<[string, unknown, number | undefined]>([
    ['ISO with Z', '2024-01-15T10:30:00Z', T],
    ['ISO with lower-case z', '2024-01-15T10:30:00z', T],
    ['ISO with milliseconds', '2024-01-15T10:30:00.250Z', T + 250],
    ['ISO with microseconds', '2024-01-15T10:30:00.250999Z', T + 250],
    ['ISO with offset', '2024-01-15T12:30:00+02:00', T],
    ['ISO with offset without colon', '2024-01-15T12:30:00+0200', T],
    ['ISO with hour-only offset', '2024-01-15T05:30:00-05', T],
    ['ISO without zone is UTC', '2024-01-15T10:30:00', T],
    ['ISO without seconds', '2024-01-15T10:30Z', T],
    ['space instead of T', '2024-01-15 10:30:00', T],
    ['date only', '2024-01-15', Date.UTC(2024, 0, 15)],
    ['surrounding spaces', '  2024-01-15T10:30:00Z ', T],
    ['epoch seconds', T / 1000, T],
    ['epoch seconds with fraction', T / 1000 + 0.5, T + 500],
    ['epoch milliseconds', T, T],
    ['epoch microseconds', T * 1000, T],
    ['epoch seconds as string', String(T / 1000), T],
    ['epoch milliseconds as string', String(T), T],
    ['HTTP date', 'Mon, 15 Jan 2024 10:30:00 GMT', T],
    ['zero means unset', 0, undefined],
    ['negative means unset', -1, undefined],
    ['empty string', '', undefined],
    ['garbage', 'soon', undefined],
    ['a bare word that Date.parse would accept', 'March 7', undefined],
    ['invalid month', '2024-13-01T00:00:00Z', undefined],
    ['null', null, undefined],
    ['boolean', true, undefined],
    ['object', { at: T }, undefined],
    ['array', [T], undefined],
    ['NaN', Number.NaN, undefined],
    ['Infinity', Number.POSITIVE_INFINITY, undefined],
  ])('%s', (_name, input, expected) => {
    expect(parseTime(input)).toBe(expected);
  });
});
