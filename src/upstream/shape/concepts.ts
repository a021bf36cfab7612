/**
 * Model fields as concepts (docs/upstream-shapes.md, "Fields"): the words a key must carry
 * to mean the field, the words that rule it out, and what its value must look like. The
 * second tier of field reading (words-tier.ts) uses these when no alias of a field is in a
 * record, so `broadcastStartPlanned`, `expected-begin` and `slot.from` all read as a
 * session's planned start without an alias for each.
 */
import type { FieldKey } from './field-aliases.js';

/** What a value must look like for a key to be taken as a field. */
export type ValueKind =
  | 'time'
  | 'count'
  | 'amount'
  | 'word'
  | 'status'
  | 'id'
  | 'text'
  /** A text that is not only the kind of a record (`organization`, `accounts`). */
  | 'edition'
  | 'email'
  | 'bool'
  | 'list';

/** One way of naming a field. */
export interface Concept {
  /** Groups of words: the key carries at least one word of each group. */
  all: readonly (readonly string[])[];
  /** Words that rule a key out (`visibility` is not a status). */
  not?: readonly string[];
  /** What the value must look like. */
  value: ValueKind;
  /** The key carries no other word than these (fillers and the record's own noun aside): a lone `begins`, `started`. */
  alone?: true;
  /**
   * The concept holds only when another key of the record carries (`present: true`) or
   * carries no (`false`) word of `words` with a time: a lone `startTime` is the planned
   * start of a record with no planned time, and the actual start of one that has one.
   */
  beside?: { words: readonly string[]; present: boolean };
  /** A weaker reading, taken only when nothing surer is there (default 1): confidence × weight. */
  weight?: number;
}

/** Words that say nothing of meaning (`start_time`, `beginsAt`): neither counted nor held against a key. */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'at',
  'on',
  'time',
  'date',
  'datetime',
  'timestamp',
  'ts',
  'utc',
  'iso',
  'is',
  'the',
  'of',
]);

const START = ['start', 'starts', 'starting', 'begin', 'begins', 'beginning', 'from', 'opens'];
const STARTED = ['start', 'started', 'begin', 'began', 'live'];
const ENDED = ['end', 'ended', 'finish', 'finished', 'stop', 'stopped', 'close', 'closed'];
const PLANNED = [
  'scheduled',
  'schedule',
  'planned',
  'plan',
  'expected',
  'slot',
  'booked',
  'estimated',
  'due',
];
/** Words naming a planned time, looked for across a record (concepts.ts `beside`). */
export const PLANNED_WORDS: ReadonlySet<string> = new Set(PLANNED.filter((w) => w !== 'plan'));
const BESIDE_PLANNED: readonly string[] = [...PLANNED_WORDS];
/** Words naming the record itself, not a part of it (`session_started_at` is when it started). */
export const SELF_WORDS: ReadonlySet<string> = new Set([
  'session',
  'job',
  'event',
  'meeting',
  'call',
  'broadcast',
]);
const PLAIN_END = ['end'];
// `run_started_at`, `run_time.start_time`: when the run (the session as it happened) started.
// `air`: on air (`onAir.start`, an "On air" date range) is the actual run of a session.
const ACTUAL = ['actual', 'actually', 'real', 'effective', 'went', 'true', 'run', 'air'];
const COUNT = ['count', 'total', 'num', 'number', 'n', 'amount'];
const STATUS = ['status', 'state', 'phase', 'stage', 'lifecycle', 'condition'];
/** `sid`: a string identifier (Twilio's `CH…` SIDs, `account_sid`). */
const ID = ['id', 'uuid', 'guid', 'uid', 'sid', 'key', 'slug'];
const FUNDING = ['funding', 'funds', 'credits', 'credit', 'wallet'];
const NOT_TIME = ['created', 'updated', 'modified', 'deleted', 'duration', 'length', 'zone', 'timezone'];
const LINKS = ['url', 'uri', 'href', 'link', 'links'];
/** Words naming someone or something else than the record itself (`host_name` is no title). */
const OTHERS = [
  'owner',
  'user',
  'host',
  'author',
  'creator',
  'speaker',
  'file',
  'role',
  'team',
  'company',
  'billing',
  'contact',
  'organizer',
  'organiser',
  'attendee',
  'guest',
];
/** Words naming another process than the record's own (`recording_status` is no session status). */
const OTHER_STATES = [
  'ai',
  'visibility',
  'privacy',
  'key',
  'account',
  'billing',
  'payment',
  'recording',
  'moderation',
  'transcription',
  'upload',
  'health',
];

/** A lone start (`startTime`, `begins`): planned or actual by what else the record names. */
const LONE_START = ['start', 'starts', 'begin', 'begins'];
/**
 * The two ends of a range with no other name (`period: { from, to }`, `time_range: { start,
 * end }`, `start.dateTime` / `end.dateTime`): the planned range when the record names no
 * planned time elsewhere, as a lone start is.
 */
const RANGE_FROM = ['from', 'since'];
const RANGE_TO = ['end', 'to'];
const NO_PLANNED_BESIDE = { words: BESIDE_PLANNED, present: false } as const;
/** A key naming a lone start, fillers, a vendor prefix and the record's type aside (`hs_meeting_start_time`). */
export const LONE_START_CONCEPT: Concept = { all: [LONE_START], value: 'time', alone: true };
/** A key naming a lone end (`end_time`, `EndTime`, `to`), fillers and prefixes aside: the other end of a lone start. */
export const LONE_END_CONCEPT: Concept = { all: [RANGE_TO], value: 'time', alone: true };

/** A lone word (fillers aside) naming a field: `begins`, `started`, `ended`. */
function lone(words: readonly string[], value: ValueKind): Concept {
  return { all: [words], value, alone: true };
}

/** The concepts of each field; a field without any is read by its aliases only. */
export const CONCEPTS: Partial<Record<FieldKey, readonly Concept[]>> = {
  'session.id': [
    { all: [['session', 'broadcast', 'event', 'episode', 'stream', 'show'], ID], value: 'id' },
    lone(ID, 'id'),
  ],
  'session.channelId': [{ all: [['channel', 'station', 'room'], ID], value: 'id' }],
  'session.title': [
    {
      all: [['title', 'name', 'subject', 'topic', 'headline', 'label', 'summary']],
      value: 'text',
      // `name: { text, html }`: the text, not its markup.
      not: ['channel', 'html', 'markdown', ...OTHERS],
    },
  ],
  // A status; else the outcome of a record that names no status (a meeting's outcome:
  // scheduled, completed, canceled), a word of the status vocabulary all the same.
  'session.status': [
    { all: [STATUS], value: 'status', not: OTHER_STATES },
    { all: [['outcome', 'disposition']], value: 'status', not: OTHER_STATES, weight: 0.8 },
  ],
  // A planned start; a lone planned word (`scheduled_ts`, `due_at`); a lone `start` /
  // `begins` when the record names no planned time; its creation (a run queued) when
  // nothing else is there.
  'session.scheduledAt': [
    { all: [START, PLANNED], value: 'time', not: [...NOT_TIME, ...ACTUAL, 'started', 'began'] },
    lone(PLANNED, 'time'),
    { ...lone(LONE_START, 'time'), beside: NO_PLANNED_BESIDE },
    { ...lone(RANGE_FROM, 'time'), beside: NO_PLANNED_BESIDE },
    { ...lone(['created', 'queued', 'enqueued'], 'time'), weight: 0.5 },
  ],
  // An actual start; a lone `start` beside a planned one (`startDateTime` by `scheduledStart`).
  'session.startedAt': [
    { all: [STARTED, ACTUAL], value: 'time', not: [...NOT_TIME, ...PLANNED] },
    { all: [['went', 'gone', 'go'], ['live']], value: 'time', not: NOT_TIME },
    lone(['started', 'began'], 'time'),
    { ...lone(LONE_START, 'time'), beside: { words: BESIDE_PLANNED, present: true } },
  ],
  'session.endedAt': [
    { all: [ENDED, ACTUAL], value: 'time', not: [...NOT_TIME, ...PLANNED] },
    lone(['ended', 'finished', 'stopped', 'closed', 'resolved', 'resolution', 'completed'], 'time'),
    { ...lone(PLAIN_END, 'time'), beside: { words: BESIDE_PLANNED, present: true } },
  ],
  // A planned end: `ends_at`, `scheduledEnd`, `slot.to`, a lone `ends` / `until` with a time.
  'session.scheduledEndAt': [
    {
      all: [
        ['end', 'ends', 'ending', 'finish', 'finishes', 'stop', 'stops', 'until', 'to', 'close', 'closes'],
        PLANNED,
      ],
      value: 'time',
      not: [
        ...NOT_TIME,
        ...ACTUAL,
        'ended',
        'finished',
        'stopped',
        'closed',
        'start',
        'starts',
        'begin',
        'from',
      ],
    },
    lone(['ends', 'finishes', 'until'], 'time'),
    { ...lone(RANGE_TO, 'time'), beside: NO_PLANNED_BESIDE },
  ],

  'channel.id': [{ all: [['channel', 'station', 'room'], ID], value: 'id' }, lone(ID, 'id')],
  'channel.name': [{ all: [['name', 'title', 'label', 'handle']], value: 'text', not: OTHERS }],
  // A status; else a word of what the channel is broadcasting (`liveBroadcastContent`:
  // live, upcoming, none), a status word all the same, read at a lower confidence.
  'channel.status': [
    { all: [STATUS], value: 'status', not: OTHER_STATES },
    {
      all: [['live', 'broadcast', 'broadcasting', 'stream', 'streaming', 'air']],
      value: 'status',
      not: OTHER_STATES,
      weight: 0.8,
    },
  ],
  'channel.live': [{ all: [['live', 'onair', 'air', 'broadcasting', 'streaming', 'online']], value: 'bool' }],
  'channel.visibility': [
    { all: [['visibility', 'privacy', 'audience', 'visible', 'access']], value: 'word', not: ['key'] },
  ],
  'channel.activityAt': [
    {
      all: [
        ['last', 'latest', 'recent', 'previous'],
        ['session', 'sessions', 'activity', 'broadcast', 'live', 'active', 'stream'],
      ],
      value: 'time',
    },
  ],
  'channel.sessionCount': [
    {
      all: [['session', 'sessions', 'broadcast', 'broadcasts', 'episode', 'episodes'], COUNT],
      value: 'count',
    },
  ],

  'member.id': [{ all: [['member', 'user', 'account', 'person'], ID], value: 'id' }, lone(ID, 'id')],
  'member.name': [
    {
      all: [['name', 'fullname', 'nickname', 'username', 'handle']],
      value: 'text',
      not: ['org', 'organization', 'team', 'role', 'company', 'group', 'file'],
    },
  ],
  'member.email': [{ all: [['email', 'mail', 'e']], value: 'email' }],
  'member.role': [{ all: [['role', 'roles', 'permission', 'permissions', 'access']], value: 'word' }],

  // A wallet's balance and its currency (`AI_Balance__c`, `CurrencyIsoCode`); minor units
  // (`balance_cents`) are read by their aliases and the money rules (numbers.ts), not here.
  'funding.balance': [
    { all: [['balance', 'credits', 'funds']], value: 'amount', not: ['minor', 'cents', 'currency', 'limit'] },
  ],
  'funding.currency': [{ all: [['currency']], value: 'word', not: ['rate', 'exchange'] }],

  // A unique name is an identifier (`unique_name` beside `friendly_name`), not a display name.
  'org.name': [{ all: [['name', 'title', 'label']], value: 'text', not: ['plan', 'unique', ...OTHERS] }],
  // The type of an organization or account is its edition (`OrganizationType`, `accountType`);
  // so is the lone `type` of the org record (a Twilio account's `Trial` / `Full`), unless its
  // value only names the kind of record (JSON:API's `type: "organizations"`).
  'org.plan': [
    { all: [['plan', 'tier', 'edition', 'sku', 'package']], value: 'text', not: ['id', 'key'] },
    {
      all: [
        ['organization', 'org', 'account', 'workspace'],
        ['type', 'kind'],
      ],
      value: 'text',
    },
    { ...lone(['type'], 'edition'), weight: 0.5 },
  ],
  // The AI funding object (`ai_credits: { type, balance }`), or the word of its source.
  'subscription.funding': [{ all: [FUNDING], value: 'list', not: ['set', 'money', ...COUNT] }],
  // A balance counted in minor units by its words (`balance_in_cents`, `amountMinor`).
  'funding.balanceMinor': [
    {
      all: [
        ['balance', 'amount', 'credit', 'credits', 'funds'],
        ['cents', 'cent', 'minor', 'pence', 'subunits', 'subunit'],
      ],
      value: 'count',
    },
  ],
  'subscription.fundingMode': [
    { all: [FUNDING, ['source', 'mode', 'type', 'kind', 'method']], value: 'word' },
  ],
  // `plan_type`, `skuPartNumber`: the plan by its word, whatever else the key says.
  'subscription.plan': [
    {
      all: [['plan', 'tier', 'edition', 'sku', 'package']],
      value: 'text',
      not: ['id', 'key', 'price', 'limits'],
    },
  ],

  'detail.questions': [
    { all: [['questions', 'question', 'qna', 'qa']], value: 'list', not: [...COUNT, ...LINKS] },
  ],
  'detail.questionsCount': [{ all: [['questions', 'question', 'qna', 'qa'], COUNT], value: 'count' }],
  'detail.speakers': [
    {
      all: [['speakers', 'speaker', 'hosts', 'panelists', 'presenters']],
      value: 'list',
      not: [...COUNT, ...LINKS],
    },
  ],
  'detail.speakersCount': [
    { all: [['speakers', 'speaker', 'hosts', 'panelists', 'presenters'], COUNT], value: 'count' },
  ],
  'detail.announcements': [
    {
      all: [['announcements', 'announcement', 'notices', 'notice']],
      value: 'list',
      not: [...COUNT, ...LINKS],
    },
  ],
  'detail.announcementsCount': [
    { all: [['announcements', 'announcement', 'notices', 'notice'], COUNT], value: 'count' },
  ],
  'detail.reactionsCount': [{ all: [['reactions', 'reaction'], COUNT], value: 'count' }],

  // An item's own id under any id spelling (`uid`, `uuid`): items carry no other id.
  'question.id': [lone(ID, 'id')],
  'announcement.id': [lone(ID, 'id')],
  'speaker.id': [lone(ID, 'id')],
  'question.at': [{ all: [['asked', 'submitted', 'posted', 'created']], value: 'time' }],
  'announcement.at': [{ all: [['posted', 'published', 'sent', 'created']], value: 'time' }],
  'speaker.at': [{ all: [['joined', 'since', 'added']], value: 'time' }],
};
