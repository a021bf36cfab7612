/**
 * tally's HTTP surface, every route in one place: `/metrics`, health, readiness, the JSON
 * API (status, snapshots, events, alerts, silences, maintenance), reload and the status
 * page. See docs/http-api.md.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { StatusSource } from '../poll/status.js';
import { VERSION } from '../core/version.js';
import { authFromConfig, type ServerAuthSection } from './auth.js';
import { addAlertRoutes, type EngineSource } from './routes-alerts.js';
import { addApiRoutes } from './routes-api.js';
import { addEventsRoute } from './routes-events.js';
import { addHealthRoutes } from './routes-health.js';
import { addLifecycleRoutes, type Reload } from './routes-lifecycle.js';
import { addMetricsRoute, type MetricsRenderer } from './routes-metrics.js';
import { Router } from './router.js';
import { HttpServer } from './server.js';
import { addStatusPageRoutes, type OutboxView } from './status-page/index.js';

export {
  type AccessDecision,
  type AccessPolicy,
  Authenticator,
  authFromConfig,
  checkAccess,
  ENABLE_WRITES_HINT,
  type HttpAuthConfig,
  type RouteAccess,
} from './auth.js';
export { DEFAULT_MAX_BODY_BYTES, readJsonBody } from './body.js';
export { errorReply, HttpError, type HttpReply, JSON_TYPE, json } from './reply.js';
export type { EngineSource } from './routes-alerts.js';
export type { Reload, ReloadOutcome } from './routes-lifecycle.js';
export type { MetricsRenderer } from './routes-metrics.js';
export type { OutboxView } from './status-page/index.js';
export { type Handler, type RequestContext, type RouteOptions, Router, routeAccess } from './router.js';
export { HttpServer, parseListen } from './server.js';

/** What {@link createHttpServer} needs. */
export interface HttpDeps {
  /** The `server` config section (secrets already read from their files). */
  server: {
    listen: string;
    auth?: ServerAuthSection | undefined;
    enable_writes?: boolean | undefined;
    /** `server.connections` (durations in ms); absent → the defaults of server.ts. */
    connections?:
      | { max: number; headers_timeout: number; request_timeout: number; keep_alive_timeout: number }
      | undefined;
  };
  source: StatusSource;
  metrics: MetricsRenderer;
  clock: Clock;
  logger: Logger;
  version?: string;
  /** The alert engine behind `/api/v1/alerts`, silences and maintenance; absent → no such routes. */
  alerts?: EngineSource;
  /** Reloads the config for `POST /-/reload`; absent → 501. */
  reload?: Reload;
  /** The delivery side for the status page's outbox panel. */
  outbox?: () => OutboxView | undefined;
}

/** Builds the server with every built-in route; call `listen()` to start it. */
export function createHttpServer(deps: HttpDeps): HttpServer {
  const version = deps.version ?? VERSION;
  const router = new Router();
  addStatusPageRoutes(router, {
    source: deps.source,
    version,
    now: () => deps.clock.now(),
    ...(deps.alerts ? { alerts: deps.alerts } : {}),
    ...(deps.outbox ? { outbox: deps.outbox } : {}),
  });
  addMetricsRoute(router, deps.metrics);
  addHealthRoutes(router, deps.source);
  addApiRoutes(router, deps.source, deps.clock, version);
  addEventsRoute(router, deps.source);
  if (deps.alerts) addAlertRoutes(router, deps.alerts);
  addLifecycleRoutes(router, deps.reload);
  return new HttpServer({
    listen: deps.server.listen,
    router,
    auth: authFromConfig(deps.server.auth),
    enableWrites: deps.server.enable_writes,
    logger: deps.logger,
    ...(deps.server.connections
      ? {
          maxConnections: deps.server.connections.max,
          timeouts: {
            headersMs: deps.server.connections.headers_timeout,
            requestMs: deps.server.connections.request_timeout,
            keepAliveMs: deps.server.connections.keep_alive_timeout,
          },
        }
      : {}),
  });
}
