import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WalletHistory } from '../../src/alerts/wallet.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { channel, engine, event, HOUR, MIN, T0, view } from './helpers.js';

const defaults = readFileSync(new URL('../../src/alerts/default-rules.yaml', import.meta.url), 'utf8');
const config = `${defaults}\nroute: { receiver: ops }\n`;

describe('default event rules', () => {
  it.each<[string, ChangeEvent, string | undefined]>([
    [
      'session_went_live',
      event('session.started', { labels: { channel: 'News', session: 'Morning' } }),
      'Live on News: Morning',
    ],
    [
      'session_ended',
      event('session.ended', { labels: { channel: 'News', session: 'Morning' }, to: 'ended' }),
      'Ended on News: Morning',
    ],
    [
      'session_failed',
      event('session.ended', { labels: { channel: 'News', session: 'Morning' }, to: 'failed' }),
      'Failed: Morning on News ended as failed at 00:00 UTC',
    ],
    [
      'session_failed',
      event('session.ended', { labels: { channel: 'News', session: 'Morning' }, to: 'errored' }),
      'Failed: Morning on News ended as errored at 00:00 UTC',
    ],
    [
      'session_failed',
      event('session.status_changed', { labels: { channel: 'News', session: 'Eve' }, to: 'TIMED_OUT' }),
      'Failed: Eve on News ended as TIMED_OUT at 00:00 UTC',
    ],
    [
      'session_ended',
      event('session.ended', { labels: { channel: 'News', session: 'Morning' }, to: 'Completed' }),
      'Ended on News: Morning',
    ],
    [
      'channel_offline',
      event('channel.status_changed', { labels: { channel: 'News' }, from: 'live', to: 'offline' }),
      'Channel News went offline (live → offline)',
    ],
    [
      '(none: offline to offline)',
      event('channel.status_changed', { from: 'offline', to: 'archived' }),
      undefined,
    ],
    [
      'channel_visibility_changed',
      event('channel.visibility_changed', { labels: { channel: 'News' }, from: 'public', to: 'private' }),
      'Channel News is now private (was public)',
    ],
    ['member_changed', event('member.added', { labels: { member: 'Ann' } }), 'Member added: Ann'],
    [
      'upstream_unreadable',
      event('upstream.schema_drift', {
        labels: { endpoint: 'channels', reason: 'query_refused', fatal: 'true', problem: 'refused' },
      }),
      'tally cannot read channels of acme (query_refused)',
    ],
    [
      '(none: drift that leaves the read usable)',
      event('upstream.schema_drift', {
        labels: { endpoint: 'channels', reason: 'unknown_word', fatal: 'false' },
      }),
      undefined,
    ],
    [
      'member_changed',
      event('member.removed', { labels: { member: 'Ann', member_id: 'm1' }, from: 'admin' }),
      'Member removed: Ann',
    ],
    ['member_changed', event('member.removed', { entity: 'm7' }), 'Member removed: m7'],
    [
      'member_changed',
      event('member.role_changed', { labels: { member: 'Ann' }, from: 'viewer', to: 'admin' }),
      'Member role changed: Ann (viewer → admin)',
    ],
    [
      'plan_changed',
      event('subscription.plan_changed', { field: 'plan', from: 'basic', to: 'pro' }),
      'plan of acme changed: basic → pro',
    ],
    [
      'plan_changed',
      event('subscription.funding_changed', { field: 'mode', from: 'wallet', to: 'byok' }),
      'mode of acme changed: wallet → byok',
    ],
    [
      'plan_changed',
      event('subscription.funding_changed', {
        org: 'beta',
        field: 'key_status',
        from: 'valid',
        to: 'invalid',
      }),
      'key_status of beta changed: valid → invalid',
    ],
  ])('%s', (name, e, summary) => {
    const { engine: x } = engine(config);
    x.onEvents([e]);
    const alerts = x.alerts();
    if (summary === undefined) {
      expect(alerts).toEqual([]);
      return;
    }
    expect(alerts.map((a) => a.rule)).toEqual([name]);
    expect(alerts[0]!.annotations['summary']).toBe(summary);
  });
});

describe('default condition rules', () => {
  it('wallet_running_out: low balance and gone within days at the current burn rate', () => {
    const { engine: x, clock } = engine(config);
    // 30 → 14 over 8 hours, 2 per hour: 48 per day. Below 20 from hour 6, firing 15m later.
    for (let h = 0; h <= 8; h++) {
      clock.time = T0 + h * HOUR;
      x.evaluate([
        view('acme', {
          at: clock.time,
          subscription: { funding: { mode: 'wallet', balance: 30 - 2 * h, currency: 'EUR' } },
        }),
      ]);
    }
    const a = x.alerts()[0]!;
    expect(a).toMatchObject({
      rule: 'wallet_running_out',
      state: 'firing',
      activeAt: T0 + 6 * HOUR,
      startsAt: T0 + 7 * HOUR,
    });
    // Rendered when it started firing: 16 left at 48 per day.
    expect(a.annotations['summary']).toBe('AI wallet of acme runs out in 0.3 days');
    expect(a.annotations['description']).toBe('Balance 16 EUR, spending about 48 per day.');
  });

  it('wallet_running_out stays quiet for a low balance that is not being spent', () => {
    const { engine: x, clock } = engine(config);
    for (let h = 0; h <= 8; h++) {
      clock.time = T0 + h * HOUR;
      x.evaluate([
        view('acme', { at: clock.time, subscription: { funding: { mode: 'wallet', balance: 5 } } }),
      ]);
    }
    expect(x.alerts()).toEqual([]);
  });

  it.each<[string, Parameters<typeof view>[1], string]>([
    [
      'usage_near_limit',
      { subscription: { limits: { channels: 10, members: 50 }, usage: { channels: 10, members: 3 } } },
      'acme uses 90% or more of its limit on channels',
    ],
  ])('%s', (name, parts, summary) => {
    const { engine: x, clock } = engine(config);
    x.evaluate([view('acme', parts)]);
    clock.advance(10 * MIN);
    x.evaluate([view('acme', { ...parts, at: clock.time })]);
    const alerts = x.alerts({ state: 'firing' });
    expect(alerts.map((a) => a.rule)).toEqual([name]);
    expect(alerts[0]!.annotations['summary']).toBe(summary);
  });

  it('leaves the API access concerns to the Prometheus rules: no duplicate alert', () => {
    const { engine: x, clock } = engine(config);
    const parts = {
      health: 'unreachable',
      lastError: 'connect timeout',
      tokenExpiresAt: T0 + 2 * 24 * HOUR,
    } as const;
    x.evaluate([view('acme', parts)]);
    clock.advance(30 * MIN);
    x.evaluate([view('acme', { ...parts, at: clock.time })]);
    expect(x.alerts()).toEqual([]);
  });

  it('channel rules see channel fields', () => {
    const { engine: x } = engine(`
rules:
  - name: offline
    for_each: channel
    when: '!channel.live && channel.status == "offline" && org.slug == "acme" && size(channels) == 2'
route: { receiver: ops }
`);
    x.evaluate([view('acme', { channels: [channel('c1', 'offline'), channel('c2', 'live')] })]);
    expect(x.alerts().map((a) => a.labels['channel_id'])).toEqual(['c1']);
  });
});

describe('wallet burn rate', () => {
  it.each<[string, [number, number][], number | undefined]>([
    [
      'steady spending',
      [
        [0, 100],
        [HOUR, 90],
        [2 * HOUR, 80],
      ],
      240,
    ],
    [
      'a top-up in between is not negative spending',
      [
        [0, 100],
        [HOUR, 90],
        [90 * MIN, 190],
        [2 * HOUR, 180],
      ],
      240,
    ],
    [
      'too short a history',
      [
        [0, 100],
        [10 * MIN, 90],
      ],
      undefined,
    ],
    [
      'no spending',
      [
        [0, 50],
        [2 * HOUR, 50],
      ],
      0,
    ],
  ])('%s', (_name, samples, perDay) => {
    const w = new WalletHistory(6 * HOUR);
    for (const [at, b] of samples) w.record('acme', T0 + at, b);
    expect(w.burnPerDay('acme')).toBe(perDay);
  });

  it('forgets samples older than the window and survives a round trip', () => {
    const w = new WalletHistory(HOUR);
    w.record('acme', T0, 100);
    w.record('acme', T0 + 2 * HOUR, 50);
    w.record('acme', T0 + 3 * HOUR, 40);
    const copy = new WalletHistory(HOUR);
    copy.restore(w.toJSON());
    expect(copy.burnPerDay('acme')).toBe(240);
    expect(copy.daysLeft('acme', 40)).toBeCloseTo(1 / 6);
  });
});

describe('config.example.yaml', () => {
  it('carries the default rules unchanged', () => {
    const example = readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8');
    const exampleRules = (parse(example) as { rules?: unknown[] }).rules;
    const defaultRules = (parse(defaults) as { rules?: unknown[] }).rules;
    expect(defaultRules?.length).toBeGreaterThan(0);
    expect(exampleRules).toEqual(defaultRules);
  });
});
