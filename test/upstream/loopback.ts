/**
 * Small real HTTP servers on loopback (port 0) for the upstream client's tests, each
 * recording what it received.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, expect } from 'vitest';
import type { Learned } from '../../src/upstream/query/adapt.js';
import { DEFAULT_FILTERS } from '../../src/upstream/query/filters.js';
import { UpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import { systemClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/log.js';

/** One request as the server saw it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

/** A running loopback server. */
export interface Loopback {
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

/** Starts a server; `handler` answers every request. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>,
): Promise<Loopback> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() });
    void Promise.resolve(handler(req, res, received.length)).catch((err: unknown) => {
      res.destroy(err as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The requests of `received` but those asking for a page the list did not show
 * (`page=`, `offset=` or after the last record's id: a list that shows no paging is
 * checked once for a page after it, lists/silent-pages.ts).
 */
export function withoutProbes(received: readonly Received[]): Received[] {
  return received.filter((r) => !/[?&](page|offset|starting_after|after|after_id|since_id)=/.test(r.url));
}

/** Sends a JSON body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A logger writing JSON lines to a string, without any redaction, to prove nothing secret is logged. */
export function captureLogger(): { logger: Logger; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { logger: pino({ level: 'debug' }, stream), text: () => text };
}

/** Options of a client for tests: short timeouts, quick retries, a generous budget. */
export function clientOptions(
  baseUrl: string,
  logger: Logger,
  over: Partial<UpstreamClientOptions> = {},
): UpstreamClientOptions {
  return {
    baseUrl,
    budgetPerMinute: 300,
    concurrency: 4,
    timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 1000 },
    maxBodyBytes: 64 * 1024,
    maxPages: 20,
    retries: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 10_000 },
    shape: {},
    filters: DEFAULT_FILTERS,
    window: { pastMs: 86_400_000, futureMs: 7 * 86_400_000 },
    clock: systemClock,
    logger,
    rng: () => 0.5,
    ...over,
  };
}

/** Fails the test run on any unhandled rejection while registered. */
export function watchUnhandled(): { errors: unknown[]; stop: () => void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  process.on('unhandledRejection', onRejection);
  return { errors, stop: () => process.off('unhandledRejection', onRejection) };
}

/** What {@link loopbackSuite} gives a test file. */
export interface LoopbackSuite {
  /** Everything the clients logged, unredacted. */
  logs: ReturnType<typeof captureLogger>;
  /** Unhandled rejections so far in the file (none may remain at its end). */
  unhandled: { errors: unknown[] };
  /** Starts a server, closed after the test. */
  serve(handler: Parameters<typeof startServer>[0]): Promise<Loopback>;
  /** A client of {@link clientOptions} logging to `logs`, closed after the test. */
  client(baseUrl: string, over?: Partial<UpstreamClientOptions>): UpstreamClient;
}

/**
 * The set-up the client's test files share: every server and client a test starts is
 * closed after it, no unhandled rejection may happen in the file, and nothing logged may
 * carry `secret` (when given). Call it at the top level of a test file.
 */
export function loopbackSuite(opts: { secret?: string } = {}): LoopbackSuite {
  const unhandled = watchUnhandled();
  afterAll(() => {
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });
  const servers: Loopback[] = [];
  const clients: UpstreamClient[] = [];
  const logs = captureLogger();
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (opts.secret !== undefined) expect(logs.text()).not.toContain(opts.secret);
  });
  return {
    logs,
    unhandled,
    async serve(handler) {
      const s = await startServer(handler);
      servers.push(s);
      return s;
    },
    client(baseUrl, over = {}) {
      const c = new UpstreamClient(clientOptions(baseUrl, logs.logger, over));
      clients.push(c);
      return c;
    },
  };
}

/** What `memory` learned of `org`'s `endpoint`, without when it was learned and confirmed. */
export function known(
  memory: { get(org: string, endpoint: string): Learned | undefined },
  org: string,
  endpoint: string,
): Learned | undefined {
  const l = memory.get(org, endpoint);
  return l === undefined ? undefined : untimedOne(l);
}

/** Every entry of a saved learned-queries file without `learnedAt` and `confirmedAt`. */
export function untimed(all: unknown): unknown {
  if (all === null || typeof all !== 'object') return all;
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, untimedOne(v as Learned)]));
}

/** `l` without `learnedAt` and `confirmedAt`. */
export function untimedOne(l: Learned): Learned {
  const { learnedAt: _l, confirmedAt: _c, ...rest } = l;
  return rest;
}
