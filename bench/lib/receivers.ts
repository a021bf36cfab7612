/**
 * Real receivers on loopback for the storm bench: an SMTP server (smtp-server) and a
 * webhook receiver (node:http), each recording when every delivery arrived.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One delivery as it arrived. */
export interface Arrival {
  /** Wall-clock ms when it was fully received. */
  at: number;
  /** Alerts it carried (from the webhook body's `alerts`, or the mail subject's `[FIRING:n]`). */
  alerts: number;
  /** The idempotency id (webhook `id`, mail Message-ID), to spot duplicates. */
  id: string;
}

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:port` or the SMTP port. */
  url: string;
  port: number;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/** An SMTP server that accepts every message. */
export async function startSmtpReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    closeTimeout: 100,
    onData(stream, _session, cb) {
      let raw = '';
      stream.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/im.exec(raw)?.[1] ?? '';
        const count = /(?:FIRING|RESOLVED):(\d+)/.exec(subject)?.[1];
        const id = /^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? `mail-${arrivals.length}`;
        arrivals.push({ at: Date.now(), alerts: count === undefined ? 1 : Number(count), id });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A webhook receiver that answers 200 to every POST. */
export async function startWebhookReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      try {
        const parsed = JSON.parse(body) as { id?: string; alerts?: unknown[] };
        arrivals.push({ at: Date.now(), alerts: parsed.alerts?.length ?? 0, id: parsed.id ?? '' });
      } catch {
        arrivals.push({ at: Date.now(), alerts: 0, id: 'unparsable' });
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
