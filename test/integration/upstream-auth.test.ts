/**
 * A refused token, end to end through the real App against the simulator: 401 or 403
 * becomes one `upstream.auth_failed` of that org (not an outage, not a data change, not
 * one event per refused fetch), and once the simulator accepts the same token again,
 * one `upstream.recovered`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator, type TokenSpec } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { dataEvents, startTally, type Tally, tempDir, until } from '../resilience/helpers.js';

const DAY = 86_400_000;

let sim: Simulator | undefined;
let tally: Tally | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  await cleanup?.();
  tally = undefined;
  sim = undefined;
  cleanup = undefined;
});

/** How the simulator refuses `demo-token` for org demo at first. */
type Row = [name: string, status: 401 | 403, refused: () => TokenSpec[]];

const ROWS: Row[] = [
  ['a revoked token', 401, () => [{ value: 'someone-elses', org: 'demo', label: 'other' }]],
  [
    'an expired token',
    401,
    () => [
      { value: 'demo-token', org: 'demo', label: 'monthly', validity: 30, createdAt: Date.now() - 31 * DAY },
    ],
  ],
  ['a token of another org', 403, () => [{ value: 'demo-token', org: 'other', label: 'wrong-org' }]],
];

const upstreamKinds = (events: readonly ChangeEvent[]) =>
  events.filter((e) => e.entity.kind === 'upstream').map((e) => `${e.org} ${e.kind}`);

describe.each(ROWS)('upstream refuses %s', (_name, status, refused) => {
  it(`reports ${status} as auth_failed of the org once, and recovered when the token works again`, async () => {
    const tmp = await tempDir('auth');
    cleanup = tmp.remove;
    sim = await startSimulator({
      orgs: ['demo', 'other'],
      channels: 2,
      sessionsPerChannel: 2,
      frozen: true,
      tokens: refused(),
    });
    const s = sim;
    tally = await startTally({ sim: s, stateDir: tmp.dir });
    const t = tally;
    const health = () => t.app.orgs().find((o) => o.slug === 'demo')?.health;

    await until(() => t.events.some((e) => e.kind === 'upstream.auth_failed'), 'upstream.auth_failed');
    const failed = t.events.find((e) => e.kind === 'upstream.auth_failed')!;
    expect(failed).toMatchObject({
      org: 'demo',
      entity: { kind: 'upstream', id: 'demo' },
      from: 'unknown',
      to: 'auth_failed',
      labels: { reason: 'auth', error: expect.stringContaining(String(status)) },
    });
    // Keep being refused for a while: still one event, no outage (however many failures
    // in a row), no data change.
    const refusedSoFar = () => s.requests().filter((r) => r.org === 'demo' && r.status === status).length;
    const seen = refusedSoFar();
    // The channel list is read every 2 s: three more refusals take about 6 s.
    await until(() => refusedSoFar() >= seen + 3, 'more refused requests', 10_000);
    expect(upstreamKinds(t.events)).toEqual(['demo upstream.auth_failed']);
    expect(dataEvents(t.events)).toEqual([]);
    expect(health()?.state).toBe('auth_failed');
    // Every request was refused the way this row says, and nothing but that org was read.
    const before = s.requests();
    expect(new Set(before.map((r) => `${r.org} ${r.status}`))).toEqual(new Set([`demo ${status}`]));

    const lastRefused = before.at(-1)!.seq;
    s.setTokens([{ value: 'demo-token', org: 'demo', label: 'reissued' }]);
    await until(() => t.events.some((e) => e.kind === 'upstream.recovered'), 'upstream.recovered');
    expect(upstreamKinds(t.events)).toEqual(['demo upstream.auth_failed', 'demo upstream.recovered']);
    const recovered = t.events.find((e) => e.kind === 'upstream.recovered')!;
    expect(recovered).toMatchObject({ org: 'demo', from: 'auth_failed', to: 'ok', labels: {} });
    expect(recovered.at).toBeGreaterThan(failed.at);
    expect(health()?.state).toBe('ok');
    // What ended it was the simulator answering the same token: a 200 read with it.
    const after = s.requests(lastRefused);
    expect(after.some((r) => r.status === 200 && r.tokenLabel === 'reissued')).toBe(true);
  }, 40_000);
});
