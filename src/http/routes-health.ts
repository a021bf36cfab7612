/**
 * Liveness and readiness. Both are public (never behind auth) so that orchestrators can
 * probe them. Liveness answers while the process serves and never looks at the upstream
 * (docs/architecture.md, invariant 7); readiness waits for the first complete read of every org and
 * says why not without naming orgs, since it is public.
 */
import type { StatusSource } from '../poll/status.js';
import type { OrgSnapshot } from '../snapshot/model.js';
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
      const unread = orgs.reduce((n, o) => n + unreadChannels(o.snapshot), 0);
      const message =
        waiting > 0
          ? `${waiting} of ${orgs.length} org${orgs.length === 1 ? '' : 's'} not read completely yet`
          : unread > 0
            ? `first baseline: the sessions of ${unread} channel${unread === 1 ? '' : 's'} not read yet`
            : 'starting';
      return json(503, { error: { code: 'not_ready', message } });
    },
    { public: true },
  );
}

/** Current channels whose session list has not been read completely yet. */
function unreadChannels(s: OrgSnapshot): number {
  if (s.channels?.state !== 'complete') return 0;
  return s.channels.value.filter((c) => s.sessions[c.id]?.state !== 'complete').length;
}
