/**
 * Bounds on the HTTP server's client connections (docs/http-api.md, "Connections"): at
 * most `max` sockets are held; a new one past it closes one without a request in flight —
 * one that never sent a byte first, else the one idle longest — so that no number of idle or unauthenticated sockets keeps `/metrics` or the
 * probes out, or takes the file descriptors the state directory needs. When every held
 * socket has a request in flight, the new one is closed instead.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../core/log.js';

/** The soft open-file limit of this process (Linux `/proc/self/limits`), or undefined when unknown. */
export function openFileLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(read());
    return m === null || m[1] === 'unlimited' ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

/**
 * The cap to use: the configured one, but never more than half the open-file limit, so
 * the other half stays for the state directory, upstream requests and deliveries.
 */
export function connectionCap(configured: number, fileLimit: number | undefined): number {
  if (fileLimit === undefined) return configured;
  return Math.max(8, Math.min(configured, Math.floor(fileLimit / 2)));
}

/** What {@link ConnectionCap} has done, for tests and the log. */
export interface ConnectionStats {
  /** The cap in force. */
  max: number;
  open: number;
  /** Idle sockets closed to make room, since start. */
  evicted: number;
  /** New sockets closed because every held one was busy, since start. */
  refused: number;
}

/** Keeps a server's sockets under a cap, closing the longest idle first. */
export class ConnectionCap {
  /** Held sockets and their requests in flight, least recently active first (Map order). */
  private readonly sockets = new Map<Socket, number>();
  private evicted = 0;
  private refused = 0;
  private lastWarnAt = Number.NEGATIVE_INFINITY;

  constructor(
    server: Server,
    private readonly max: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    // A backstop only: the cap below keeps the count at `max`; the margin absorbs sockets
    // accepted in the same tick as those being closed.
    server.maxConnections = max + Math.max(16, Math.ceil(max / 8));
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.busy(req.socket, res));
  }

  /** Current figures. */
  stats(): ConnectionStats {
    return { max: this.max, open: this.sockets.size, evicted: this.evicted, refused: this.refused };
  }

  private admit(socket: Socket): void {
    if (this.sockets.size >= this.max && !this.evictOne()) {
      this.refused += 1;
      this.warn();
      socket.destroy();
      return;
    }
    this.sockets.set(socket, 0);
    socket.once('close', () => this.sockets.delete(socket));
  }

  // Sockets that never sent a byte go first (a flood's), then the idle ones, each least
  // recently active first: a client that sent its request head keeps its place.
  private evictOne(): boolean {
    const victim = this.idle((s) => s.bytesRead === 0) ?? this.idle(() => true);
    if (victim === undefined) return false;
    this.sockets.delete(victim);
    this.evicted += 1;
    this.warn();
    victim.destroy();
    return true;
  }

  private idle(take: (socket: Socket) => boolean): Socket | undefined {
    for (const [socket, inFlight] of this.sockets) if (inFlight === 0 && take(socket)) return socket;
    return undefined;
  }

  private busy(socket: Socket, res: ServerResponse): void {
    const inFlight = this.sockets.get(socket);
    if (inFlight === undefined) return;
    // Moved to the end: the least recently active socket is the first to go.
    this.sockets.delete(socket);
    this.sockets.set(socket, inFlight + 1);
    res.once('close', () => {
      const n = this.sockets.get(socket);
      if (n === undefined) return;
      this.sockets.delete(socket);
      this.sockets.set(socket, Math.max(0, n - 1));
    });
  }

  // At most one line a minute: a flood must not flood the log too.
  private warn(): void {
    const now = this.now();
    if (now - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = now;
    this.log.warn(this.stats(), 'http connection cap reached: closing the connections idle longest');
  }
}
