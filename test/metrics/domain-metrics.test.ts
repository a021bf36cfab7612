import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyMetrics } from '../../src/metrics/index.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import { FakeSource, orgView, snapshot } from './fixtures.js';
import { find, parseSamples, value } from './parse.js';

const AT = 1_700_000_000_000;

function acme(over: Partial<Parameters<typeof snapshot>[0]> = {}): OrgSnapshot {
  return snapshot({
    org: 'acme',
    at: AT,
    profile: { slug: 'acme', name: 'Acme Radio', plan: 'pro', settings: {} },
    team: [
      { id: 'u1', role: 'admin' },
      { id: 'u2', role: 'member' },
      { id: 'u3', role: 'member' },
      { id: 'u4' },
    ],
    subscription: {
      plan: 'pro',
      limits: { channels: 10, members: 5 },
      usage: { channels: 3, members: 4, ai_minutes: 12 },
      funding: { mode: 'wallet', balance: 42.5, currency: 'EUR' },
    },
    channels: [
      { id: 'c2', name: 'Night', status: 'offline', visibility: 'private' },
      { id: 'c1', name: 'Morning', status: 'live', visibility: 'public' },
      { id: 'c3', name: 'Noon', status: 'offline', visibility: 'public' },
    ],
    sessions: {
      c1: [
        { id: 's1', title: 'Breakfast', status: 'live' },
        { id: 's0', title: 'Yesterday', status: 'ended', scheduledAt: 1000 },
        { id: 's2', title: 'Tomorrow', status: 'scheduled', scheduledAt: 1000 },
      ],
      c2: [{ id: 's3', status: 'ended', scheduledAt: 1000 }],
    },
    details: {
      s1: {
        questions: { count: 4, items: [] },
        reactions: { count: 17, byKind: { like: 17 } },
        speakers: { count: 2, items: [] },
        announcements: { count: 1, items: [] },
      },
    },
    ...over,
  });
}

async function scrape(source: FakeSource, caps?: { channelSeries?: number; sessionSeries?: number }) {
  // Every render fresh: these tests change what tally knows between scrapes of one snapshot.
  const metrics = new TallyMetrics({
    registry: new Registry(),
    source,
    caps,
    defaultMetrics: false,
    pageMaxAgeMs: 0,
  });
  return { metrics, samples: parseSamples((await metrics.render(undefined)).text()) };
}

describe('domain metrics', () => {
  it('exposes org, team and subscription values from the snapshot', async () => {
    const source = new FakeSource([orgView(acme(), { tokenExpiresAt: Date.UTC(2030, 0, 1) })]);
    const { samples } = await scrape(source);

    expect(find(samples, 'tally_org_info')).toEqual([
      { name: 'tally_org_info', labels: { org: 'acme', name: 'Acme Radio', plan: 'pro' }, value: 1 },
    ]);
    expect(value(samples, 'tally_team_members', { role: 'admin' })).toBe(1);
    expect(value(samples, 'tally_team_members', { role: 'member' })).toBe(2);
    expect(value(samples, 'tally_team_members', { role: 'unknown' })).toBe(1);
    expect(value(samples, 'tally_subscription_limit', { org: 'acme', limit: 'channels' })).toBe(10);
    expect(value(samples, 'tally_subscription_usage', { limit: 'ai_minutes' })).toBe(12);
    expect(value(samples, 'tally_subscription_usage_ratio', { limit: 'members' })).toBe(0.8);
    expect(value(samples, 'tally_subscription_usage_ratio', { limit: 'channels' })).toBe(0.3);
    // No limit for ai_minutes: no ratio.
    expect(find(samples, 'tally_subscription_usage_ratio', { limit: 'ai_minutes' })).toEqual([]);
    expect(find(samples, 'tally_ai_funding_mode').map((s) => [s.labels['mode'], s.value])).toEqual([
      ['wallet', 1],
      ['byok', 0],
      ['unknown', 0],
    ]);
    expect(value(samples, 'tally_ai_wallet_balance', { org: 'acme', currency: 'EUR' })).toBe(42.5);
    expect(value(samples, 'tally_token_expiry_timestamp_seconds', { org: 'acme' })).toBe(1_893_456_000);
  });

  it('exposes channels as counts and as one current-status series per channel', async () => {
    const { samples } = await scrape(new FakeSource([orgView(acme())]));

    expect(value(samples, 'tally_channels', { status: 'offline', visibility: 'public' })).toBe(1);
    expect(value(samples, 'tally_channels', { status: 'offline', visibility: 'private' })).toBe(1);
    expect(value(samples, 'tally_channels', { status: 'live', visibility: 'public' })).toBe(1);
    expect(value(samples, 'tally_live_channels', { org: 'acme' })).toBe(1);
    // One series per channel, sorted by channel id, its current status as the label.
    expect(
      find(samples, 'tally_channel_status').map((s) => [s.labels['channel_id'], s.labels['status'], s.value]),
    ).toEqual([
      ['c1', 'live', 1],
      ['c2', 'offline', 1],
      ['c3', 'offline', 1],
    ]);
    expect(find(samples, 'tally_channel_status', { channel_id: 'c1' })[0]?.labels['channel']).toBe('Morning');
  });

  it('counts sessions per channel and status, and interactions of live sessions', async () => {
    const { samples } = await scrape(new FakeSource([orgView(acme())]));

    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c1', status: 'live' })).toBe(1);
    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c1', status: 'ended' })).toBe(1);
    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c2', status: 'ended' })).toBe(1);
    expect(find(samples, 'tally_channel_sessions', { channel_id: 'c3' })).toEqual([]);
    expect(value(samples, 'tally_sessions', { org: 'acme', status: 'ended' })).toBe(2);
    expect(value(samples, 'tally_sessions', { org: 'acme', status: 'scheduled' })).toBe(1);
    expect(value(samples, 'tally_live_sessions', { org: 'acme' })).toBe(1);
    const s1 = { org: 'acme', session_id: 's1', channel_id: 'c1' };
    expect(value(samples, 'tally_session_questions', s1)).toBe(4);
    expect(value(samples, 'tally_session_reactions', s1)).toBe(17);
    expect(value(samples, 'tally_session_speakers', s1)).toBe(2);
    expect(value(samples, 'tally_session_announcements', s1)).toBe(1);
    expect(find(samples, 'tally_live_session_info')).toEqual([
      {
        name: 'tally_live_session_info',
        labels: { org: 'acme', session_id: 's1', channel_id: 'c1', channel: 'Morning' },
        value: 1,
      },
    ]);
  });

  it('leaves no stale series when a channel disappears or changes status', async () => {
    const source = new FakeSource([orgView(acme())]);
    const { metrics } = await scrape(source);
    const next = acme({
      channels: [
        { id: 'c1', name: 'Morning', status: 'offline', visibility: 'public' },
        { id: 'c3', name: 'Noon', status: 'offline', visibility: 'public' },
      ],
      sessions: { c1: [{ id: 's1', title: 'Breakfast', status: 'ended', scheduledAt: 1000 }] },
    });
    source.views = [orgView(next)];
    const samples = parseSamples((await metrics.render(undefined)).text());

    const body = samples.filter((s) => s.labels['channel_id'] === 'c2');
    expect(body).toEqual([]);
    // Only offline is known now: one series per channel, no leftover `live` series.
    expect(
      find(samples, 'tally_channel_status').map((s) => [s.labels['channel_id'], s.labels['status'], s.value]),
    ).toEqual([
      ['c1', 'offline', 1],
      ['c3', 'offline', 1],
    ]);
    expect(find(samples, 'tally_channels', { status: 'live' })).toEqual([]);
    expect(find(samples, 'tally_session_questions')).toEqual([]);
    expect(find(samples, 'tally_live_session_info')).toEqual([]);
    expect(value(samples, 'tally_live_sessions', { org: 'acme' })).toBe(0);
  });

  it('follows a poll that replaced one part while reusing what the others rendered', async () => {
    const first = acme();
    const source = new FakeSource([orgView(first)]);
    const { metrics } = await scrape(source);
    // A poller's commit: the same snapshot with one session list re-read (c2 now has a live
    // session), every other part shared by reference.
    const c2 = first.sessions['c2']!;
    const second: OrgSnapshot = {
      ...first,
      sessions: {
        ...first.sessions,
        c2: {
          ...c2,
          value: [
            { id: 's3', channelId: 'c2', status: 'ended', scheduledAt: 1000 },
            { id: 's9', channelId: 'c2', status: 'live', title: 'Late' },
          ],
        },
      } as OrgSnapshot['sessions'],
    };
    source.views = [orgView(second)];
    const samples = parseSamples((await metrics.render(undefined)).text());
    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c2', status: 'live' })).toBe(1);
    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c2', status: 'ended' })).toBe(1);
    expect(value(samples, 'tally_channel_sessions', { channel_id: 'c1', status: 'live' })).toBe(1);
    expect(value(samples, 'tally_sessions', { org: 'acme', status: 'live' })).toBe(2);
    expect(find(samples, 'tally_live_session_info').map((s) => s.labels['session_id'])).toEqual(['s1', 's9']);

    // Then the channel list is re-read: c1 went offline and was renamed.
    const third: OrgSnapshot = {
      ...second,
      channels: {
        state: 'complete',
        at: AT + 1,
        value: [
          { id: 'c1', name: 'Breakfast Show', status: 'offline', visibility: 'public' },
          { id: 'c2', name: 'Night', status: 'offline', visibility: 'private' },
        ],
      },
    };
    source.views = [orgView(third)];
    const after = parseSamples((await metrics.render(undefined)).text());
    expect(
      find(after, 'tally_channel_status').map((s) => [
        s.labels['channel_id'],
        s.labels['channel'],
        s.labels['status'],
      ]),
    ).toEqual([
      ['c1', 'Breakfast Show', 'offline'],
      ['c2', 'Night', 'offline'],
    ]);
    expect(
      find(after, 'tally_channel_sessions', { channel_id: 'c1' }).map((s) => s.labels['channel']),
    ).toEqual(['Breakfast Show', 'Breakfast Show', 'Breakfast Show']);
    expect(find(after, 'tally_channel_sessions', { channel_id: 'c3' })).toEqual([]);
  });

  it('shows the same page when the channel list is read again unchanged, and a change at once', async () => {
    const first = acme();
    const source = new FakeSource([orgView(first)]);
    const { metrics } = await scrape(source);
    const before = (await metrics.render(undefined)).text();
    const list = first.channels as { state: 'complete'; at: number; value: { id: string }[] };
    // New objects with the same content, as a read of the list brings.
    const reread: OrgSnapshot = {
      ...first,
      channels: { ...list, value: list.value.map((c) => ({ ...c })) } as NonNullable<OrgSnapshot['channels']>,
    };
    source.views = [orgView(reread)];
    expect((await metrics.render(undefined)).text()).toBe(before);
    const changed: OrgSnapshot = {
      ...reread,
      channels: {
        ...list,
        value: list.value.map((c) =>
          c.id === 'c3' ? { ...c, status: 'live', visibility: 'private' } : { ...c },
        ),
      } as NonNullable<OrgSnapshot['channels']>,
    };
    source.views = [orgView(changed)];
    const samples = parseSamples((await metrics.render(undefined)).text());
    expect(
      find(samples, 'tally_channel_status', { channel_id: 'c3' }).map((x) => x.labels['status']),
    ).toEqual(['live']);
    expect(value(samples, 'tally_channels', { status: 'live', visibility: 'private' })).toBe(1);
  });

  it('drops an org from every family when it leaves the config', async () => {
    const other = snapshot({ org: 'beta', channels: [{ id: 'x', status: 'live' }] });
    const source = new FakeSource([orgView(acme()), orgView(other)]);
    const { metrics, samples } = await scrape(source);
    expect(value(samples, 'tally_channels', { org: 'beta' })).toBe(1);
    source.views = [orgView(acme())];
    const after = parseSamples((await metrics.render(undefined)).text());
    expect(after.filter((s) => s.labels['org'] === 'beta' && s.name !== 'tally_changes_total')).toEqual([]);
  });

  it('counts nothing from parts that were not read completely', async () => {
    const snap = acme();
    snap.channels = {
      state: 'incomplete',
      at: AT,
      value: [{ id: 'c1', status: 'live' }],
      error: { reason: 'paging', message: 'page 2 failed' },
    };
    snap.subscription = { state: 'failed', at: AT, error: { reason: 'timeout', message: 'timed out' } };
    const { samples } = await scrape(new FakeSource([orgView(snap)]));
    expect(find(samples, 'tally_channels')).toEqual([]);
    expect(find(samples, 'tally_channel_status')).toEqual([]);
    expect(find(samples, 'tally_live_channels')).toEqual([]);
    expect(find(samples, 'tally_subscription_limit')).toEqual([]);
    expect(find(samples, 'tally_ai_funding_mode')).toEqual([]);
  });

  it('joins config labels through tally_org_labels, whatever names each org uses', async () => {
    const source = new FakeSource([
      orgView(acme(), { labels: { team: 'radio', env: 'prod' } }),
      orgView(snapshot({ org: 'beta' }), { labels: { env: 'dev', org: 'ignored' } }),
    ]);
    const { samples } = await scrape(source);
    expect(find(samples, 'tally_org_labels')).toEqual([
      { name: 'tally_org_labels', labels: { org: 'acme', env: 'prod', team: 'radio' }, value: 1 },
      { name: 'tally_org_labels', labels: { org: 'beta', env: 'dev', team: '' }, value: 1 },
    ]);
  });
});

describe('cardinality caps', () => {
  it('admits whole channels in a stable order and counts the dropped series', async () => {
    const source = new FakeSource([orgView(acme())]);
    // Three channels, one series each; a cap of two admits the first two by id.
    const { metrics, samples } = await scrape(source, { channelSeries: 2 });
    expect([...new Set(find(samples, 'tally_channel_status').map((s) => s.labels['channel_id']))]).toEqual([
      'c1',
      'c2',
    ]);
    expect(value(samples, 'tally_series_dropped_total', { family: 'tally_channel_status' })).toBe(1);
    // Aggregates are never capped.
    expect(find(samples, 'tally_channels').reduce((n, s) => n + s.value, 0)).toBe(3);

    const again = parseSamples((await metrics.render(undefined)).text());
    expect(value(again, 'tally_series_dropped_total', { family: 'tally_channel_status' })).toBe(2);
    expect(value(again, 'tally_series_dropped_total', { family: 'tally_session_questions' })).toBe(0);
  });

  it('caps per-session families', async () => {
    const snap = acme({
      sessions: {
        c1: [
          { id: 's1', status: 'live' },
          { id: 's2', status: 'live' },
          { id: 's3', status: 'live' },
        ],
      },
      details: { s1: {}, s2: {}, s3: {} },
    });
    const { samples } = await scrape(new FakeSource([orgView(snap)]), { sessionSeries: 2 });
    expect(find(samples, 'tally_session_questions').map((s) => s.labels['session_id'])).toEqual(['s1', 's2']);
    expect(value(samples, 'tally_series_dropped_total', { family: 'tally_session_questions' })).toBe(1);
    expect(value(samples, 'tally_series_dropped_total', { family: 'tally_live_session_info' })).toBe(1);
    expect(value(samples, 'tally_live_sessions', { org: 'acme' })).toBe(3);
  });

  it('refuses a negative cap', () => {
    expect(
      () =>
        new TallyMetrics({
          registry: new Registry(),
          source: new FakeSource([]),
          caps: { channelSeries: -1 },
          defaultMetrics: false,
        }),
    ).toThrow(/channelSeries/);
  });
});
