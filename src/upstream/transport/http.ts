/**
 * One HTTP exchange with the API, and nothing else: no budget, no retries, no redirects
 * followed (the caller decides). One keep-alive agent (node:http or node:https) whose
 * requests all go to the origin of `base_url`: the host, port and scheme are fixed when
 * the transport is made, so a request to any other origin cannot even be expressed; the
 * bearer token goes into a header of those requests only (docs/architecture.md,
 * invariant 4). Node's own HTTP client rather than undici: loading undici and its
 * WebAssembly parser costs some 20 MiB of resident memory more for the same exchanges
 * (docs/performance.md, "Footprint").
 *
 * Bodies are decompressed (gzip, br, deflate) with node:zlib and capped: past
 * `maxBodyBytes` of compressed or decompressed bytes the stream is destroyed and the
 * request fails with reason `oversized`. An integer too large for a double (a snowflake id
 * sent unquoted) is read as the string of its digits (json-body.ts), never rounded.
 */
import type http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { Transform, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { nodeHttp } from '../../core/node-http.js';
import { classifyTransportError, reasonForStatus, UpstreamError } from '../errors.js';
import { parseJsonBody } from './json-body.js';
import { rateLimitHeaders } from './rate-limit.js';

/** Timeouts of one exchange, in milliseconds. */
export interface HttpTimeouts {
  connectMs: number;
  /** From sending the request to the end of the response headers. */
  headersMs: number;
  /** Reading the whole body. */
  bodyMs: number;
}

/** Options of {@link HttpTransport}. */
export interface HttpTransportOptions {
  baseUrl: string;
  /** Connections to the origin (requests in flight at once). */
  concurrency: number;
  timeouts: HttpTimeouts;
  maxBodyBytes: number;
  userAgent: string;
}

/** A 2xx answer with its parsed JSON body (integers beyond 2^53 as their digits, see json-body.ts). */
export interface JsonResponse {
  kind: 'json';
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  url: URL;
}

/** A 3xx answer; its body was discarded. */
export interface RedirectResponse {
  kind: 'redirect';
  status: number;
  /** The raw `Location` header, when present. */
  location: string | undefined;
  url: URL;
}

/** What one exchange can produce besides an error. */
export type ExchangeResult = JsonResponse | RedirectResponse;

/** Credentials and wording of one exchange. */
export interface ExchangeContext {
  org: string;
  token: string;
  signal?: AbortSignal | undefined;
  /** Validators of a copy tally holds: sent as If-None-Match / If-Modified-Since; a 304 answers them. */
  validators?: Validators | undefined;
}

/** What a server said identifies a representation (`ETag`, `Last-Modified`). */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

/** The validators of a response, when it carries any (never more than a header line's worth). */
export function validatorsOf(headers: Record<string, string | string[] | undefined>): Validators | undefined {
  const etag = headerValue(headers['etag']);
  const lastModified = headerValue(headers['last-modified']);
  const ok = (v: string | undefined) =>
    v !== undefined && v.length <= 256 && !/[\r\n]/.test(v) ? v : undefined;
  const out: Validators = {};
  if (ok(etag)) out.etag = etag;
  if (ok(lastModified)) out.lastModified = lastModified;
  return out.etag === undefined && out.lastModified === undefined ? undefined : out;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Error bodies are read only this far, for their code and message. */
const ERROR_BODY_BYTES = 64 * 1024;

/** An error with a code {@link classifyTransportError} knows. */
function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The HTTP layer: one keep-alive agent to the API's origin. */
export class HttpTransport {
  /** The only origin requests are sent to. */
  readonly origin: string;
  private readonly agent: http.Agent;
  private readonly client: typeof http | typeof https;
  private readonly host: string;
  private readonly port: number | undefined;

  constructor(private readonly opts: HttpTransportOptions) {
    const base = new URL(opts.baseUrl);
    this.origin = base.origin;
    const secure = base.protocol === 'https:';
    this.client = secure ? https : nodeHttp;
    // At most `concurrency` connections; more requests wait for one, as in a pool.
    const agentOpts = { keepAlive: true, maxSockets: opts.concurrency, maxFreeSockets: opts.concurrency };
    this.agent = secure ? new https.Agent(agentOpts) : new nodeHttp.Agent(agentOpts);
    this.host = base.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = base.port === '' ? undefined : Number(base.port);
  }

  /**
   * Sends a GET of `path` to the origin; resolves with the response once its headers are
   * in. Connecting is limited to `connectMs` and waiting for the headers to `headersMs`.
   */
  private send(path: string, headers: Record<string, string>, signal: AbortSignal | undefined) {
    const { connectMs, headersMs } = this.opts.timeouts;
    return new Promise<IncomingMessage>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const fail = (err: Error) => {
        clearTimeout(timer);
        req.destroy(err);
      };
      const waitHeaders = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => fail(coded('timeout waiting for response headers', 'UND_ERR_HEADERS_TIMEOUT')),
          headersMs,
        );
      };
      const req = this.client.request({
        host: this.host,
        port: this.port,
        path,
        method: 'GET',
        headers,
        agent: this.agent,
        ...(signal === undefined ? {} : { signal }),
      });
      req.on('socket', (socket) => {
        if (!socket.connecting) return waitHeaders();
        timer = setTimeout(() => fail(coded('connect timeout', 'UND_ERR_CONNECT_TIMEOUT')), connectMs);
        socket.once('connect', waitHeaders);
      });
      req.once('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      // `on`, not `once`: a socket error after the response arrived is emitted here too
      // (the body read fails with it on its own), and an unheard 'error' ends the process.
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.once('close', () => clearTimeout(timer));
      req.end();
    });
  }

  /**
   * Sends one GET to `url` and reads its answer. Throws an {@link UpstreamError} for
   * every failure, or the signal's reason when aborted. Never sends to another origin.
   */
  async exchange(url: URL, ctx: ExchangeContext): Promise<ExchangeResult> {
    const what = `GET ${describePath(url)}`;
    if (url.origin !== this.origin) {
      throw new UpstreamError(
        `${what}: refused, ${url.origin === 'null' ? 'not an http URL' : 'another origin'}`,
        {
          reason: 'cross_origin',
        },
      );
    }
    let res: IncomingMessage;
    try {
      res = await this.send(
        `${url.pathname}${url.search}`,
        {
          authorization: `Bearer ${ctx.token}`,
          accept: 'application/json',
          'accept-encoding': 'gzip, br, deflate',
          'user-agent': this.opts.userAgent,
          ...(ctx.validators?.etag === undefined ? {} : { 'if-none-match': ctx.validators.etag }),
          ...(ctx.validators?.lastModified === undefined
            ? {}
            : { 'if-modified-since': ctx.validators.lastModified }),
        },
        ctx.signal,
      );
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      throw classifyTransportError(err, what);
    }
    const status = res.statusCode ?? 0;
    const headers: IncomingHttpHeaders = res.headers;
    // The body as a stream of its own: an abort while it is read ends the read.
    if (ctx.signal !== undefined) {
      const onAbort = () => res.destroy(ctx.signal?.reason as Error);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      res.once('close', () => ctx.signal?.removeEventListener('abort', onAbort));
    }
    const stream: Readable = res;
    // Not modified: the copy tally holds is current; no body to read, parse or diff.
    if (status === 304 && ctx.validators !== undefined) {
      await discard(stream);
      return { kind: 'json', status, headers, body: undefined, url };
    }
    if (REDIRECTS.has(status)) {
      await discard(stream);
      return { kind: 'redirect', status, location: headerValue(headers['location']), url };
    }
    if (status < 200 || status >= 300) {
      const detail = await readErrorDetail(stream, headers, ctx.token);
      throw statusError(status, what, ctx.org, detail, {
        retryAfter: headerValue(headers['retry-after']),
        serverDate: headerValue(headers.date),
        rateLimit: rateLimitHeaders(headers),
      });
    }
    let bytes: Buffer;
    try {
      bytes = await readBody(stream, headers, this.opts.maxBodyBytes, this.opts.timeouts.bodyMs, what);
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      throw classifyTransportError(err, what);
    }
    let body: unknown;
    try {
      body = parseJsonBody(bodyText(bytes, headerValue(headers['content-type'])));
    } catch (err) {
      const type =
        headerValue(headers['content-type'])?.split(';')[0]?.trim().slice(0, 60) || 'no content-type';
      throw new UpstreamError(`${what}: response is not valid JSON (${type}, ${bytes.length} bytes)`, {
        reason: 'malformed',
        status,
        cause: err,
      });
    }
    return { kind: 'json', status, headers, body, url };
  }

  /** Closes every connection; in-flight requests fail. */
  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/** Path and query of a URL: what messages show of a request (never origin or userinfo). */
export function describePath(url: URL): string {
  return `${url.pathname}${url.search}`;
}

/** The first value of a header. */
export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Builds the error of a non-2xx answer, with words that say what to do about it. */
function statusError(
  status: number,
  what: string,
  org: string,
  detail: ErrorDetail,
  timing: {
    retryAfter: string | undefined;
    serverDate: string | undefined;
    rateLimit: Record<string, string>;
  },
): UpstreamError {
  const reason = reasonForStatus(status);
  let words: string;
  if (status === 401) words = 'token expired or revoked';
  else if (status === 403) words = `token not valid for org ${org}`;
  else if (status === 404) words = 'not found';
  else if (status === 429) words = 'rate limited';
  else if (REDIRECTS.has(status) || (status >= 300 && status < 400)) words = 'unexpected redirect status';
  else words = 'request failed';
  const upstream = [detail.code, detail.message].filter(Boolean).join(': ');
  const message = `${what}: ${status} ${words}${upstream ? ` (upstream: ${upstream})` : ''}`;
  return new UpstreamError(message, {
    reason: status >= 300 && status < 400 ? 'redirect' : reason,
    status,
    upstreamCode: detail.code,
    // Adaptation reads every error of the body, not only what fits in a message.
    upstreamWords: [detail.code, detail.words ?? detail.message].filter(Boolean).join(': '),
    ...timing,
  });
}

/** What an error body says: its code, a message fit for a log line, and all of its words. */
interface ErrorDetail {
  code?: string;
  /** Cut to {@link MESSAGE_CHARS} characters. */
  message?: string;
  /** The same, cut to {@link WORDS_CHARS}: what requests that adapt read (adapt.ts). */
  words?: string;
}

/** Characters of an upstream error shown in a message, and read by adaptation. */
const MESSAGE_CHARS = 200;
const WORDS_CHARS = 2000;

/**
 * Reads what an error body says, best effort: `{ error: { code, message } }`,
 * `{ code, message }`, problem+json (`title`, `detail`, `errors` as a list or a map by
 * field), or plain text. Request adaptation reads these words for a parameter or a
 * maximum (adapt.ts).
 */
async function readErrorDetail(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  token: string,
): Promise<ErrorDetail> {
  let text: string;
  try {
    text = (await readBody(body, headers, ERROR_BODY_BYTES, 5000, 'error body')).toString('utf8');
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    const plain = text.trim();
    return plain === '' || plain.startsWith('<')
      ? {}
      : { message: clean(plain, token), words: clean(plain, token, WORDS_CHARS) };
  }
  try {
    return errorDetailOf(parsed, token);
  } catch {
    // Best effort: an error body tally cannot make sense of says nothing, and the status
    // (a 429's pause above all) must still count.
    return {};
  }
}

/** What a parsed error body says (see {@link readErrorDetail}). */
function errorDetailOf(parsed: unknown, token: string): ErrorDetail {
  const root = asRecord(parsed);
  const err = asRecord(root?.['error']) ?? root;
  const out: ErrorDetail = {};
  const code = err?.['code'] ?? (typeof root?.['error'] === 'string' ? root['error'] : undefined);
  if (typeof code === 'string' || typeof code === 'number') out.code = clean(String(code), token);
  const parts = [err?.['message'], err?.['title'], err?.['detail']].filter(
    (x): x is string => typeof x === 'string' && x !== '',
  );
  // The parameter an error object names beside its message (Stripe's `param`): said first.
  const param = err?.['param'];
  if (typeof param === 'string' && param !== '' && parts.length > 0) parts[0] = `${param}: ${parts[0]}`;
  // RFC 9457 problem details list them as `invalid-params` ({ name, reason }).
  parts.push(
    ...fieldErrors(
      err?.['errors'] ?? root?.['errors'] ?? root?.['invalid-params'] ?? root?.['invalid_params'],
    ),
  );
  // What it says it takes instead (`allowed_parameters: [...]`, `supported: [...]`): adapting reads it.
  const allowed = allowedOf(err) ?? (err === root ? undefined : allowedOf(root));
  if (allowed !== undefined) parts.push(`allowed: ${allowed.join(', ')}`);
  const message = [...new Set(parts)].join('; ');
  if (message !== '') {
    out.message = clean(message, token);
    out.words = clean(message, token, WORDS_CHARS);
  }
  return out;
}

/** The first list of names under a key that says they are allowed or supported (at most 30). */
function allowedOf(r: Record<string, unknown> | undefined): string[] | undefined {
  for (const [k, v] of Object.entries(r ?? {})) {
    if (!/allowed|supported|valid|permitted|available|accepted/i.test(k) || !Array.isArray(v)) continue;
    const names = v.filter((x): x is string => typeof x === 'string' && x.length <= 64).slice(0, 30);
    if (names.length > 0) return names;
  }
  return undefined;
}

/**
 * `field: message` lines of an `errors` list or map, as problem+json, JSON:API and many
 * APIs give them. The field is the error's `field`, `param`, `parameter`, `name`, `loc`
 * or `pointer`, or JSON:API's `source.parameter` / `source.pointer` (the last segment of
 * a JSON pointer: `/data/attributes/from` → `from`); the message its `title` and
 * `message`/`detail`/`msg`/`reason`.
 */
function fieldErrors(errors: unknown): string[] {
  const out: string[] = [];
  const text = (v: unknown): string =>
    typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(', ') : '';
  if (Array.isArray(errors)) {
    for (const e of errors.slice(0, 10)) {
      const r = asRecord(e);
      if (!r) {
        if (typeof e === 'string') out.push(e);
        continue;
      }
      const source = asRecord(r['source']);
      const field =
        r['field'] ??
        r['param'] ??
        r['parameter'] ??
        r['name'] ??
        pointerName(r['pointer']) ??
        r['loc'] ??
        source?.['parameter'] ??
        pointerName(source?.['pointer']);
      const msg = [text(r['title']), text(r['message'] ?? r['detail'] ?? r['msg'] ?? r['reason'])]
        .filter((x, i, all) => x !== '' && all.indexOf(x) === i)
        .join(': ');
      out.push(
        [typeof field === 'string' ? field : Array.isArray(field) ? pathText(field) : '', msg]
          .filter(Boolean)
          .join(': '),
      );
    }
  } else {
    const r = asRecord(errors);
    if (r) for (const [field, v] of Object.entries(r).slice(0, 10)) out.push(`${field}: ${text(v)}`);
  }
  return out.filter((x) => x !== '');
}

/** A field path given as a list (`loc: ["query", "from"]`): its strings and numbers, dotted. */
function pathText(path: readonly unknown[]): string {
  return path
    .slice(0, 20)
    .filter((x) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
    .join('.');
}

/** The name a JSON pointer ends in (`/data/attributes/from` → `from`), or the value when not a pointer. */
function pointerName(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  if (!v.startsWith('/')) return v;
  const last = v.split('/').filter(Boolean).pop();
  return last?.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Shortens an upstream string and removes the token should the server echo it. */
function clean(s: string, token: string, max = MESSAGE_CHARS): string {
  let out = s.replace(/[\r\n\t]+/g, ' ').trim();
  if (token.length >= 4) out = out.split(token).join('[REDACTED]');
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/** The most of a body not read that is drained to keep its connection; past it, the connection goes. */
const DISCARD_BYTES = 64 * 1024;

/** Drops a body we do not read, without keeping the connection busy for long. */
async function discard(body: Readable): Promise<void> {
  if (body.readableEnded) return;
  await new Promise<void>((resolve) => {
    let seen = 0;
    const timer = setTimeout(() => stop(), 1000);
    const stop = () => {
      clearTimeout(timer);
      destroyBody(body);
      resolve();
    };
    body.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_BYTES) stop();
    });
    body.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
    body.once('error', stop);
    body.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Ends a response body tally will not read on. A body destroyed before its end may emit
 * `'error'`, and an `'error'` without a listener would end the process: the read has
 * already failed with its own error, so this one is expected and dropped here, where it
 * arises.
 */
function destroyBody(body: Readable): void {
  if (body.destroyed) return;
  body.on('error', () => {});
  body.destroy();
}

function oversized(what: string, max: number): UpstreamError {
  return new UpstreamError(`${what}: response larger than ${max} bytes`, { reason: 'oversized' });
}

/** Builds the decoders for a `Content-Encoding` list, outermost last. */
/**
 * A body's text: in the charset its content type names (UTF-8 when none, or one Node does
 * not know), without a byte-order mark (some servers start JSON with one; JSON.parse
 * would refuse it).
 */
export function bodyText(bytes: Buffer, contentType: string | undefined): string {
  const label = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  const text = decoder.decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function decoders(encoding: string | undefined, what: string): Transform[] {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  return codings.reverse().map((c) => {
    if (c === 'gzip' || c === 'x-gzip') return zlib.createGunzip();
    if (c === 'br') return zlib.createBrotliDecompress();
    if (c === 'deflate') return zlib.createInflate();
    throw new UpstreamError(`${what}: unsupported content-encoding ${c.slice(0, 40)}`, {
      reason: 'malformed',
    });
  });
}

/**
 * Reads a whole body, decompressed, refusing more than `max` bytes (compressed or not)
 * and more than `totalMs` of reading.
 */
async function readBody(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  max: number,
  totalMs: number,
  what: string,
): Promise<Buffer> {
  const declared = Number(headerValue(headers['content-length']));
  if (Number.isFinite(declared) && declared > max) {
    destroyBody(body);
    throw oversized(what, max);
  }
  let decode: Transform[];
  try {
    decode = decoders(headerValue(headers['content-encoding']), what);
  } catch (err) {
    destroyBody(body);
    throw err;
  }
  let raw = 0;
  const countRaw = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      raw += chunk.length;
      cb(raw > max ? oversized(what, max) : null, chunk);
    },
  });
  // Errors surface through iteration of the tail; the callback only keeps them handled.
  const tail = pipeline([body, countRaw, ...decode], () => {}) as unknown as Readable;
  const timer = setTimeout(() => {
    const err = Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' });
    tail.destroy(err);
  }, totalMs);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of tail) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > max) throw oversized(what, max);
      chunks.push(b);
    }
  } finally {
    clearTimeout(timer);
    if (!body.readableEnded) destroyBody(body);
  }
  return Buffer.concat(chunks, size);
}
