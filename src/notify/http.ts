/**
 * One HTTP POST for the webhook and Alertmanager sinks, classified once: 2xx is success;
 * a redirect is an error (never followed, so a body and its signature go only where they
 * were configured to); 408, 429 and 5xx are retryable, with `Retry-After` passed on.
 * Messages name the receiver and the URL's origin only: webhook URLs often carry a token
 * in their path (Slack, Discord), so neither the path nor the query is ever shown.
 */
import type { Dispatcher } from 'undici';
import { parseRetryAfter } from '../upstream/transport/retry-after.js';
import { abortError, DeliveryError, reasonForStatus, transportError } from './notifier.js';

/** One POST. */
export interface PostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  dispatcher: Dispatcher;
  /** Names the attempt in messages, e.g. `webhook chat: POST https://hooks.example.com`. */
  where: string;
  /** Values that must not appear in an error message even if the server echoes them. */
  secrets: readonly string[];
  /** Current time (ms), for a `Retry-After` given as a date. */
  now: number;
}

/** Longest part of a failed response's body quoted in the error message. */
const SNIPPET_CHARS = 200;

/** `https://host:port` of `url`, without credentials, path or query. */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The HTTP sinks' own connections, made at their first POST: undici (and its WebAssembly
 * parser, some 20 MiB of resident memory) is loaded only by a process that sends to a
 * webhook or an Alertmanager (docs/performance.md, "Footprint").
 */
export class LazyAgent {
  #agent: Dispatcher | undefined;

  /** The agent, made (and undici loaded) at the first call. */
  async get(): Promise<Dispatcher> {
    if (this.#agent === undefined) {
      const { Agent } = await import('undici');
      this.#agent ??= new Agent({ connect: { timeout: 10_000 } });
    }
    return this.#agent;
  }

  /** Closes its connections, if it ever made any. */
  async close(): Promise<void> {
    await this.#agent?.close();
  }
}

/** Sends the POST once; resolves on 2xx, otherwise throws a classified {@link DeliveryError}. */
export async function postOnce(req: PostRequest): Promise<void> {
  const { request } = await import('undici');
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      dispatcher: req.dispatcher,
    });
  } catch (err) {
    if (req.signal.aborted) throw abortError(req.signal, req.where);
    throw transportError(err, req.where);
  }
  const status = res.statusCode;
  if (status >= 200 && status < 300) {
    await res.body.dump().catch(() => undefined);
    return;
  }
  const snippet = await readSnippet(res.body, req.secrets);
  const { reason, retryable } = reasonForStatus(status);
  const retryAfterMs =
    status === 429 || status === 503
      ? parseRetryAfter(header(res.headers, 'retry-after'), req.now, header(res.headers, 'date'))
      : undefined;
  let message = `${req.where}: HTTP ${status}`;
  if (reason === 'redirect') {
    const location = header(res.headers, 'location');
    message += ` redirect${location ? ` to ${safeOrigin(new URL(location, req.url).href)}` : ''} (redirects are not followed; fix the URL)`;
  }
  if (snippet) message += `: ${snippet}`;
  throw new DeliveryError(message, { reason, retryable, retryAfterMs });
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The start of a response body, one line, printable, with every secret removed. */
async function readSnippet(
  body: Dispatcher.ResponseData['body'],
  secrets: readonly string[],
): Promise<string> {
  let text = '';
  try {
    for await (const chunk of body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length >= SNIPPET_CHARS * 4) break;
    }
  } catch {
    return '';
  } finally {
    body.destroy();
  }
  for (const s of secrets) if (s.length >= 4) text = text.split(s).join('[REDACTED]');
  text = text
    .replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
}

/** The parts of a URL that are secret when a service puts its token there: path, query, userinfo. */
export function urlSecrets(url: string): string[] {
  try {
    const u = new URL(url);
    const out = [u.username, u.password, u.search.slice(1)];
    if (u.pathname.length > 1) out.push(u.pathname, decodeURIComponent(u.pathname));
    return out.filter((s) => s.length >= 4);
  } catch {
    return [];
  }
}
