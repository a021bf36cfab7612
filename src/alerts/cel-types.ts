/**
 * The variables rule expressions see, declared once: the declaration registers the CEL
 * types (so an unknown field is a config error) and converts tally's plain values into
 * what CEL wants (BigInt for `int`, Date for `timestamp`) and what templates want (ISO
 * strings for times).
 *
 * Plain values use milliseconds for times and plain numbers for counts; an absent field
 * is simply missing (an expression reading it fails, `has()` tells).
 */

import { DETAIL_CEL_FIELDS } from '../snapshot/detail-groups.js';

/** The field types used in declarations. Names in {@link CEL_TYPES} stand for object types. */
export type FieldType =
  | 'string'
  | 'int'
  | 'double'
  | 'bool'
  | 'timestamp'
  | 'dyn'
  | 'map<string,string>'
  | 'map<string,int>'
  | 'map<string,double>'
  | 'map<string,dyn>'
  | TypeName
  | `list<${TypeName}>`;

/** The object types rule expressions know. */
export const CEL_TYPES = {
  Org: {
    slug: 'string',
    name: 'string',
    plan: 'string',
    settings: 'map<string,dyn>',
    labels: 'map<string,string>',
    token_expires_at: 'timestamp',
  },
  Upstream: {
    state: 'string',
    last_success_at: 'timestamp',
    last_error: 'string',
    reason: 'string',
  },
  Member: { id: 'string', name: 'string', email: 'string', role: 'string' },
  Funding: {
    mode: 'string',
    balance: 'double',
    currency: 'string',
    provider: 'string',
    key_status: 'string',
    burn_per_day: 'double',
    days_left: 'double',
  },
  Subscription: {
    plan: 'string',
    limits: 'map<string,double>',
    usage: 'map<string,double>',
    usage_pct: 'map<string,double>',
    funding: 'Funding',
  },
  Channel: {
    id: 'string',
    name: 'string',
    status: 'string',
    visibility: 'string',
    live: 'bool',
    read_at: 'timestamp',
  },
  Session: {
    id: 'string',
    channel_id: 'string',
    title: 'string',
    status: 'string',
    live: 'bool',
    ended: 'bool',
    scheduled_at: 'timestamp',
    scheduled_end_at: 'timestamp',
    started_at: 'timestamp',
    ended_at: 'timestamp',
    read_at: 'timestamp',
  },
  // The detail groups' fields (`questions`, `reactions_by_kind`, `ai_status` …) come from
  // their rows (src/snapshot/detail-groups.ts).
  Detail: { title: 'string', status: 'string', ...DETAIL_CEL_FIELDS },
  Event: {
    id: 'string',
    at: 'timestamp',
    org: 'string',
    kind: 'string',
    entity_kind: 'string',
    entity_id: 'string',
    field: 'string',
    from: 'dyn',
    to: 'dyn',
    labels: 'map<string,string>',
  },
} as const satisfies Record<string, Record<string, string>>;

/** The name of an object type in {@link CEL_TYPES}. */
export type TypeName = keyof typeof CEL_TYPES;

/** The scopes a rule is evaluated in: the four `for_each` kinds and events. */
export type Scope = 'org' | 'channel' | 'session' | 'member' | 'event';

/** The variables of every scope and their types (`now` is added to all of them). */
export const SCOPE_VARIABLES: Record<Scope, Record<string, FieldType>> = {
  org: {
    org: 'Org',
    upstream: 'Upstream',
    subscription: 'Subscription',
    team: 'list<Member>',
    channels: 'list<Channel>',
  },
  channel: {
    org: 'Org',
    upstream: 'Upstream',
    subscription: 'Subscription',
    team: 'list<Member>',
    channels: 'list<Channel>',
    channel: 'Channel',
    sessions: 'list<Session>',
  },
  session: {
    org: 'Org',
    upstream: 'Upstream',
    subscription: 'Subscription',
    team: 'list<Member>',
    channels: 'list<Channel>',
    channel: 'Channel',
    session: 'Session',
    detail: 'Detail',
  },
  member: {
    org: 'Org',
    upstream: 'Upstream',
    subscription: 'Subscription',
    team: 'list<Member>',
    channels: 'list<Channel>',
    member: 'Member',
  },
  event: { event: 'Event' },
};

/** A plain value as tally builds it (times in ms, counts as numbers). */
export type Plain = { [key: string]: unknown };

/** CEL's name for a declared field type. */
export function celTypeName(t: FieldType): string {
  if (t === 'timestamp') return 'google.protobuf.Timestamp';
  if (t.startsWith('map<')) return t.replace(',', ', ');
  return t;
}

function isTypeName(t: string): t is TypeName {
  return Object.hasOwn(CEL_TYPES, t);
}

/** One class per object type, so CEL can tell the types apart at run time. */
export type TypeClasses = Record<TypeName, new (fields: Plain) => object>;

/** Creates fresh classes for the object types (one set per CEL environment family). */
export function makeTypeClasses(): TypeClasses {
  const out = {} as Record<string, new (fields: Plain) => object>;
  for (const name of Object.keys(CEL_TYPES)) {
    out[name] = {
      [name]: class {
        constructor(fields: Plain) {
          Object.assign(this, fields);
        }
      },
    }[name]!;
  }
  return out as TypeClasses;
}

/** Converts a plain value of a declared type to what CEL evaluates. */
export function toCel(t: FieldType, v: unknown, classes: TypeClasses): unknown {
  if (v === undefined || v === null) return undefined;
  switch (t) {
    case 'int':
      return typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.trunc(v)) : undefined;
    case 'double':
      return typeof v === 'number' ? v : undefined;
    case 'string':
      return typeof v === 'string' ? v : String(v);
    case 'bool':
      return Boolean(v);
    case 'timestamp':
      return typeof v === 'number' ? new Date(v) : undefined;
    case 'dyn':
      return v;
    case 'map<string,string>':
    case 'map<string,double>':
    case 'map<string,dyn>':
      return { ...(v as Plain) };
    case 'map<string,int>': {
      const out: Record<string, bigint> = {};
      for (const [k, n] of Object.entries(v as Record<string, number>)) out[k] = BigInt(Math.trunc(n));
      return out;
    }
  }
  if (t.startsWith('list<')) {
    const inner = t.slice(5, -1) as TypeName;
    return (v as unknown[]).map((x) => toCel(inner, x, classes));
  }
  if (isTypeName(t)) {
    const fields: Plain = {};
    for (const [k, ft] of Object.entries(CEL_TYPES[t])) {
      const c = toCel(ft as FieldType, (v as Plain)[k], classes);
      if (c !== undefined) fields[k] = c;
    }
    return new classes[t](fields);
  }
  return v;
}

/** Converts a plain value for templates: times become ISO 8601 strings. */
export function toTemplate(t: FieldType, v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  if (t === 'timestamp') return typeof v === 'number' ? new Date(v).toISOString() : undefined;
  if (t.startsWith('list<')) {
    const inner = t.slice(5, -1) as TypeName;
    return (v as unknown[]).map((x) => toTemplate(inner, x));
  }
  if (isTypeName(t)) {
    const out: Plain = {};
    for (const [k, ft] of Object.entries(CEL_TYPES[t])) {
      const c = toTemplate(ft as FieldType, (v as Plain)[k]);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return v;
}
