import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/reply.js';
import { acceptsGzip, acceptsIdentity } from '../../src/http/routes-metrics.js';
import { parseEventQuery } from '../../src/http/routes-events.js';
import { Router } from '../../src/http/router.js';
import { parseListen } from '../../src/http/server.js';
import { h } from '../../src/http/status-page/index.js';

describe('Router.match', () => {
  const router = new Router();
  const h = () => ({ status: 200 });
  router.addRoute('GET', '/', h);
  router.addRoute('GET', '/api/v1/silences', h);
  router.addRoute('POST', '/api/v1/silences', h);
  router.addRoute('DELETE', '/api/v1/silences/:id', h);
  router.addRoute('GET', '/-/healthy', h, { public: true });

  it.each([
    ['GET', '/', 'found', {}],
    ['HEAD', '/api/v1/silences', 'found', {}],
    ['POST', '/api/v1/silences', 'found', {}],
    ['DELETE', '/api/v1/silences/a%2Fb', 'found', { id: 'a/b' }],
    ['GET', '/api/v1/silences/x', 'method', undefined],
    ['PUT', '/api/v1/silences', 'method', undefined],
    ['GET', '/api/v1/silences/', 'none', undefined],
    ['GET', '/api/v1', 'none', undefined],
    ['GET', '//', 'none', undefined],
  ])('%s %s → %s', (method, path, kind, params) => {
    const m = router.match(method, path);
    expect(m.kind).toBe(kind);
    if (m.kind === 'found') expect(m.params).toEqual(params);
  });

  it('lists the allowed methods for a path', () => {
    expect(router.match('PUT', '/api/v1/silences')).toMatchObject({ allow: ['GET', 'HEAD', 'POST'] });
    expect(router.match('POST', '/-/healthy')).toMatchObject({ kind: 'method', options: { public: true } });
  });

  it('refuses a second route for the same method and pattern', () => {
    expect(() => router.addRoute('delete', '/api/v1/silences/:other', h)).toThrow(/already taken/);
  });

  it('answers 400 for malformed percent-encoding', () => {
    expect(() => router.match('DELETE', '/api/v1/silences/%E0%A4%A')).toThrow(HttpError);
  });
});

describe('parseEventQuery', () => {
  it.each([
    ['', { limit: 100 }],
    ['org=acme&entity=c1&cursor=abc&limit=5', { org: 'acme', entityId: 'c1', cursor: 'abc', limit: 5 }],
    [
      'kind=channel.added,,session.started&kind=channel.added',
      { kinds: ['channel.added', 'session.started'], limit: 100 },
    ],
    [
      'since=1700000000000&until=2023-11-14T22:14:00Z',
      { since: 1_700_000_000_000, until: 1_700_000_040_000, limit: 100 },
    ],
    ['org=&limit=1000', { limit: 1000 }],
  ])('%j', (qs, want) => {
    expect(parseEventQuery(new URLSearchParams(qs))).toEqual(want);
  });

  it.each([
    ['kind=bogus', /unknown event kind "bogus"/],
    ['limit=abc', /limit must be an integer/],
    ['limit=1.5', /limit must be an integer/],
    ['limit=-3', /limit must be an integer/],
    ['until=soon', /until must be an ISO 8601 time/],
    ['since=2000&until=1000', /since is after until/],
    ['cursor=a&cursor=b', /cursor may be given once/],
  ])('%j is refused', (qs, message) => {
    expect(() => parseEventQuery(new URLSearchParams(qs))).toThrow(message);
  });
});

describe('parseListen', () => {
  it.each([
    ['0.0.0.0:10464', { host: '0.0.0.0', port: 10464 }],
    [':10464', { host: undefined, port: 10464 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
  ])('%s', (listen, want) => {
    expect(parseListen(listen)).toEqual(want);
  });

  it.each(['10464', 'host:', 'host:99999'])('refuses %s', (listen) => {
    expect(() => parseListen(listen)).toThrow(TypeError);
  });
});

describe('acceptsGzip', () => {
  it.each([
    [undefined, false],
    ['gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['identity', false],
    ['X-GZIP', true],
    // `*` stands for every coding the header does not name (RFC 9110, 12.5.3).
    ['*', true],
    ['identity, *;q=0.1', true],
    ['*;q=0', false],
    ['gzip;q=0, *', false],
    ['*, gzip;q=0', false],
    ['br, gzip;q=0.0', false],
  ])('%j → %s', (header, want) => {
    expect(acceptsGzip(header)).toBe(want);
  });
});

describe('acceptsIdentity', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['gzip', true],
    ['identity;q=0', false],
    ['gzip, identity;q=0', false],
    ['IDENTITY;Q=0', false],
    ['*;q=0', false],
    ['*;q=0, identity', true],
    ['identity;q=0.5, *;q=0', true],
    ['gzip;q=0, *;q=0.1', true],
  ])('%j → %s', (header, want) => {
    expect(acceptsIdentity(header)).toBe(want);
  });
});

describe('the status page escaping', () => {
  it('leaves no character that could open a tag or leave an attribute', () => {
    const out = h(`<script>alert("x")</script> ' \` &amp;`);
    expect(out).not.toMatch(/[<>"'`]/);
    expect(out).toContain('&#60;script&#62;');
    expect(h(undefined)).toBe('');
  });
});
