/**
 * Faithful dialects: servers of the documented API, each written after the public
 * documentation of one widely used API convention (docs/upstream-shapes.md, "Dialects").
 * Unlike the parameter bundles of src/sim/dialect.ts, a faithful dialect renders every
 * answer itself: envelope, paging, filters, errors, rate-limit headers, money, times,
 * casing, ids and sub-resources as that convention writes them. The world behind it is
 * the same for every dialect.
 */
import type { Rendered } from '../render.js';
import type { SimChannel, SimOrg, SimSession } from '../model.js';
import type { World } from '../world.js';

/** Sub-resources of a session. */
export type SubName = 'questions' | 'announcements' | 'speakers' | 'reactions';
/** Every sub-resource name. */
export const SUB_NAMES: readonly SubName[] = ['questions', 'announcements', 'speakers', 'reactions'];

/** What the API routed: the resource asked for, with the request around it. */
export interface DialectRequest {
  kind: 'org' | 'team' | 'subscription' | 'channels' | 'sessions' | 'session' | 'sub' | 'more';
  world: World;
  org: SimOrg;
  channel?: SimChannel;
  session?: SimSession;
  sub?: SubName;
  /** For `more`: the locator of `/v1/{org}/query/{locator}` (dialects with `morePath`). */
  locator?: string;
  /** Request headers, lower-case names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  query: URLSearchParams;
  /** `http://host:port` as the client addressed the server. */
  origin: string;
  /** The request path, with any `.json` suffix removed. */
  pathname: string;
  /** The path as asked (a `.json` suffix kept). */
  rawPathname: string;
}

/** The rate limit as a client sees it at this request. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window has room again (0 when it has room now). */
  resetSeconds: number;
  /** Clock time of the request (ms). */
  now: number;
}

/** An error answer: status (the dialect may change it), headers and body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The facets of a dialect, one line each, for `--list-dialects` and docs/upstream-shapes.md. */
export interface Facets {
  envelope: string;
  paging: string;
  filters: string;
  errors: string;
  rateLimits: string;
  money: string;
  times: string;
  casing: string;
  ids: string;
  subResources: string;
}

/** One faithful dialect. */
export interface FaithfulDialect {
  name: string;
  /** One line: which convention it follows. */
  description: string;
  /** Public pages the dialect follows. */
  docs: readonly string[];
  facets: Facets;
  /** The canonical id a path segment names, or the segment when it names none. */
  channelId(org: SimOrg, segment: string): string;
  sessionId(org: SimOrg, segment: string): string;
  /** Sub-resources served on their own paths under `/v1/{org}/sessions/{id}/`. */
  subPaths: readonly SubName[];
  /** Whether the dialect serves `/v1/{org}/query/{locator}` (the rest of a list, by locator). */
  morePath?: boolean;
  render(req: DialectRequest): Rendered;
  /** An error in the dialect's documented shape (`param` names a refused query parameter). */
  error(status: number, code: string, message: string, param?: string): ErrorAnswer;
  /** The answer to a request over the rate limit. */
  tooMany(rate: RateState): ErrorAnswer;
  /** Rate-limit headers on every answer, where the convention sends them. */
  rateHeaders(rate: RateState): Record<string, string>;
}
