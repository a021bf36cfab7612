/**
 * Replies and errors of the HTTP API. Every JSON answer has the same content type, and
 * every error the same shape: `{ "error": { "code", "message", "problems"? } }`, where
 * `problems` lists what was wrong with a request by field.
 */
import { stringifyWellFormed } from '../core/well-formed.js';
import type { Readable } from 'node:stream';
import { type FieldProblem, TallyError } from '../core/errors.js';

/** What a handler returns; the server writes it. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer | StreamedBody;
}

/**
 * A body sent as a stream of known length, made only when there is a body to send (not
 * for HEAD): a large body made on the fly need not exist whole.
 */
export interface StreamedBody {
  /** Its length in bytes (`Content-Length`); the stream must give exactly as many. */
  length: number;
  stream(): Readable;
}

/** An HTTP error with a short stable code; becomes `{ "error": { code, message } }`. */
export class HttpError extends TallyError {
  /** HTTP status to answer with. */
  readonly status: number;
  /** Short stable code, e.g. `bad_request`, `not_found`. */
  readonly code: string;
  /** Extra response headers (`Allow`, `WWW-Authenticate` …). */
  readonly headers: Record<string, string | string[]>;
  /** What was wrong with the request, by field (`matchers[0]`, `state`). */
  readonly problems: readonly FieldProblem[] | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    headers: Record<string, string | string[]> = {},
    problems?: readonly FieldProblem[],
  ) {
    super(message, { reason: code });
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.problems = problems;
  }
}

/** The content type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON reply. */
export function json(
  status: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
): HttpReply {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, ...headers },
    body: `${stringifyWellFormed(value)}\n`,
  };
}

/** The JSON reply of an error. */
export function errorReply(err: HttpError): HttpReply {
  const error = { code: err.code, message: err.message, ...(err.problems ? { problems: err.problems } : {}) };
  return json(err.status, { error }, err.headers);
}
