import { connect } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { checkAccess, createHttpServer, json } from '../../src/http/index.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { HTTP_TIMEOUTS, HttpServer } from '../../src/http/server.js';
import { addMetricsRoute } from '../../src/http/routes-metrics.js';
import { Router } from '../../src/http/router.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { FakeSource, orgView, snapshot } from '../metrics/fixtures.js';
import { send } from './client.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const open: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(
  auth?: Parameters<typeof createHttpServer>[0]['server']['auth'],
  source = sourceOf(),
  enableWrites = false,
) {
  const metrics = new TallyMetrics({ registry: new Registry(), source, defaultMetrics: false });
  const server = createHttpServer({
    server: { listen: '127.0.0.1:0', auth, enable_writes: enableWrites },
    source,
    metrics,
    clock: systemClock,
    logger: silentLogger(),
    version: '9.9.9',
  });
  open.push(server);
  const { url } = await server.listen();
  return { url, server, source };
}

function sourceOf(): FakeSource {
  const channels = Array.from({ length: 40 }, (_, i) => ({
    id: `c${i}`,
    name: `Channel ${i}`,
    status: 'offline',
  }));
  return new FakeSource([orgView(snapshot({ org: 'acme', channels }))]);
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

describe('authentication', () => {
  it('is off when not configured', async () => {
    const { url } = await start();
    expect((await send(`${url}/metrics`)).status).toBe(200);
    expect((await send(`${url}/api/v1/status`)).status).toBe(200);
  });

  it('asks for a bearer token on everything but health and readiness', async () => {
    const { url } = await start({ bearer_token: 's3cret-token' });
    const denied = await send(`${url}/metrics`);
    expect(denied.status).toBe(401);
    expect(denied.headers['www-authenticate']).toBe('Bearer realm="tally"');
    expect(denied.headers['content-type']).toBe(JSON_TYPE);
    expect(denied.json()).toEqual({ error: { code: 'unauthorized', message: 'authentication required' } });
    expect((await send(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await send(`${url}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(
      200,
    );
    // Without credentials nobody learns which paths exist.
    expect((await send(`${url}/nope`)).status).toBe(401);
    expect((await send(`${url}/nope`, { headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(
      404,
    );
    expect((await send(`${url}/-/healthy`)).status).toBe(200);
    expect((await send(`${url}/-/ready`)).status).toBe(200);
  });

  it('accepts basic auth, and either scheme when both are configured', async () => {
    const { url } = await start({ bearer_token: 'tok-123', basic: { username: 'prom', password: 'pa:ss' } });
    const denied = await send(`${url}/`);
    expect(denied.headers['www-authenticate']).toBe(
      'Bearer realm="tally", Basic realm="tally", charset="UTF-8"',
    );
    expect((await send(`${url}/`, { headers: { authorization: basic('prom', 'pa:ss') } })).status).toBe(200);
    expect((await send(`${url}/`, { headers: { authorization: basic('prom', 'pa:s') } })).status).toBe(401);
    expect((await send(`${url}/`, { headers: { authorization: basic('other', 'pa:ss') } })).status).toBe(401);
    expect((await send(`${url}/`, { headers: { authorization: 'Bearer tok-123' } })).status).toBe(200);
    expect((await send(`${url}/`, { headers: { authorization: 'Digest tok-123' } })).status).toBe(401);
  });
});

describe('writes', () => {
  const addWrites = (server: HttpServer) => {
    let count = 0;
    server.router.addRoute('POST', '/-/poke', () => json(200, { count: ++count }));
    server.router.addRoute('DELETE', '/api/v1/things/:id', (ctx) => json(200, { deleted: ctx.params['id'] }));
    server.router.addRoute('POST', '/api/v1/query', () => json(200, { read: true }), { write: false });
  };

  it('are closed by default: 403 that says how to enable them; reads stay open', async () => {
    const { url, server } = await start();
    addWrites(server);
    const denied = await send(`${url}/-/poke`, { method: 'POST' });
    expect(denied.status).toBe(403);
    expect(denied.headers['content-type']).toBe(JSON_TYPE);
    const err = (denied.json() as { error: { code: string; message: string } }).error;
    expect(err.code).toBe('writes_disabled');
    expect(err.message).toContain('POST /-/poke changes state');
    expect(err.message).toContain('server.enable_writes: true');
    expect(err.message).toContain('--enable-writes');
    expect(err.message).toContain('server.auth');
    expect((await send(`${url}/api/v1/things/7`, { method: 'DELETE' })).status).toBe(403);
    // A route that declares itself a read is served, and so is every GET.
    expect((await send(`${url}/api/v1/query`, { method: 'POST' })).status).toBe(200);
    expect((await send(`${url}/api/v1/status`)).status).toBe(200);
    expect((await send(`${url}/metrics`)).status).toBe(200);
    // A wrong method on a read route is still a 405, not a 403.
    expect((await send(`${url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('open when enabled explicitly', async () => {
    const { url, server } = await start(undefined, sourceOf(), true);
    addWrites(server);
    // A bare POST is what a cross-site form or page sends: refused, saying what to send.
    const bare = await send(`${url}/-/poke`, { method: 'POST' });
    expect(bare.status).toBe(415);
    expect((bare.json() as { error: { message: string } }).error.message).toContain(
      'Content-Type: application/json',
    );
    const form = await send(`${url}/-/poke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const ok = await send(`${url}/-/poke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ count: 1 });
    expect(
      (await send(`${url}/-/poke`, { method: 'POST', headers: { 'x-requested-with': 'curl' } })).status,
    ).toBe(200);
    expect((await send(`${url}/api/v1/things/7`, { method: 'DELETE' })).json()).toEqual({ deleted: '7' });
  });

  it('open to authenticated requests when auth is configured, 401 without credentials', async () => {
    const { url, server } = await start({ basic: { username: 'ops', password: 'pw-1234' } });
    addWrites(server);
    const anonymous = await send(`${url}/-/poke`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="tally", charset="UTF-8"');
    // Basic credentials are what a browser adds by itself: a form post with them is refused.
    const form = await send(`${url}/-/poke`, {
      method: 'POST',
      headers: { authorization: basic('ops', 'pw-1234'), 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(form.status).toBe(415);
    const ok = await send(`${url}/-/poke`, {
      method: 'POST',
      headers: { authorization: basic('ops', 'pw-1234'), 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
  });

  it('checkAccess decides the same way for other modules (status pages)', async () => {
    const { server } = await start({ bearer_token: 'tok-abcd' });
    expect(checkAccess(server.access, 'read', {}, 'GET /').ok).toBe(false);
    expect(checkAccess(server.access, 'read', { authorization: 'Bearer tok-abcd' }, 'GET /').ok).toBe(true);
    expect(checkAccess(server.access, 'public', {}, 'GET /-/healthy').ok).toBe(true);
    const closed = checkAccess({ writesEnabled: false }, 'write', {}, 'POST /x');
    expect(closed).toMatchObject({ ok: false, status: 403, code: 'writes_disabled' });
    expect(checkAccess({ writesEnabled: true }, 'write', {}, 'POST /x').ok).toBe(true);
  });
});

describe('health and readiness', () => {
  it('answers liveness whatever the upstream does, and readiness once the source is ready', async () => {
    const source = sourceOf();
    source.isReady = false;
    source.views = [
      orgView(snapshot({ org: 'acme' }), {
        ready: false,
        health: { state: 'unreachable', lastSuccessAt: undefined, lastError: undefined },
      }),
    ];
    const { url } = await start(undefined, source);

    const healthy = await send(`${url}/-/healthy`);
    expect(healthy.status).toBe(200);
    expect(healthy.headers['content-type']).toBe(JSON_TYPE);
    expect(healthy.json()).toEqual({ status: 'healthy' });

    const notReady = await send(`${url}/-/ready`);
    expect(notReady.status).toBe(503);
    expect(notReady.json()).toEqual({
      error: { code: 'not_ready', message: '1 of 1 org not read completely yet' },
    });

    source.isReady = true;
    const ready = await send(`${url}/-/ready`);
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});

describe('/metrics', () => {
  it('serves the Prometheus text format by default', async () => {
    const { url } = await start();
    const res = await send(`${url}/metrics`);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['vary']).toBe('Accept, Accept-Encoding');
    expect(res.text).toContain('tally_channels{org="acme",status="offline",visibility="unknown"} 40\n');
  });

  it('serves OpenMetrics when asked, and gzip when accepted', async () => {
    const { url } = await start();
    const res = await send(`${url}/metrics`, {
      headers: {
        accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5',
        'accept-encoding': 'gzip',
      },
    });
    expect(res.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body[8]).toBe(4); // XFL: zlib's fastest level (RFC 1952)
    const text = gunzipSync(res.body).toString('utf8');
    expect(text).toContain('# TYPE tally_build info\n');
    expect(text.endsWith('# EOF\n')).toBe(true);
  });

  it('sends the kept gzip to a scraper that accepts it, and the text streamed to one that does not', async () => {
    const router = new Router();
    const body = Buffer.from('m 1\n'.repeat(100_000));
    const gzip = gzipSync(body);
    let inflated = 0;
    addMetricsRoute(router, {
      render: async () => ({
        format: 'prometheus' as const,
        contentType: 'text/plain',
        gzip,
        size: body.length,
        stream: () => {
          inflated += 1;
          return createGunzip().end(gzip);
        },
      }),
    });
    const server = new HttpServer({ listen: '127.0.0.1:0', router, logger: silentLogger() });
    open.push(server);
    const { url } = await server.listen();
    const zipped = await send(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.equals(gzip)).toBe(true);
    expect(inflated).toBe(0);
    const refused = await send(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.headers['content-length']).toBe(String(body.length));
    expect(refused.body.equals(body)).toBe(true);
    const plain = await send(`${url}/metrics`);
    expect(plain.body.equals(body)).toBe(true);
    expect(inflated).toBe(2);
    // Refusing the page as it is and not taking gzip leaves nothing to send (RFC 9110, 12.5.3).
    for (const header of ['identity;q=0', 'br, *;q=0']) {
      const none = await send(`${url}/metrics`, { headers: { 'accept-encoding': header } });
      expect(none.status).toBe(406);
      expect(none.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(none.text)).toMatchObject({ error: { code: 'not_acceptable' } });
      expect(none.text).toContain(header);
    }
    const zippedOnly = await send(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip, identity;q=0' } });
    expect(zippedOnly.status).toBe(200);
    expect(zippedOnly.headers['content-encoding']).toBe('gzip');
    expect(inflated).toBe(2);
    // HEAD learns the length without the page being inflated.
    const head = await send(`${url}/metrics`, { method: 'HEAD' });
    expect(head.headers['content-length']).toBe(String(body.length));
    expect(inflated).toBe(2);
  });

  describe('a streamed body', () => {
    async function serve(stream: () => Readable, length = 100_000) {
      const router = new Router();
      router.addRoute('GET', '/body', async () => ({ status: 200, body: { length, stream } }));
      let log = '';
      const destination = new PassThrough().on('data', (c: Buffer) => {
        log += c.toString();
      });
      const logger = createLogger({ level: 'info', format: 'json', destination });
      const server = new HttpServer({ listen: '127.0.0.1:0', router, logger });
      open.push(server);
      const { url } = await server.listen();
      const failures = () =>
        log
          .trim()
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { msg: string; path?: string; err?: { message?: string } })
          .filter((l) => l.msg === 'response body failed');
      return { url: `${url}/body`, failures };
    }

    it('cuts the connection when it fails, so the client never takes it as whole', async () => {
      const t = await serve(() =>
        Readable.from(
          (async function* () {
            yield Buffer.alloc(1000, 'x');
            throw new Error('inflate failed');
          })(),
        ),
      );
      await expect(send(t.url)).rejects.toThrow();
      expect(t.failures().map((f) => [f.path, f.err?.message])).toEqual([['/body', 'inflate failed']]);
    });

    it('cuts the connection when it is shorter than its length, and keeps a longer one to it', async () => {
      const short = await serve(() => Readable.from([Buffer.from('abc')]), 10);
      await expect(send(short.url)).rejects.toThrow();
      expect(short.failures()[0]?.err?.message).toMatch(/ended at 3 of .* 10 bytes/);
      const long = await serve(() => Readable.from([Buffer.from('abcdefghij')]), 3);
      await expect(send(long.url)).rejects.toThrow();
      expect(long.failures()[0]?.err?.message).toMatch(/longer than its Content-Length \(3 bytes\)/);
    });

    it('survives a stream that cannot be made, and logs it', async () => {
      const t = await serve(() => {
        throw new Error('no stream');
      });
      await expect(send(t.url)).rejects.toThrow();
      expect(t.failures().map((f) => f.err?.message)).toEqual(['no stream']);
    });

    it('takes a client that leaves before the end for no failure', async () => {
      const body = Buffer.alloc(8 * 2 ** 20, 'z');
      let destroyed = false;
      const t = await serve(() => {
        const r = Readable.from(
          (async function* () {
            for (let at = 0; at < body.length; at += 65536) yield body.subarray(at, at + 65536);
          })(),
        );
        r.on('close', () => {
          destroyed = true;
        });
        return r;
      }, body.length);
      const { port } = new URL(t.url);
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.once('data', () => socket.destroy());
      socket.write('GET /body HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((r) => setTimeout(r, 200));
      expect(destroyed).toBe(true);
      expect(t.failures()).toEqual([]);
    });
  });

  it('answers HEAD without a body', async () => {
    const { url } = await start();
    const res = await send(`${url}/metrics`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
  });
});

describe('routing', () => {
  it('answers unknown paths with 404 and wrong methods with 405, both as JSON', async () => {
    const { url } = await start();
    const missing = await send(`${url}/api/v2/nothing`);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(JSON_TYPE);
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'no route for /api/v2/nothing' } });

    const wrong = await send(`${url}/metrics`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers['allow']).toBe('GET, HEAD');
    expect((wrong.json() as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });

  it('takes routes from other modules, with JSON bodies under a size cap', async () => {
    const { url, server } = await start(undefined, sourceOf(), true);
    server.router.addRoute('POST', '/api/v1/echo/:id', async (ctx) =>
      json(201, { id: ctx.params['id'], got: await ctx.json(64) }),
    );
    const headers = { 'content-type': 'application/json' };
    const ok = await send(`${url}/api/v1/echo/a%20b`, { method: 'POST', headers, body: '{"x":1}' });
    expect(ok.status).toBe(201);
    expect(ok.json()).toEqual({ id: 'a b', got: { x: 1 } });

    const big = await send(`${url}/api/v1/echo/1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ x: 'y'.repeat(100) }),
    });
    expect(big.status).toBe(413);
    expect((big.json() as { error: { code: string } }).error.code).toBe('payload_too_large');

    // Without a declared length the cap still holds, and the 413 still arrives.
    const chunked = await send(`${url}/api/v1/echo/1`, {
      method: 'POST',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
      body: JSON.stringify({ x: 'y'.repeat(10_000) }),
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers['connection']).toBe('close');

    const broken = await send(`${url}/api/v1/echo/1`, { method: 'POST', headers, body: '{"x":' });
    expect(broken.status).toBe(400);
    const text = await send(`${url}/api/v1/echo/1`, { method: 'POST', body: 'x=1' });
    expect(text.status).toBe(415);
    expect((await send(`${url}/api/v1/echo/1`)).status).toBe(405);
  });

  it('turns a handler crash into a 500 without its message', async () => {
    const { url, server } = await start();
    server.router.addRoute('GET', '/boom', () => {
      throw new Error('secret detail');
    });
    const res = await send(`${url}/boom`);
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('secret detail');
    expect(res.json()).toEqual({ error: { code: 'internal', message: 'internal error; see the log' } });
  });

  it('serves a landing page linking the endpoints', async () => {
    const { url } = await start();
    const res = await send(`${url}/`);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const href of [
      'metrics',
      'api/v1/status',
      'api/v1/events',
      'api/v1/snapshot/acme',
      '-/healthy',
      '-/ready',
    ]) {
      expect(res.text).toContain(`href="${href}"`);
    }
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('stops with a keep-alive connection open', async () => {
    const { url, server } = await start();
    const { Agent, request } = await import('node:http');
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) =>
      request(`${url}/-/healthy`, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end(),
    );
    const started = Date.now();
    await server.close(2000);
    expect(Date.now() - started).toBeLessThan(1500);
    await expect(send(`${url}/-/healthy`)).rejects.toThrow();
    agent.destroy();
  });
});

describe('socket timeouts', () => {
  it('cuts a client that stops reading a response too large for the socket buffers', async () => {
    const router = new Router();
    // 64 MiB: far more than a loopback socket's buffers hold, so the server must wait on the client.
    const big = Buffer.alloc(64 * 2 ** 20, 'x');
    router.addRoute('GET', '/big', async () => ({ status: 200, body: big }));
    const server = new HttpServer({
      listen: '127.0.0.1:0',
      router,
      logger: silentLogger(),
      timeouts: { idleMs: 300 },
    });
    open.push(server);
    const { url } = await server.listen();
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    const closed = new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      socket.on('error', () => undefined);
      setTimeout(() => resolve(false), 5000);
    });
    socket.once('data', () => socket.pause()); // reads the first chunk, then stops reading
    socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    // Well past the idle timeout, the client reads again: it gets what the kernel holds and
    // then the end of a connection the server has closed, not the rest of the answer.
    await new Promise((r) => setTimeout(r, 1000));
    socket.resume();
    expect(await closed).toBe(true);
    expect(received).toBeLessThan(big.length);
  });

  it('has defaults that leave a slow scrape time to finish', () => {
    expect(HTTP_TIMEOUTS.idleMs).toBeGreaterThanOrEqual(30_000);
    expect(HTTP_TIMEOUTS.headersMs).toBeLessThanOrEqual(HTTP_TIMEOUTS.requestMs);
  });
});
