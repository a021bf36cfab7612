/** Normalizes one session of a channel's session list (`GET /v1/{org}/channels/{channel}/sessions`). */
import { inferredStatus, type Session } from '../../snapshot/model.js';
import { sessionOf } from '../../snapshot/session-list.js';
import { DriftLog, type Normalized } from './drift.js';
import { describeValue, flattenResource, isRecord, type JsonRecord, quoteWord } from './json.js';
import { statusClass } from '../../snapshot/vocabulary.js';
import type { ShapeOptions } from './options.js';
import { plannedLength, statusFromFlags, statusFromKind } from './session-hints.js';
import { LONE_END_CONCEPT, LONE_START_CONCEPT } from './concepts.js';
import type { FieldKey } from './field-aliases.js';
import { conceptScore, vendorPrefixes } from './words-tier.js';
import { splitWords } from './words.js';
import { asId, asText, asTime, asWord, keysSeen, type ReadContext, readField, traceKeys } from './read.js';

/** Status of a session whose record says nothing about it and has no times to go by. */
export const UNKNOWN_SESSION_STATUS = 'unknown';

/** The fields a session list entry and a session detail share. */
export interface SessionCore {
  title?: string;
  status?: string;
  scheduledAt?: number;
  scheduledEndAt?: number;
  startedAt?: number;
  endedAt?: number;
}

/** Reads title, status and times of a session record (shared with the session detail). */
export function readSessionCore(ctx: ReadContext, raw: JsonRecord): SessionCore {
  const core: SessionCore = {};
  const title = readField(ctx, raw, 'session.title', asText);
  if (title !== undefined) core.title = title;
  const status = readField(ctx, raw, 'session.status', asWord);
  if (status !== undefined) core.status = outcomeOf(ctx, raw, status) ?? status;
  const scheduledAt = readField(ctx, raw, 'session.scheduledAt', asTime);
  if (scheduledAt !== undefined) core.scheduledAt = scheduledAt;
  const scheduledEndAt = readField(ctx, raw, 'session.scheduledEndAt', asTime);
  if (scheduledEndAt !== undefined) core.scheduledEndAt = scheduledEndAt;
  const startedAt = readField(ctx, raw, 'session.startedAt', asTime);
  if (startedAt !== undefined) core.startedAt = startedAt;
  const endedAt = readField(ctx, raw, 'session.endedAt', asTime) ?? lastUpdate(ctx, raw, core.status);
  if (endedAt !== undefined) core.endedAt = endedAt;
  const length =
    core.scheduledEndAt === undefined && core.scheduledAt !== undefined ? plannedLength(raw) : undefined;
  if (core.scheduledAt !== undefined && length !== undefined) {
    core.scheduledEndAt = core.scheduledAt + length.ms;
    traceWords(ctx, 'session.scheduledEndAt', length.key, 'planned start + length', 1);
  }
  if (core.status === undefined) {
    const flagged = statusFromFlags(raw);
    const said = flagged ?? statusFromKind(raw, core);
    if (said !== undefined) {
      core.status = said.status;
      traceWords(ctx, 'session.status', said.key, flagged ? 'a flag' : 'a status word as its kind', 1);
    }
  }
  // An actual start under a key of its own: a lone start and end beside it are the plan.
  const ownStart = core.startedAt !== undefined;
  const began = ownStart ? undefined : loneStartOfBegun(ctx, raw, core);
  if (began !== undefined) core.startedAt = began;
  if (!ownStart) loneEndOfOver(ctx, raw, core);
  else if (scheduledEndAt !== undefined) runEnd(ctx, raw, core);
  return core;
}

function traceWords(ctx: ReadContext, field: FieldKey, key: string, how: string, confidence: number): void {
  ctx.opts.trace?.field(ctx.drift.endpoint, field, key, how, { tier: 'words', confidence });
}

/** Whether a session's status says it ran and is over (ended or failed). */
function isOver(core: SessionCore): boolean {
  const cls = core.status === undefined ? 'unknown' : statusClass(core.status);
  return cls === 'ended' || cls === 'failed';
}

/**
 * A session over with no actual start under a key of its own and no actual end: its lone
 * end (`end_time`, no planned word beside it: read as the planned end, as a lone start is
 * the planned start) is when it ended — a Twilio call's `end_time`, empty until the call
 * completes. It is then no planned end as well. A lone end beside an actual start of its
 * own (Twitch's `start_time` / `end_time` beside `started_at`) stays the plan.
 */
function loneEndOfOver(ctx: ReadContext, raw: JsonRecord, core: SessionCore): void {
  if (core.endedAt !== undefined || core.scheduledEndAt === undefined || !isOver(core)) return;
  const prefixes = vendorPrefixes(raw);
  for (const [key, v] of Object.entries(raw)) {
    if (conceptScore(splitWords(key), LONE_END_CONCEPT, prefixes) === 0) continue;
    const t = asTime(v);
    if (t === 'skip' || !('ok' in t) || t.ok !== core.scheduledEndAt) continue;
    core.endedAt = t.ok;
    delete core.scheduledEndAt;
    traceWords(ctx, 'session.endedAt', key, 'the lone end of a session over', 0.5);
    return;
  }
}

/**
 * A session over with an actual start and a planned end of their own but no actual end:
 * a length beside them is not the planned one (the plan has its end) but how long it ran
 * (a Twitch video's `duration: "1h2m3s"` after its `started_at`), so it ended then.
 */
function runEnd(ctx: ReadContext, raw: JsonRecord, core: SessionCore): void {
  if (core.endedAt !== undefined || core.startedAt === undefined || !isOver(core)) return;
  const length = plannedLength(raw);
  if (length === undefined) return;
  core.endedAt = core.startedAt + length.ms;
  traceWords(ctx, 'session.endedAt', length.key, 'actual start + length of a session over', 0.5);
}

/**
 * A session under way or over whose one start is a lone `start` (no planned time beside
 * it: read as the planned start) began then too: a Twilio call's `start_time`, empty until
 * the call is placed, is when it began; a calendar meeting's start is when it began, as
 * near as the record can say. A planned start under a planned word (`scheduled_at`) never
 * makes an actual one.
 */
function loneStartOfBegun(ctx: ReadContext, raw: JsonRecord, core: SessionCore): number | undefined {
  const cls = core.status === undefined ? 'unknown' : statusClass(core.status);
  if (core.scheduledAt === undefined || (cls !== 'live' && cls !== 'ended')) return undefined;
  const prefixes = vendorPrefixes(raw);
  for (const [key, v] of Object.entries(raw)) {
    if (conceptScore(splitWords(key), LONE_START_CONCEPT, prefixes) === 0) continue;
    const t = asTime(v);
    if (t === 'skip' || !('ok' in t) || t.ok !== core.scheduledAt) continue;
    ctx.opts.trace?.field(ctx.drift.endpoint, 'session.startedAt', key, 'the lone start of a session begun', {
      tier: 'words',
      confidence: 0.5,
    });
    return t.ok;
  }
  return undefined;
}

/**
 * A finished session with no end time: its last update is when it finished (a GitHub
 * workflow run's `updated_at`), so it leaves the window when it should, not never.
 */
function lastUpdate(ctx: ReadContext, raw: JsonRecord, status: string | undefined): number | undefined {
  const cls = status === undefined ? 'unknown' : statusClass(status);
  if (cls !== 'ended' && cls !== 'failed' && cls !== 'canceled') return undefined;
  for (const [key, v] of Object.entries(raw)) {
    const words = splitWords(key).filter((w) => w !== 'at' && w !== 'time' && w !== 'date');
    if (words.length !== 1 || (words[0] !== 'updated' && words[0] !== 'modified')) continue;
    const t = asTime(v);
    if (t === 'skip' || !('ok' in t)) continue;
    ctx.opts.trace?.field(ctx.drift.endpoint, 'session.endedAt', key, 'last update of a finished session', {
      tier: 'words',
      confidence: 0.5,
    });
    return t.ok;
  }
  return undefined;
}

/** Words of a key holding how a finished session came out (GitHub's `conclusion`). */
const OUTCOME_WORDS = new Set(['conclusion', 'outcome', 'result', 'resolution']);

/**
 * A status split in two, as GitHub check and workflow runs write it (`status: completed`,
 * `conclusion: failure`): when the status only says "finished", a key naming the outcome
 * whose word has a meaning (failed, canceled, ended) says how, and is the status.
 */
function outcomeOf(ctx: ReadContext, raw: JsonRecord, status: string): string | undefined {
  if (statusClass(status) !== 'ended') return undefined;
  for (const [key, v] of Object.entries(raw)) {
    if (typeof v !== 'string' || !splitWords(key).some((w) => OUTCOME_WORDS.has(w))) continue;
    const word = v.trim().toLowerCase();
    const cls = statusClass(word);
    if (cls === 'failed' || cls === 'canceled') {
      ctx.opts.trace?.field(ctx.drift.endpoint, 'session.status', '', `outcome from ${key}`);
      return word;
    }
  }
  return undefined;
}

/**
 * A status inferred from the times when the record has none: ended once it has an end,
 * live once it has a start, scheduled when it only has a planned start.
 */
export function inferStatus(core: SessionCore): string | undefined {
  if (core.endedAt !== undefined) return 'ended';
  if (core.startedAt !== undefined) return 'live';
  if (core.scheduledAt !== undefined) return 'scheduled';
  return undefined;
}

/** Normalizes a session of `channelId`'s list; the value is undefined when the record has no id. */
export function normalizeSession(
  raw: unknown,
  channelId: string,
  opts: ShapeOptions,
): Normalized<Session | undefined> {
  const drift = new DriftLog('sessions');
  if (!isRecord(raw)) {
    drift.fatal('session', `record is ${describeValue(raw)}, expected an object`);
    return { value: undefined, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  const id = readField(ctx, record, 'session.id', asId);
  if (id === undefined) {
    drift.fatal('session.id', `no usable id; keys seen: ${keysSeen(raw)}`);
    return { value: undefined, drift: drift.issues };
  }
  // The channel the list was read under is authoritative; the record's own is a fallback.
  const channel = channelId !== '' ? channelId : (readField(ctx, record, 'session.channelId', asId) ?? '');
  const core = readSessionCore(ctx, record);
  let status = core.status;
  if (status === undefined) {
    const inferred = inferStatus(core);
    status = inferred ?? UNKNOWN_SESSION_STATUS;
    // A status of the wrong type was reported already; one issue per field is enough.
    if (!drift.issues.some((i) => i.field === 'session.status')) {
      drift.note(
        'session.status',
        inferred ? `no status found; '${inferred}' inferred from the times` : 'no status found',
      );
    }
  } else if (statusClass(status) === 'unknown') {
    drift.note('session.status', `unknown status word ${quoteWord(status)}; its class is unknown`);
  }
  const session = sessionOf(
    id,
    channel,
    status,
    core.title,
    core.scheduledAt,
    core.startedAt,
    core.endedAt,
    core.scheduledEndAt,
  );
  if (core.status === undefined && status !== UNKNOWN_SESSION_STATUS) inferredStatus.add(session);
  return { value: session, drift: drift.issues };
}
