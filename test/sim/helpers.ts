import { ManualClock as SharedManualClock } from '../helpers/clock.js';
import type { Simulator } from '../../src/sim/index.js';

/** The suite's manual clock, starting on a Monday morning of 2030 unless told otherwise. */
export class ManualClock extends SharedManualClock {
  constructor(t = Date.UTC(2030, 0, 7, 9, 0, 0)) {
    super(t);
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
  // HAL: `_embedded.<resource>`.
  const embedded = (b['_embedded'] ?? {}) as Body;
  for (const k of ['members', 'channels', 'sessions'])
    if (Array.isArray(embedded[k])) return embedded[k] as Body[];
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
    const meta = (b.meta ?? {}) as Body;
    const links = (b.links ?? {}) as Body;
    const hal = ((b._links ?? {}) as Body).next as Body | undefined;
    if (b._links !== undefined) {
      url = typeof hal?.href === 'string' ? hal.href : null;
    } else if (typeof links.next === 'string') {
      url = new URL(links.next, url).toString();
    } else if (typeof meta.offset === 'number' && typeof meta.total === 'number') {
      const next = meta.offset + page.length;
      u.searchParams.set('offset', String(next));
      url = page.length > 0 && next < meta.total ? u.toString() : null;
    } else if (typeof cursor === 'string') {
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
