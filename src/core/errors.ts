/**
 * Typed errors. Every error tally raises on purpose derives from {@link TallyError}:
 * `reason` is short and stable (it becomes a metric label), `retryable` tells the
 * caller whether trying again can help. Messages say what failed and where, and never
 * carry a credential.
 */

/** One problem of an input (a request body, a query), by field: `matchers[0]`, `state`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Base class of every error tally raises on purpose. */
export class TallyError extends Error {
  /** Short, stable, metric-label-safe cause, e.g. `timeout`, `http_5xx`, `auth`. */
  readonly reason: string;
  /** Whether the same operation may succeed when tried again. */
  readonly retryable: boolean;

  constructor(message: string, opts: { reason: string; retryable?: boolean; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.reason = opts.reason;
    this.retryable = opts.retryable ?? false;
  }
}

/** The configuration could not be read or is invalid; carries every problem found. */
export class ConfigError extends TallyError {
  /** Each problem on its own line, with its YAML path and position. */
  readonly problems: readonly string[];

  constructor(source: string, problems: readonly string[]) {
    super(
      `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n  ${problems.join('\n  ')}`,
      {
        reason: 'config',
      },
    );
    this.problems = problems;
  }
}

/** Returns a short, safe description of anything thrown. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
