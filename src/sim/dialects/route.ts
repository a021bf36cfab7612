/**
 * Routes an authenticated `/v1/{org}/...` request to a faithful dialect: the six paths of
 * docs/upstream-api.md, a `.json` suffix accepted on the last segment (as several
 * conventions write paths), and `/v1/{org}/sessions/{id}/{sub}` where the dialect keeps
 * sub-resources on their own paths.
 */
import { notFound } from '../errors.js';
import type { SimOrg } from '../model.js';
import type { Rendered } from '../render.js';
import type { World } from '../world.js';
import { type DialectRequest, type FaithfulDialect, SUB_NAMES, type SubName } from './types.js';

/** The request around the path segments after `/v1/{org}`. */
export interface FaithfulContext {
  world: World;
  org: SimOrg;
  query: URLSearchParams;
  origin: string;
  pathname: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Answers the request in the dialect, or throws a SimRequestError (404 …). */
export function routeFaithful(fd: FaithfulDialect, rest: readonly string[], ctx: FaithfulContext): Rendered {
  const segs = [...rest];
  const last = segs.length - 1;
  if (last >= 0 && segs[last]!.endsWith('.json')) segs[last] = segs[last]!.slice(0, -5);
  const pathname = ctx.pathname.replace(/\.json$/, '');
  const base: Omit<DialectRequest, 'kind'> = {
    world: ctx.world,
    org: ctx.org,
    query: ctx.query,
    origin: ctx.origin,
    pathname,
    rawPathname: ctx.pathname,
    headers: ctx.headers,
  };
  const [a, b, c] = segs;
  if (segs.length === 0) return fd.render({ ...base, kind: 'org' });
  if (segs.length === 1 && a === 'team') return fd.render({ ...base, kind: 'team' });
  if (segs.length === 1 && a === 'subscription') return fd.render({ ...base, kind: 'subscription' });
  if (segs.length === 1 && a === 'channels') return fd.render({ ...base, kind: 'channels' });
  if (segs.length === 2 && a === 'query' && fd.morePath === true)
    return fd.render({ ...base, kind: 'more', locator: b! });
  if (segs.length === 3 && a === 'channels' && c === 'sessions') {
    const id = fd.channelId(ctx.org, b!);
    const channel = ctx.org.channelById.get(id);
    if (channel === undefined) throw notFound(`channel ${b}`);
    return fd.render({ ...base, kind: 'sessions', channel });
  }
  if ((segs.length === 2 || segs.length === 3) && a === 'sessions') {
    const id = fd.sessionId(ctx.org, b!);
    const session = ctx.org.sessionById.get(id);
    if (session === undefined) throw notFound(`session ${b}`);
    if (segs.length === 2) return fd.render({ ...base, kind: 'session', session });
    const sub = c as SubName;
    if (SUB_NAMES.includes(sub) && fd.subPaths.includes(sub)) {
      return fd.render({ ...base, kind: 'sub', session, sub });
    }
  }
  throw notFound(`path ${ctx.pathname}`);
}
