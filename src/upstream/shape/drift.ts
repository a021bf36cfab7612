/**
 * Schema drift: the server answered something tally does not fully understand. A field
 * of the wrong type is reported and skipped; a record without an id is unusable (fatal);
 * a response whose list or object cannot be found at all raises {@link SchemaDriftError}.
 */
import { TallyError } from '../../core/errors.js';
import { type Endpoint, LIST_ENDPOINTS } from './endpoints.js';

/** One problem found while reading a response. */
export interface DriftIssue {
  endpoint: Endpoint;
  /** The model field concerned (`channel.status`), or `envelope`; bounded, fit for a metric label. */
  field: string;
  /** What was wrong and where in the response (`'status' is an object, expected a string`). */
  problem: string;
  /** The record is unusable (e.g. it has no id) and was dropped. */
  fatal: boolean;
  /** The list a blind field was found in (its path, `channels/ch1/sessions`), for the degraded state. */
  list?: string;
}

/** A normalized value and the problems found while producing it. */
export interface Normalized<T> {
  value: T;
  drift: DriftIssue[];
}

/** The list or object of a response cannot be found: nothing of it is usable. */
export class SchemaDriftError extends TallyError {
  /** Endpoint whose response did not fit. */
  readonly endpoint: Endpoint;
  /** What could not be found (`envelope`). */
  readonly field: string;

  constructor(endpoint: Endpoint, field: string, message: string) {
    super(`${endpoint}: ${message}`, { reason: 'schema', retryable: false });
    this.endpoint = endpoint;
    this.field = field;
  }
}

/** Collects the drift of one record; created per call, never shared. */
export class DriftLog {
  readonly issues: DriftIssue[] = [];

  constructor(readonly endpoint: Endpoint) {}

  /** Records a problem that leaves the record usable. */
  note(field: string, problem: string): void {
    this.issues.push({ endpoint: this.endpoint, field, problem, fatal: false });
  }

  /** Records a problem that makes the record unusable. */
  fatal(field: string, problem: string): void {
    this.issues.push({ endpoint: this.endpoint, field, problem, fatal: true });
  }

  /** Whether a fatal problem was recorded. */
  get hasFatal(): boolean {
    return this.issues.some((i) => i.fatal);
  }
}

/**
 * One issue as a message: the field, a colon, the problem (`org: none of the fields tally
 * reads is in the body; keys seen: "result"`). Every message that names an issue (a failed
 * read's error, `--explain`) is built here, so they read alike.
 */
export function describeIssue(issue: Pick<DriftIssue, 'field' | 'problem'>): string {
  return `${issue.field}: ${issue.problem}`;
}

/** Why a response did not fit, as a bounded word fit for a metric label. */
export type DriftReason =
  | 'no_list'
  | 'no_object'
  | 'unrecognised_body'
  | 'not_json'
  | 'missing_id'
  | 'missing_part'
  | 'query_refused'
  | 'unknown_word'
  | 'duplicate_id'
  | 'conflicting_id'
  | 'paging_loop'
  | 'blind'
  | 'unreadable_value';

/**
 * The reasons of drift that fails a read (no list or object found, nothing tally reads, not
 * JSON, records without ids, records sharing an id but differing, every query refused). Tally's own rule `upstream_unreadable`
 * alerts on these; the shipped Prometheus rule `TallySchemaDrift` leaves them out.
 */
export const READ_FAILING_REASONS: readonly DriftReason[] = [
  'no_list',
  'no_object',
  'unrecognised_body',
  'not_json',
  'missing_id',
  'conflicting_id',
  'query_refused',
];

/** The field a record's missing id is reported under, per list endpoint (normalize-*.ts). */
const ID_FIELDS: Readonly<Record<string, string>> = {
  team: 'member.id',
  channels: 'channel.id',
  sessions: 'session.id',
};

/**
 * Every series of read-failing drift an endpoint can report, with its field and reason:
 * these are known before any response differs, so the drift metric starts them at 0 and
 * `increase()` sees the first failure (the field of other drift is only known when it comes).
 */
export function readFailingSeries(endpoint: Endpoint): { field: string; reason: DriftReason }[] {
  const out: { field: string; reason: DriftReason }[] = [
    { field: 'envelope', reason: LIST_ENDPOINTS.has(endpoint) ? 'no_list' : 'no_object' },
    { field: 'body', reason: 'not_json' },
  ];
  const id = ID_FIELDS[endpoint];
  if (id !== undefined) {
    out.push(
      { field: 'query', reason: 'query_refused' },
      { field: id, reason: 'missing_id' },
      { field: id, reason: 'conflicting_id' },
    );
  } else {
    out.push({ field: endpoint, reason: 'unrecognised_body' });
  }
  return out;
}

/** The reason of an issue, from its endpoint, field and problem. */
export function driftReason(
  issue: Pick<DriftIssue, 'field' | 'problem' | 'fatal'> & { endpoint: string },
): DriftReason {
  // No envelope found: a list endpoint had no list, an object endpoint (profile,
  // subscription, session detail) no object.
  if (issue.field === 'envelope')
    return LIST_ENDPOINTS.has(issue.endpoint as Endpoint) ? 'no_list' : 'no_object';
  if (issue.field === 'query') return 'query_refused';
  if (issue.field === 'paging') return 'paging_loop';
  if (/ the same id as an earlier, different record/.test(issue.problem)) return 'conflicting_id';
  if (/ the same id as /.test(issue.problem)) return 'duplicate_id';
  if (/none of the fields tally reads/.test(issue.problem)) return 'unrecognised_body';
  if (issue.field === 'body' && /not valid JSON/.test(issue.problem)) return 'not_json';
  if (/no usable id/.test(issue.problem)) return 'missing_id';
  if (/^unknown (status|visibility) word/.test(issue.problem)) return 'unknown_word';
  // A field a decision depends on, unreadable on most records (blindness.ts).
  if (issue.problem.startsWith('unreadable on most records of the list')) return 'blind';
  if (/no readable balance|not found|no .* found/.test(issue.problem)) return 'missing_part';
  return 'unreadable_value';
}
