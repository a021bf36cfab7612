/**
 * How a read's outcome is told (docs/upstream-client.md, "Logs"): anything a read threw
 * becomes a typed error, drift in it goes to the drift reporter, and a read that failed or
 * came back incomplete is logged once at warn while it keeps failing.
 */
import { TallyError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { Part } from '../snapshot/model.js';
import type { DriftReporter } from './drift-reporter.js';
import { UpstreamError } from './errors.js';
import { type DriftIssue, type Endpoint, SchemaDriftError } from './shape/index.js';
import type { OrgAuth } from './types.js';

/** Turns the outcome of each read into a typed error, drift reports and log lines. */
export class ReadOutcomes {
  constructor(
    private readonly log: Logger,
    private readonly drift: DriftReporter,
  ) {}

  /** Turns anything a read threw into a typed error; a bug is logged, not thrown. */
  classify(org: OrgAuth, endpoint: Endpoint, err: unknown, what: string): TallyError {
    if (err instanceof TallyError) {
      if (err instanceof SchemaDriftError) {
        this.drift.report(org.slug, [driftOf(err)]);
        return new UpstreamError(`${what}: ${err.message}`, { reason: 'schema', cause: err });
      }
      const notJson = notJsonDrift(endpoint, err);
      if (notJson) this.drift.report(org.slug, [notJson]);
      return err;
    }
    this.log.error({ org: org.slug, endpoint, err }, 'unexpected error while reading');
    return new TallyError(`${what}: internal error`, { reason: 'internal', cause: err });
  }

  /**
   * Logs a read that failed or came back incomplete, and hands the part back. The first
   * failure of an org's endpoint after a good read is a warning; repeats while it keeps
   * failing are debug (an outage would otherwise flood the log, and the poller's health
   * tracking reports it once), and the next good read says it recovered.
   */
  settle<P extends Part<unknown>>(org: OrgAuth, endpoint: Endpoint, part: P): P {
    const key = `${org.slug}\u0000${endpoint}`;
    if (part.state === 'complete') {
      if (this.failing.delete(key)) this.log.info({ org: org.slug, endpoint }, 'reads succeed again');
      return part;
    }
    const line = {
      org: org.slug,
      endpoint,
      state: part.state,
      reason: part.error.reason,
      error: part.error.message,
    };
    const msg = part.state === 'failed' ? 'read failed' : 'read incomplete';
    if (this.failing.has(key)) this.log.debug({ ...line, repeated: true }, msg);
    else {
      this.failing.add(key);
      this.log.warn(line, msg);
    }
    return part;
  }

  /** `org\0endpoint` of reads whose last outcome was not complete (for log levels). */
  private readonly failing = new Set<string>();
}

/**
 * A success whose body is not JSON at all (an HTML page from a proxy, a login form): the
 * server is not speaking the API, which is drift, not an outage.
 */
export function notJsonDrift(endpoint: Endpoint, err: unknown): DriftIssue | undefined {
  if (!(err instanceof UpstreamError) || err.reason !== 'malformed') return undefined;
  if (err.status === undefined || err.status < 200 || err.status >= 300) return undefined;
  const at = err.message.indexOf('response is not valid JSON');
  return at < 0 ? undefined : { endpoint, field: 'body', problem: err.message.slice(at), fatal: true };
}

/** A drift issue for a response whose list or object could not be found. */
export function driftOf(err: SchemaDriftError): DriftIssue {
  return { endpoint: err.endpoint, field: err.field, problem: err.message, fatal: true };
}
