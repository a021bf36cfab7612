/**
 * Replies and errors of the HTTP API. Every JSON answer has the same content type, and
 * every error the same shape: `{ "error": { "code", "message" } }`.
 */
import { TallyError } from '../core/errors.js';

/** What a handler returns; the server writes it. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** An HTTP error with a short stable code; becomes `{ "error": { code, message } }`. */
export class HttpError extends TallyError {
  /** HTTP status to answer with. */
  readonly status: number;
  /** Short stable code, e.g. `bad_request`, `not_found`. */
  readonly code: string;
  /** Extra response headers (`Allow`, `WWW-Authenticate` …). */
  readonly headers: Record<string, string | string[]>;

  constructor(
    status: number,
    code: string,
    message: string,
    headers: Record<string, string | string[]> = {},
  ) {
    super(message, { reason: code });
    this.status = status;
    this.code = code;
    this.headers = headers;
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
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: `${JSON.stringify(value)}\n` };
}

/** The JSON reply of an error. */
export function errorReply(err: HttpError): HttpReply {
  return json(err.status, { error: { code: err.code, message: err.message } }, err.headers);
}
