import { describe, expect, it } from 'vitest';
import {
  describeTimeFormat,
  formatTime,
  granularityMs,
  isTimeFormat,
  parseSentTime,
  statedTimeFormat,
} from '../../src/upstream/query/time-formats.js';

const T = Date.parse('2026-11-24T17:25:46.407Z');

describe('statedTimeFormat', () => {
  it.each<[string, string | undefined]>([
    ["bad request: invalid date format for 'to' (expected yyyy-mm-dd hh:mm:ss)", 'YYYY-MM-DD HH:mm:ss'],
    ['from: expected yyyy-mm-dd', 'YYYY-MM-DD'],
    ['must match yyyy/mm/dd hh:mm', 'YYYY/MM/DD HH:mm'],
    ['format: yyyy-mm-ddthh:mm:ssz', 'YYYY-MM-DDTHH:mm:ssZ'],
    ['expected yyyy-mm-ddthh:mm:ss.sss+hh:mm', 'YYYY-MM-DDTHH:mm:ss.SSS+00:00'],
    ['from must be a unix timestamp', 'epoch_s'],
    ['expected seconds since the epoch', 'epoch_s'],
    ['to: milliseconds since the epoch expected', 'epoch_ms'],
    ['from: expected a unix timestamp in milliseconds', 'epoch_ms'],
    ['from must be an iso 8601 date-time', 'iso_offset'],
    ['expected rfc 3339', 'iso_offset'],
    ["invalid date format for 'from'", undefined],
    ['invalid timestamp', undefined],
  ])('%s → %s', (words, format) => {
    expect(statedTimeFormat(words)).toBe(format);
  });

  it('states only formats it can write', () => {
    for (const w of ['expected yyyy-mm-dd hh:mm:ss', 'yyyy-mm-ddthh:mm:ss.sssz', 'yyyy.mm.dd'])
      expect(isTimeFormat(statedTimeFormat(w))).toBe(true);
    expect(isTimeFormat('DD/MM/YYYY')).toBe(false);
    expect(isTimeFormat('rm -rf')).toBe(false);
  });
});

describe('formatTime', () => {
  it.each<[string, string, string]>([
    ['YYYY-MM-DD HH:mm:ss', '2026-11-24 17:25:46', '2026-11-24 17:25:47'],
    ['YYYY-MM-DD', '2026-11-24', '2026-11-25'],
    ['YYYY/MM/DD HH:mm', '2026/11/24 17:25', '2026/11/24 17:26'],
    ['YYYY-MM-DDTHH:mm:ss.SSSZ', '2026-11-24T17:25:46.407Z', '2026-11-24T17:25:46.407Z'],
    ['iso_offset', '2026-11-24T17:25:46+00:00', '2026-11-24T17:25:47+00:00'],
    ['epoch_s', '1795541146', '1795541147'],
    ['epoch_ms', '1795541146407', '1795541146407'],
  ])('%s: a start rounds down (%s), an end up (%s): the window is never narrower', (format, start, end) => {
    expect(formatTime(T, format, false)).toBe(start);
    expect(formatTime(T, format, true)).toBe(end);
    expect(parseSentTime(start)).toBeLessThanOrEqual(T);
    expect(parseSentTime(end)).toBeGreaterThanOrEqual(T);
    expect(parseSentTime(end) - parseSentTime(start)).toBeLessThanOrEqual(granularityMs(format));
  });

  it('writes UTC whatever the process time zone, and reads it back as UTC', () => {
    expect(parseSentTime('2026-11-24 17:25:46')).toBe(Date.parse('2026-11-24T17:25:46Z'));
    expect(parseSentTime('2026-11-24')).toBe(Date.parse('2026-11-24T00:00:00Z'));
    expect(parseSentTime('2026-11-24T19:25:46+02:00')).toBe(Date.parse('2026-11-24T17:25:46Z'));
    expect(parseSentTime('2026-11-24T17:25:46.407Z')).toBe(T);
    expect(parseSentTime('1795541146')).toBe(Date.parse('2026-11-24T17:25:46Z'));
    expect(parseSentTime('1795541146407')).toBe(T);
    expect(parseSentTime('not a time')).toBeNaN();
  });

  it('describes each format for --explain', () => {
    expect(describeTimeFormat('epoch_s')).toBe('epoch seconds');
    expect(describeTimeFormat('YYYY-MM-DD HH:mm:ss')).toBe('YYYY-MM-DD HH:mm:ss');
  });
});
