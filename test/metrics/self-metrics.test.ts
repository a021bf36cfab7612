import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyMetrics } from '../../src/metrics/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type { Part } from '../../src/snapshot/model.js';
import { FakeSource, orgView, readAt, snapshot, testPlan } from './fixtures.js';
import { find, parseSamples, value } from './parse.js';
import { STORE_ERROR_REASONS } from '../../src/store/errors.js';
import { RETRYABLE_UPSTREAM_REASONS, UPSTREAM_REASONS } from '../../src/upstream/errors.js';
import { ENDPOINTS } from '../../src/upstream/shape/endpoints.js';

const AT = 1_700_000_000_000;

function event(org: string, kind: ChangeEvent['kind']): ChangeEvent {
  return { id: `${org}-${kind}`, at: AT, org, kind, entity: { kind: 'channel', id: 'c1' }, labels: {} };
}

async function samplesOf(metrics: TallyMetrics) {
  return parseSamples((await metrics.render(undefined)).text());
}

function make(source: FakeSource, build = { version: '1.2.3', node: '24.0.0' }) {
  // Every render fresh: these tests change what tally knows between scrapes of one snapshot.
  return new TallyMetrics({
    registry: new Registry(),
    source,
    defaultMetrics: false,
    build,
    pageMaxAgeMs: 0,
  });
}

describe('self metrics', () => {
  it('reports upstream health per org as tally_up and a state set', async () => {
    const ok = orgView(snapshot({ org: 'a' }));
    const down = orgView(snapshot({ org: 'b' }), {
      health: {
        state: 'unreachable',
        lastSuccessAt: undefined,
        lastError: { reason: 'timeout', message: 't' },
      },
    });
    const samples = await samplesOf(make(new FakeSource([ok, down])));
    expect(value(samples, 'tally_up', { org: 'a' })).toBe(1);
    expect(value(samples, 'tally_up', { org: 'b' })).toBe(0);
    expect(find(samples, 'tally_org_health', { org: 'b' }).map((s) => [s.labels['state'], s.value])).toEqual([
      ['unknown', 0],
      ['ok', 0],
      ['stale', 0],
      ['unreachable', 1],
      ['auth_failed', 0],
    ]);
  });

  it('follows readiness', async () => {
    const source = new FakeSource([]);
    source.isReady = false;
    const metrics = make(source);
    expect(value(await samplesOf(metrics), 'tally_ready')).toBe(0);
    source.isReady = true;
    expect(value(await samplesOf(metrics), 'tally_ready')).toBe(1);
  });

  it('aggregates per-channel and per-session reads to the newest success per resource', async () => {
    const snap = snapshot({
      org: 'acme',
      at: AT,
      channels: [
        { id: 'c1', status: 'live' },
        { id: 'c2', status: 'offline' },
        { id: 'c3', status: 'offline' },
      ],
      sessions: { c1: [{ id: 's1', status: 'live' }], c2: [] },
      details: { s1: {} },
    });
    // c2 was read earlier than c1; c3 failed and never had a complete read.
    snap.sessions['c2'] = readAt(snap.sessions['c2'], AT - 60_000);
    snap.sessions['c1'] = readAt(snap.sessions['c1'], AT + 5_000);
    snap.details['s1'] = readAt(snap.details['s1'], AT + 9_000);
    const attempts = new Map<string, { at: number; state: Part<unknown>['state']; reason?: string }>([
      ['channels', { at: AT, state: 'complete' }],
      ['sessions:c1', { at: AT + 5_000, state: 'complete' }],
      ['sessions:c3', { at: AT + 7_000, state: 'failed', reason: 'timeout' }],
      ['sessions:gone', { at: AT + 8_000, state: 'failed', reason: 'timeout' }],
      ['detail:s1', { at: AT + 9_000, state: 'complete' }],
    ]);
    const samples = await samplesOf(make(new FakeSource([orgView(snap, { attempts })])));

    const last = (resource: string) =>
      value(samples, 'tally_last_success_timestamp_seconds', { org: 'acme', resource });
    expect(last('channels')).toBe(AT / 1000);
    expect(last('sessions')).toBe((AT + 5_000) / 1000);
    expect(last('detail')).toBe((AT + 9_000) / 1000);
    expect(find(samples, 'tally_last_success_timestamp_seconds', { resource: 'team' })).toEqual([]);
    expect(value(samples, 'tally_last_attempt_timestamp_seconds', { resource: 'sessions' })).toBe(
      (AT + 8_000) / 1000,
    );
    // The failure of a channel that is no longer listed does not count.
    expect(value(samples, 'tally_parts_failing', { resource: 'sessions' })).toBe(1);
    expect(value(samples, 'tally_parts_failing', { resource: 'channels' })).toBe(0);
    expect(value(samples, 'tally_sessions_oldest_read_timestamp_seconds', { org: 'acme' })).toBe(
      (AT - 60_000) / 1000,
    );
    expect(value(samples, 'tally_sessions_unread_channels', { org: 'acme' })).toBe(1);
  });

  it('exposes the requests the server says are left, once it said', async () => {
    const source = new FakeSource([]);
    source.currentBudget = { ...source.currentBudget, server: { remaining: 42, limit: 5000 } };
    const samples = await samplesOf(make(source));
    expect(value(samples, 'tally_upstream_server_remaining_requests', { limit: '5000' })).toBe(42);
  });

  it('exposes the limit learned for the address, and what taught it', async () => {
    const source = new FakeSource([]);
    source.currentBudget = {
      ...source.currentBudget,
      effective: 97,
      learned: { perMinute: 97, from: 'refusals', loweredAt: AT - 5_000, decreases: 2 },
    };
    const samples = await samplesOf(make(source));
    expect(value(samples, 'tally_upstream_learned_limit_requests_per_minute', { from: 'refusals' })).toBe(97);
    expect(find(samples, 'tally_upstream_learned_limit_requests_per_minute')).toHaveLength(1);
  });

  it('exposes the budget and the plan', async () => {
    const source = new FakeSource([]);
    source.currentBudget = { ...source.currentBudget, effective: 180, pausedUntil: AT + 30_000 };
    source.currentPlan = testPlan({ stretch: 1.5, sweepBoundMs: 2_580_000 });
    const samples = await samplesOf(make(source));
    expect(value(samples, 'tally_budget_configured_requests')).toBe(240);
    expect(value(samples, 'tally_budget_effective_requests')).toBe(180);
    expect(value(samples, 'tally_budget_used_requests')).toBe(17);
    expect(value(samples, 'tally_budget_left_requests')).toBe(223);
    expect(value(samples, 'tally_budget_paused_until_timestamp_seconds')).toBe((AT + 30_000) / 1000);
    expect(value(samples, 'tally_budget_queued_requests', { priority: 'low' })).toBe(2);
    // Not said by the server yet: no sample rather than a 0 that reads as "none left".
    expect(find(samples, 'tally_upstream_server_remaining_requests')).toEqual([]);
    expect(value(samples, 'tally_planner_sweep_bound_seconds')).toBe(2580);
    expect(value(samples, 'tally_planner_stretch_ratio')).toBe(1.5);
    expect(value(samples, 'tally_planner_planned_requests', { purpose: 'sweep' })).toBe(30);
    expect(value(samples, 'tally_planner_interval_seconds', { read: 'channels' })).toBe(30);
  });

  it("shows each org's stalest channel age beside the bound, and none for an org with no channel read yet", async () => {
    const source = new FakeSource([
      orgView(snapshot({ org: 'a' }), { stalestSweepAgeMs: 1_234_500 }),
      orgView(snapshot({ org: 'b' })),
    ]);
    source.currentPlan = testPlan({ sweepBoundMs: 2_580_000 });
    const samples = await samplesOf(make(source));
    expect(value(samples, 'tally_sweep_stalest_age_seconds', { org: 'a' })).toBe(1234.5);
    expect(find(samples, 'tally_sweep_stalest_age_seconds', { org: 'b' })).toEqual([]);
  });

  it('exposes build info and config reloads', async () => {
    const source = new FakeSource([]);
    const metrics = make(source);
    let samples = await samplesOf(metrics);
    expect(find(samples, 'tally_build_info')).toEqual([
      { name: 'tally_build_info', labels: { version: '1.2.3', node: '24.0.0' }, value: 1 },
    ]);
    // Starting means the config was loaded once.
    expect(value(samples, 'tally_config_last_reload_successful')).toBe(1);
    expect(value(samples, 'tally_config_last_reload_success_timestamp_seconds')).toBe(
      source.startedAt / 1000,
    );

    metrics.recordConfigReload(false, AT);
    samples = await samplesOf(metrics);
    expect(value(samples, 'tally_config_last_reload_successful')).toBe(0);
    expect(value(samples, 'tally_config_last_reload_success_timestamp_seconds')).toBe(
      source.startedAt / 1000,
    );
    metrics.recordConfigReload(true, AT);
    samples = await samplesOf(metrics);
    expect(value(samples, 'tally_config_last_reload_successful')).toBe(1);
    expect(value(samples, 'tally_config_last_reload_success_timestamp_seconds')).toBe(AT / 1000);
  });

  it('counts change events by org and kind, every known kind starting at 0', async () => {
    const metrics = make(new FakeSource([orgView(snapshot({ org: 'acme' }))]));
    metrics.recordEvents([
      event('acme', 'channel.added'),
      event('acme', 'channel.added'),
      event('acme', 'upstream.recovered'),
    ]);
    const samples = await samplesOf(metrics);
    expect(value(samples, 'tally_changes_total', { org: 'acme', kind: 'channel.added' })).toBe(2);
    expect(value(samples, 'tally_changes_total', { org: 'acme', kind: 'upstream.recovered' })).toBe(1);
    expect(value(samples, 'tally_changes_total', { org: 'acme', kind: 'member.removed' })).toBe(0);
  });

  it('observes polls and state write failures', async () => {
    const metrics = make(new FakeSource([orgView(snapshot({ org: 'acme' }))]));
    metrics.recordPoll('acme', 'channels', 300);
    metrics.recordPoll('acme', 'channels', 3_000);
    metrics.recordStateWriteFailure('outbox', 'disk_full');
    const samples = await samplesOf(metrics);
    const labels = { org: 'acme', resource: 'channels' };
    expect(value(samples, 'tally_poll_duration_seconds_count', labels)).toBe(2);
    expect(value(samples, 'tally_poll_duration_seconds_sum', labels)).toBeCloseTo(3.3);
    expect(value(samples, 'tally_poll_duration_seconds_bucket', { ...labels, le: '0.5' })).toBe(1);
    expect(value(samples, 'tally_state_write_failures_total', { path: 'outbox', reason: 'disk_full' })).toBe(
      1,
    );
    expect(value(samples, 'tally_state_write_failures_total', { path: 'events', reason: 'disk_full' })).toBe(
      0,
    );
  });

  it('is fed by the upstream observer', async () => {
    const metrics = make(new FakeSource([orgView(snapshot({ org: 'acme' }))]));
    const up = metrics.upstream;
    up.onRequest({ org: 'acme', endpoint: 'channels', status: 200, statusClass: '2xx', durationMs: 40 });
    up.onRequest({
      org: 'acme',
      endpoint: 'channels',
      status: 503,
      statusClass: '5xx',
      reason: 'http_5xx',
      durationMs: 900,
    });
    up.onRequest({
      org: 'acme',
      endpoint: 'sessions',
      statusClass: 'error',
      reason: 'timeout',
      durationMs: 10_000,
    });
    up.onRetry({ org: 'acme', endpoint: 'channels', reason: 'http_5xx' });
    up.onRateLimited({ retryAfterMs: 2_000 });
    up.onPause({ untilMs: AT + 2_000 });
    up.onDrift({ org: 'acme', endpoint: 'channels', field: 'status', problem: 'missing', fatal: false });
    up.onAuthFailure({ org: 'acme', status: 401 });
    const samples = await samplesOf(metrics);
    expect(
      value(samples, 'tally_upstream_requests_total', { endpoint: 'channels', status_class: '2xx' }),
    ).toBe(1);
    expect(
      value(samples, 'tally_upstream_requests_total', { endpoint: 'channels', status_class: '5xx' }),
    ).toBe(1);
    expect(
      value(samples, 'tally_upstream_request_errors_total', { endpoint: 'sessions', reason: 'timeout' }),
    ).toBe(1);
    expect(value(samples, 'tally_upstream_request_duration_seconds_count', { endpoint: 'channels' })).toBe(2);
    expect(
      value(samples, 'tally_upstream_request_duration_seconds_bucket', { endpoint: 'channels', le: '0.05' }),
    ).toBe(1);
    expect(value(samples, 'tally_upstream_retries_total', { endpoint: 'channels', reason: 'http_5xx' })).toBe(
      1,
    );
    expect(value(samples, 'tally_upstream_rate_limited_total')).toBe(1);
    expect(value(samples, 'tally_budget_pauses_total')).toBe(1);
    expect(
      value(samples, 'tally_schema_drift_total', {
        org: 'acme',
        endpoint: 'channels',
        field: 'status',
        reason: 'unreadable_value',
      }),
    ).toBe(1);
    expect(value(samples, 'tally_upstream_auth_failures_total', { org: 'acme' })).toBe(1);
  });

  it('starts every counter whose labels are known at 0, so the first scrape has each series', async () => {
    const metrics = make(
      new FakeSource([orgView(snapshot({ org: 'acme' })), orgView(snapshot({ org: 'beta' }))]),
    );
    metrics.recordPoll('acme', 'channels', 300);
    const samples = await samplesOf(metrics);
    for (const endpoint of ENDPOINTS) {
      for (const status_class of ['2xx', '3xx', '4xx', '5xx', 'error'])
        expect(value(samples, 'tally_upstream_requests_total', { endpoint, status_class }), endpoint).toBe(0);
      for (const reason of UPSTREAM_REASONS)
        expect(value(samples, 'tally_upstream_request_errors_total', { endpoint, reason })).toBe(0);
      for (const reason of RETRYABLE_UPSTREAM_REASONS)
        expect(value(samples, 'tally_upstream_retries_total', { endpoint, reason })).toBe(0);
      expect(value(samples, 'tally_upstream_request_duration_seconds_count', { endpoint })).toBe(0);
    }
    for (const org of ['acme', 'beta']) {
      expect(value(samples, 'tally_upstream_auth_failures_total', { org })).toBe(0);
      for (const resource of ['profile', 'team', 'subscription', 'sessions', 'detail'])
        expect(value(samples, 'tally_poll_duration_seconds_count', { org, resource })).toBe(0);
    }
    // The poll observed before the first scrape is kept, not zeroed.
    expect(value(samples, 'tally_poll_duration_seconds_count', { org: 'acme', resource: 'channels' })).toBe(
      1,
    );
    for (const reason of STORE_ERROR_REASONS)
      expect(value(samples, 'tally_state_write_failures_total', { path: 'snapshots', reason })).toBe(0);
    expect(value(samples, 'tally_upstream_rate_limited_total')).toBe(0);
    expect(value(samples, 'tally_budget_pauses_total')).toBe(0);
    // A later scrape keeps what was observed in between.
    metrics.recordPoll('beta', 'team', 300);
    const later = await samplesOf(metrics);
    expect(value(later, 'tally_poll_duration_seconds_count', { org: 'beta', resource: 'team' })).toBe(1);
  });

  it('counts drift per org: each org its own series, the read-failing ones from 0', async () => {
    const source = new FakeSource([orgView(snapshot({ org: 'acme' })), orgView(snapshot({ org: 'beta' }))]);
    const metrics = make(source);
    const up = metrics.upstream;
    const refused = {
      endpoint: 'sessions',
      field: 'query',
      problem: 'the server refused every query',
      fatal: true,
    };
    up.onDrift({ org: 'acme', ...refused });
    up.onDrift({ org: 'acme', ...refused });
    up.onDrift({
      org: 'beta',
      endpoint: 'channels',
      field: 'channel.status',
      problem: 'unknown status word "x"',
      fatal: false,
    });
    const samples = await samplesOf(metrics);
    const drift = (labels: Record<string, string>) => value(samples, 'tally_schema_drift_total', labels);
    expect(drift({ org: 'acme', endpoint: 'sessions', field: 'query', reason: 'query_refused' })).toBe(2);
    expect(drift({ org: 'beta', endpoint: 'sessions', field: 'query', reason: 'query_refused' })).toBe(0);
    expect(
      drift({ org: 'beta', endpoint: 'channels', field: 'channel.status', reason: 'unknown_word' }),
    ).toBe(1);
    expect(find(samples, 'tally_schema_drift_total', { org: 'acme', reason: 'unknown_word' })).toEqual([]);
    // Every drift that fails a read has its series from the first scrape, per configured org:
    // no list or no object, not JSON, and for lists a refused query or records without ids,
    // for objects a body with none of the fields tally reads.
    for (const org of ['acme', 'beta']) {
      const expected = ENDPOINTS.flatMap((endpoint) => {
        const list = ['team', 'channels', 'sessions'].includes(endpoint);
        const id = { team: 'member.id', channels: 'channel.id', sessions: 'session.id' }[endpoint as string];
        return [
          `${endpoint} envelope ${list ? 'no_list' : 'no_object'}`,
          `${endpoint} body not_json`,
          ...(list ? [`${endpoint} query query_refused`, `${endpoint} ${id} missing_id`] : []),
          ...(list ? [] : [`${endpoint} ${endpoint} unrecognised_body`]),
        ];
      });
      const seen = find(samples, 'tally_schema_drift_total', { org })
        .filter((x) =>
          ['no_list', 'no_object', 'not_json', 'query_refused', 'missing_id', 'unrecognised_body'].includes(
            x.labels['reason']!,
          ),
        )
        .map((x) => `${x.labels['endpoint']} ${x.labels['field']} ${x.labels['reason']}`);
      expect(seen.sort()).toEqual(expected.sort());
    }
    expect(
      find(samples, 'tally_schema_drift_total', { org: 'acme' }).filter((x) => x.value > 0),
    ).toHaveLength(1);
    // An org that leaves the config leaves with its drift series, counted ones too.
    source.views = source.views.filter((v) => v.slug !== 'beta');
    const later = await samplesOf(metrics);
    expect(find(later, 'tally_schema_drift_total', { org: 'beta' })).toEqual([]);
    expect(
      value(later, 'tally_schema_drift_total', {
        org: 'acme',
        endpoint: 'sessions',
        field: 'query',
        reason: 'query_refused',
      }),
    ).toBe(2);
  });

  it('registers only on the registry it was given', async () => {
    const { register } = await import('prom-client');
    const before = register.getMetricsAsArray().length;
    const registry = new Registry();
    new TallyMetrics({ registry, source: new FakeSource([]) });
    expect(register.getMetricsAsArray().length).toBe(before);
    expect(registry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
  });
});
