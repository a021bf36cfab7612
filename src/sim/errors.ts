/**
 * Errors of the simulator: bad options at start, and requests (API or control surface)
 * that must be answered with a status and an error body.
 */
import { TallyError } from '../core/errors.js';

/** The simulator's options are invalid; the message names the option. */
export class SimConfigError extends TallyError {
  constructor(message: string) {
    super(message, { reason: 'sim_config' });
  }
}

/** A request the simulator refuses: carries the HTTP status and the error body's code. */
export class SimRequestError extends TallyError {
  /** HTTP status to answer. */
  readonly status: number;
  /** `error.code` of the body, e.g. `not_found`. */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message, { reason: code });
    this.status = status;
    this.code = code;
  }
}

/** A 404 for a missing org, channel, session or member. */
export function notFound(what: string): SimRequestError {
  return new SimRequestError(404, 'not_found', `${what} not found`);
}

/** A 400 for a bad query parameter or body field. */
export function badRequest(message: string): SimRequestError {
  return new SimRequestError(400, 'invalid_request', message);
}
