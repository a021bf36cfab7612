/**
 * A client per faithful dialect, written from that convention's documentation (the same
 * pages the dialect cites): how to find the list in a body, how to reach the next page,
 * which query filters the sessions, what a refused filter looks like. The tests in
 * dialects-faithful.test.ts run every spec against the same world and compare with the
 * simulator's ground truth.
 */
import { expect } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted on, field by field
export type Loose = any;

/** What a test needs to know to speak one dialect. */
export interface DialectSpec {
  name: string;
  /** The records of one list page. */
  items(body: Loose): Loose[];
  /** The next page's URL (absolute), or null at the end. */
  next(res: Response, body: Loose, current: URL): string | null;
  /** Query parameters that ask for small pages (so paging is exercised). */
  small: Record<string, string>;
  /** Query parameters that keep only live sessions; null where the convention's GET lists take no filter. */
  live: Record<string, string> | null;
  /** Query parameters the server refuses as a bad filter (null: none is refused). */
  badFilter: Record<string, string> | null;
  /** Checks a refused filter's answer: status, body shape, the parameter named. */
  refused(status: number, body: Loose): void;
  /** Checks a 404 answer. */
  notFound(status: number, body: Loose): void;
  /** Checks a 429 answer (headers included). */
  tooMany(status: number, body: Loose, headers: Headers): void;
  /** The id of a record as the dialect shows it (for paths and uniqueness). */
  id(item: Loose): string;
  /** The session detail path's id segment for a session record of a list. */
  sessionPath?(item: Loose): string;
  /** Convention checks on the single objects and the detail. */
  shapes(b: { org: Loose; subscription: Loose; channel: Loose; session: Loose; detail: Loose }): void;
  /**
   * The number of questions of a session, reached the way the convention keeps them
   * (embedded, behind a link, expanded on request, or on their own path).
   */
  questions(
    detail: Loose,
    via: { read(path: string): Promise<Loose[]>; get(path: string): Promise<Loose>; path: string },
  ): number | Promise<number>;
  /** Extra headers every request carries (none by default). */
  headers?: Record<string, string>;
}

/** GET with the org's token. */
export async function get(sim: Simulator, url: string, spec?: DialectSpec): Promise<Response> {
  const abs = url.startsWith('http') ? url : `${sim.url}${url}`;
  return fetch(abs, { headers: { authorization: 'Bearer demo-token', ...(spec?.headers ?? {}) } });
}

/** A path with query parameters. */
export function withQuery(path: string, q: Record<string, string>): string {
  const s = new URLSearchParams(q).toString();
  return s === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${s}`;
}

/** Every record of a list, following the dialect's paging; fails after 200 pages. */
export async function readAll(
  sim: Simulator,
  spec: DialectSpec,
  path: string,
  q: Record<string, string> = {},
): Promise<{ items: Loose[]; pages: number }> {
  const items: Loose[] = [];
  const first = withQuery(path, { ...spec.small, ...q });
  let url: string | null = first.startsWith('http') ? first : `${sim.url}${first}`;
  let pages = 0;
  while (url !== null) {
    const res = await get(sim, url, spec);
    const body = (await res.json()) as Loose;
    expect(res.status, `${url}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
    items.push(...spec.items(body));
    pages++;
    expect(pages).toBeLessThan(200);
    url = spec.next(res, body, new URL(url));
  }
  return { items, pages };
}

/** The `rel="next"` target of a Link header. */
export function linkNext(res: Response): string | null {
  const link = res.headers.get('link');
  if (link === null) return null;
  const m = /<([^>]+)>;\s*rel="?next"?/.exec(link);
  return m === null ? null : m[1]!;
}

/** An absolute URL from a path or URL the server gave. */
export function absolute(current: URL, target: string | null | undefined): string | null {
  if (target === null || target === undefined || target === '') return null;
  return new URL(target, current).toString();
}

/** The current URL with parameters replaced. */
export function replaced(current: URL, set: Record<string, string>): string {
  const u = new URL(current);
  for (const [k, v] of Object.entries(set)) u.searchParams.set(k, v);
  return u.toString();
}
