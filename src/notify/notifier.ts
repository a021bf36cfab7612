/**
 * What every sink implements, and the one error type they throw. A sink sends once and
 * throws a {@link DeliveryError}; it never sleeps, retries or touches metrics: the
 * delivery worker does that, once, for all sinks (docs/architecture.md, "Delivery").
 */
import type { Notification } from '../alerts/types.js';
import { TallyError } from '../core/errors.js';

/** The kinds of receiver tally can deliver to; one folder per kind under `src/notify/`. */
export type SinkType = 'email' | 'webhook' | 'alertmanager' | 'log';

/** What the delivery worker hands a sink with each attempt. */
export interface SendContext {
  /** Aborted when the attempt times out or tally stops; the sink gives up at once. */
  signal: AbortSignal;
  /** Stable across retries and restarts: receivers use it to drop duplicates. */
  idempotencyKey: string;
}

/** One configured receiver, ready to send. */
export interface Notifier {
  /** The receiver's name from config. */
  readonly name: string;
  readonly type: SinkType;
  /** Delivers one notification once; resolves when the far side accepted it. */
  send(n: Notification, ctx: SendContext): Promise<void>;
  /** Releases connections; sends after close are not expected. */
  close?(): Promise<void>;
}

/** Why one attempt failed; short and stable, it becomes a metric label. */
export type DeliveryReason =
  | 'timeout'
  | 'aborted'
  | 'connect'
  | 'network'
  | 'tls'
  | 'redirect'
  | 'http_4xx'
  | 'http_410'
  | 'http_429'
  | 'http_5xx'
  | 'smtp_4xx'
  | 'smtp_5xx'
  | 'smtp_auth'
  | 'smtp_protocol'
  | 'template'
  | 'write'
  | 'unknown';

/** Every {@link DeliveryReason}; the record makes the compiler check none is missing. */
const DELIVERY_REASON_SET: Record<DeliveryReason, true> = {
  timeout: true,
  aborted: true,
  connect: true,
  network: true,
  tls: true,
  redirect: true,
  http_4xx: true,
  http_410: true,
  http_429: true,
  http_5xx: true,
  smtp_4xx: true,
  smtp_5xx: true,
  smtp_auth: true,
  smtp_protocol: true,
  template: true,
  write: true,
  unknown: true,
};

/** Every reason a delivery attempt can fail for (metric label values). */
export const DELIVERY_REASONS = Object.keys(DELIVERY_REASON_SET) as readonly DeliveryReason[];

/** Why the delivery worker gave up on a notification without delivering it. */
export type DropReason = DeliveryReason | 'expired' | 'max_attempts' | 'unknown_receiver';

/** Every {@link DropReason} (metric label values). */
export const DROP_REASONS: readonly DropReason[] = [
  ...DELIVERY_REASONS,
  'expired',
  'max_attempts',
  'unknown_receiver',
];

/** Reasons that are worth another attempt when the sink does not say otherwise. */
const RETRYABLE: ReadonlySet<DeliveryReason> = new Set([
  'timeout',
  'aborted',
  'connect',
  'network',
  'tls',
  'http_429',
  'http_5xx',
  'smtp_4xx',
  'smtp_protocol',
  'write',
  'unknown',
]);

/** One failed attempt to deliver, classified once by the sink that saw it. */
export class DeliveryError extends TallyError {
  declare readonly reason: DeliveryReason;
  /** How long the far side asked us to wait (`Retry-After`), when it did. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    opts: { reason: DeliveryReason; retryable?: boolean; retryAfterMs?: number | undefined; cause?: unknown },
  ) {
    super(message, {
      reason: opts.reason,
      retryable: opts.retryable ?? RETRYABLE.has(opts.reason),
      cause: opts.cause,
    });
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/**
 * The error for an attempt whose signal fired: the signal's own reason when it is a
 * {@link DeliveryError} (the delivery worker's timeout), else `timeout` for a timeout signal
 * and `aborted` for anything else.
 */
export function abortError(signal: AbortSignal, where: string): DeliveryError {
  const why: unknown = signal.reason;
  if (why instanceof DeliveryError) return why;
  const isTimeout = why instanceof Error && why.name === 'TimeoutError';
  return isTimeout
    ? new DeliveryError(`${where}: timed out`, { reason: 'timeout' })
    : new DeliveryError(`${where}: aborted`, { reason: 'aborted' });
}

/** Maps an HTTP status that is not 2xx to its reason; 408, 429 and 5xx are retryable. */
export function reasonForStatus(status: number): { reason: DeliveryReason; retryable: boolean } {
  if (status >= 300 && status < 400) return { reason: 'redirect', retryable: false };
  if (status === 410) return { reason: 'http_410', retryable: false };
  if (status === 429) return { reason: 'http_429', retryable: true };
  if (status === 408) return { reason: 'http_4xx', retryable: true };
  if (status >= 500) return { reason: 'http_5xx', retryable: true };
  return { reason: 'http_4xx', retryable: false };
}

/** Socket and TLS error codes, mapped to reasons. */
const CODE_REASONS: Readonly<Record<string, DeliveryReason>> = {
  ECONNREFUSED: 'connect',
  EHOSTUNREACH: 'connect',
  ENETUNREACH: 'connect',
  ENOTFOUND: 'connect',
  EAI_AGAIN: 'connect',
  EDNS: 'connect',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNRESET: 'network',
  EPIPE: 'network',
  UND_ERR_SOCKET: 'network',
  UND_ERR_CLOSED: 'network',
  ECONNECTION: 'network',
  ESOCKET: 'network',
  ETLS: 'tls',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls',
  CERT_HAS_EXPIRED: 'tls',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls',
  ERR_SSL_WRONG_VERSION_NUMBER: 'tls',
};

/** Words for the codes above, so messages stay readable and free of credentials. */
const CODE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EDNS: 'DNS lookup failed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timeout reading the response',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  ECONNECTION: 'connection closed unexpectedly',
  ESOCKET: 'socket error',
  ETLS: 'TLS handshake failed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: self-signed certificate in chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: certificate not trusted',
  CERT_HAS_EXPIRED: 'TLS: certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: certificate does not match the host name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS: wrong version (is the port plain text?)',
};

/** The first `code` found on an error or its cause chain (libraries wrap socket errors). */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in CODE_REASONS) return code;
    e = (e as { cause?: unknown }).cause;
  }
  const top = (err as { code?: unknown } | null)?.code;
  return typeof top === 'string' ? top : undefined;
}

/**
 * Classifies a transport failure (socket, DNS, TLS) into a {@link DeliveryError} whose
 * message is `where` plus fixed words: the library's own message is kept out of it,
 * because it may quote a URL or a server reply with a credential in it.
 */
export function transportError(err: unknown, where: string): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const code = errorCode(err);
  const reason = (code !== undefined && CODE_REASONS[code]) || 'unknown';
  const words = (code !== undefined && CODE_WORDS[code]) || (code ?? 'failed');
  return new DeliveryError(`${where}: ${words}`, { reason, cause: err });
}
