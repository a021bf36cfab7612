/**
 * A real HTTP server on loopback that records every request and answers as the test
 * scripts it: a status, headers, a delay, or no answer at all.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
}

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Sets how the next requests are answered (called with the request index). */
  respond(fn: (req: ReceivedRequest, index: number) => Reply): void;
  /** Resolves once `n` requests arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  let responder: (req: ReceivedRequest, index: number) => Reply = () => ({ status: 200 });
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.length;
      requests.push(r);
      for (const w of [...waiters]) if (requests.length >= w.n) w.resolve();
      const reply = responder(r, index);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(fn) {
      responder = fn;
    },
    waitFor(n, timeoutMs = 5000) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`only ${requests.length} of ${n} requests arrived`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
