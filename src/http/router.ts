/**
 * A small router: routes are `(method, pattern, handler)` with `:name` path parameters.
 * Handlers return a reply (or throw an {@link HttpError}); the server writes it. Other
 * modules add their routes with {@link Router.addRoute}.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { readJsonBody } from './body.js';
import { HttpError, type HttpReply } from './reply.js';

/** What a handler gets. */
export interface RequestContext {
  method: string;
  url: URL;
  /** Decoded path parameters by name. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  req: IncomingMessage;
  /** Reads the body as JSON, refusing more than `maxBytes` (default 1 MiB) with a 413. */
  json<T = unknown>(maxBytes?: number): Promise<T>;
}

/** Handles one route. */
export type Handler = (ctx: RequestContext) => HttpReply | Promise<HttpReply>;

/** Per-route options. */
export interface RouteOptions {
  /** Served without authentication (health endpoints only). */
  public?: boolean;
  /**
   * Whether the route changes state (closed unless writes are enabled or the request is
   * authenticated). Defaults to true for every method but GET and HEAD, so that a new
   * mutating route is closed unless it says otherwise.
   */
  write?: boolean;
}

/** The access kind of a route: public, read or write (see {@link RouteOptions.write}). */
export function routeAccess(method: string, options: RouteOptions): 'public' | 'read' | 'write' {
  if (options.public === true) return 'public';
  const m = method.toUpperCase();
  return (options.write ?? (m !== 'GET' && m !== 'HEAD')) ? 'write' : 'read';
}

interface Route {
  method: string;
  segments: readonly string[];
  handler: Handler;
  options: RouteOptions;
}

/** The outcome of matching a request. */
export type Match =
  | { kind: 'found'; handler: Handler; options: RouteOptions; params: Record<string, string> }
  | { kind: 'method'; allow: string[]; options: RouteOptions }
  | { kind: 'none' };

/** Routes by method and path pattern. */
export class Router {
  private readonly routes: Route[] = [];

  /**
   * Adds a route. `pattern` is a path whose `:name` segments match one segment each,
   * e.g. `/api/v1/snapshot/:org`. A GET route also answers HEAD.
   */
  addRoute(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    if (!pattern.startsWith('/')) throw new TypeError(`route pattern must start with "/": ${pattern}`);
    const m = method.toUpperCase();
    const segments = split(pattern);
    const clash = this.routes.find((r) => r.method === m && same(r.segments, segments));
    if (clash) throw new TypeError(`route ${m} ${pattern} is already taken`);
    this.routes.push({ method: m, segments, handler, options });
  }

  /** Finds the route for a method and path. */
  match(method: string, path: string): Match {
    const parts = split(path);
    const m = method.toUpperCase();
    const allow = new Set<string>();
    let options: RouteOptions | undefined;
    for (const r of this.routes) {
      const params = bind(r.segments, parts);
      if (!params) continue;
      options ??= r.options;
      allow.add(r.method);
      if (r.method === 'GET') allow.add('HEAD');
      if (r.method === m || (m === 'HEAD' && r.method === 'GET')) {
        return { kind: 'found', handler: r.handler, options: r.options, params };
      }
    }
    if (options) return { kind: 'method', allow: [...allow].sort(), options };
    return { kind: 'none' };
  }

  /** Builds the context a handler gets. */
  static context(req: IncomingMessage, url: URL, params: Record<string, string>): RequestContext {
    return {
      method: (req.method ?? 'GET').toUpperCase(),
      url,
      params,
      query: url.searchParams,
      headers: req.headers,
      req,
      json: <T>(maxBytes?: number) => readJsonBody<T>(req, maxBytes),
    };
  }
}

function split(path: string): string[] {
  return path === '/' ? [] : path.replace(/^\//, '').split('/');
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return (
    a.length === b.length && a.every((s, i) => (s.startsWith(':') && b[i]?.startsWith(':')) || s === b[i])
  );
}

function bind(pattern: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] as string;
    const got = parts[i] as string;
    if (want.startsWith(':')) {
      if (got === '') return undefined;
      params[want.slice(1)] = decode(got);
    } else if (want !== got) return undefined;
  }
  return params;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'bad_request', 'malformed percent-encoding in the path');
  }
}
