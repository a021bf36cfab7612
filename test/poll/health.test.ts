import { describe, expect, it } from 'vitest';
import { type HealthOptions, type HealthState, UpstreamHealth } from '../../src/poll/health.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const S = 1000;

/** One fetch outcome: `ok`, or a failure with its reason, `s` seconds after T0. */
type Step = [s: number, outcome: 'ok' | string];

/** Feeds the steps in order; returns each event as `kind from→to @s` and the final state. */
function run(steps: readonly Step[], opts?: HealthOptions): { events: string[]; state: HealthState } {
  const h = new UpstreamHealth('acme', opts);
  const events: string[] = [];
  for (const [s, outcome] of steps) {
    const at = T0 + s * S;
    const e =
      outcome === 'ok' ? h.success(at) : h.failure(at, { reason: outcome, message: `${outcome} at ${s}` });
    if (e) events.push(`${e.kind} ${String(e.from)}→${String(e.to)} @${(e.at - T0) / S}`);
  }
  return { events, state: h.state };
}

describe('UpstreamHealth', () => {
  it.each<[name: string, steps: Step[], events: string[], state: HealthState, opts?: HealthOptions]>([
    ['starts unknown', [], [], 'unknown'],
    ['a first success is no event', [[0, 'ok']], [], 'ok'],
    [
      'a refused token fails auth at once',
      [[0, 'auth']],
      ['upstream.auth_failed unknown→auth_failed @0'],
      'auth_failed',
    ],
    [
      'a refused token after success',
      [
        [0, 'ok'],
        [5, 'auth'],
      ],
      ['upstream.auth_failed ok→auth_failed @5'],
      'auth_failed',
    ],
    [
      'a token refused again is one event, not one per fetch',
      [
        [0, 'auth'],
        [1, 'auth'],
        [2, 'auth'],
      ],
      ['upstream.auth_failed unknown→auth_failed @0'],
      'auth_failed',
    ],
    [
      'the token working again is recovered',
      [
        [0, 'ok'],
        [1, 'auth'],
        [2, 'auth'],
        [3, 'ok'],
        [4, 'ok'],
      ],
      ['upstream.auth_failed ok→auth_failed @1', 'upstream.recovered auth_failed→ok @3'],
      'ok',
    ],
    [
      'transport failures while the token is refused change nothing',
      [
        [0, 'auth'],
        [1, 'timeout'],
        [2, 'network'],
        [3, 'http_5xx'],
        [200, 'timeout'],
      ],
      ['upstream.auth_failed unknown→auth_failed @0'],
      'auth_failed',
    ],
    [
      'a refused token while unreachable is reported',
      [
        [0, 'network'],
        [1, 'network'],
        [2, 'network'],
        [3, 'auth'],
        [4, 'ok'],
      ],
      [
        'upstream.unreachable unknown→unreachable @2',
        'upstream.auth_failed unreachable→auth_failed @3',
        'upstream.recovered auth_failed→ok @4',
      ],
      'ok',
    ],
    [
      'two failures in a row are not yet an outage',
      [
        [0, 'ok'],
        [1, 'timeout'],
        [2, 'http_5xx'],
      ],
      [],
      'ok',
    ],
    [
      'the third failure in a row is',
      [
        [0, 'ok'],
        [1, 'timeout'],
        [2, 'http_5xx'],
        [3, 'network'],
        [4, 'network'],
      ],
      ['upstream.unreachable ok→unreachable @3'],
      'unreachable',
    ],
    [
      'a success in between starts the count again',
      [
        [1, 'timeout'],
        [2, 'timeout'],
        [3, 'ok'],
        [4, 'timeout'],
        [5, 'timeout'],
      ],
      [],
      'ok',
    ],
    [
      'two failures 119 s apart are not yet an outage',
      [
        [0, 'ok'],
        [10, 'timeout'],
        [129, 'rate_limited'],
      ],
      [],
      'ok',
    ],
    [
      'failing for the grace period (2 min) is an outage, however few the failures',
      [
        [0, 'ok'],
        [10, 'timeout'],
        [130, 'rate_limited'],
      ],
      ['upstream.unreachable ok→unreachable @130'],
      'unreachable',
    ],
    [
      'a success resets the grace period',
      [
        [0, 'timeout'],
        [100, 'ok'],
        [110, 'timeout'],
        [200, 'timeout'],
      ],
      [],
      'ok',
    ],
    [
      'recovery from an outage',
      [
        [0, 'timeout'],
        [1, 'timeout'],
        [2, 'timeout'],
        [3, 'timeout'],
        [9, 'ok'],
        [10, 'timeout'],
        [11, 'timeout'],
      ],
      ['upstream.unreachable unknown→unreachable @2', 'upstream.recovered unreachable→ok @9'],
      'ok',
    ],
    [
      'answers that are merely odd say nothing about reachability',
      [
        [0, 'ok'],
        ...(['schema', 'paging', 'not_found', 'http_4xx', 'oversized', 'cross_origin'] as const).flatMap(
          (r, i): Step[] => [
            [1 + 2 * i, r],
            [200 + 2 * i, r],
          ],
        ),
      ],
      [],
      'ok',
    ],
    [
      'a server that refuses a query (400/422) answered: no outage however long it refuses',
      [
        [0, 'ok'],
        [1, 'http_4xx'],
        [2, 'http_4xx'],
        [3, 'http_4xx'],
        [4, 'http_4xx'],
        [200, 'http_4xx'],
        [400, 'http_4xx'],
      ],
      [],
      'ok',
    ],
    [
      'refused queries neither start an outage nor end one, nor a refused token',
      [
        [0, 'http_4xx'],
        [1, 'http_4xx'],
        [2, 'http_4xx'],
        [3, 'timeout'],
        [4, 'http_4xx'],
        [5, 'timeout'],
        [6, 'http_4xx'],
        [7, 'timeout'],
        [8, 'http_4xx'],
        [9, 'auth'],
        [10, 'http_4xx'],
      ],
      ['upstream.unreachable unknown→unreachable @7', 'upstream.auth_failed unreachable→auth_failed @9'],
      'auth_failed',
    ],
    [
      '429s and 5xx still count towards an outage, as before',
      [
        [0, 'ok'],
        [1, 'rate_limited'],
        [2, 'http_4xx'],
        [3, 'http_5xx'],
        [4, 'http_4xx'],
        [5, 'rate_limited'],
      ],
      ['upstream.unreachable ok→unreachable @5'],
      'unreachable',
    ],
    [
      'odd answers neither count towards an outage nor end it',
      [
        [0, 'timeout'],
        [1, 'schema'],
        [2, 'timeout'],
        [3, 'paging'],
        [4, 'timeout'],
        [5, 'schema'],
      ],
      ['upstream.unreachable unknown→unreachable @4'],
      'unreachable',
    ],
    [
      'a lower threshold',
      [
        [0, 'ok'],
        [1, 'timeout'],
      ],
      ['upstream.unreachable ok→unreachable @1'],
      'unreachable',
      { failures: 1 },
    ],
    [
      'a shorter grace period',
      [
        [0, 'timeout'],
        [5, 'timeout'],
      ],
      ['upstream.unreachable unknown→unreachable @5'],
      'unreachable',
      { failures: 10, graceMs: 5_000 },
    ],
    [
      'a longer grace period',
      [
        [0, 'timeout'],
        [200, 'timeout'],
      ],
      [],
      'unknown',
      { failures: 10, graceMs: 300_000 },
    ],
  ])('%s', (_name, steps, events, state, opts) => {
    expect(run(steps, opts)).toEqual({ events, state });
  });

  describe('with reads that overlap', () => {
    const fail = (h: UpstreamHealth, at: number, ticket: number) =>
      h.failure(T0 + at * S, { reason: 'timeout', message: 'GET /v1/acme: timeout' }, ticket)?.kind;

    it('does not count failures of reads sent before a success arrived', () => {
      const h = new UpstreamHealth('acme');
      const [a, b, c] = [h.begin(), h.begin(), h.begin()];
      expect([fail(h, 1, a), fail(h, 2, b), fail(h, 3, c)]).toEqual([
        undefined,
        undefined,
        'upstream.unreachable',
      ]);
      // Four reads go out while the API hangs; it answers again and the newest read succeeds.
      const inFlight = [h.begin(), h.begin(), h.begin()];
      expect(h.success(T0 + 4 * S, h.begin())?.kind).toBe('upstream.recovered');
      // The three older reads time out afterwards: stale news, no second outage.
      expect(inFlight.map((t, i) => fail(h, 5 + i, t))).toEqual([undefined, undefined, undefined]);
      expect(h.state).toBe('ok');
      // Reads sent after the success that fail do count.
      expect([fail(h, 9, h.begin()), fail(h, 10, h.begin()), fail(h, 11, h.begin())]).toEqual([
        undefined,
        undefined,
        'upstream.unreachable',
      ]);
    });

    it('does not end an outage with a late answer to a read sent before it was declared', () => {
      const h = new UpstreamHealth('acme');
      const early = h.begin();
      for (let i = 0; i < 3; i++) fail(h, i, h.begin());
      expect(h.state).toBe('unreachable');
      expect(h.success(T0 + 4 * S, early)).toBeUndefined();
      expect(h.state).toBe('unreachable');
      expect(h.lastSuccessAt).toBe(T0 + 4 * S);
      expect(h.success(T0 + 5 * S, h.begin())?.kind).toBe('upstream.recovered');
    });

    it('does not end a refused token with a late answer either', () => {
      const h = new UpstreamHealth('acme');
      const early = h.begin();
      expect(h.failure(T0, { reason: 'auth', message: '401' }, h.begin())?.kind).toBe('upstream.auth_failed');
      expect(h.success(T0 + S, early)).toBeUndefined();
      expect(h.state).toBe('auth_failed');
    });
  });

  it('builds events about the org, with the cause of a failure and none on recovery', () => {
    const h = new UpstreamHealth('acme');
    const failed = h.failure(T0, { reason: 'auth', message: 'GET /v1/acme: 401 token expired or revoked' });
    const recovered = h.success(T0 + S);
    expect(failed).toEqual<ChangeEvent>({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      at: T0,
      org: 'acme',
      kind: 'upstream.auth_failed',
      entity: { kind: 'upstream', id: 'acme' },
      field: 'health',
      from: 'unknown',
      to: 'auth_failed',
      labels: { reason: 'auth', error: 'GET /v1/acme: 401 token expired or revoked' },
    });
    expect(recovered).toMatchObject({
      kind: 'upstream.recovered',
      at: T0 + S,
      from: 'auth_failed',
      to: 'ok',
    });
    expect(recovered!.labels).toEqual({});
    expect(recovered!.id).not.toBe(failed!.id);
  });

  it('gives the same event the same id, and another org another id', () => {
    const id = (org: string, at: number) =>
      new UpstreamHealth(org).failure(at, { reason: 'auth', message: 'x' })!.id;
    expect(id('acme', T0)).toBe(id('acme', T0));
    expect(id('acme', T0)).not.toBe(id('beta', T0));
    expect(id('acme', T0)).not.toBe(id('acme', T0 + 1));
  });

  it('keeps the last success time and the last error for status pages', () => {
    const h = new UpstreamHealth('acme');
    expect([h.lastSuccessAt, h.lastError]).toEqual([undefined, undefined]);
    h.success(T0);
    h.failure(T0 + S, { reason: 'schema', message: 'field x' });
    h.failure(T0 + 2 * S, { reason: 'timeout', message: 'GET /v1/acme: timeout' });
    expect(h.lastSuccessAt).toBe(T0);
    expect(h.lastError).toEqual({ reason: 'timeout', message: 'GET /v1/acme: timeout' });
    h.success(T0 + 3 * S);
    expect(h.lastSuccessAt).toBe(T0 + 3 * S);
  });
});
