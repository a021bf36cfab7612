/** Normalizes one session of a channel's session list (`GET /v1/{org}/channels/{channel}/sessions`). */
import { inferredStatus, type Session } from '../../snapshot/model.js';
import { sessionOf } from '../../snapshot/session-list.js';
import { DriftLog, type Normalized } from './drift.js';
import { describeValue, flattenResource, isRecord, type JsonRecord, quoteWord } from './json.js';
import { statusClass } from '../../snapshot/vocabulary.js';
import type { ShapeOptions } from './options.js';
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
  if (status !== undefined) core.status = status;
  const scheduledAt = readField(ctx, raw, 'session.scheduledAt', asTime);
  if (scheduledAt !== undefined) core.scheduledAt = scheduledAt;
  const scheduledEndAt = readField(ctx, raw, 'session.scheduledEndAt', asTime);
  if (scheduledEndAt !== undefined) core.scheduledEndAt = scheduledEndAt;
  const startedAt = readField(ctx, raw, 'session.startedAt', asTime);
  if (startedAt !== undefined) core.startedAt = startedAt;
  const endedAt = readField(ctx, raw, 'session.endedAt', asTime);
  if (endedAt !== undefined) core.endedAt = endedAt;
  return core;
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
