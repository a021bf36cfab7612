/**
 * What a session record says of itself besides a status word and its named times
 * (docs/upstream-shapes.md, "Fields"): flags (`is_cancelled: true`, `live: true`), the
 * time of an outcome (`cancelled_at`), a status word under its kind (`type: "archive"`),
 * and a length (`duration_minutes: 45`, `duration: "PT1H30M"`, `duration: "1h2m3s"`)
 * from which the planned end follows, or the actual one of a session over.
 */
import { statusClass, wordsOf } from '../../snapshot/vocabulary.js';
import { isRecord, type JsonRecord } from './json.js';
import { parseNumber } from './numbers.js';
import { parseTime } from './time.js';
import { splitWords } from './words.js';

/** Words a flag or an outcome's time says a session's state with; nothing weaker (`active`, `open`). */
const FLAG_WORDS: Readonly<Record<string, 'canceled' | 'failed' | 'ended' | 'live'>> = {
  cancelled: 'canceled',
  canceled: 'canceled',
  failed: 'failed',
  errored: 'failed',
  ended: 'ended',
  finished: 'ended',
  completed: 'ended',
  live: 'live',
  onair: 'live',
  broadcasting: 'live',
  streaming: 'live',
};
/** Words of a flag that say nothing of the state: `is_live`, `currentlyStreaming`. */
const FLAG_FILLERS = new Set(['is', 'has', 'was', 'been', 'now', 'currently']);
/** Last words of an outcome's time (`cancelled_at`, `cancelledOn`, `failed_time`, Twitch's `canceled_until`). */
const TIME_SUFFIX = new Set(['at', 'on', 'time', 'date', 'ts', 'until']);
/** Outcomes decide before an activity: a cancelled session flagged live too is cancelled. */
const PRECEDENCE = ['canceled', 'failed', 'ended', 'live'] as const;
const MAX_KEYS = 200;

/**
 * The state a record's flags or outcome times say, when it names no status: a true flag
 * (`is_cancelled`, `on_air`) or a time under an outcome's name (`cancelled_at`). Undefined
 * when none does; the strongest outcome wins when several do.
 */
export function statusFromFlags(raw: JsonRecord): { status: string; key: string } | undefined {
  const found = new Map<string, string>();
  let n = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) continue;
    if (++n > MAX_KEYS) break;
    const v = raw[key];
    const words = splitWords(key).filter((w) => !FLAG_FILLERS.has(w));
    if (words.length > 1 && TIME_SUFFIX.has(words[words.length - 1] ?? '')) words.pop();
    const word = words.join('');
    const cls = FLAG_WORDS[word];
    if (cls === undefined) continue;
    // An end's time is the actual end (its status is inferred from the times); only the
    // outcomes the times cannot tell, cancelled and failed, are said by a time's name.
    const timed =
      (cls === 'canceled' || cls === 'failed') && typeof v === 'string' && parseTime(v) !== undefined;
    if (v === true || timed) found.set(cls, key);
  }
  for (const cls of PRECEDENCE) {
    const key = found.get(cls);
    if (key !== undefined && statusClass(cls) !== 'unknown') return { status: cls, key };
  }
  return undefined;
}

/** Units a length's key names, in milliseconds. */
const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  millis: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hours: 3_600_000,
};
const LENGTH_WORDS = new Set(['duration', 'length']);
/** A length that is not the planned one. */
const NOT_PLANNED = new Set(['actual', 'real', 'elapsed', 'recorded', 'total', 'average', 'max', 'min']);
/** ISO 8601 durations as APIs write them: `PT1H30M`, `PT45M`, `P1DT2H`, `PT90S`. */
const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** Milliseconds of an ISO 8601 duration, or undefined. */
export function parseIsoDuration(v: string): number | undefined {
  const m = ISO_DURATION.exec(v.trim().toUpperCase());
  if (m === null || v.trim().toUpperCase() === 'P' || v.trim().toUpperCase() === 'PT') return undefined;
  const [d, h, min, s] = [m[1], m[2], m[3], m[4]].map((x) => (x === undefined ? 0 : Number(x)));
  return (((d ?? 0) * 24 + (h ?? 0)) * 60 + (min ?? 0)) * 60_000 + (s ?? 0) * 1_000;
}

/** Units of a Go-style duration (`1h2m3s`, `1m30.5s`, `250ms`), in milliseconds. */
const GO_UNITS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000_001,
};
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const GO_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * Milliseconds of a duration as Go writes one (`time.Duration.String()`: `1h2m3s`, `45m0s`,
 * `1.5s`, `300ms`), as Twitch's videos give their `duration`; undefined for anything else.
 * A bare number says no unit and is not one.
 */
export function parseGoDuration(v: string): number | undefined {
  const s = v.trim().toLowerCase();
  if (!GO_DURATION.test(s)) return undefined;
  let ms = 0;
  for (const [, n, unit] of s.matchAll(GO_PART)) ms += Number(n) * (GO_UNITS[unit ?? ''] ?? 0);
  return Math.round(ms);
}

/**
 * The planned length of a session, when its record gives one with its unit: an ISO 8601
 * duration (`duration: "PT1H"`), a Go-style one (`duration: "1h2m3s"`), or a number under
 * a key naming its unit (`duration_minutes`, `lengthSeconds`). A bare `duration: 60` says
 * no unit and is not read.
 */
export function plannedLength(raw: JsonRecord): { ms: number; key: string } | undefined {
  let n = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) continue;
    if (++n > MAX_KEYS) break;
    const words = splitWords(key);
    if (!words.some((w) => LENGTH_WORDS.has(w)) || words.some((w) => NOT_PLANNED.has(w))) continue;
    const v = raw[key];
    if (typeof v === 'string') {
      const ms = parseIsoDuration(v) ?? parseGoDuration(v);
      if (ms !== undefined && ms > 0) return { ms, key };
    }
    const unit = words.map((w) => UNITS[w]).find((u) => u !== undefined);
    const num = typeof v === 'boolean' || isRecord(v) ? undefined : parseNumber(v);
    if (unit !== undefined && num !== undefined && num > 0) return { ms: num * unit, key };
  }
  return undefined;
}

/** Keys naming what a record is rather than how it stands: `type`, `kind` (a stream's `stream_type`). */
const KIND_WORDS = new Set(['type', 'kind']);
/** Words of a kind's key that say whose kind it is, no more (`broadcast_type`, `@type`). */
const KIND_OWNERS = new Set(['session', 'event', 'broadcast', 'stream', 'video', 'meeting', 'call']);
/** Status words that are also nouns of a kind of record: `type: "broadcast"` names what, not how. */
const KIND_NOUNS = new Set(['broadcast', 'stream', 'recording', 'live event', 'live stream', 'livestream']);

/**
 * A status word under a record's kind (`type: "live"`, Twitch's `type: "archive"` for a
 * broadcast over), read only when the record names no status: a `type` is mostly a kind
 * (`type: "sessions"`, `type: "broadcast"`), so its word counts only when it is a status
 * word, names no kind of record, and agrees with the times the record has — on air or
 * over needs an actual start (a planned live event of `type: "live"` has none), planned
 * needs none, on air needs no end.
 */
export function statusFromKind(
  raw: JsonRecord,
  times: { startedAt?: number; endedAt?: number },
): { status: string; key: string } | undefined {
  let n = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) continue;
    if (++n > MAX_KEYS) break;
    const v = raw[key];
    const words = splitWords(key);
    if (typeof v !== 'string' || !KIND_WORDS.has(words[words.length - 1] ?? '')) continue;
    if (!words.slice(0, -1).every((w) => KIND_OWNERS.has(w))) continue;
    const word = v.trim();
    const folded = wordsOf(word);
    if (folded.length === 0 || KIND_NOUNS.has(folded.join(' ')) || KIND_NOUNS.has(folded.join(''))) continue;
    const cls = statusClass(word);
    const begun = times.startedAt !== undefined;
    const fits =
      cls === 'canceled' ||
      (cls === 'scheduled' && !begun) ||
      (cls === 'live' && begun && times.endedAt === undefined) ||
      ((cls === 'ended' || cls === 'failed') && (begun || times.endedAt !== undefined));
    if (fits) return { status: word, key };
  }
  return undefined;
}
