/**
 * Errors of the upstream client, classified once (docs/architecture.md, "Errors"): every failure of a read
 * becomes an {@link UpstreamError} with a short stable `reason` (a metric label and the
 * `PartError.reason` of the part), `retryable`, and a message that names the request by
 * method and path only — never the origin's credentials, never a header, never the token.
 */
import { TallyError } from '../core/errors.js';

/** Why a request or a list read failed. */
export type UpstreamReason =
  | 'timeout'
  | 'network'
  | 'http_5xx'
  | 'rate_limited'
  | 'auth'
  | 'not_found'
  | 'http_4xx'
  | 'redirect'
  | 'cross_origin'
  | 'oversized'
  | 'malformed'
  | 'paging'
  | 'schema'
  | 'aborted';

/** Every {@link UpstreamReason}; the record makes the compiler check none is missing. */
const REASONS: Record<UpstreamReason, true> = {
  timeout: true,
  network: true,
  http_5xx: true,
  rate_limited: true,
  auth: true,
  not_found: true,
  http_4xx: true,
  redirect: true,
  cross_origin: true,
  oversized: true,
  malformed: true,
  paging: true,
  schema: true,
  aborted: true,
};

/** Every reason an upstream request can fail for (metric label values). */
export const UPSTREAM_REASONS = Object.keys(REASONS) as readonly UpstreamReason[];

/** Reasons worth another attempt of the same GET. */
const RETRYABLE: ReadonlySet<UpstreamReason> = new Set([
  'timeout',
  'network',
  'http_5xx',
  'rate_limited',
  'malformed',
]);

/** The reasons a request is tried again for (metric label values). */
export const RETRYABLE_UPSTREAM_REASONS: readonly UpstreamReason[] = [...RETRYABLE];

/** A failed upstream request or list read. */
export class UpstreamError extends TallyError {
  declare readonly reason: UpstreamReason;
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The `error.code` of the upstream error body, when there was one. */
  readonly upstreamCode: string | undefined;
  /** What the server's error body said (code and message), for request adaptation. */
  readonly upstreamWords: string | undefined;
  /** The raw `Retry-After` header of a 429, for the budget. */
  readonly retryAfter: string | undefined;
  /** The raw `Date` header of the same answer: what an HTTP-date `Retry-After` is measured from. */
  readonly serverDate: string | undefined;
  /** The answer's rate-limit fields (rate-limit.ts), by lower-cased name. */
  readonly rateLimit: Record<string, string> | undefined;

  constructor(
    message: string,
    opts: {
      reason: UpstreamReason;
      status?: number | undefined;
      upstreamCode?: string | undefined;
      upstreamWords?: string | undefined;
      retryAfter?: string | undefined;
      serverDate?: string | undefined;
      rateLimit?: Record<string, string> | undefined;
      cause?: unknown;
    },
  ) {
    super(message, { reason: opts.reason, retryable: RETRYABLE.has(opts.reason), cause: opts.cause });
    this.status = opts.status;
    this.upstreamCode = opts.upstreamCode;
    this.upstreamWords = opts.upstreamWords;
    this.retryAfter = opts.retryAfter;
    this.serverDate = opts.serverDate;
    this.rateLimit = opts.rateLimit;
  }
}

/** Maps a non-2xx, non-3xx status to its reason. */
export function reasonForStatus(status: number): UpstreamReason {
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}

/** Undici and socket error codes, mapped to reasons. */
const CODE_REASONS: Readonly<Record<string, UpstreamReason>> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  UND_ERR_SOCKET: 'network',
  UND_ERR_CLOSED: 'network',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'network',
  ECONNRESET: 'network',
  ECONNREFUSED: 'network',
  EPIPE: 'network',
  EHOSTUNREACH: 'network',
  ENETUNREACH: 'network',
  ENOTFOUND: 'network',
  EAI_AGAIN: 'network',
  Z_DATA_ERROR: 'malformed',
  Z_BUF_ERROR: 'network',
  ERR_STREAM_PREMATURE_CLOSE: 'network',
};

/** Short human words for an error code, so messages stay readable and credential-free. */
const CODE_WORDS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout waiting for response headers',
  UND_ERR_BODY_TIMEOUT: 'timeout reading the response body',
  UND_ERR_SOCKET: 'connection closed by the server',
  ECONNRESET: 'connection reset',
  ECONNREFUSED: 'connection refused',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'response shorter than its Content-Length',
  Z_DATA_ERROR: 'invalid compressed body',
  Z_BUF_ERROR: 'truncated compressed body',
  ERR_STREAM_PREMATURE_CLOSE: 'response body cut short',
};

/** Classifies anything a single HTTP exchange threw into an {@link UpstreamError}. */
export function classifyTransportError(err: unknown, what: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const code = errorCode(err);
  // Brotli names each way a stream can be corrupt (ERR__ERROR_FORMAT_PADDING_1 …).
  if (code?.startsWith('ERR__ERROR_FORMAT') || code?.startsWith('ERR_BROTLI')) {
    return new UpstreamError(`${what}: invalid compressed body`, { reason: 'malformed', cause: err });
  }
  const reason = (code ? CODE_REASONS[code] : undefined) ?? 'network';
  const words = (code ? CODE_WORDS[code] : undefined) ?? code ?? 'network error';
  return new UpstreamError(`${what}: ${words}`, { reason, cause: err });
}

/** The `code` of an error or of its cause chain (undici wraps socket errors). */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Removes a secret from a message, should a server have echoed it into a URL or a body. */
export function redact(message: string, secret: string): string {
  return secret.length >= 4 ? message.split(secret).join('[REDACTED]') : message;
}
