/**
 * The HTTP server (node:http): authentication, routing, error replies. It only reads
 * (docs/architecture.md: nothing downstream calls back upstream); routes live in the router, which
 * other modules extend.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, type Readable, Transform } from 'node:stream';
import { nodeHttp } from '../core/node-http.js';
import type { Logger } from '../core/log.js';
import {
  type AccessPolicy,
  Authenticator,
  checkAccess,
  checkCrossSite,
  type HttpAuthConfig,
} from './auth.js';
import { ConnectionCap, connectionCap, openFileLimit } from './connections.js';
import { errorReply, HttpError, type HttpReply, json } from './reply.js';
import { Router, routeAccess } from './router.js';

/** Options of {@link HttpServer}. */
export interface HttpServerOptions {
  /** `host:port` (`0.0.0.0:10464`, `[::1]:10464`, `127.0.0.1:0` for any free port). */
  listen: string;
  router: Router;
  /** Credentials required on every route that is not public; none = open. */
  auth?: HttpAuthConfig | undefined;
  /** Whether routes that change state answer without authentication (default false). */
  enableWrites?: boolean | undefined;
  logger: Logger;
  /** Socket timeouts; the defaults are {@link HTTP_TIMEOUTS} (tests pass shorter ones). */
  timeouts?: Partial<HttpTimeouts> | undefined;
  /** Most client connections held at once (default {@link DEFAULT_MAX_CONNECTIONS}; connections.ts). */
  maxConnections?: number | undefined;
  /** The process's open-file limit (default: read from /proc/self/limits; null: unknown). */
  openFileLimit?: number | null | undefined;
}

/** Default of `server.connections.max`: far under a usual open-file limit of 1024. */
export const DEFAULT_MAX_CONNECTIONS = 512;

/** How long the server waits on a client before it closes the connection. */
export interface HttpTimeouts {
  /** For the whole request head. */
  headersMs: number;
  /** For the whole request, body included. */
  requestMs: number;
  /** How long an idle keep-alive connection stays open after its last response. */
  keepAliveMs: number;
  /**
   * For any progress on the socket, either way: a client that stops reading a response
   * (a 2 MiB `/metrics` page does not fit the socket's buffers) would otherwise hold the
   * connection and the unsent part of the response in memory for as long as it lives.
   */
  idleMs: number;
}

/**
 * tally's requests are small and its answers quick: a scrape of 5000 channels renders in
 * well under a second, so a client silent for a minute has gone.
 */
export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 20_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  idleMs: 60_000,
};

/** Splits `host:port`; an empty host means every interface. */
export function parseListen(listen: string): { host: string | undefined; port: number } {
  const colon = listen.lastIndexOf(':');
  if (colon < 0) throw new TypeError(`listen address must be host:port, got "${listen}"`);
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const digits = listen.slice(colon + 1);
  const port = /^\d{1,5}$/.test(digits) ? Number(digits) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new TypeError(`bad port in "${listen}"`);
  return { host: host === '' ? undefined : host, port };
}

/** tally's HTTP server. */
export class HttpServer {
  /** The routes; add more with `router.addRoute`. */
  readonly router: Router;
  private readonly server: Server;
  private readonly auth: Authenticator | undefined;
  /** Who may read and write; status pages and other modules check requests against it too. */
  readonly access: AccessPolicy;
  private readonly log: Logger;
  private address: string | undefined;
  /** The cap on client connections, and what it did. */
  readonly connections: ConnectionCap;

  constructor(private readonly opts: HttpServerOptions) {
    this.router = opts.router;
    this.auth = opts.auth ? new Authenticator(opts.auth) : undefined;
    this.access = { auth: this.auth, writesEnabled: opts.enableWrites === true };
    this.log = opts.logger.child({ component: 'http' });
    this.server = nodeHttp.createServer((req, res) => {
      void this.handle(req, res);
    });
    const timeouts = { ...HTTP_TIMEOUTS, ...opts.timeouts };
    this.server.headersTimeout = timeouts.headersMs;
    this.server.requestTimeout = timeouts.requestMs;
    this.server.keepAliveTimeout = timeouts.keepAliveMs;
    const configured = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const fileLimit = opts.openFileLimit === undefined ? openFileLimit() : (opts.openFileLimit ?? undefined);
    const cap = connectionCap(configured, fileLimit);
    if (cap < configured)
      this.log.warn(
        { configured, cap, openFileLimit: fileLimit },
        'server.connections.max lowered to half the open-file limit (ulimit -n): the state directory needs the rest',
      );
    this.connections = new ConnectionCap(this.server, cap, this.log);
    // With no 'timeout' listener, Node destroys a socket idle this long.
    this.server.timeout = timeouts.idleMs;
    // After listen, the server reports accept failures (EMFILE …) as 'error': they are
    // logged, and the server keeps serving the connections it has.
    this.server.on('error', (err) => {
      if (this.server.listening) this.log.error({ err }, 'http server error');
    });
  }

  /** Starts listening; resolves with the base URL (the real port when 0 was asked for). */
  async listen(): Promise<{ url: string }> {
    const { host, port } = parseListen(this.opts.listen);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    const shown = addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address === '::' ? '::1' : addr.address;
    this.address = addr.family === 'IPv6' ? `http://[${shown}]:${addr.port}` : `http://${shown}:${addr.port}`;
    this.log.info(
      { url: this.address, auth: this.auth !== undefined, writes: this.writesMode() },
      'http server listening',
    );
    return { url: this.address };
  }

  /** How write routes are reached: with credentials, open, or closed (for the start log). */
  private writesMode(): 'authenticated' | 'enabled' | 'disabled' {
    if (this.auth) return 'authenticated';
    return this.access.writesEnabled ? 'enabled' : 'disabled';
  }

  /** The base URL once listening. */
  get url(): string | undefined {
    return this.address;
  }

  /** Stops accepting connections; requests in flight get `timeoutMs` to finish, then sockets are cut. */
  async close(timeoutMs = 5000): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.server.closeAllConnections();
        resolve();
      }, timeoutMs);
      timer.unref();
    });
    await Promise.race([closed, cut]);
    clearTimeout(timer);
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: HttpReply;
    try {
      reply = await this.dispatch(req);
    } catch (err) {
      if (err instanceof HttpError) reply = errorReply(err);
      else {
        this.log.error({ err, method: req.method, path: pathOf(req.url) }, 'request failed');
        reply = json(500, { error: { code: 'internal', message: 'internal error; see the log' } });
      }
    }
    write(res, reply, this.log);
  }

  private async dispatch(req: IncomingMessage): Promise<HttpReply> {
    const url = requestUrl(req.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const match = this.router.match(method, url.pathname);
    // Access is decided before 404: without credentials nobody learns which paths exist.
    // A method the path does not take is answered with 405 like a read: nothing changes.
    const access =
      match.kind === 'found'
        ? routeAccess(method, match.options)
        : match.kind === 'method' && match.options.public === true
          ? 'public'
          : 'read';
    const decision = checkAccess(this.access, access, req.headers, `${method} ${url.pathname}`);
    if (!decision.ok) throw new HttpError(decision.status, decision.code, decision.message, decision.headers);
    const site = checkCrossSite(method, access, req.headers, `${method} ${url.pathname}`);
    if (!site.ok) throw new HttpError(site.status, site.code, site.message, site.headers);
    if (match.kind === 'none') throw new HttpError(404, 'not_found', `no route for ${url.pathname}`);
    if (match.kind === 'method') {
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`, {
        allow: match.allow.join(', '),
      });
    }
    return match.handler(Router.context(req, url, match.params));
  }
}

/** Parses the request target; a path like `//x` stays a path, never a host. */
function requestUrl(target: string | undefined): URL {
  const t = target ?? '/';
  try {
    return t.startsWith('/') ? new URL(`http://localhost${t}`) : new URL(t);
  } catch {
    throw new HttpError(400, 'bad_request', 'malformed request target');
  }
}

function pathOf(target: string | undefined): string {
  return (target ?? '/').split('?')[0] ?? '/';
}

function write(res: ServerResponse, reply: HttpReply, log: Logger): void {
  const body = reply.body ?? '';
  const streamed = typeof body === 'object' && !Buffer.isBuffer(body) ? body : undefined;
  const headers: Record<string, string | string[] | number> = {
    'x-content-type-options': 'nosniff',
    ...reply.headers,
    'content-length': streamed ? streamed.length : Buffer.byteLength(body as string | Buffer),
  };
  res.writeHead(reply.status, headers);
  if (!streamed) {
    res.end(body);
    return;
  }
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  // Past the head, a failing stream can only cut the connection (pipeline destroys every
  // stream): the client sees a body shorter than its Content-Length, never a truncated
  // body taken for a whole one, nor one longer than it said.
  const failed = (err: unknown) => log.error({ err, path: pathOf(res.req.url) }, 'response body failed');
  let source: Readable;
  try {
    source = streamed.stream();
  } catch (err) {
    failed(err);
    res.destroy();
    return;
  }
  pipeline(source, exactly(streamed.length), res, (err) => {
    // A client that leaves early, or a server closing, is no failure of the body.
    if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') failed(err);
  });
}

/** Passes a body on while it keeps to its stated length, and fails it otherwise. */
function exactly(length: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      if (sent > length) done(new Error(`the body is longer than its Content-Length (${length} bytes)`));
      else done(null, chunk);
    },
    flush(done) {
      if (sent === length) done();
      else done(new Error(`the body ended at ${sent} of its Content-Length's ${length} bytes`));
    },
  });
}
