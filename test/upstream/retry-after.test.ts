/**
 * Retry-After as an HTTP-date in each of the three forms RFC 9110 §5.6.7 says a
 * recipient must accept, against the same instants written as numbers of seconds.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_MS,
  parseHttpDate,
  parseRetryAfter,
} from '../../src/upstream/transport/retry-after.js';

/** Tuesday 2026-01-06 12:00:00 GMT. */
const NOW = Date.UTC(2026, 0, 6, 12, 0, 0);
/** Sunday 1994-11-06 08:49:37 GMT, the RFC's own example. */
const RFC_EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);

describe('parseHttpDate', () => {
  it.each<[form: string, value: string, expected: number]>([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT', RFC_EXAMPLE],
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT', RFC_EXAMPLE],
    ['asctime, one-digit day', 'Sun Nov  6 08:49:37 1994', RFC_EXAMPLE],
    ['asctime, two-digit day', 'Wed Nov 16 08:49:37 1994', Date.UTC(1994, 10, 16, 8, 49, 37)],
    ['IMF-fixdate, one-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT', RFC_EXAMPLE],
    ['IMF-fixdate, other case', 'sun, 06 nov 1994 08:49:37 gmt', RFC_EXAMPLE],
    ['IMF-fixdate, 29 Feb of a leap year', 'Thu, 29 Feb 2024 00:00:00 GMT', Date.UTC(2024, 1, 29)],
    ['IMF-fixdate, leap second', 'Wed, 31 Dec 2025 23:59:60 GMT', Date.UTC(2026, 0, 1)],
    ['RFC 850, this year', 'Tuesday, 06-Jan-26 12:00:30 GMT', NOW + 30_000],
    ['RFC 850, 50 years ahead', 'Monday, 06-Jan-76 12:00:00 GMT', Date.UTC(2076, 0, 6, 12)],
    ['RFC 850, 51 years ahead is the past', 'Monday, 06-Jan-77 12:00:00 GMT', Date.UTC(1977, 0, 6, 12)],
    ['RFC 850, the year 2000', 'Saturday, 01-Jan-00 00:00:00 GMT', Date.UTC(2000, 0, 1)],
    ['asctime, end of year', 'Wed Dec 31 23:59:59 2025', Date.UTC(2025, 11, 31, 23, 59, 59)],
  ])('reads %s: %j', (_form, value, expected) => {
    expect(parseHttpDate(value, NOW)).toBe(expected);
  });

  it.each<[what: string, value: string]>([
    ['no day name', '06 Nov 1994 08:49:37 GMT'],
    ['an unknown day name', 'Fun, 06 Nov 1994 08:49:37 GMT'],
    ['a long day name in IMF-fixdate', 'Sunday, 06 Nov 1994 08:49:37 GMT'],
    ['a short day name in RFC 850', 'Sun, 06-Nov-94 08:49:37 GMT'],
    ['another zone', 'Sun, 06 Nov 1994 08:49:37 PST'],
    ['a numeric offset', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['no zone in IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37'],
    ['a zone after asctime', 'Sun Nov  6 08:49:37 1994 GMT'],
    ['a two-digit year in IMF-fixdate', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['a four-digit year in RFC 850', 'Sunday, 06-Nov-1994 08:49:37 GMT'],
    ['an unknown month', 'Sun, 06 Nop 1994 08:49:37 GMT'],
    ['31 February', 'Tue, 31 Feb 2026 08:49:37 GMT'],
    ['29 February of a common year', 'Sun, 29 Feb 2026 08:49:37 GMT'],
    ['day 0', 'Sun Nov  0 08:49:37 1994'],
    ['hour 24', 'Sunday, 06-Nov-94 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:00 GMT'],
    ['second 61', 'Sun, 06 Nov 1994 08:49:61 GMT'],
    ['ISO 8601', '1994-11-06T08:49:37Z'],
    ['text', 'tomorrow'],
    ['a date with trailing text', 'Sun, 06 Nov 1994 08:49:37 GMT; please'],
  ])('rejects %s: %j', (_what, value) => {
    expect(parseHttpDate(value, NOW)).toBeUndefined();
  });

  it('reads asctime as GMT whatever the local time zone', () => {
    const saved = process.env['TZ'];
    try {
      for (const tz of ['America/New_York', 'Asia/Tokyo', 'UTC']) {
        process.env['TZ'] = tz;
        expect({ tz, at: parseHttpDate('Sun Nov  6 08:49:37 1994', NOW) }).toEqual({ tz, at: RFC_EXAMPLE });
      }
      // The zone really changed: the same wall-clock text read as local time moves with it.
      process.env['TZ'] = 'America/New_York';
      expect(new Date(1994, 10, 6, 8, 49, 37).getTime()).not.toBe(RFC_EXAMPLE);
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
  });
});

describe('parseRetryAfter with an HTTP-date', () => {
  /** The same instant in each form: seconds from NOW, and the three date spellings. */
  const at = (offsetS: number) => {
    const d = new Date(NOW + offsetS * 1000);
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const p2 = (n: number) => String(n).padStart(2, '0');
    const day = days[d.getUTCDay()]!;
    const mon = months[d.getUTCMonth()]!;
    const time = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
    const yy = p2(d.getUTCFullYear() % 100);
    const dd = String(d.getUTCDate()).padStart(2, ' ');
    return {
      imf: d.toUTCString(),
      rfc850: `${day}, ${p2(d.getUTCDate())}-${mon}-${yy} ${time} GMT`,
      asctime: `${day.slice(0, 3)} ${mon} ${dd} ${time} ${d.getUTCFullYear()}`,
    };
  };

  const rows: [form: string, value: string, offsetS: number, expected: number | undefined][] = [];
  for (const [offsetS, expected] of [
    [42, 42_000],
    [3600, 3_600_000], // exactly the longest wait taken at its word
    [0, 0],
    [-42, 0], // in the past: now
    [-10 * 365 * 86_400, 0], // long past: still now
    [3601, undefined], // too far ahead to trust
    [-20 * 86_400 + 5, 0], // a date in another month in the past
  ] as const) {
    for (const [form, value] of Object.entries(at(offsetS))) rows.push([form, value, offsetS, expected]);
  }

  it.each(rows)('%s %j (%i s from now) → %j ms', (_form, value, _offsetS, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('writes the forms as the RFC spells them', () => {
    // Guards the table above: a builder that drifted from the grammar would test nothing.
    const d = at((RFC_EXAMPLE - NOW) / 1000);
    expect(d).toEqual({
      imf: 'Sun, 06 Nov 1994 08:49:37 GMT',
      rfc850: 'Sunday, 06-Nov-94 08:49:37 GMT',
      asctime: 'Sun Nov  6 08:49:37 1994',
    });
  });

  it.each<[what: string, value: string | undefined]>([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['text', 'soon'],
    ['a number in exponent form', '1e3'],
    ['hex', '0x10'],
    ['negative seconds', '-5'],
    ['a date without a day name', '06 Nov 2026 12:00:00 GMT'],
    ['a date in another zone', 'Tue, 06 Jan 2026 12:00:42 CET'],
    ['asctime with a zone', 'Tue Jan  6 12:00:42 2026 GMT'],
    ['a non-existent date', 'Fri, 30 Feb 2026 12:00:00 GMT'],
    ['a date a year ahead', 'Wed, 06 Jan 2027 12:00:00 GMT'],
  ])('does not trust %s', (_what, value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it.each<[what: string, skewS: number]>([
    ['50 minutes ahead', 50 * 60],
    ['10 minutes behind', -10 * 60],
    ['2 hours ahead', 2 * 3600],
    ['in step', 0],
  ])('measures a date from the answer’s own Date header when the server’s clock is %s', (_w, skewS) => {
    // The server means 30 s: its Retry-After is its own clock plus 30 s.
    const serverNow = at(skewS).imf;
    const retryAt = at(skewS + 30);
    for (const value of Object.values(retryAt)) expect(parseRetryAfter(value, NOW, serverNow)).toBe(30_000);
  });

  it('measures from its own clock when the Date header is missing or not an HTTP-date', () => {
    const value = at(42).imf;
    expect(parseRetryAfter(value, NOW, undefined)).toBe(42_000);
    expect(parseRetryAfter(value, NOW, 'yesterday')).toBe(42_000);
    expect(parseRetryAfter(value, NOW, '')).toBe(42_000);
    // Seconds are seconds, whatever the Date header says.
    expect(parseRetryAfter('7', NOW, at(3000).imf)).toBe(7000);
  });

  it('takes up to an hour at its word and no more', () => {
    expect(parseRetryAfter(at(MAX_RETRY_AFTER_MS / 1000).asctime, NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(at(MAX_RETRY_AFTER_MS / 1000 + 1).rfc850, NOW)).toBeUndefined();
  });
});
