/**
 * Access control of the HTTP server. Authentication is optional: a bearer token, HTTP
 * basic, or both (either one is accepted). Credentials are compared in constant time:
 * both sides are hashed first, so neither the content nor the length of the secret leaks
 * through timing. Routes that change state (silences, reload) are closed unless writes
 * are enabled explicitly (`server.enable_writes`, `tally run --enable-writes`) or the
 * request is authenticated; {@link checkAccess} is the one place that decides.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Credentials the server accepts (secrets already read from their files). */
export interface HttpAuthConfig {
  bearerToken?: string | undefined;
  basic?: { username: string; password: string } | undefined;
}

/** The `server.auth` config section after `*_file` secrets were read. */
export interface ServerAuthSection {
  bearer_token?: string | undefined;
  basic?: { username: string; password?: string | undefined } | undefined;
}

/** Maps the config section to {@link HttpAuthConfig}; undefined when nothing is configured. */
export function authFromConfig(section: ServerAuthSection | undefined): HttpAuthConfig | undefined {
  if (!section) return undefined;
  const out: HttpAuthConfig = {};
  if (section.bearer_token !== undefined) out.bearerToken = section.bearer_token;
  if (section.basic) {
    if (section.basic.password === undefined) {
      throw new TypeError('server.auth.basic needs a password (or password_file) once secrets are resolved');
    }
    out.basic = { username: section.basic.username, password: section.basic.password };
  }
  return out.bearerToken === undefined && out.basic === undefined ? undefined : out;
}

/** Checks the `Authorization` header of requests. */
export class Authenticator {
  private readonly bearer: Buffer | undefined;
  private readonly basic: Buffer | undefined;
  /** `WWW-Authenticate` challenges to send with a 401. */
  readonly challenges: string[];

  constructor(config: HttpAuthConfig) {
    this.bearer = config.bearerToken === undefined ? undefined : digest(config.bearerToken);
    this.basic =
      config.basic === undefined ? undefined : digest(`${config.basic.username}:${config.basic.password}`);
    this.challenges = [];
    if (this.bearer) this.challenges.push('Bearer realm="tally"');
    if (this.basic) this.challenges.push('Basic realm="tally", charset="UTF-8"');
  }

  /** Whether the request carries credentials the server accepts. */
  check(headers: IncomingHttpHeaders): boolean {
    const header = headers.authorization;
    if (!header) return false;
    const space = header.indexOf(' ');
    if (space < 0) return false;
    const scheme = header.slice(0, space).toLowerCase();
    const value = header.slice(space + 1).trim();
    if (scheme === 'bearer' && this.bearer) return timingSafeEqual(digest(value), this.bearer);
    if (scheme === 'basic' && this.basic) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      return timingSafeEqual(digest(decoded), this.basic);
    }
    return false;
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** How a route may be reached: health probes are public, reads follow auth, writes are closed by default. */
export type RouteAccess = 'public' | 'read' | 'write';

/** What the server allows: credentials (when configured) and whether unauthenticated writes are on. */
export interface AccessPolicy {
  /** Credentials every non-public route needs; undefined = reads are open. */
  auth?: Authenticator | undefined;
  /** Whether write routes answer without authentication (`server.enable_writes`). */
  writesEnabled: boolean;
}

/** How to turn writes on, for error messages of the server and the CLI. */
export const ENABLE_WRITES_HINT =
  'set server.enable_writes: true (or start with tally run --enable-writes), or configure server.auth and send its credentials';

/** The outcome of {@link checkAccess}: allowed, or the status, code and message to answer with. */
export type AccessDecision =
  | { ok: true }
  | { ok: false; status: 401 | 403 | 415; code: string; message: string; headers: Record<string, string[]> };

/**
 * Decides whether a request may reach a route of kind `access`; `what` names the target
 * in the message (e.g. `POST /-/reload`). With auth configured every non-public route
 * needs credentials and an authenticated request may also write; without auth, reads are
 * open and writes need `writesEnabled`.
 */
export function checkAccess(
  policy: AccessPolicy,
  access: RouteAccess,
  headers: IncomingHttpHeaders,
  what: string,
): AccessDecision {
  if (access === 'public') return { ok: true };
  if (policy.auth) {
    if (policy.auth.check(headers)) return { ok: true };
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      message: 'authentication required',
      headers: { 'www-authenticate': policy.auth.challenges },
    };
  }
  if (access === 'read' || policy.writesEnabled) return { ok: true };
  return {
    ok: false,
    status: 403,
    code: 'writes_disabled',
    message: `${what} changes state and writes are disabled: ${ENABLE_WRITES_HINT} (docs/http-api.md)`,
    headers: {},
  };
}

/** Content types a cross-site HTML form (or a no-preflight fetch) can send. */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * A request that changes state must be one a browser never sends across sites without
 * asking the server first (docs/http-api.md, "Writes"): a non-simple `Content-Type`
 * (`application/json`), a bearer token, or an `X-Requested-With` header. A form post, or a
 * bare POST a page makes with the browser's cached basic credentials, is refused — also
 * when writes are open or basic auth is set. Methods a form cannot use (DELETE, PUT …)
 * are asked about by the browser first, which tally never allows.
 */
export function checkCrossSite(
  method: string,
  access: RouteAccess,
  headers: IncomingHttpHeaders,
  what: string,
): AccessDecision {
  if (access !== 'write' || method !== 'POST') return { ok: true };
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const bearer = /^bearer\s/i.test(headers.authorization ?? '');
  if ((type !== '' && !SIMPLE_TYPES.has(type)) || bearer || headers['x-requested-with'] !== undefined)
    return { ok: true };
  return {
    ok: false,
    status: 415,
    code: 'unsupported_media_type',
    message: `${what} changes state: send it with Content-Type: application/json (or an X-Requested-With header), which a cross-site form cannot (docs/http-api.md)`,
    headers: {},
  };
}
