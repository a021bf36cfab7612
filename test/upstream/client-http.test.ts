import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamClient } from '../../src/upstream/client.js';
import type { RequestEvent, UpstreamObserver } from '../../src/upstream/observer.js';
import { VERSION } from '../../src/core/version.js';
import { type clientOptions, json, loopbackSuite } from './loopback.js';

const TOKEN = 'tok-SECRET-4f9a2c71';
const ACME = { slug: 'acme', token: TOKEN };
const ORG_BODY = { slug: 'acme', name: 'Acme Radio', plan: 'pro', settings: { language: 'en' } };

const { logs, serve, client: suiteClient, unhandled } = loopbackSuite({ secret: TOKEN });
let requests: RequestEvent[];
let observed: string[];

afterEach(() => {
  // Nothing the client reported may carry the token either.
  expect(JSON.stringify(observed)).not.toContain(TOKEN);
});

function client(baseUrl: string, over: Parameters<typeof clientOptions>[2] = {}): UpstreamClient {
  requests = [];
  observed = [];
  const observer: UpstreamObserver = {
    onRequest: (e) => {
      requests.push(e);
      observed.push(JSON.stringify(e));
    },
    onRetry: (e) => observed.push(`retry ${e.reason}`),
    onAuthFailure: (e) => observed.push(`auth ${e.org} ${e.status}`),
  };
  return suiteClient(baseUrl, { observer, ...over });
}

describe('request headers', () => {
  it('sends the bearer token, accepted encodings and the user agent', async () => {
    const s = await serve((_req, res) => json(res, 200, ORG_BODY));
    const part = await client(`${s.origin}/api/`).fetchOrg(ACME);
    expect(part).toMatchObject({
      state: 'complete',
      value: { slug: 'acme', name: 'Acme Radio', plan: 'pro' },
    });
    const [req] = s.received;
    expect(req?.url).toBe('/api/v1/acme');
    expect(req?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['accept-encoding']).toBe('gzip, br, deflate');
    expect(req?.headers['user-agent']).toBe(`tally/${VERSION}`);
    expect(requests).toEqual([
      expect.objectContaining({ org: 'acme', endpoint: 'org', status: 200, statusClass: '2xx' }),
    ]);
  });
});

describe('response bodies', () => {
  it.each([
    ['gzip', (b: Buffer) => gzipSync(b)],
    ['br', (b: Buffer) => brotliCompressSync(b)],
    ['deflate', (b: Buffer) => deflateSync(b)],
    ['identity', (b: Buffer) => b],
  ])('decodes a %s body', async (encoding, encode) => {
    const s = await serve((_req, res) => {
      const body = encode(Buffer.from(JSON.stringify(ORG_BODY)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(body);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'complete', value: { name: 'Acme Radio' } });
  });

  it.each<[string, (big: Buffer) => { body: Buffer; headers: Record<string, string> }]>([
    ['a declared Content-Length over the cap', (big: Buffer) => ({ body: big, headers: {} })],
    [
      'a chunked body over the cap',
      (big: Buffer) => ({ body: big, headers: { 'transfer-encoding': 'chunked' } }),
    ],
    [
      'a small gzip body that inflates over the cap',
      (big: Buffer) => ({ body: gzipSync(big), headers: { 'content-encoding': 'gzip' } }),
    ],
  ])('refuses %s as oversized, without retrying', async (_name, make) => {
    const big = Buffer.from(JSON.stringify({ ...ORG_BODY, pad: 'x'.repeat(200_000) }));
    const s = await serve((_req, res) => {
      const { body, headers } = make(big);
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      if (headers['transfer-encoding']) {
        for (let i = 0; i < body.length; i += 16_384) res.write(body.subarray(i, i + 16_384));
        res.end();
      } else res.end(body);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'oversized' } });
    expect(s.received).toHaveLength(1);
  });

  it.each([
    ['an unknown content-encoding', { 'content-encoding': 'x-weird' }, Buffer.from('{}')],
    ['a coding list with an unknown member', { 'content-encoding': 'identity, compress' }, Buffer.from('{}')],
    ['a gzip body that is not gzip', { 'content-encoding': 'gzip' }, Buffer.from('not gzip at all')],
    [
      'a brotli body that is not brotli',
      { 'content-encoding': 'br' },
      Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
    ],
  ])('fails the read on %s, naming the endpoint, and nothing escapes', async (_name, headers, body) => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'malformed' } });
    expect(part.state === 'failed' && part.error.message).toMatch(/^GET \/v1\/acme: /);
    // The process is still here and the next read works.
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled.errors).toEqual([]);
  });

  it.each<[string, unknown]>([
    ['an empty object', {}],
    ['only keys tally does not read', { unrelated: 1, other: { nested: true } }],
    ['an envelope holding null', { data: null }],
  ])(
    'fails a subscription or profile read that is %s, naming the keys seen and no value',
    async (_n, body) => {
      const s = await serve((_req, res) => json(res, 200, body));
      const c = client(s.origin);
      for (const part of [await c.fetchSubscription(ACME), await c.fetchOrg(ACME)]) {
        expect(part.state).toBe('failed');
        if (part.state !== 'failed') continue;
        expect(part.error.reason).toMatch(/schema|malformed/);
        expect(part.error.message).toMatch(/^GET \/v1\/acme/);
        expect(part.error.message).not.toContain('true');
      }
    },
  );

  it("names the endpoint's field, a colon, then the problem, in the error of a body with none of the fields tally reads", async () => {
    const s = await serve((req, res) => {
      if (req.url?.startsWith('/v1/acme/channels'))
        return json(res, 200, { data: [{ name: 'x' }, { id: 'c2' }] });
      json(res, 200, { result: { nested: 'secret-value' } });
    });
    const c = client(s.origin);
    const keys = 'none of the fields tally reads is in the body; keys seen: "result"';
    expect(await c.fetchOrg(ACME)).toMatchObject({
      state: 'failed',
      error: { reason: 'schema', message: `GET /v1/acme: org: ${keys}` },
    });
    expect(await c.fetchSubscription(ACME)).toMatchObject({
      state: 'failed',
      error: { reason: 'schema', message: `GET /v1/acme/subscription: subscription: ${keys}` },
    });
    const channels = await c.fetchChannels(ACME);
    expect(channels.state).toBe('incomplete');
    expect(channels.state === 'incomplete' && channels.error.message).toBe(
      'GET /v1/acme/channels: 1 record(s) could not be read (channel.id: no usable id; keys seen: "name")',
    );
    expect(logs.text()).not.toContain('secret-value');
  });

  it('retries malformed JSON, then fails with reason malformed', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"slug": "acme", ');
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'malformed' } });
    expect(part.state === 'failed' && part.error.message).toBe(
      'GET /v1/acme: response is not valid JSON (application/json, 17 bytes)',
    );
    expect(s.received).toHaveLength(3);
  });

  it.each<[string, string, Buffer]>([
    [
      'a UTF-8 byte-order mark',
      'application/json',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"slug":"acme","name":"Café"}')]),
    ],
    [
      'latin-1 named by its charset',
      'application/json; charset=ISO-8859-1',
      Buffer.from('{"slug":"acme","name":"Caf\u00e9"}', 'latin1'),
    ],
    [
      'an unknown charset read as UTF-8',
      'application/json; charset="x-nonsense"',
      Buffer.from('{"slug":"acme","name":"Café"}'),
    ],
  ])('reads a JSON body with %s', async (_name, type, bytes) => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(bytes);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'complete', value: { slug: 'acme', name: 'Café' } });
  });

  it('a success whose body is not JSON (an HTML page) is fatal drift naming the endpoint, for objects and lists', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Please sign in</body></html>');
    });
    const drift: { org: string; endpoint: string; field: string; problem: string; fatal: boolean }[] = [];
    const c = client(s.origin, {
      observer: { onDrift: (i: (typeof drift)[number]) => drift.push(i) },
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    });
    const org = await c.fetchOrg(ACME);
    const channels = await c.fetchChannels(ACME);
    expect(org).toMatchObject({ state: 'failed', error: { reason: 'malformed' } });
    expect(channels).toMatchObject({ state: 'failed', error: { reason: 'malformed' } });
    const problem = 'response is not valid JSON (text/html, 40 bytes)';
    expect(drift).toEqual([
      { org: 'acme', endpoint: 'org', field: 'body', problem, fatal: true },
      { org: 'acme', endpoint: 'channels', field: 'body', problem, fatal: true },
    ]);
    const { driftReason } = await import('../../src/upstream/shape/drift.js');
    expect(driftReason(drift[0]!)).toBe('not_json');
    // The page's words never reach the drift report.
    expect(JSON.stringify(drift)).not.toContain('sign in');
  });

  it('a failed status with an HTML body is an outage, not drift', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    const drift: unknown[] = [];
    const c = client(s.origin, {
      observer: { onDrift: (i: unknown) => drift.push(i) },
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
    });
    expect(await c.fetchOrg(ACME)).toMatchObject({ state: 'failed' });
    expect(drift).toEqual([]);
  });

  it('retries a body cut short and then reads it whole', async () => {
    const s = await serve((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"slug": "acme", "na');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      json(res, 200, ORG_BODY);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'complete', value: { name: 'Acme Radio' } });
    expect(s.received).toHaveLength(2);
    expect(observed).toContain('retry network');
  });
});

describe('network failures', () => {
  it('retries a connection reset', async () => {
    const s = await serve((req, res, n) => {
      if (n === 1) req.socket.destroy();
      else json(res, 200, ORG_BODY);
    });
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part.state).toBe('complete');
    expect(requests.map((r) => r.statusClass)).toEqual(['error', '2xx']);
    expect(requests[0]?.reason).toBe('network');
  });

  it('gives up on a server that never answers, with reason timeout', async () => {
    const s = await serve(() => {}); // never answers
    const c = client(s.origin, {
      timeouts: { connectMs: 500, headersMs: 150, bodyMs: 150 },
      retries: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 5000 },
    });
    const part = await c.fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'timeout' } });
    expect(part.state === 'failed' && part.error.message).toBe(
      'GET /v1/acme: timeout waiting for response headers',
    );
    expect(s.received).toHaveLength(2);
  });

  it('times out a body that stalls', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"slug": ');
    });
    const c = client(s.origin, {
      timeouts: { connectMs: 500, headersMs: 500, bodyMs: 150 },
      retries: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 5000 },
    });
    const part = await c.fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'timeout' } });
  });

  it('reports a refused connection as a network failure', async () => {
    const s = await serve(() => {});
    const origin = s.origin;
    await s.close(); // closed again after the test: a no-op
    const part = await client(origin, {
      retries: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 5000 },
    }).fetchOrg(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'network' } });
    expect(part.state === 'failed' && part.error.message).toBe('GET /v1/acme: connection refused');
  });
});

describe('status codes', () => {
  it.each([
    [
      401,
      'auth',
      'GET /v1/acme: 401 token expired or revoked (upstream: unauthorized: token [REDACTED] expired)',
    ],
    [
      403,
      'auth',
      'GET /v1/acme: 403 token not valid for org acme (upstream: forbidden: token [REDACTED] expired)',
    ],
    [404, 'not_found', 'GET /v1/acme: 404 not found (upstream: not_found: token [REDACTED] expired)'],
    [400, 'http_4xx', 'GET /v1/acme: 400 request failed (upstream: bad_request: token [REDACTED] expired)'],
  ])('%i → %s, not retried, the echoed token removed', async (status, reason, message) => {
    const code = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 400: 'bad_request' }[status];
    const s = await serve((_req, res) =>
      json(res, status, { error: { code, message: `token ${TOKEN} expired` } }),
    );
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toEqual({ state: 'failed', at: expect.any(Number), error: { reason, message } });
    expect(s.received).toHaveLength(1);
    if (reason === 'auth') expect(observed).toContain(`auth acme ${status}`);
  });

  it('retries a 5xx and succeeds', async () => {
    const s = await serve((_req, res, n) => (n < 3 ? json(res, 503, {}) : json(res, 200, ORG_BODY)));
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part.state).toBe('complete');
    expect(requests.map((r) => r.statusClass)).toEqual(['5xx', '5xx', '2xx']);
    expect(observed.filter((o) => o.startsWith('retry'))).toEqual(['retry http_5xx', 'retry http_5xx']);
  });

  it('fails with the last 5xx once attempts are spent', async () => {
    const s = await serve((_req, res) =>
      json(res, 502, { error: { code: 'bad_gateway', message: 'upstream down' } }),
    );
    const part = await client(s.origin).fetchOrg(ACME);
    expect(part).toMatchObject({
      state: 'failed',
      error: {
        reason: 'http_5xx',
        message: 'GET /v1/acme: 502 request failed (upstream: bad_gateway: upstream down)',
      },
    });
    expect(s.received).toHaveLength(3);
  });
});

describe('secrets', () => {
  it('keeps the token out of part errors even when the server puts it in a URL', async () => {
    const s = await serve((req, res) => {
      if (!req.url?.includes('leak')) {
        res.writeHead(302, { location: `/v1/acme/leak?access_token=${TOKEN}` });
        res.end();
        return;
      }
      json(res, 500, { error: { code: 'internal', message: `bad token ${TOKEN}` } });
    });
    const parts = await Promise.all([client(s.origin).fetchOrg(ACME), client(s.origin).fetchChannels(ACME)]);
    for (const part of parts) {
      expect(part).toMatchObject({ state: 'failed', error: { reason: 'http_5xx' } });
      expect(JSON.stringify(part)).not.toContain(TOKEN);
      expect(JSON.stringify(part)).toContain('access_token=[REDACTED]');
    }
  });
});

describe('aborting', () => {
  it('rejects with the signal reason and leaves nothing unhandled', async () => {
    const s = await serve(() => {}); // never answers
    const c = client(s.origin);
    const ctrl = new AbortController();
    const p = c.fetchChannels(ACME, { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(new Error('shutting down')), 50);
    await expect(p).rejects.toThrow('shutting down');
  });
});

describe('observer', () => {
  it('reads on when the observer throws, and calls a class-based observer', async () => {
    const s = await serve((_req, res) => json(res, 200, ORG_BODY));
    class Counting {
      calls = 0;
      onRequest(): void {
        this.calls += 1;
        throw new Error('metrics broke');
      }
    }
    const counting = new Counting();
    const part = await client(s.origin, { observer: counting }).fetchOrg(ACME);
    expect(part.state).toBe('complete');
    expect(counting.calls).toBe(1);
    expect(logs.text()).toContain('upstream observer failed');
  });
});

describe('answers and ids that must not mislead', () => {
  it('reads no other resource for an id of "." or "..": the part fails, naming the endpoint and the id', async () => {
    const s = await serve((_req, res) => json(res, 200, { data: [] }));
    const c = client(s.origin);
    for (const id of ['..', '.']) {
      const sessions = await c.fetchSessions(ACME, id);
      expect(sessions).toMatchObject({ state: 'failed', error: { reason: 'schema' } });
      expect(sessions.state === 'failed' && sessions.error.message).toBe(
        `GET /v1/acme/channels/${id}/sessions: the id ${JSON.stringify(id)} cannot be put in a URL path; not read`,
      );
      expect(await c.fetchSessionDetail(ACME, id)).toMatchObject({
        state: 'failed',
        error: { reason: 'schema' },
      });
    }
    expect(s.received).toHaveLength(0);
  });

  it('a 429 whose error body lists fields as objects still pauses the budget', async () => {
    const s = await serve((_req, res) =>
      json(
        res,
        429,
        { errors: [{ field: [{ toString: 1 }, 'from', 2], message: 'slow down' }] },
        { 'retry-after': '30' },
      ),
    );
    const c = client(s.origin);
    const part = await c.fetchChannels(ACME);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'rate_limited' } });
    expect(part.state === 'failed' && part.error.message).toContain('(upstream: from.2: slow down)');
    expect(c.budget.pauseLeftMs()).toBeGreaterThan(25_000);
  });

  it('a 404 whose error body holds a deeply nested field path is still not_found', async () => {
    const deep = `{"errors":[{"loc":${'['.repeat(20_000)}${']'.repeat(20_000)},"msg":"no"}]}`;
    const s = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(deep);
    });
    expect(await client(s.origin).fetchOrg(ACME)).toMatchObject({
      state: 'failed',
      error: { reason: 'not_found' },
    });
  });

  it('reads a list whose first record holds a value nested 20 000 deep', async () => {
    const text = `{"channels":[{"id":"c1","name":"a","status":"idle","extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`;
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
    const part = await client(s.origin).fetchChannels(ACME);
    expect(part.state).toBe('complete');
    expect(part.state === 'complete' && part.value.map((ch) => ch.id)).toEqual(['c1']);
  });

  it('a JSON:API relationship whose type is not a word is left unresolved, not an internal failure', async () => {
    const body = {
      data: {
        id: 's1',
        type: 'session',
        attributes: { title: 't', status: 'live' },
        relationships: { questions: { data: [{ type: { toString: {} }, id: 'q1' }] } },
      },
      included: [],
    };
    const s = await serve((_req, res) => json(res, 200, body));
    const part = await client(s.origin).fetchSessionDetail(ACME, 's1');
    expect(part.state === 'failed' ? part.error.reason : part.state).not.toBe('internal');
  });
});
