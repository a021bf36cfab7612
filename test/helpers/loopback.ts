/**
 * Small real HTTP servers on loopback (port 0), each recording what it received, and the
 * set-up a test file of them shares ({@link loopbackSuite}): every server and client a test
 * starts is closed after it, no unhandled rejection may happen in the file, and nothing
 * logged may carry a secret.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, expect } from 'vitest';
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

/** Fails the test run on any unhandled rejection while registered. */
export function watchUnhandled(): { errors: unknown[]; stop: () => void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  process.on('unhandledRejection', onRejection);
  return { errors, stop: () => process.off('unhandledRejection', onRejection) };
}

/** What {@link loopbackSuite} gives a test file. */
export interface LoopbackSuite {
  /** Everything logged to `logs.logger`, unredacted. */
  logs: ReturnType<typeof captureLogger>;
  /** Unhandled rejections so far in the file (none may remain at its end). */
  unhandled: { errors: unknown[] };
  /** Starts a server, closed after the test. */
  serve(handler: Parameters<typeof startServer>[0]): Promise<Loopback>;
  /** Closes `it` after the test, before the servers (a client of them). */
  closeAfter<T extends { close(): Promise<void> }>(it: T): T;
}

/**
 * The set-up of a file of loopback tests: every server and client a test starts is
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
  const clients: { close(): Promise<void> }[] = [];
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
    closeAfter(it) {
      clients.push(it);
      return it;
    },
  };
}
