/** Normalizes the detail of one session with its sub-resources (`GET /v1/{org}/sessions/{id}`). */
import { rowOf, SUB_RESOURCES } from '../../snapshot/detail-groups.js';
import type { DetailGroups, SessionDetail, SubResource } from '../../snapshot/model.js';
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

/**
 * How each detail group is read from a detail record; undefined when the record does not
 * hold it (then it is unread, its row's placeholder: src/snapshot/detail-groups.ts).
 */
const READERS: {
  readonly [G in SubResource]: (ctx: ReadContext, r: JsonRecord) => DetailGroups[G] | undefined;
} = {
  questions: (ctx, r) => readItems(ctx, r, ITEMS.questions),
  announcements: (ctx, r) => readItems(ctx, r, ITEMS.announcements),
  reactions: readReactions,
  speakers: (ctx, r) => readItems(ctx, r, ITEMS.speakers),
  ai: (ctx, r) => readAi(ctx, r),
};

/** An empty detail of session `id`: what a record that cannot be read at all yields. */
function emptyDetail(id: string): SessionDetail {
  const detail = { id } as SessionDetail;
  for (const name of SUB_RESOURCES) setGroup(detail, name, rowOf(name).empty());
  return detail;
}

function setGroup<G extends SubResource>(detail: DetailGroups, name: G, value: DetailGroups[G]): void {
  detail[name] = value;
}

/** Reads group `name` into `detail`; its placeholder, and false, when the record does not hold it. */
function readGroup<G extends SubResource>(
  ctx: ReadContext,
  record: JsonRecord,
  detail: DetailGroups,
  name: G,
): boolean {
  const read = READERS[name](ctx, record);
  setGroup(detail, name, read ?? rowOf(name).empty());
  return read !== undefined;
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

  const unread = SUB_RESOURCES.filter((name) => !readGroup(ctx, record, detail, name));
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
