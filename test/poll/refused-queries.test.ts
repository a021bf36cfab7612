/**
 * A server that answers every request but refuses the session list's query (400/422) is
 * reachable: its reads fail as refused queries (fatal drift `query_refused`), never as an
 * outage, so no `upstream.unreachable` / `upstream.recovered` pair comes of it; and the
 * safer queries are climbed once, then two requests a read until the refusals teach, then
 * none until the refusal's wait is over.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { OrgPoller } from '../../src/poll/org-poller.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { emptySnapshot } from '../../src/snapshot/model.js';
import { MAX_ADAPTATIONS, QueryMemory } from '../../src/upstream/query/adapt.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { ManualClock } from '../helpers/clock.js';
import { clientOptions, json, type Loopback, startServer } from '../upstream/loopback.js';

const ACME = { slug: 'acme', token: 'tok-refused-0001' };
const CHANNELS = Array.from({ length: 7 }, (_, i) => ({ id: `c${i}`, name: `C${i}`, status: 'offline' }));

let server: Loopback | undefined;
let client: UpstreamClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = undefined;
  client = undefined;
});

/** Answers the org, its team, subscription and channels; refuses every session query with `status`. */
function refusingSessions(status: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v1/acme') return json(res, 200, { slug: 'acme', name: 'Acme', plan: 'pro' });
    if (path === '/v1/acme/team') return json(res, 200, { data: [{ id: 'u1', role: 'owner' }] });
    if (path === '/v1/acme/subscription') return json(res, 200, { plan: 'pro', limits: { channels: 10 } });
    if (path === '/v1/acme/channels') return json(res, 200, { data: CHANNELS });
    if (path.endsWith('/sessions')) return json(res, status, { detail: 'bad request' });
    json(res, 404, { detail: 'not found' });
  };
}

describe('an org whose server refuses the session query', () => {
  it.each([400, 422])(
    'stays reachable through minutes of %i answers: no unreachable, no recovered',
    async (status) => {
      server = await startServer(refusingSessions(status));
      const clock = new ManualClock();
      client = new UpstreamClient(
        clientOptions(server.origin, silentLogger(), { clock, memory: new QueryMemory() }),
      );
      const events: ChangeEvent[] = [];
      const signal = new AbortController().signal;
      const p = new OrgPoller(ACME, undefined, emptySnapshot('acme', clock.now()), {
        fetcher: client,
        clock,
        logger: silentLogger(),
        diff: (a, b) => diff(a, b),
        window: { past: 86_400_000, future: 7 * 86_400_000 },
        onUpdate: (_s, e) => events.push(...e),
        perPage: 100,
        signal,
      });
      for (const part of ['profile', 'team', 'subscription', 'channels'] as const)
        await p.refresh(part, signal);
      // Ten rounds of every channel's sessions, 15 s apart: 70 refused reads over 2.5 minutes,
      // well past the three failures in a row and the two minutes an outage takes.
      const sessionRequests = () => server!.received.filter((r) => r.url.includes('/sessions')).length;
      const perRound: number[] = [];
      for (let round = 0; round < 10; round++) {
        const before = sessionRequests();
        for (const c of CHANNELS) await p.readSessions(c.id, 'low', signal, true);
        perRound.push(sessionRequests() - before);
        await clock.tick(15_000);
      }
      expect(p.health.state).toBe('ok');
      expect(p.health.lastError).toMatchObject({ reason: 'http_4xx' });
      expect(events.filter((e) => e.kind.startsWith('upstream.'))).toEqual([]);
      const sessions = p.snapshot().sessions;
      expect(Object.values(sessions).every((s) => s.state === 'failed')).toBe(true);
      // Until the refusals teach (reads refused over two minutes: query/evidence.ts), every
      // read is sent: the safer queries were climbed once, by the first read; later reads ask
      // their own query, then where the last one got to (two requests each). From the round
      // at two minutes on, reads wait for the refusal's wait (5 minutes): no budget burnt.
      expect(perRound.slice(0, 8).every((n) => n > 0)).toBe(true);
      expect(perRound[0]).toBeLessThanOrEqual(1 + MAX_ADAPTATIONS + 2 * (CHANNELS.length - 1));
      expect(perRound.slice(1, 8).every((n) => n <= 2 * CHANNELS.length)).toBe(true);
      expect(perRound[8]).toBeLessThanOrEqual(2);
      expect(perRound[9]).toBe(0);
      expect(client.memory.get('acme', 'sessions')?.refused).toBe(true);
    },
  );
});
