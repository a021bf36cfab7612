import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { json } from '../../src/http/index.js';
import { Router } from '../../src/http/router.js';
import { connectionCap, openFileLimit } from '../../src/http/connections.js';
import { HttpServer } from '../../src/http/server.js';

const servers: HttpServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

async function start(max: number, slow?: Promise<void>) {
  const router = new Router();
  router.addRoute('GET', '/-/healthy', () => json(200, { status: 'healthy' }), { public: true });
  router.addRoute(
    'GET',
    '/slow',
    async () => {
      await slow;
      return json(200, { ok: true });
    },
    { public: true },
  );
  const server = new HttpServer({
    listen: '127.0.0.1:0',
    router,
    logger: silentLogger(),
    maxConnections: max,
  });
  servers.push(server);
  const { url } = await server.listen();
  return { server, url, port: Number(new URL(url).port) };
}

/** Opens an idle socket; resolves with it and whether the server closed it, as a getter. */
async function idle(port: number): Promise<{ socket: Socket; closed: () => boolean }> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  let closed = false;
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  return { socket, closed: () => closed };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('the connection cap', () => {
  it('keeps half the open-file limit for everything else', () => {
    expect(connectionCap(512, 1024)).toBe(512);
    expect(connectionCap(512, 256)).toBe(128);
    expect(connectionCap(512, undefined)).toBe(512);
    expect(
      openFileLimit(
        () =>
          'Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 4096                 files\n',
      ),
    ).toBe(1024);
    expect(
      openFileLimit(() => 'Max open files            unlimited            unlimited            files\n'),
    ).toBeUndefined();
    expect(
      openFileLimit(() => {
        throw new Error('no /proc');
      }),
    ).toBeUndefined();
  });

  it('holds at most max sockets, closing silent ones oldest first, and still answers', async () => {
    const { server, url, port } = await start(8);
    const flood: { socket: Socket; closed: () => boolean }[] = [];
    for (let i = 0; i < 30; i++) flood.push(await idle(port));
    await until(() => server.connections.stats().open <= 8 && flood.filter((f) => f.closed()).length >= 22);
    expect(server.connections.stats().open).toBeLessThanOrEqual(8);
    // The oldest went first; the newest are still held.
    expect(flood[0]!.closed()).toBe(true);
    expect(flood[29]!.closed()).toBe(false);
    const res = await fetch(`${url}/-/healthy`);
    expect(res.status).toBe(200);
    expect(server.connections.stats().evicted).toBeGreaterThanOrEqual(22);
  });

  it('never closes a connection with a request in flight; a new one is closed when all are busy', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => {
      release = r;
    });
    const { server, url, port } = await start(8, slow);
    const pending = Array.from({ length: 8 }, () =>
      fetch(`${url}/slow`, { headers: { connection: 'close' } }),
    );
    await until(() => server.connections.stats().open === 8);

    const extra = await idle(port);
    await until(() => extra.closed());
    expect(extra.closed()).toBe(true);
    expect(server.connections.stats().refused).toBeGreaterThanOrEqual(1);
    release();
    const answers = await Promise.all(pending);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});
