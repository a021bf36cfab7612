import { describe, expect, it } from 'vitest';
import { channel, engine, event, MIN, T0, tickFor, view } from './helpers.js';

const config = `
rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'is_live(string(event.from)) && !is_live(string(event.to))'
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    for: 2m
route:
  receiver: ops
  group_by: [org, alertname]
  group_wait: 30s
  group_interval: 5m
`;

describe('alert storms', () => {
  it('500 channels going offline at once become one notification per org', () => {
    const { engine: e, clock } = engine(config);
    const events = Array.from({ length: 500 }, (_, i) =>
      event('channel.status_changed', {
        org: i % 2 === 0 ? 'acme' : 'globex',
        entity: `c${i}`,
        from: 'live',
        to: 'offline',
        labels: { channel: `Channel ${i}`, channel_id: `c${i}` },
      }),
    );
    e.onEvents(events);
    const ns = tickFor(e, clock, 10 * MIN);
    // Each carries the first 100 and counts the 150 others (src/alerts/cap.ts).
    expect(ns.map((n) => `${n.groupLabels['org']}:${n.alerts.length}+${n.truncated?.firing}`).sort()).toEqual(
      ['acme:100+150', 'globex:100+150'],
    );
    expect(ns.every((n) => n.createdAt === T0 + 30_000)).toBe(true);
  });

  it('500 channels found offline by a condition rule become one notification', () => {
    const { engine: e, clock } = engine(config);
    const channels = Array.from({ length: 500 }, (_, i) => channel(`c${i}`, 'offline'));
    e.evaluate([view('acme', { channels })]);
    let ns = tickFor(e, clock, 2 * MIN);
    e.evaluate([view('acme', { channels })]); // for: 2m has passed
    ns = [...ns, ...tickFor(e, clock, 10 * MIN)];
    expect(ns).toHaveLength(1);
    expect(ns[0]!.alerts).toHaveLength(100);
    expect(ns[0]!.truncated).toEqual({ firing: 400, resolved: 0 });
    // They all come back: one resolution for the whole group.
    e.evaluate([view('acme', { channels: channels.map((c) => ({ ...c, status: 'live' })) })]);
    const resolved = tickFor(e, clock, 10 * MIN);
    expect(resolved.map((n) => `${n.status}:${n.alerts.length}+${n.truncated?.resolved}`)).toEqual([
      'resolved:100+400',
    ]);
  });
});
