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
      const state = source.state?.();
      if (state !== undefined && !state.writable) {
        // Public: the reason, never the paths or the error text.
        const message =
          state.lock.problem !== undefined && !state.lock.held
            ? 'the state directory lock is lost'
            : 'the state directory cannot be written';
        return json(503, { error: { code: 'not_ready', message } });
      }
      const orgs = source.orgs();
      if (source.ready()) {
        // Ready, but blind to a field a decision depends on, or with lists not read for too
        // long: said, without naming orgs (public).
        const degraded = degradedFields(orgs);
        const stale = orgs.reduce((n, o) => n + (o.health.stale?.length ?? 0), 0);
        const of = orgs.filter((o) => o.health.state === 'stale').length;
        return json(200, {
          status: 'ready',
          ...(degraded.length > 0 ? { degraded } : {}),
          ...(stale > 0
            ? {
                stale: `${stale} list${stale === 1 ? '' : 's'} of ${of} org${of === 1 ? '' : 's'} not read for longer than 3 intervals`,
              }
            : {}),
        });
      }
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

/** `endpoint field` of every field blind in some org now, once each, sorted (no org named). */
function degradedFields(orgs: ReturnType<StatusSource['orgs']>): string[] {
  const fields = new Set(orgs.flatMap((o) => (o.degraded ?? []).map((d) => `${d.endpoint} ${d.field}`)));
  return [...fields].sort();
}

/** Current channels whose session list has not been read completely yet. */
function unreadChannels(s: OrgSnapshot): number {
  if (s.channels?.state !== 'complete') return 0;
  return s.channels.value.filter((c) => s.sessions[c.id]?.state !== 'complete').length;
}
