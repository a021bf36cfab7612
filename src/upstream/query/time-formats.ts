/**
 * Time formats a session list's window may be sent in when the server refuses tally's own
 * (ISO 8601 with milliseconds and `Z`): requests that adapt (adapt.ts) try them in turn,
 * and take a format the server's error states (`expected YYYY-MM-DD HH:MM:SS`). Pure: no
 * clock, no I/O. Times are always written in UTC.
 *
 * A format is one of
 * - `iso_offset`: ISO 8601 to the second with a numeric offset, `2026-11-24T17:25:46+00:00`;
 * - `epoch_s` / `epoch_ms`: Unix time in seconds / milliseconds;
 * - a pattern of `YYYY`, `MM`, `DD`, `HH`, `mm`, `ss`, `SSS` and literal separators, `Z`
 *   or `+00:00` (`YYYY-MM-DD HH:mm:ss`, `YYYY-MM-DD`), as a server states it.
 *
 * A format coarser than tally's window never narrows it: the start is rounded down, the
 * end up (a day for `YYYY-MM-DD`, a second for epoch seconds).
 */

/** The formats tried, in order, when the server states none. */
export const TIME_LADDER: readonly string[] = ['iso_offset', 'epoch_s'];

const PATTERN = /^YYYY([-/.])MM\1DD(?:([T ])HH:mm(?::ss(?:\.SSS)?)?)?(Z|\+00:00)?$/;

/** Whether `f` is a format this module can write. */
export function isTimeFormat(f: unknown): f is string {
  return (
    typeof f === 'string' && (f === 'iso_offset' || f === 'epoch_s' || f === 'epoch_ms' || PATTERN.test(f))
  );
}

/**
 * The format an error's words (lower-cased) say the server expects, if they state one:
 * a pattern (`expected yyyy-mm-dd hh:mm:ss`, `format: YYYY-MM-DDTHH:MM:SSZ`, `YYYY/MM/DD`),
 * Unix time (`unix timestamp`, `epoch seconds`, `milliseconds since the epoch`), or
 * ISO 8601 / RFC 3339.
 */
export function statedTimeFormat(words: string): string | undefined {
  const m =
    /\by{4}([-/.])m{2}\1d{2}(?:(t|\s)h{2}:(?:m{2}|mi|nn)(?::s{2}(?:[.,]s{1,9})?)?)?(z\b|[+±-]h{2}:?m{2}|tzd|xxx)?/.exec(
      words,
    );
  if (m) {
    const [all, sep, t] = m;
    const date = `YYYY${sep}MM${sep}DD`;
    if (t === undefined) return date;
    const seconds = /:s{2}/.test(all) ? ':ss' : '';
    const fraction = seconds && /[.,]s{1,9}/.test(all) ? '.SSS' : '';
    const zone = m[3] === undefined ? '' : m[3] === 'z' ? 'Z' : '+00:00';
    return `${date}${t === 't' ? 'T' : ' '}HH:mm${seconds}${fraction}${zone}`;
  }
  // `invalid integer` of a time: a count of seconds, as Stripe's ranges take them.
  const unix = /\b(unix|epoch|posix)\b|\bseconds since\b|\btimestamp in (milli)?seconds\b|\binteger\b/.test(
    words,
  );
  if (unix || /\bmilliseconds since\b/.test(words))
    return /\bmilli(second)?s?\b|\bms\b/.test(words) ? 'epoch_ms' : 'epoch_s';
  if (/\biso[ -]?8601\b|\brfc[ -]?3339\b/.test(words)) return 'iso_offset';
  return undefined;
}

/** The smallest step of a format, in ms: what rounding to it may move a time by. */
export function granularityMs(format: string): number {
  if (format === 'epoch_ms' || format.includes('SSS')) return 1;
  if (format === 'iso_offset' || format === 'epoch_s' || format.includes('ss')) return 1000;
  if (format.includes('mm')) return 60_000;
  return 86_400_000;
}

/** `ms` written in `format`, rounded down for a window's start and up for its end. */
export function formatTime(ms: number, format: string, end: boolean): string {
  const step = granularityMs(format);
  const t = end ? Math.ceil(ms / step) * step : Math.floor(ms / step) * step;
  if (format === 'epoch_ms') return String(t);
  if (format === 'epoch_s') return String(t / 1000);
  if (format === 'iso_offset') return new Date(t).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const d = new Date(t);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const parts: Record<string, string> = {
    YYYY: pad(d.getUTCFullYear(), 4),
    MM: pad(d.getUTCMonth() + 1),
    DD: pad(d.getUTCDate()),
    HH: pad(d.getUTCHours()),
    mm: pad(d.getUTCMinutes()),
    ss: pad(d.getUTCSeconds()),
    SSS: pad(d.getUTCMilliseconds(), 3),
  };
  return format.replace(/YYYY|MM|DD|HH|mm|SSS|ss/g, (token) => parts[token] ?? token);
}

/**
 * The time a query value stands for, in whatever format tally sent it: Unix seconds or
 * milliseconds (told apart by size), a date and time with or without a zone (none: UTC),
 * or anything `Date.parse` reads. NaN when none fits.
 */
export function parseSentTime(v: string): number {
  if (/^\d+$/.test(v)) return v.length >= 12 ? Number(v) : Number(v) * 1000;
  const m =
    /^(\d{4})[-/.](\d\d)[-/.](\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d\d:?\d\d)?$/i.exec(
      v,
    );
  if (!m) return Date.parse(v);
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', zone] = m;
  let ms = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +s, Math.floor(Number(`0.${frac}`) * 1000));
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const z = /([+-])(\d\d):?(\d\d)/.exec(zone)!;
    ms -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
  }
  return ms;
}

/** How a format reads in `--explain` (`epoch seconds`, `YYYY-MM-DD HH:mm:ss`). */
export function describeTimeFormat(format: string): string {
  switch (format) {
    case 'iso_offset':
      return 'ISO 8601 with a numeric offset (+00:00)';
    case 'epoch_s':
      return 'epoch seconds';
    case 'epoch_ms':
      return 'epoch milliseconds';
    default:
      return format;
  }
}
