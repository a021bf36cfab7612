/** Normalizes one channel of the channel list (`GET /v1/{org}/channels`). */
import type { Channel } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { aliasesFor } from './fields.js';
import { describeValue, flattenResource, getPath, isRecord, quoteWord } from './json.js';
import { splitWords } from './words.js';
import { findByWords } from './words-tier.js';
import { channelClass, visibilityClass } from '../../snapshot/vocabulary.js';
import type { ShapeOptions } from './options.js';
import {
  asBool,
  asId,
  asText,
  asWord,
  type Converter,
  keysSeen,
  type ReadContext,
  readField,
  traceKeys,
  asTime,
  asCount,
} from './read.js';

/** Status of a channel whose record says nothing about it. */
export const UNKNOWN_STATUS = 'unknown';

/** A status word, or a boolean "is live" given where the status was expected. */
const asChannelStatus: Converter<string> = (v) =>
  typeof v === 'boolean' ? { ok: v ? 'live' : 'offline' } : asWord(v);

/** Normalizes a channel; the value is undefined when the record is unusable (no id). */
export function normalizeChannel(raw: unknown, opts: ShapeOptions): Normalized<Channel | undefined> {
  const drift = new DriftLog('channels');
  if (!isRecord(raw)) {
    drift.fatal('channel', `record is ${describeValue(raw)}, expected an object`);
    return { value: undefined, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  const id = readField(ctx, record, 'channel.id', asId);
  if (id === undefined) {
    drift.fatal('channel.id', `no usable id; keys seen: ${keysSeen(raw)}`);
    return { value: undefined, drift: drift.issues };
  }
  const channel: Channel = { id, status: readStatus(ctx, record) };
  const name = readField(ctx, record, 'channel.name', asText);
  if (name !== undefined) channel.name = name;
  const visibility = readVisibility(ctx, record);
  if (visibility !== undefined) channel.visibility = visibility;
  // Hints of session activity, where the server offers them (docs/polling.md, "What the sweep reads first").
  const activityAt = readField(ctx, record, 'channel.activityAt', asTime);
  if (activityAt !== undefined) channel.activityAt = activityAt;
  const sessionCount = readField(ctx, record, 'channel.sessionCount', asCount);
  if (sessionCount !== undefined) channel.sessionCount = sessionCount;
  return { value: channel, drift: drift.issues };
}

/** Status words that, for a channel, may describe its being enabled rather than on air. */
const ENABLEMENT_WORDS = new Set([
  'active',
  'inactive',
  'enabled',
  'disabled',
  'available',
  'unavailable',
  'ready',
  'open',
  'closed',
]);

/** Words of a key that make a boolean under it an on-air flag (`isLive`, `onAir`, `streamStatus`). */
const FLAG_WORDS = new Set([
  'live',
  'air',
  'onair',
  'online',
  'broadcasting',
  'streaming',
  'status',
  'state',
]);

/**
 * Whether a boolean read as the status is an on-air flag: one an alias names (`status:
 * true`), or one whose own key says so. A boolean inside a `status` part named for
 * something else (YouTube's `status.isLinked`, `status.madeForKids`) says nothing of air.
 */
function isAirFlag(ctx: ReadContext, record: Record<string, unknown>): boolean {
  if (aliasesFor('channel.status', ctx.opts).some((p) => typeof getPath(record, p) === 'boolean'))
    return true;
  const found = findByWords(record, 'channel.status');
  if (found === undefined || !('match' in found)) return true;
  const last = found.match.path.split('.').at(-1) ?? '';
  return splitWords(last).some((w) => FLAG_WORDS.has(w));
}

function readStatus(ctx: ReadContext, record: Record<string, unknown>): string {
  const reported = ctx.drift.issues.length;
  let sawFlag = false;
  const convert: Converter<string> = (v) => {
    sawFlag = typeof v === 'boolean';
    return asChannelStatus(v);
  };
  const read = readField(ctx, record, 'channel.status', convert);
  const status = read !== undefined && sawFlag && !isAirFlag(ctx, record) ? undefined : read;
  const live = readField(ctx, record, 'channel.live', asBool);
  if (status !== undefined) {
    const cls = channelClass(status);
    const enablement = ENABLEMENT_WORDS.has(status.replace(/[\s_-]+/g, ''));
    if (cls === 'unknown' && !(enablement && live !== undefined) && ctx.drift.issues.length === reported) {
      ctx.drift.note('channel.status', `unknown status word ${quoteWord(status)}; its class is unknown`);
    }
    // A word that may say the channel is enabled rather than on air (`state: "ACTIVE"`
    // beside `onAir: false`), or one tally does not know, gives way to an on-air flag.
    if (live !== undefined && (cls === 'unknown' || enablement)) return live ? 'live' : 'offline';
    return status;
  }
  if (live !== undefined) return live ? 'live' : 'offline';
  // A status of the wrong type was reported already; one issue per field is enough.
  if (ctx.drift.issues.length === reported) ctx.drift.note('channel.status', 'no status found');
  return UNKNOWN_STATUS;
}

function readVisibility(ctx: ReadContext, record: Record<string, unknown>): string | undefined {
  const word = readField(ctx, record, 'channel.visibility', asWord);
  if (word !== undefined) {
    if (visibilityClass(word) === 'unknown') {
      ctx.drift.note(
        'channel.visibility',
        `unknown visibility word ${quoteWord(word)}; its class is unknown`,
      );
    }
    return word;
  }
  const isPublic = readField(ctx, record, 'channel.public', asBool);
  if (isPublic !== undefined) return isPublic ? 'public' : 'private';
  const isPrivate = readField(ctx, record, 'channel.private', asBool);
  if (isPrivate !== undefined) return isPrivate ? 'private' : 'public';
  return undefined;
}
