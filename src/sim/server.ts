/**
 * The HTTP shell: two node:http listeners on the same host, the API origin and another
 * origin that cross-origin faults point at (so a client that follows them is caught in
 * the request log), and their orderly close.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeHttp } from '../core/node-http.js';

/** Which listener a request came in on. */
export type ListenerName = 'main' | 'foreign';

/** Handles one request; a thrown error becomes a 500 with an error body. */
export type Handler = (req: IncomingMessage, res: ServerResponse, listener: ListenerName) => Promise<void>;

/** The two listeners. */
export interface Listeners {
  /** `http://host:port` of the API. */
  url: string;
  /** `http://host:port` of the other origin. */
  foreignUrl: string;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function serve(handler: Handler, name: ListenerName): Server {
  const server = nodeHttp.createServer((req, res) => {
    handler(req, res, name).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text = JSON.stringify({ error: { code: 'internal_error', message: (err as Error).message } });
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

function listenOn(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts both listeners; the API on `port` (0 = a free one), the other origin on a free port. */
export async function listen(host: string, port: number, handler: Handler): Promise<Listeners> {
  const main = serve(handler, 'main');
  const foreign = serve(handler, 'foreign');
  const mainPort = await listenOn(main, host, port);
  let foreignPort: number;
  try {
    foreignPort = await listenOn(foreign, host, 0);
  } catch (err) {
    await closeServer(main);
    throw err;
  }
  return {
    url: `http://${urlHost(host)}:${mainPort}`,
    foreignUrl: `http://${urlHost(host)}:${foreignPort}`,
    close: async () => {
      await Promise.all([closeServer(main), closeServer(foreign)]);
    },
  };
}
