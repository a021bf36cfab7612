import { describe, expect, it } from 'vitest';
import { engine, event, MIN, SEC, summary, T0, tickFor } from './helpers.js';

const config = (rules: string) => `
rules:
${rules}
route:
  receiver: ops
  group_wait: 0s
  group_interval: 1m
`;

describe('event rules', () => {
  it.each<[string, string, ReturnType<typeof event>[], number]>([
    [
      'fires once per matching entity',
      '    on: session.started',
      [event('session.started', { entity: 's1' }), event('session.started', { entity: 's2' })],
      2,
    ],
    ['ignores other kinds', '    on: session.started', [event('session.ended'), event('channel.added')], 0],
    [
      'accepts a list of kinds',
      '    on: [member.added, member.removed]',
      [event('member.added', { entity: 'm1' }), event('member.removed', { entity: 'm2' })],
      2,
    ],
    [
      'accepts entity wildcards',
      "    on: 'channel.*'",
      [
        event('channel.added', { entity: 'c1' }),
        event('channel.renamed', { entity: 'c2' }),
        event('member.added'),
      ],
      2,
    ],
    [
      'filters with when over the event',
      `    on: session.started\n    when: 'event.labels.channel != "test"'`,
      [
        event('session.started', { labels: { channel: 'news' } }),
        event('session.started', { labels: { channel: 'test' } }),
      ],
      1,
    ],
    [
      'treats a missing field in when as false',
      `    on: channel.status_changed\n    when: 'event.labels.channel == "news"'`,
      [event('channel.status_changed')],
      0,
    ],
    [
      'does not add the same event twice',
      '    on: session.started',
      [event('session.started', { id: 'same' }), event('session.started', { id: 'same' })],
      1,
    ],
  ])('%s', (_name, rule, events, expected) => {
    const { engine: e } = engine(config(`  - name: r\n${rule}`));
    e.onEvents(events);
    expect(e.alerts({ state: 'firing' })).toHaveLength(expected);
  });

  it('makes one alert of a rule and an entity: later events update its details and its end', () => {
    const { engine: e, clock } = engine(config('  - name: vis\n    on: channel.visibility_changed'));
    const labels = { channel: 'News', channel_id: 'c1' };
    e.onEvents([
      event('channel.visibility_changed', { id: 'v1', entity: 'c1', from: 'public', to: 'private', labels }),
    ]);
    clock.advance(2 * MIN);
    e.onEvents([
      event('channel.visibility_changed', {
        id: 'v2',
        entity: 'c1',
        at: T0 + 2 * MIN,
        from: 'private',
        to: 'unlisted',
        labels,
      }),
      event('channel.visibility_changed', {
        id: 'v3',
        entity: 'c1',
        at: T0 + 2 * MIN,
        from: 'unlisted',
        to: 'public',
        labels,
      }),
    ]);
    // The update reaches the receiver at the group's next flush (group_interval 1m).
    const update = e.tick();
    expect(update.map((n) => [n.status, n.alerts.length, n.alerts[0]!.annotations['event_id']])).toEqual([
      ['firing', 1, 'v3'],
    ]);
    const alerts = e.alerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.labels).toEqual({
      alertname: 'vis',
      severity: 'warning',
      org: 'acme',
      channel: 'News',
      channel_id: 'c1',
    });
    expect(alerts[0]!.annotations).toMatchObject({
      event_id: 'v3',
      event_from: 'unlisted',
      event_to: 'public',
      event_count: '3',
    });
    expect(alerts[0]!.startsAt).toBe(T0);
    // The end moved with the last event: 5 minutes after it, not after the first.
    tickFor(e, clock, 4 * MIN, 10 * SEC);
    expect(e.alerts()[0]!.state).toBe('firing');
    tickFor(e, clock, 2 * MIN, 10 * SEC);
    expect(e.alerts()[0]!.state).toBe('resolved');
    expect(e.alerts()[0]!.endsAt).toBe(T0 + 7 * MIN);
    // After it resolved, the next event fires it again.
    e.onEvents([
      event('channel.visibility_changed', { id: 'v4', entity: 'c1', at: clock.time, to: 'private', labels }),
    ]);
    expect(e.alerts({ state: 'firing' })).toHaveLength(1);
    expect(e.alerts()[0]!.annotations['event_count']).toBe('1');
  });

  it('labels an event alert with the event labels and renders its summary', () => {
    const { engine: e } = engine(
      config(`  - name: session_went_live
    on: session.started
    severity: info
    annotations:
      summary: 'Live on {{ labels.channel }}: {{ event.labels.session }} ({{ value }})'`),
    );
    e.onEvents([
      event('session.started', {
        id: 'x1',
        labels: { channel: 'News', channel_id: 'c1', session: 'Morning', session_id: 's1', error: 'boom' },
        to: 'live',
      }),
    ]);
    const [a] = e.alerts();
    // Labels name the rule and the entity; the event itself is in the annotations.
    expect(a!.labels).toEqual({
      alertname: 'session_went_live',
      severity: 'info',
      org: 'acme',
      channel: 'News',
      channel_id: 'c1',
      session: 'Morning',
      session_id: 's1',
    });
    expect(a!.annotations).toMatchObject({
      event_id: 'x1',
      event_kind: 'session.started',
      event_to: 'live',
      event_error: 'boom',
      event_count: '1',
    });
    expect(a!.annotations['summary']).toBe('Live on News: Morning (live)');
    expect(a!.startsAt).toBe(T0);
  });

  it('gives a default summary when the rule has none', () => {
    const { engine: e } = engine(config('  - name: r\n    on: session.started'));
    e.onEvents([event('session.started', { labels: { session: 'Show', channel: 'News' } })]);
    expect(e.alerts()[0]!.annotations['summary']).toBe('session Show on News went live (acme)');
  });

  it('resolves after resolve_after (5m by default) and sends no resolution by default', () => {
    const { engine: e, clock } = engine(config('  - name: r\n    on: session.started'));
    e.onEvents([event('session.started')]);
    const ns = tickFor(e, clock, 4 * MIN, 10 * SEC);
    expect(e.alerts()[0]!.state).toBe('firing');
    ns.push(...tickFor(e, clock, 3 * MIN, 10 * SEC));
    expect(e.alerts()[0]!.state).toBe('resolved');
    expect(e.alerts()[0]!.endsAt).toBe(T0 + 5 * MIN);
    expect(summary(ns)).toEqual(['ops firing r/acme:firing']);
  });

  it('sends the resolution when the event rule asks for it', () => {
    const { engine: e, clock } = engine(
      config('  - name: r\n    on: session.started\n    resolve_after: 2m\n    send_resolved: true'),
    );
    e.onEvents([event('session.started')]);
    expect(summary(tickFor(e, clock, 4 * MIN))).toEqual([
      'ops firing r/acme:firing',
      'ops resolved r/acme:resolved',
    ]);
  });

  it('counts resolve_after from when a late event is seen, so it is still sent', () => {
    const { engine: e, clock } = engine(config('  - name: r\n    on: session.started'));
    clock.time = T0 + 60 * MIN;
    e.onEvents([event('session.started', { at: T0 })]);
    const ns = e.tick();
    expect(summary(ns)).toEqual(['ops firing r/acme:firing']);
    expect(ns[0]!.alerts[0]!.startsAt).toBe(T0);
  });

  it('resolves early on a resolve_on event for the same entity only', () => {
    const { engine: e, clock } = engine(
      config(`  - name: down
    on: channel.status_changed
    when: 'event.to == "offline"'
    resolve_on: channel.status_changed
    resolve_after: 1d`),
    );
    e.onEvents([
      event('channel.status_changed', { entity: 'c1', to: 'offline' }),
      event('channel.status_changed', { entity: 'c2', to: 'offline' }),
    ]);
    clock.advance(MIN);
    e.onEvents([event('channel.status_changed', { entity: 'c1', at: T0 + MIN, to: 'live' })]);
    const states = Object.fromEntries(e.alerts().map((a) => [a.annotations['event_id'], a.state]));
    expect(Object.values(states).sort()).toEqual(['firing', 'resolved']);
  });
});
