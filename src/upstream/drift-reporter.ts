/**
 * Reports schema drift without flooding: the observer hears about every distinct issue
 * of every read (for metrics), the log gets one line when a field shows a problem not
 * seen before for it — not one per request, nor one per record.
 */
import type { Logger } from '../core/log.js';
import type { UpstreamObserver } from './observer.js';
import type { DriftIssue } from './shape/index.js';

/** Problems remembered per field; past this, a field's new problems are no longer logged. */
const MAX_PROBLEMS_PER_FIELD = 20;

/** Remembers the drift already logged per org, endpoint and field. */
export class DriftReporter {
  private readonly logged = new Map<string, Set<string>>();
  private readonly notes = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly observer: UpstreamObserver,
  ) {}

  /** Reports the issues of one read (any number of records and pages). */
  report(org: string, issues: readonly DriftIssue[]): void {
    const distinct = new Map<string, DriftIssue>();
    for (const issue of issues) {
      distinct.set(`${issue.endpoint}\0${issue.field}\0${issue.problem}\0${issue.fatal}`, issue);
    }
    for (const issue of distinct.values()) {
      this.observer.onDrift?.({ ...issue, org });
      const key = `${org}\0${issue.endpoint}\0${issue.field}`;
      const sig = `${issue.fatal}\0${issue.problem}`;
      const seen = this.logged.get(key) ?? new Set<string>();
      this.logged.set(key, seen);
      if (seen.has(sig) || seen.size >= MAX_PROBLEMS_PER_FIELD) continue;
      seen.add(sig);
      this.logger.warn(
        { org, endpoint: issue.endpoint, field: issue.field, problem: issue.problem, fatal: issue.fatal },
        'schema drift',
      );
    }
  }

  /** Reports the fields readable on most records of one list (blindness over). */
  sight(org: string, endpoint: string, list: string, fields: readonly string[]): void {
    for (const field of fields) this.observer.onSight?.({ org, endpoint, field, list });
  }

  /** Logs a doubt about a list's end (a full page without paging) once per org and endpoint. */
  note(org: string, endpoint: string, note: string): void {
    const key = `${org}\0${endpoint}`;
    if (this.notes.has(key)) return;
    this.notes.add(key);
    this.logger.warn({ org, endpoint, note }, 'list may be longer than read');
  }
}
