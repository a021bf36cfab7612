/**
 * The alert layer's JSON API, served from the engine of the moment (a reload may replace
 * it; a request waits for the swap):
 *
 * - `GET /api/v1/alerts` — alerts and their state; filters `state`, `org`, `receiver`,
 *   `fingerprint`, `silenced` (`true`/`false`).
 * - `GET /api/v1/silences` — every silence with its status; `?status=active`.
 * - `GET /api/v1/silences/{id}` — one silence.
 * - `POST /api/v1/silences` — add one; problems come back by field (`matchers[0]`).
 * - `DELETE /api/v1/silences/{id}` — expire one (config silences cannot be).
 * - `GET /api/v1/maintenance` — the maintenance windows and whether each is open.
 *
 * Times are ISO 8601 strings; errors have the API's one shape (see reply.ts).
 */
import type { AlertEngine, AlertFilter, AlertView } from '../alerts/engine.js';
import { HttpError, json } from './reply.js';
import type { Router } from './router.js';

/** The engine to answer from, once any reload in progress has settled. */
export type EngineSource = () => Promise<AlertEngine>;

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

function invalid(code: string, message: string, field: string, problem: string): HttpError {
  return new HttpError(400, code, message, {}, [{ field, message: problem }]);
}

/** Parses the alert filter of `GET /api/v1/alerts`. */
function alertQuery(query: URLSearchParams): { filter: AlertFilter; silenced: boolean | undefined } {
  const filter: AlertFilter = {};
  const state = query.get('state');
  if (state !== null) {
    if (!STATES.has(state))
      throw invalid('invalid_query', 'invalid query', 'state', 'pending, firing or resolved');
    filter.state = state as AlertFilter['state'] & string;
  }
  for (const key of ['org', 'receiver', 'fingerprint'] as const) {
    const v = query.get(key);
    if (v !== null) filter[key] = v;
  }
  const silenced = query.get('silenced');
  if (silenced !== null && silenced !== 'true' && silenced !== 'false') {
    throw invalid('invalid_query', 'invalid query', 'silenced', 'true or false');
  }
  return { filter, silenced: silenced === null ? undefined : silenced === 'true' };
}

/** Adds the alert, silence and maintenance routes. */
export function addAlertRoutes(router: Router, engine: EngineSource): void {
  router.addRoute('GET', '/api/v1/alerts', async (ctx) => {
    const { filter, silenced } = alertQuery(ctx.query);
    let alerts = (await engine()).alerts(filter);
    if (silenced !== undefined) {
      alerts = alerts.filter((a) => a.silenced_by.length + a.inhibited_by.length > 0 === silenced);
    }
    return json(200, { alerts: alerts.map(alertJson) });
  });

  router.addRoute('GET', '/api/v1/silences', async (ctx) => {
    const status = ctx.query.get('status');
    const list = (await engine()).silences().filter((s) => status === null || s.status === status);
    return json(200, { silences: list });
  });

  router.addRoute('POST', '/api/v1/silences', async (ctx) => {
    const body = await ctx.json();
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw invalid('invalid_silence', 'invalid silence', '(body)', 'a JSON object');
    }
    const r = await (await engine()).addSilence(body);
    if ('problems' in r) throw new HttpError(400, 'invalid_silence', 'invalid silence', {}, r.problems);
    return json(201, { silence: r.silence });
  });

  router.addRoute('GET', '/api/v1/silences/:id', async (ctx) => {
    const id = ctx.params['id'] ?? '';
    const s = (await engine()).silence(id);
    if (!s) throw new HttpError(404, 'not_found', `no silence ${id}`);
    return json(200, { silence: s });
  });

  router.addRoute('DELETE', '/api/v1/silences/:id', async (ctx) => {
    const id = ctx.params['id'] ?? '';
    const r = await (await engine()).expireSilence(id);
    if ('silence' in r) return json(200, { silence: r.silence });
    if (r.error === 'not_found') throw new HttpError(404, 'not_found', `no silence ${id}`);
    if (r.error === 'config') {
      throw new HttpError(409, 'conflict', `silence ${id} is defined in the config file; remove it there`);
    }
    throw new HttpError(409, 'conflict', `silence ${id} has already expired`);
  });

  router.addRoute('GET', '/api/v1/maintenance', async () =>
    json(200, { maintenance: (await engine()).maintenance() }),
  );
}
