/**
 * A field a decision depends on, unreadable on most records of a list (docs/upstream-shapes.md,
 * "Blindness is loud"), is shown by `/-/ready` (endpoint and field, no org), the status API and
 * the status page.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { Router } from '../../src/http/router.js';
import { addApiRoutes } from '../../src/http/routes-api.js';
import { addHealthRoutes } from '../../src/http/routes-health.js';
import { addStatusPageRoutes } from '../../src/http/status-page/index.js';
import { FakeSource, orgView, snapshot } from '../metrics/fixtures.js';

const AT = 1_700_000_000_000;
const PROBLEM = 'unreadable on most records of the list (more than half): not counted in the window';

function source(degraded: boolean): FakeSource {
  const snap = snapshot({ org: 'acme', at: AT, channels: [{ id: 'c1', status: 'idle' }] });
  return new FakeSource([
    orgView(snap, {
      degraded: degraded
        ? [{ endpoint: 'sessions', field: 'session.times', problem: PROBLEM, since: AT, lists: 3 }]
        : [],
    }),
  ]);
}

async function get(router: Router, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(`http://x${path}`);
  const m = router.match('GET', url.pathname);
  if (m.kind !== 'found') throw new Error(`no route ${path}`);
  const reply = await m.handler({
    method: 'GET',
    url,
    params: m.params ?? {},
    query: url.searchParams,
    headers: {},
    req: undefined as never,
    json: async () => undefined as never,
  });
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  return { status: reply.status, body };
}

describe('degraded fields', () => {
  it('/-/ready says which endpoint and field, naming no org; nothing when all is read', async () => {
    for (const degraded of [true, false]) {
      const router = new Router();
      addHealthRoutes(router, source(degraded));
      const r = await get(router, '/-/ready');
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual(
        degraded ? { status: 'ready', degraded: ['sessions session.times'] } : { status: 'ready' },
      );
      expect(r.body).not.toContain('acme');
    }
  });

  it('the status API lists them per org', async () => {
    const router = new Router();
    addApiRoutes(router, source(true), new ManualClock(AT), '9.9.9');
    const r = await get(router, '/api/v1/status');
    const body = JSON.parse(r.body) as { orgs: { degraded: unknown[] }[] };
    expect(body.orgs[0]?.degraded).toEqual([
      {
        endpoint: 'sessions',
        field: 'session.times',
        problem: PROBLEM,
        lists: 3,
        since: new Date(AT).toISOString(),
      },
    ]);
  });

  it('the status page shows them', async () => {
    const router = new Router();
    addStatusPageRoutes(router, { source: source(true), version: '9.9.9', now: () => AT });
    const r = await get(router, '/');
    expect(r.body).toContain('<dt>degraded</dt>');
    expect(r.body).toContain('sessions session.times unreadable in 3 lists');
  });
});
