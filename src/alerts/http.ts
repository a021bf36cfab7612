/**
 * JSON API handlers of the alert layer, as plain functions the HTTP server mounts:
 *
 * - `GET /api/v1/alerts` — alerts and their state; filters `state`, `org`, `receiver`,
 *   `fingerprint`, `silenced` (`true`/`false`).
 * - `GET /api/v1/silences` — every silence with its status; `?status=active`.
 * - `GET /api/v1/silences/{id}` — one silence.
 * - `POST /api/v1/silences` — add one; problems come back by field (`matchers[0]`).
 * - `DELETE /api/v1/silences/{id}` — expire one (config silences cannot be).
 * - `GET /api/v1/maintenance` — the maintenance windows and whether each is open.
 *
 * Times are ISO 8601 strings in responses.
 */
import type { AlertEngine, AlertFilter, AlertView } from './engine.js';

/** A request as the HTTP server hands it over. */
export interface ApiRequest {
  method: string;
  /** The path without the query string, e.g. `/api/v1/silences/abc`. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body, when there was one. */
  body?: unknown;
}

/** A response: status and a JSON-serializable body. */
export interface ApiResponse {
  status: number;
  body: unknown;
}

/** A handler of one path prefix. */
export type ApiHandler = (req: ApiRequest) => Promise<ApiResponse>;

const STATES = new Set(['pending', 'firing', 'resolved']);

function iso(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** An alert in the API's shape (snake_case, ISO times). */
export function alertJson(a: AlertView): Record<string, unknown> {
  const out: Record<string, unknown> = {
    fingerprint: a.fingerprint,
    rule: a.rule,
    state: a.state,
    labels: a.labels,
    annotations: a.annotations,
    active_at: iso(a.activeAt),
    receivers: a.receivers,
    silenced_by: a.silenced_by,
    inhibited_by: a.inhibited_by,
  };
  if (a.startsAt !== undefined) out['starts_at'] = iso(a.startsAt);
  if (a.endsAt !== undefined) out['ends_at'] = iso(a.endsAt);
  if (a.generatorURL !== undefined) out['generator_url'] = a.generatorURL;
  return out;
}

function methodNotAllowed(allowed: string): ApiResponse {
  return { status: 405, body: { error: `method not allowed (allowed: ${allowed})` } };
}

/** Handler of `/api/v1/alerts`. */
export function alertsHandler(engine: AlertEngine): ApiHandler {
  return async (req) => {
    if (req.path !== '/api/v1/alerts') return { status: 404, body: { error: 'not found' } };
    if (req.method !== 'GET') return methodNotAllowed('GET');
    const filter: AlertFilter = {};
    const state = req.query.get('state');
    if (state !== null) {
      if (!STATES.has(state)) {
        return {
          status: 400,
          body: {
            error: 'invalid query',
            problems: [{ field: 'state', message: 'pending, firing or resolved' }],
          },
        };
      }
      filter.state = state as AlertFilter['state'] & string;
    }
    for (const key of ['org', 'receiver', 'fingerprint'] as const) {
      const v = req.query.get(key);
      if (v !== null) filter[key] = v;
    }
    const silenced = req.query.get('silenced');
    if (silenced !== null && silenced !== 'true' && silenced !== 'false') {
      return {
        status: 400,
        body: { error: 'invalid query', problems: [{ field: 'silenced', message: 'true or false' }] },
      };
    }
    let alerts = engine.alerts(filter);
    if (silenced !== null) {
      const want = silenced === 'true';
      alerts = alerts.filter((a) => a.silenced_by.length + a.inhibited_by.length > 0 === want);
    }
    return { status: 200, body: { alerts: alerts.map(alertJson) } };
  };
}

/** Handler of `/api/v1/silences` and `/api/v1/silences/{id}`. */
export function silencesHandler(engine: AlertEngine): ApiHandler {
  return async (req) => {
    const base = '/api/v1/silences';
    if (req.path === base || req.path === `${base}/`) {
      if (req.method === 'GET') {
        const status = req.query.get('status');
        const list = engine.silences().filter((s) => status === null || s.status === status);
        return { status: 200, body: { silences: list } };
      }
      if (req.method === 'POST') {
        if (
          req.body === undefined ||
          req.body === null ||
          typeof req.body !== 'object' ||
          Array.isArray(req.body)
        ) {
          return {
            status: 400,
            body: { error: 'invalid silence', problems: [{ field: '(body)', message: 'a JSON object' }] },
          };
        }
        const r = await engine.addSilence(req.body);
        if ('problems' in r) return { status: 400, body: { error: 'invalid silence', problems: r.problems } };
        return { status: 201, body: { silence: r.silence } };
      }
      return methodNotAllowed('GET, POST');
    }
    if (!req.path.startsWith(`${base}/`)) return { status: 404, body: { error: 'not found' } };
    const id = decodeURIComponent(req.path.slice(base.length + 1));
    if (id === '' || id.includes('/')) return { status: 404, body: { error: 'not found' } };
    if (req.method === 'GET') {
      const s = engine.silence(id);
      return s ? { status: 200, body: { silence: s } } : { status: 404, body: { error: `no silence ${id}` } };
    }
    if (req.method === 'DELETE') {
      const r = await engine.expireSilence(id);
      if ('silence' in r) return { status: 200, body: { silence: r.silence } };
      if (r.error === 'not_found') return { status: 404, body: { error: `no silence ${id}` } };
      if (r.error === 'config') {
        return {
          status: 409,
          body: { error: `silence ${id} is defined in the config file; remove it there` },
        };
      }
      return { status: 409, body: { error: `silence ${id} has already expired` } };
    }
    return methodNotAllowed('GET, DELETE');
  };
}

/** Handler of `/api/v1/maintenance`. */
export function maintenanceHandler(engine: AlertEngine): ApiHandler {
  return async (req) => {
    if (req.path !== '/api/v1/maintenance') return { status: 404, body: { error: 'not found' } };
    if (req.method !== 'GET') return methodNotAllowed('GET');
    return { status: 200, body: { maintenance: engine.maintenance() } };
  };
}
