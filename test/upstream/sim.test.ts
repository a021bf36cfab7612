import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../src/core/clock.js';
import type { OrgSnapshot, Part } from '../../src/snapshot/model.js';
import {
  ENVELOPE_STYLES,
  FIELD_CASES,
  PAGING_STYLES,
  type RequestLogEntry,
  type Simulator,
  startSimulator,
} from '../../src/sim/index.js';
import { UpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import { captureLogger, clientOptions, watchUnhandled } from './loopback.js';

const unhandled = watchUnhandled();
afterAll(() => {
  unhandled.stop();
  expect(unhandled.errors).toEqual([]);
});

const logs = captureLogger();
const DAY = 86_400_000;

/** A clock whose time stands still (a frozen world), with real timers. */
function frozenClock(at: number): Clock {
  return { ...systemClock, now: () => at };
}

/** A clock running `factor` times faster than real time: a minute passes in 60/factor s. */
function fastClock(factor: number): Clock {
  const realStart = performance.now();
  const start = Date.now();
  return {
    now: () => start + (performance.now() - realStart) * factor,
    monotonic: () => performance.now() * factor,
    setTimeout: (fn, ms) => systemClock.setTimeout(fn, ms / factor),
    sleep: (ms, signal) => systemClock.sleep(ms / factor, signal),
  };
}

async function withClient<T>(
  sim: Simulator,
  over: Partial<UpstreamClientOptions>,
  fn: (c: UpstreamClient) => Promise<T>,
) {
  const c = new UpstreamClient(clientOptions(sim.url, logs.logger, over));
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

/** Settings keys are kept as the server spells them (they are data, like status words). */
function snakeSettings(p: OrgSnapshot['profile']): OrgSnapshot['profile'] {
  if (p === undefined || p.state === 'failed') return p;
  const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const settings = Object.fromEntries(Object.entries(p.value.settings).map(([k, v]) => [snake(k), v]));
  return { ...p, value: { ...p.value, settings } };
}

/** A snapshot without its fetch times, for comparing reads of the same world. */
function withoutTimes(s: OrgSnapshot): unknown {
  const strip = (p: Part<unknown> | undefined) => (p === undefined ? p : { ...p, at: 0 });
  return {
    ...s,
    takenAt: 0,
    profile: strip(snakeSettings(s.profile)),
    team: strip(s.team),
    subscription: strip(s.subscription),
    channels: strip(s.channels),
    sessions: Object.fromEntries(Object.entries(s.sessions).map(([k, p]) => [k, strip(p)])),
    details: Object.fromEntries(Object.entries(s.details).map(([k, p]) => [k, strip(p)])),
  };
}

function allParts(s: OrgSnapshot): Part<unknown>[] {
  return [
    s.profile!,
    s.team!,
    s.subscription!,
    s.channels!,
    ...Object.values(s.sessions),
    ...Object.values(s.details),
  ];
}

/** The most requests the log shows arriving in any window of `windowMs`. */
function maxInWindow(entries: readonly RequestLogEntry[], windowMs: number): number {
  const times = entries.map((e) => e.at).sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[j]! <= times[i]! - windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('against the simulator: every response style reads the same', () => {
  const NOW = Date.UTC(2026, 2, 2, 10, 0, 0);
  let sim: Simulator;
  let baseline: OrgSnapshot;
  const window = { from: NOW - DAY, to: NOW + 7 * DAY };
  const token = () => sim.tokens.find((t) => t.org === 'acme')!.value;
  const read = (c: UpstreamClient) => c.readAll({ slug: 'acme', token: token() }, { window });

  beforeAll(async () => {
    sim = await startSimulator({
      orgs: [{ slug: 'acme', channels: 5, members: 7, sessionsPerChannel: 6 }],
      seed: 11,
      clock: frozenClock(NOW),
      rateLimitPerMinute: 1_000_000,
      pageSize: 3,
    });
    sim.setStyle({ envelope: 'data', paging: 'none', fieldCase: 'snake' });
    baseline = await withClient(sim, {}, read);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('reads the baseline completely and as the world is', () => {
    expect(allParts(baseline).every((p) => p.state === 'complete')).toBe(true);
    const view = sim.view('acme');
    expect(baseline.channels?.state === 'complete' && baseline.channels.value).toHaveLength(
      view.channels.length,
    );
    expect(baseline.team?.state === 'complete' && baseline.team.value).toHaveLength(7);
    expect(Object.keys(baseline.sessions)).toHaveLength(5);
    expect(Object.keys(baseline.details).length).toBeGreaterThan(0);
  });

  const styles = ENVELOPE_STYLES.flatMap((envelope) =>
    PAGING_STYLES.flatMap((paging) => FIELD_CASES.map((fieldCase) => ({ envelope, paging, fieldCase }))),
  );
  it.each(styles)('$envelope envelope, $paging paging, $fieldCase case', async (style) => {
    sim.setStyle(style);
    sim.resetRequests();
    const snap = await withClient(sim, { shape: { perPage: 3 } }, read);
    expect(withoutTimes(snap)).toEqual(withoutTimes(baseline));
    if (style.paging !== 'none') {
      // The lists really were paged.
      expect(sim.requests().filter((r) => r.path === '/v1/acme/team').length).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('against the simulator: the budget and its rate limit', () => {
  it('never exceeds the budget at the rate limit and is never refused', async () => {
    const clock = fastClock(100); // a minute in 0.6 s
    const sim = await startSimulator({
      orgs: [{ slug: 'acme', channels: 40 }],
      seed: 5,
      clock,
      rateLimitPerMinute: 30,
    });
    try {
      const snap = await withClient(sim, { clock, budgetPerMinute: 30 }, (c) =>
        c.readAll({ slug: 'acme', token: 'acme-token' }),
      );
      const log = sim.requests();
      expect(log.length).toBeGreaterThan(45);
      expect(log.filter((r) => r.status === 429)).toEqual([]);
      expect(maxInWindow(log, 60_000)).toBeLessThanOrEqual(30);
      expect(allParts(snap).every((p) => p.state === 'complete')).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it('keeps to its own budget in every 60 s window when the server would allow more', async () => {
    const clock = fastClock(100);
    const budgetPerMinute = 20;
    const sim = await startSimulator({
      orgs: [{ slug: 'acme', channels: 50 }],
      seed: 5,
      clock,
      rateLimitPerMinute: 1_000_000,
    });
    try {
      const snap = await withClient(sim, { clock, budgetPerMinute }, (c) =>
        c.readAll({ slug: 'acme', token: 'acme-token' }),
      );
      const log = sim.requests();
      // More requests than one window allows: the budget, not the work, set the pace.
      expect(log.length).toBeGreaterThan(2 * budgetPerMinute);
      expect(maxInWindow(log, 60_000)).toBeLessThanOrEqual(budgetPerMinute);
      expect(allParts(snap).every((p) => p.state === 'complete')).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it('after a 429 sends nothing until the Retry-After the server sent has passed, within the budget', async () => {
    const clock = fastClock(100);
    const budgetPerMinute = 60; // more than the server allows: it will answer 429
    const sim = await startSimulator({
      orgs: [{ slug: 'acme', channels: 12 }],
      seed: 5,
      clock,
      rateLimitPerMinute: 8,
    });
    try {
      const snap = await withClient(
        sim,
        {
          clock,
          budgetPerMinute,
          concurrency: 1,
          retries: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 10 * 60_000 },
        },
        (c) => c.readAll({ slug: 'acme', token: 'acme-token' }),
      );
      // Only the simulator's own log is consulted: when each request arrived, and the
      // Retry-After it put on each 429.
      const log = sim.requests();
      const limited = log.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) {
        expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        const notBefore = r.at + r.retryAfterSeconds! * 1000;
        const early = log.filter((e) => e.seq > r.seq && e.at < notBefore);
        expect({ after: r.seq, early }).toEqual({ after: r.seq, early: [] });
      }
      // Requests did follow the pauses: the check above had something to hold against.
      expect(log.at(-1)!.seq).toBeGreaterThan(limited.at(-1)!.seq);
      expect(maxInWindow(log, 60_000)).toBeLessThanOrEqual(budgetPerMinute);
      expect(allParts(snap).every((p) => p.state === 'complete')).toBe(true);
    } finally {
      await sim.close();
    }
  });
});

describe('against the simulator: faults', () => {
  const NOW = Date.UTC(2026, 2, 2, 10, 0, 0);
  const window = { from: NOW - DAY, to: NOW + 7 * DAY };

  it('never sends anything to the other origin a link or redirect points at', async () => {
    const sim = await startSimulator({
      orgs: ['acme'],
      seed: 2,
      clock: frozenClock(NOW),
      pageSize: 3,
      rateLimitPerMinute: 1_000_000,
    });
    try {
      sim.setFaults([
        { path: '/channels$', crossOriginNextRate: 1 },
        { path: '/team$', redirectRate: 1 },
      ]);
      const snap = await withClient(sim, { shape: { perPage: 3 } }, (c) =>
        c.readAll({ slug: 'acme', token: 'acme-token' }, { window }),
      );
      expect(snap.channels).toMatchObject({ state: 'incomplete', error: { reason: 'cross_origin' } });
      expect(snap.team).toMatchObject({ state: 'failed', error: { reason: 'cross_origin' } });
      expect(sim.requests().filter((r) => r.origin === 'foreign')).toEqual([]);
    } finally {
      await sim.close();
    }
  });

  it('turns errors, resets, malformed and truncated pages into retries or incomplete parts, never a wrong one', async () => {
    const sim = await startSimulator({
      orgs: [{ slug: 'acme', channels: 10, members: 9 }],
      seed: 9,
      clock: frozenClock(NOW),
      rateLimitPerMinute: 1_000_000,
    });
    try {
      const read = (c: UpstreamClient) => c.readAll({ slug: 'acme', token: 'acme-token' }, { window });
      const truth = await withClient(sim, { shape: { perPage: 4 } }, read);
      // A page cut short is detectable where the server shows how much there is (totals,
      // has_more, a later rel="last"); a cut-short last page of a link-paged list is not.
      for (const [paging, truncateRate] of [
        ['link', 0],
        ['cursor', 0.15],
        ['pages', 0.15],
      ] as const) {
        sim.setFaults([
          { errorRate: 0.15, resetRate: 0.05, malformedRate: 0.05 },
          { path: '/(team|channels|sessions)$', truncateRate },
        ]);
        sim.setStyle({ paging, pageSize: 4 });
        const snap = await withClient(
          sim,
          {
            shape: { perPage: 4 },
            retries: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2, deadlineMs: 5000 },
          },
          read,
        );
        const keys = ['profile', 'team', 'subscription', 'channels'] as const;
        for (const k of keys) {
          const part = snap[k];
          if (part?.state === 'complete')
            expect({ paging, k, v: part.value }).toEqual({
              paging,
              k,
              v: completeOf(truth[k] as Part<unknown> | undefined),
            });
        }
        for (const [id, part] of Object.entries(snap.sessions)) {
          if (part.state === 'complete')
            expect({ paging, id, v: part.value }).toEqual({ paging, id, v: completeOf(truth.sessions[id]) });
        }
        for (const [id, part] of Object.entries(snap.details)) {
          if (part.state === 'complete')
            expect({ paging, id, v: part.value }).toEqual({ paging, id, v: completeOf(truth.details[id]) });
        }
      }
      const faults = sim.requests().map((r) => r.fault ?? '');
      for (const f of ['truncate', 'reset', 'malformed', 'error'])
        expect({ f, seen: faults.some((x) => x.includes(f)) }).toEqual({ f, seen: true });
    } finally {
      await sim.close();
    }
  });

  it.each(['link', 'cursor', 'pages'] as const)(
    'marks a %s-paged list with a page cut short as incomplete',
    async (paging) => {
      const sim = await startSimulator({
        orgs: [{ slug: 'acme', channels: 1, members: 9 }],
        clock: frozenClock(NOW),
        rateLimitPerMinute: 1_000_000,
        paging,
        pageSize: 4,
      });
      try {
        sim.setFaults({ path: '/team$', truncateRate: 1 });
        const team = await withClient(sim, { shape: { perPage: 4 } }, (c) =>
          c.fetchTeam({ slug: 'acme', token: 'acme-token' }),
        );
        expect(team).toMatchObject({ state: 'incomplete', error: { reason: 'paging' } });
      } finally {
        await sim.close();
      }
    },
  );
});

function completeOf<T>(p: Part<T> | undefined): T | undefined {
  return p?.state === 'complete' ? p.value : undefined;
}
