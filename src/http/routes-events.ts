/**
 * `/api/v1/events`: recent change events, newest first, filtered and paged.
 *
 *   GET /api/v1/events?org=acme&kind=channel.added,channel.removed&since=2025-01-01T00:00:00Z&limit=50
 *
 * Every parameter is checked at the boundary; a bad one is a 400 that names it.
 */
import { EVENT_KINDS, type EventKind, isEventKind } from '../snapshot/events.js';
import type { EventQuery, StatusSource } from '../poll/status.js';
import { HttpError, json } from './reply.js';
import type { Router } from './router.js';

/** Events per page unless `limit` says otherwise. */
export const DEFAULT_EVENT_LIMIT = 100;
/** Most events one page may hold. */
export const MAX_EVENT_LIMIT = 1000;

/** Reasons of a status-source error that mean the query (its cursor) was bad, not the server. */
const BAD_QUERY_REASONS = new Set(['bad_request', 'invalid_query', 'invalid_cursor', 'bad_cursor', 'cursor']);

/** Parses the query string of `/api/v1/events`. */
export function parseEventQuery(params: URLSearchParams): EventQuery {
  const query: EventQuery = { limit: DEFAULT_EVENT_LIMIT };
  const org = single(params, 'org');
  if (org !== undefined) query.org = org;
  const entity = single(params, 'entity');
  if (entity !== undefined) query.entityId = entity;
  const cursor = single(params, 'cursor');
  if (cursor !== undefined) query.cursor = cursor;

  const kinds: EventKind[] = [];
  for (const value of params.getAll('kind')) {
    for (const raw of value.split(',')) {
      const kind = raw.trim();
      if (kind === '') continue;
      if (!isEventKind(kind)) {
        throw bad(`unknown event kind "${kind}" in kind; known kinds: ${EVENT_KINDS.join(', ')}`);
      }
      if (!kinds.includes(kind)) kinds.push(kind);
    }
  }
  if (kinds.length > 0) query.kinds = kinds;

  const since = single(params, 'since');
  if (since !== undefined) query.since = instant('since', since);
  const until = single(params, 'until');
  if (until !== undefined) query.until = instant('until', until);
  if (query.since !== undefined && query.until !== undefined && query.since > query.until) {
    throw bad('since is after until');
  }

  const limit = single(params, 'limit');
  if (limit !== undefined) {
    const n = /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_EVENT_LIMIT) {
      throw bad(`limit must be an integer from 1 to ${MAX_EVENT_LIMIT}, got "${limit}"`);
    }
    query.limit = n;
  }
  return query;
}

/** Adds `/api/v1/events`. */
export function addEventsRoute(router: Router, source: StatusSource): void {
  router.addRoute('GET', '/api/v1/events', async (ctx) => {
    const query = parseEventQuery(ctx.query);
    let page: Awaited<ReturnType<StatusSource['events']>>;
    try {
      page = await source.events(query);
    } catch (err) {
      const reason = (err as { reason?: unknown }).reason;
      if (typeof reason === 'string' && BAD_QUERY_REASONS.has(reason)) {
        throw bad(`the query cannot be answered: ${(err as Error).message}`);
      }
      throw err;
    }
    const body: Record<string, unknown> = { events: page.events, next_cursor: page.nextCursor ?? null };
    // Sequence numbers handed out whose events are lost (not retention): said, never an empty page.
    if (page.missing !== undefined && page.missing.length > 0) {
      body['missing'] = page.missing.map((m) => ({
        from_seq: m.from,
        to_seq: m.to,
        reason: m.reason,
        detected_at: new Date(m.at).toISOString(),
      }));
    }
    return json(200, body);
  });
}

/** A time as ISO 8601 or epoch milliseconds. */
function instant(name: string, value: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw bad(`${name} must be an ISO 8601 time or epoch milliseconds, got "${value}"`);
  return ms;
}

/** A parameter that may appear at most once (empty counts as absent). */
function single(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name).filter((v) => v !== '');
  if (all.length > 1) throw bad(`${name} may be given once, got ${all.length} values`);
  return all[0];
}

function bad(message: string): HttpError {
  return new HttpError(400, 'bad_request', message);
}
