/**
 * Liveness and readiness. Both are public (never behind auth) so that orchestrators can
 * probe them. Liveness answers while the process serves and never looks at the upstream
 * (docs/architecture.md, invariant 7); readiness waits for the first complete read of every org and
 * says why not without naming orgs, since it is public.
 */
import type { StatusSource } from '../core/status.js';
import { json } from './reply.js';
import type { Router } from './router.js';

/** Adds `/-/healthy` and `/-/ready`. */
export function addHealthRoutes(router: Router, source: StatusSource): void {
  router.addRoute('GET', '/-/healthy', () => json(200, { status: 'healthy' }), { public: true });
  router.addRoute(
    'GET',
    '/-/ready',
    () => {
      if (source.ready()) return json(200, { status: 'ready' });
      const orgs = source.orgs();
      const waiting = orgs.filter((o) => !o.ready).length;
      const message =
        waiting > 0
          ? `${waiting} of ${orgs.length} org${orgs.length === 1 ? '' : 's'} not read completely yet`
          : 'starting';
      return json(503, { error: { code: 'not_ready', message } });
    },
    { public: true },
  );
}
