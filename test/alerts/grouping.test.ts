import { describe, expect, it } from 'vitest';
import { channel, engine, event, HOUR, MIN, SEC, summary, T0, tickFor, view } from './helpers.js';

const config = (route: string) => `
rules:
  - name: chan_off
    for_each: channel
    when: 'channel.status == "offline"'
  - name: went_live
    on: session.started
    resolve_after: 1d
route:
  receiver: ops
${route}
`;

const offline = (...ids: string[]) => view('acme', { channels: ids.map((id) => channel(id, 'offline')) });
const at = (ns: { createdAt: number }[]) => ns.map((n) => (n.createdAt - T0) / SEC);

describe('grouping timing', () => {
  it('holds a new group for group_wait, then sends all its alerts together', () => {
    const { engine: e, clock } = engine(config('  group_wait: 30s'));
    e.evaluate([offline('c1')]);
    clock.advance(10 * SEC);
    e.evaluate([offline('c1', 'c2')]);
    const ns = tickFor(e, clock, 60 * SEC, SEC);
    expect(at(ns)).toEqual([30]);
    expect(ns[0]!.alerts.map((a) => a.labels['channel_id'])).toEqual(['c1', 'c2']);
  });

  it('sends later changes at the next group_interval, not at once', () => {
    const { engine: e, clock } = engine(config('  group_wait: 30s\n  group_interval: 5m'));
    e.evaluate([offline('c1')]);
    const ns = tickFor(e, clock, MIN, SEC);
    e.evaluate([offline('c1', 'c2')]); // at 60s
    ns.push(...tickFor(e, clock, 10 * MIN, SEC));
    expect(at(ns)).toEqual([30, 330]);
    expect(ns[1]!.alerts.map((a) => a.labels['channel_id'])).toEqual(['c1', 'c2']);
  });

  it('repeats an unchanged group after repeat_interval, on a group_interval tick', () => {
    const { engine: e, clock } = engine(
      config('  group_wait: 30s\n  group_interval: 5m\n  repeat_interval: 1h'),
    );
    e.evaluate([offline('c1')]);
    const ns = tickFor(e, clock, 2 * HOUR + MIN, 10 * SEC);
    // 30s, then ticks every 5m: the first tick at or after 30s + 1h is 1h 0m 30s.
    expect(at(ns)).toEqual([30, 3630, 7230]);
    expect(ns.map((n) => n.id.split('-')[1])).toEqual(['1', '2', '3']);
    expect(new Set(ns.map((n) => n.id.split('-')[0])).size).toBe(1);
  });

  it('says once when every alert of the group cleared, then forgets the group', () => {
    const { engine: e, clock } = engine(config('  group_wait: 0s\n  group_interval: 1m'));
    e.evaluate([offline('c1', 'c2')]);
    const ns = tickFor(e, clock, MIN);
    e.evaluate([offline('c2')]);
    ns.push(...tickFor(e, clock, 2 * MIN));
    e.evaluate([offline()]);
    ns.push(...tickFor(e, clock, 5 * MIN));
    expect(
      ns.map((n) => `${n.status}:${n.alerts.map((a) => `${a.labels['channel_id']}=${a.state}`).join(',')}`),
    ).toEqual(['firing:c1=firing,c2=firing', 'firing:c2=firing,c1=resolved', 'resolved:c2=resolved']);
  });

  it('does not tell about an alert that fired and cleared within group_wait', () => {
    const { engine: e, clock } = engine(config('  group_wait: 30s'));
    e.evaluate([offline('c1')]);
    clock.advance(10 * SEC);
    e.evaluate([offline()]);
    expect(tickFor(e, clock, 5 * MIN)).toEqual([]);
  });

  it.each<[string, string, number]>([
    ['group_by [org, alertname] (default)', '', 2],
    ['group_by [org]', '  group_by: [org]', 1],
    ["group_by ['...'] (every alert alone)", "  group_by: ['...']", 3],
  ])('%s', (_name, route, groups) => {
    const { engine: e, clock } = engine(config(`  group_wait: 0s\n${route}`));
    e.evaluate([offline('c1', 'c2')]);
    e.onEvents([event('session.started')]);
    const ns = tickFor(e, clock, 0);
    expect(ns).toHaveLength(groups);
    expect(ns.reduce((n, x) => n + x.alerts.length, 0)).toBe(3);
  });

  it('builds group keys, group labels and common labels like Alertmanager', () => {
    const { engine: e, clock } = engine(config('  group_wait: 0s'));
    e.evaluate([offline('c1', 'c2')]);
    const [n] = tickFor(e, clock, 0);
    expect(n!.groupKey).toBe('{}:{alertname="chan_off", org="acme"}');
    expect(n!.groupLabels).toEqual({ alertname: 'chan_off', org: 'acme' });
    expect(n!.commonLabels).toEqual({ alertname: 'chan_off', org: 'acme', severity: 'warning' });
    expect(n!.status).toBe('firing');
    expect(n!.id).toMatch(/^[0-9a-f]{20}-1$/);
  });

  it('gives a group formed again later new notification ids', () => {
    const { engine: e, clock } = engine(config('  group_wait: 0s\n  group_interval: 1m'));
    e.evaluate([offline('c1')]);
    const first = tickFor(e, clock, MIN);
    e.evaluate([offline()]);
    tickFor(e, clock, 2 * MIN);
    e.evaluate([offline('c1')]);
    const again = tickFor(e, clock, MIN);
    expect(first[0]!.id.endsWith('-1') && again[0]!.id.endsWith('-1')).toBe(true);
    expect(again[0]!.id).not.toBe(first[0]!.id);
  });
});

describe('a resolve between two flushes', () => {
  const yaml = `
rules:
  - name: chan_off
    for_each: channel
    when: 'channel.status == "offline"'
    for: 2m
route:
  receiver: ops
  group_wait: 0s
  group_interval: 5m
`;
  const run = (steps: [number, string][]) => {
    const { engine: e, clock } = engine(yaml);
    const sent: string[] = [];
    for (const [min, status] of steps) {
      clock.time = T0 + min * MIN;
      e.evaluate([view('acme', { channels: [channel('c1', status)] })]);
      sent.push(...summary(e.tick()));
    }
    return sent;
  };
  const quiet = (from: number, to: number, status: string) =>
    Array.from({ length: to - from + 1 }, (_, i) => [from + i, status] as [number, string]);

  it('is sent when the alert went pending again and cleared before the flush', () => {
    const sent = run([
      [0, 'offline'],
      [2, 'offline'],
      [3, 'live'],
      [4, 'offline'],
      [5, 'live'],
      ...quiet(6, 30, 'live'),
    ]);
    expect(sent).toEqual(['ops firing chan_off/c1:firing', 'ops resolved chan_off/c1:resolved']);
  });

  it('is sent when the alert is pending again at the flush, and it fires anew after', () => {
    // Resolved at 3 min, pending again from 6 min: at the 7-min flush the receiver hears
    // of the resolve, and of the alert firing anew (from 8 min) at the next flush.
    const sent = run([[0, 'offline'], [2, 'offline'], ...quiet(3, 5, 'live'), ...quiet(6, 20, 'offline')]);
    expect(sent).toEqual([
      'ops firing chan_off/c1:firing',
      'ops resolved chan_off/c1:resolved',
      'ops firing chan_off/c1:firing',
    ]);
  });
});
