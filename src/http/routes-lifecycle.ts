/**
 * `POST /-/reload`: reads the config file again and applies it, the same path as SIGHUP.
 * A config that cannot be read or is invalid keeps the running one and answers 400.
 */
import { HttpError, json } from './reply.js';
import type { Router } from './router.js';

/** What a reload came to. */
export type ReloadOutcome = { ok: true } | { ok: false; error: string };

/** Reloads the config, or is absent when there is no config file to read again. */
export type Reload = () => Promise<ReloadOutcome>;

/** Adds `POST /-/reload`; without a `reload` it answers 501. */
export function addLifecycleRoutes(router: Router, reload: Reload | undefined): void {
  router.addRoute('POST', '/-/reload', async () => {
    if (!reload) throw new HttpError(501, 'not_supported', 'no config file to reload');
    const r = await reload();
    if (!r.ok) throw new HttpError(400, 'invalid_config', r.error);
    return json(200, { status: 'reloaded' });
  });
}
