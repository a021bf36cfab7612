/** Normalizes the detail of one session with its sub-resources (`GET /v1/{org}/sessions/{id}`). */
import type { SessionDetail, SubResource } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { describeValue, flattenResource, getPath, isRecord, type JsonRecord } from './json.js';
import { readSessionCore } from './normalize-session.js';
import type { ShapeOptions } from './options.js';
import { readReactions } from './reactions.js';
import type { FieldKey } from './fields.js';
import {
  asBool,
  asId,
  asWord,
  hasAnyField,
  keysSeen,
  type ReadContext,
  readField,
  traceKeys,
} from './read.js';
import { type ItemFields, onlyPointsElsewhere, readItems } from './sub-resources.js';

/** The fields of a session detail, any one of which makes a body a session's. */
const DETAIL_FIELDS = [
  'session.id',
  'session.channelId',
  'session.title',
  'session.status',
  'session.scheduledAt',
  'session.scheduledEndAt',
  'session.startedAt',
  'session.endedAt',
  'detail.questions',
  'detail.questionsCount',
  'detail.announcements',
  'detail.announcementsCount',
  'detail.speakers',
  'detail.speakersCount',
  'detail.reactions',
  'detail.reactionsCount',
  'detail.aiStatus',
  'detail.aiEnabled',
] as const satisfies readonly FieldKey[];

/** An empty detail of session `id`: what a record that cannot be read at all yields. */
function emptyDetail(id: string): SessionDetail {
  return {
    id,
    questions: { count: 0, items: [] },
    announcements: { count: 0, items: [] },
    reactions: { count: 0, byKind: {} },
    speakers: { count: 0, items: [] },
    ai: {},
  };
}

/** Normalizes a session detail; `id` is the one tally asked for (the path is authoritative). */
export function normalizeSessionDetail(
  raw: Record<string, unknown>,
  id: string,
  opts: ShapeOptions,
): Normalized<SessionDetail> {
  const drift = new DriftLog('session');
  const detail = emptyDetail(id);
  if (!isRecord(raw)) {
    drift.fatal('session', `record is ${describeValue(raw)}, expected an object`);
    return { value: detail, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  // A body with nothing tally reads is a failed read, never a session whose questions,
  // speakers and reactions all went to zero (docs/upstream-shapes.md, "Absent is not changed").
  if (!hasAnyField(ctx, record, DETAIL_FIELDS) && getPath(record, 'ai') === undefined) {
    drift.fatal('session', `none of the fields tally reads is in the body; keys seen: ${keysSeen(raw)}`);
    return { value: detail, drift: drift.issues };
  }
  const channelId = readField(ctx, record, 'session.channelId', asId);
  if (channelId !== undefined) detail.channelId = channelId;
  const core = readSessionCore(ctx, record);
  if (core.title !== undefined) detail.title = core.title;
  if (core.status !== undefined) detail.status = core.status;

  const unread: SubResource[] = [];
  const group = <G>(name: SubResource, g: G | undefined, empty: G): G => {
    if (g !== undefined) return g;
    unread.push(name);
    return empty;
  };
  const none = () => ({ count: 0, items: [] });
  detail.questions = group('questions', readItems(ctx, record, ITEMS.questions), none());
  detail.announcements = group('announcements', readItems(ctx, record, ITEMS.announcements), none());
  detail.reactions = group('reactions', readReactions(ctx, record), { count: 0, byKind: {} });
  detail.speakers = group('speakers', readItems(ctx, record, ITEMS.speakers), none());
  detail.ai = group('ai', readAi(ctx, record), {});
  // Not in the detail: unknown, not 0; the client looks behind links, on request and on
  // the sub-resource's own path (upstream/sub-resource-reader.ts), and reports what it
  // cannot read there either.
  if (unread.length > 0) detail.unread = unread;
  return { value: detail, drift: drift.issues };
}

/** Field keys of the item sub-resources. */
export const ITEMS = {
  questions: {
    list: 'detail.questions',
    count: 'detail.questionsCount',
    id: 'question.id',
    text: 'question.text',
    at: 'question.at',
  },
  announcements: {
    list: 'detail.announcements',
    count: 'detail.announcementsCount',
    id: 'announcement.id',
    text: 'announcement.text',
    at: 'announcement.at',
  },
  speakers: {
    list: 'detail.speakers',
    count: 'detail.speakersCount',
    id: 'speaker.id',
    text: 'speaker.name',
    at: 'speaker.at',
  },
} as const satisfies Record<string, ItemFields>;

/** `ai: { status, enabled }`, `ai_status` / `ai_enabled`, or `ai: true`; undefined when none is there. */
function readAi(ctx: ReadContext, record: JsonRecord): SessionDetail['ai'] | undefined {
  if (onlyPointsElsewhere(getPath(record, 'ai'))) return undefined;
  if (
    !hasAnyField(ctx, record, ['detail.aiStatus', 'detail.aiEnabled']) &&
    getPath(record, 'ai') === undefined
  )
    return undefined;
  const ai: SessionDetail['ai'] = {};
  const status = readField(ctx, record, 'detail.aiStatus', asWord);
  if (status !== undefined) ai.status = status;
  const enabled = readField(ctx, record, 'detail.aiEnabled', asBool);
  if (enabled !== undefined) ai.enabled = enabled;
  else if (typeof getPath(record, 'ai') === 'boolean') ai.enabled = getPath(record, 'ai') === true;
  return ai;
}
