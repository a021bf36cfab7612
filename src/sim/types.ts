/**
 * Public types of the upstream simulator: its options, response styles, the ground-truth
 * change log and the request log. docs/upstream-api.md describes what they mean on the wire.
 */
import type { Clock } from '../core/clock.js';

/** How lists and single objects are wrapped. */
export type EnvelopeStyle = 'bare' | 'data' | 'items' | 'key' | 'hal';
/**
 * How the simulator cuts long lists into pages on the wire (docs/upstream-api.md); not the
 * style tally's shape reader detects (`PagingStyle`, src/upstream/shape/paging.ts).
 */
export type ServedPaging = 'none' | 'cursor' | 'link' | 'pages' | 'offset' | 'next' | 'hal' | 'silent';
/** Spelling of field names in bodies. */
export type FieldCase = 'snake' | 'camel';

/** Every envelope style, in documentation order. */
export const ENVELOPE_STYLES: readonly EnvelopeStyle[] = ['bare', 'data', 'items', 'key', 'hal'];
/** Every paging style, in documentation order. */
export const PAGING_STYLES: readonly ServedPaging[] = [
  'none',
  'cursor',
  'link',
  'pages',
  'offset',
  'next',
  'hal',
  'silent',
];
/** Every field case. */
export const FIELD_CASES: readonly FieldCase[] = ['snake', 'camel'];

/** The response style the simulator serves; changeable at runtime. */
export interface SimStyle {
  envelope: EnvelopeStyle;
  paging: ServedPaging;
  /** Default page size when the client does not ask for one (max 200). */
  pageSize: number;
  fieldCase: FieldCase;
}

/** Preset rates of change: `calm` is a plausible working day, `lively` makes things happen every few seconds. */
export type Scenario = 'calm' | 'lively';

/** Token validity in days, counted from the token's creation time, or unlimited. */
export type TokenValidity = 30 | 90 | 365 | 'unlimited';

/** A configured API token. */
export interface TokenSpec {
  /** The secret value sent as `Authorization: Bearer <value>`. */
  value: string;
  /** Slug of the organization the token reads. */
  org: string;
  /** Free text to recognize the token (default `token-<n>`). */
  label?: string;
  /** Default `unlimited`. */
  validity?: TokenValidity;
  /** Creation time, ms since the epoch or ISO 8601 (default: the simulator's start). */
  createdAt?: number | string;
}

/** A configured token as the simulator holds it. */
export interface SimToken {
  value: string;
  org: string;
  label: string;
  validity: TokenValidity;
  access: 'read';
  createdAt: number;
  /** When it stops being valid, or null when unlimited. */
  expiresAt: number | null;
}

/** A subscription plan. */
export type Plan = 'free' | 'starter' | 'pro' | 'business' | 'enterprise';

/** An organization to create, when a bare slug is not enough. */
export interface OrgSpec {
  slug: string;
  name?: string;
  plan?: Plan;
  /** Channels of this org (default: {@link SimOptions.channels}). */
  channels?: number;
  /** Initial sessions per channel (default: {@link SimOptions.sessionsPerChannel}). */
  sessionsPerChannel?: number;
  /** Initial members (default: 3 to 12, from the seed). */
  members?: number;
  /** AI funding at start (default: from the seed). */
  funding?: 'wallet' | 'byok';
}

/**
 * One fault rule. Every `*Rate` is a probability from 0 to 1 drawn per request from a
 * generator seeded by the simulator's seed, so a run is repeatable for the same requests.
 */
export interface FaultSpec {
  /** Regular expression tested against the request path (e.g. `/sessions$`); default: every /v1 path. */
  path?: string;
  /** Answer 5xx instead of the resource. */
  errorRate?: number;
  /** The 5xx status to answer (default: drawn from 500, 502, 503, 504). */
  errorStatus?: number;
  /** Milliseconds added before the response starts. */
  latencyMs?: number;
  /** Share of requests that get `latencyMs` (default 1 when `latencyMs` is set). */
  latencyRate?: number;
  /** Trickle the body: `slowBodyChunkBytes` every `slowBodyIntervalMs`. */
  slowBodyRate?: number;
  slowBodyChunkBytes?: number;
  slowBodyIntervalMs?: number;
  /** Reset the connection without answering. */
  resetRate?: number;
  /** Answer 200 with a body that is not valid JSON. */
  malformedRate?: number;
  /** Cut a list page short and drop its way to the next page while totals say more. */
  truncateRate?: number;
  /** Answer a valid body followed by `oversizeBytes` of whitespace, without Content-Length. */
  oversizeRate?: number;
  /** Default 16 MiB. */
  oversizeBytes?: number;
  /** Add a `Link: <other origin>; rel="next"` to list responses. */
  crossOriginNextRate?: number;
  /** Answer 302 with a `Location` on another origin. */
  redirectRate?: number;
}

/** Options of {@link startSimulator}. */
export interface SimOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Seed of the world and of random faults (default 1). */
  seed?: number;
  /** Organizations: slugs or specs (default `['demo']`). */
  orgs?: readonly (string | OrgSpec)[];
  /** Channels per org (default 8; 1 to 5000). */
  channels?: number;
  /** Initial sessions per channel: history, at most one live, one scheduled (default 12). */
  sessionsPerChannel?: number;
  /** Tokens (default: one unlimited token `<slug>-token` per org, labelled `default`). */
  tokens?: readonly TokenSpec[];
  /** Requests per minute per client IP (default 300). */
  rateLimitPerMinute?: number;
  /** Simulated seconds per real second (default 1). */
  speed?: number;
  /** Rates of change (default `calm`). */
  scenario?: Scenario;
  /** No spontaneous change at all: the world changes only by triggers (default false). */
  frozen?: boolean;
  /**
   * Share of planned sessions (0 to 1) the evolution turns into an incident: a no-show, a
   * drop, an early end, an overrun or a failure, each kept as ground truth
   * (`GET /_sim/incidents`). Default 0: the world is as it always was.
   */
  incidents?: number;
  /**
   * Channel-list hints of session activity: `sessions_updated_at` on every channel, and
   * `ETag`/`Last-Modified` with 304 answers on session lists (default false).
   */
  hints?: boolean;
  /**
   * A server dialect (dialect.ts): a name, or a whole dialect object for tests that combine
   * facets freely (default `default`); explicit style options override its style.
   */
  dialect?: string | import('./dialect.js').Dialect;
  envelope?: EnvelopeStyle;
  paging?: ServedPaging;
  pageSize?: number;
  fieldCase?: FieldCase;
  faults?: FaultSpec | readonly FaultSpec[];
  /** Default: the system clock. */
  clock?: Clock;
  /** Entries kept in the ground-truth change log before the oldest are dropped (default 500 000). */
  maxChanges?: number;
  /** Entries kept in the request log before the oldest are dropped (default 100 000). */
  maxRequests?: number;
}

/** Kinds of entity that change. */
export type ChangeEntityKind = 'org' | 'member' | 'subscription' | 'channel' | 'session';

/** A JSON value carried in a change. */
export type ChangeValue = string | number | boolean | null;

/** One change the world made: the ground truth tally's change events are measured against. */
export interface Change {
  /** Increasing from 1. */
  seq: number;
  /** Real clock time of the change (ms): the simulated time mapped back onto the clock. */
  at: number;
  /** Simulated time of the change (ms); equals `at` at speed 1. */
  simAt: number;
  org: string;
  entity: { kind: ChangeEntityKind; id: string };
  /** `status`, `visibility`, `role`, `plan`, `funding`, `wallet.balance`, `questions`, `exists` … */
  field: string;
  from: ChangeValue;
  to: ChangeValue;
  /** The item a count change is about (a question, a speaker …), for `questions`, `speakers` … */
  item?: { id: string; text?: string };
  /** Whether the world's own evolution made it or a control-surface trigger. */
  source: 'evolve' | 'trigger';
}

/** One request the API listeners answered (never the token value). */
export interface RequestLogEntry {
  seq: number;
  /** Clock time the request arrived (ms). */
  at: number;
  ip: string;
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** The org slug in the path, when there was one. */
  org: string | null;
  /** Label of the token that authenticated, or null. */
  tokenLabel: string | null;
  /** What the Authorization header was: absent, a Bearer token, or something else. */
  auth: 'none' | 'bearer' | 'other';
  /** `main` for the API origin, `foreign` for the other origin used by cross-origin faults. */
  origin: 'main' | 'foreign';
  /** The fault applied, if any (`error`, `reset`, `latency`, `truncate` …, joined by `+`). */
  fault: string | null;
  /** The `Retry-After` sent with a 429, in seconds; null for every other answer. */
  retryAfterSeconds: number | null;
}
