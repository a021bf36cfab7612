/**
 * Optional authentication of the HTTP server: a bearer token, HTTP basic, or both
 * (either one is accepted). Credentials are compared in constant time: both sides are
 * hashed first, so neither the content nor the length of the secret leaks through timing.
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
