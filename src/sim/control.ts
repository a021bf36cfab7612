/**
 * The control surface under `/_sim/` (no token, no rate limit, not logged): the
 * ground-truth change log, the request log, styles, faults, the rate limit, and the
 * triggers that make specific changes happen. Bodies are plain JSON, never styled.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChangesPage } from './changes.js';
import { badRequest, notFound, SimConfigError, SimRequestError } from './errors.js';
import { TRIGGER_ROUTES, type TriggerName, type TriggerResult } from './triggers.js';
import type { FaultSpec, RequestLogEntry, SimStyle } from './types.js';

const MAX_BODY = 1024 * 1024;

/** What the control surface works with (the Simulator provides it). */
export interface ControlDeps {
  changes(since: number, org: string | undefined, limit: number): ChangesPage;
  requests(since: number): RequestLogEntry[];
  resetRequests(): void;
  style(): SimStyle;
  setStyle(style: Partial<SimStyle>): SimStyle;
  faults(): FaultSpec[];
  setFaults(faults: FaultSpec | FaultSpec[] | null): FaultSpec[];
  rateLimit(): number;
  setRateLimit(perMinute: number | undefined, reset: boolean): number;
  status(): Record<string, unknown>;
  /** What the API shows of an org now in the canonical shape, whatever the dialect (ground truth). */
  world(org: string): unknown;
  /** The incidents played so far (ground truth, times on the clock's time line). */
  incidents(): Record<string, unknown>[];
  trigger(name: TriggerName, input: unknown): TriggerResult;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SimRequestError(413, 'too_large', `body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
}

function intParam(q: URLSearchParams, name: string, fallback: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be a non-negative integer`);
  return Number(raw);
}

function methodNotAllowed(allow: string): SimRequestError & { allow: string } {
  return Object.assign(new SimRequestError(405, 'method_not_allowed', `use ${allow}`), { allow });
}

/** Every route, for `GET /_sim/`. */
function index(): Record<string, unknown> {
  return {
    routes: {
      'GET /_sim/changes?since=&org=&limit=': 'ground-truth change log',
      'GET /_sim/requests?since=': 'request log of the API',
      'POST /_sim/reset-requests': 'empty the request log',
      'GET|POST /_sim/style': 'envelope, paging, pageSize, fieldCase',
      'GET|POST /_sim/faults': 'fault rules (POST replaces them; [] clears)',
      'GET|POST /_sim/rate-limit': '{ perMinute?, reset? }',
      'GET /_sim/status': 'clock, simulated time and counts',
      'GET /_sim/world?org=': 'ground truth of one org in the canonical shape, whatever the dialect',
      'GET /_sim/incidents': 'incidents played so far (ground truth)',
      ...Object.fromEntries([...TRIGGER_ROUTES.keys()].map((r) => [`POST /_sim/${r}`, 'trigger'])),
    },
  };
}

async function dispatch(req: IncomingMessage, url: URL, deps: ControlDeps): Promise<unknown> {
  const name = url.pathname.replace(/^\/_sim\/?/, '').replace(/\/+$/, '');
  const method = req.method ?? 'GET';
  const q = url.searchParams;
  const getOnly = () => {
    if (method !== 'GET') throw methodNotAllowed('GET');
  };
  const postOnly = () => {
    if (method !== 'POST') throw methodNotAllowed('POST');
  };
  switch (name) {
    case '':
      getOnly();
      return index();
    case 'changes':
      getOnly();
      return deps.changes(intParam(q, 'since', 0), q.get('org') ?? undefined, intParam(q, 'limit', 100_000));
    case 'requests':
      getOnly();
      return { requests: deps.requests(intParam(q, 'since', 0)) };
    case 'reset-requests':
      postOnly();
      deps.resetRequests();
      return { ok: true };
    case 'status':
      getOnly();
      return deps.status();
    case 'world': {
      getOnly();
      const org = q.get('org');
      if (org === null || org === '') throw badRequest('org is required');
      return deps.world(org);
    }
    case 'incidents':
      getOnly();
      return { incidents: deps.incidents() };
    case 'style':
      if (method === 'GET') return { style: deps.style() };
      postOnly();
      return { style: deps.setStyle((await readJson(req)) as Partial<SimStyle>) };
    case 'faults': {
      if (method === 'GET') return { faults: deps.faults() };
      postOnly();
      const body = (await readJson(req)) as { faults?: unknown };
      const specs =
        body !== null && typeof body === 'object' && !Array.isArray(body) && 'faults' in body
          ? body.faults
          : body;
      return { faults: deps.setFaults(specs as FaultSpec[]) };
    }
    case 'rate-limit': {
      if (method === 'GET') return { perMinute: deps.rateLimit() };
      postOnly();
      const body = (await readJson(req)) as { perMinute?: number; reset?: boolean };
      return { perMinute: deps.setRateLimit(body.perMinute, body.reset === true) };
    }
    default: {
      const trigger = TRIGGER_ROUTES.get(name);
      if (trigger === undefined) throw notFound(`control route /_sim/${name}`);
      postOnly();
      return deps.trigger(trigger, await readJson(req));
    }
  }
}

/** Answers one request under `/_sim/`. */
export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ControlDeps,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  try {
    send(res, 200, await dispatch(req, url, deps));
  } catch (err) {
    if (err instanceof SimRequestError) {
      const headers: Record<string, string> = 'allow' in err ? { allow: String(err.allow) } : {};
      send(res, err.status, { error: { code: err.code, message: err.message } }, headers);
    } else if (err instanceof SimConfigError) {
      send(res, 400, { error: { code: 'invalid_request', message: err.message } });
    } else {
      throw err;
    }
  }
}
