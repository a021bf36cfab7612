import type { Clock, TimerHandle } from '../../src/core/clock.js';
import type { Simulator } from '../../src/sim/index.js';

/** A clock that moves only when told; timers fire in time order as it moves. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void; done: boolean }[] = [];
  private seq = 0;

  constructor(private t = Date.UTC(2030, 0, 7, 9, 0, 0)) {}

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.t + Math.max(0, ms), seq: ++this.seq, fn, done: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.done = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const h = this.setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        h.cancel();
        reject(signal.reason);
      });
    });
  }

  /** Timers not yet fired or cancelled. */
  pending(): number {
    return this.timers.filter((x) => !x.done).length;
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers
        .filter((x) => !x.done && x.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      due.done = true;
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
    this.timers = this.timers.filter((x) => !x.done);
  }

  /** Resolves once at least `n` timers are pending (I/O keeps running meanwhile). */
  async waitForTimers(n = 1, maxTurns = 20_000): Promise<void> {
    for (let i = 0; i < maxTurns; i++) {
      if (this.pending() >= n) return;
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no timer was set (wanted ${n})`);
  }
}

/** GET a path of the simulator with a token (or none). */
export async function get(
  sim: Simulator,
  path: string,
  token: string | null = 'demo-token',
  init: RequestInit = {},
): Promise<Response> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return fetch(path.startsWith('http') ? path : `${sim.url}${path}`, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
}

/** POST JSON to the control surface. */
export async function control(sim: Simulator, route: string, body: unknown): Promise<Response> {
  return fetch(`${sim.url}/_sim/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

type Body = Record<string, unknown>;

/** A response body in a test: its shape is checked by the assertions, not by the compiler. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted on, field by field
export type Loose = any;

/** The list inside a response body of any envelope. */
export function listOf(body: unknown): Body[] {
  if (Array.isArray(body)) return body as Body[];
  const b = body as Body;
  for (const k of ['data', 'items', 'members', 'channels', 'sessions'])
    if (Array.isArray(b[k])) return b[k] as Body[];
  throw new Error(`no list in ${JSON.stringify(body).slice(0, 200)}`);
}

/** The object inside a response body of any envelope. */
export function objectOf(body: unknown): Body {
  const b = body as Body;
  for (const k of ['data', 'organization', 'subscription', 'session']) {
    if (b[k] !== undefined && typeof b[k] === 'object' && !Array.isArray(b[k])) return b[k] as Body;
  }
  return b;
}

/** The `rel="next"` target of a Link header. */
export function nextLink(link: string | null): string | null {
  if (link === null) return null;
  const m = /<([^>]+)>;\s*rel="next"/.exec(link);
  return m === null ? null : m[1]!;
}

/**
 * Reads every page of a list in whatever paging style the simulator serves, the way a
 * tolerant client would; returns the items and the number of requests it took.
 */
export async function readAll(
  sim: Simulator,
  path: string,
  token = 'demo-token',
): Promise<{ items: Body[]; pages: number }> {
  const items: Body[] = [];
  let url: string | null = `${sim.url}${path}`;
  let pages = 0;
  while (url !== null) {
    const res = await get(sim, url, token);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    pages++;
    const body = (await res.json()) as unknown;
    const page = listOf(body);
    items.push(...page);
    const b = (Array.isArray(body) ? {} : body) as Body;
    const cursor = (b.next_cursor ?? b.nextCursor) as string | null | undefined;
    const link = nextLink(res.headers.get('link'));
    const pageNo = Number(b.page ?? res.headers.get('x-page') ?? 0);
    const totalPages = Number(b.total_pages ?? b.totalPages ?? res.headers.get('x-total-pages') ?? 0);
    const u: URL = new URL(url);
    if (typeof cursor === 'string') {
      u.searchParams.set('cursor', cursor);
      url = u.toString();
    } else if (link !== null) {
      url = link;
    } else if (pageNo > 0 && pageNo < totalPages) {
      u.searchParams.set('page', String(pageNo + 1));
      url = u.toString();
    } else {
      url = null;
    }
    if (pages > 10_000) throw new Error('paging does not end');
  }
  return { items, pages };
}
