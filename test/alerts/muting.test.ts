import { describe, expect, it } from 'vitest';
import { MaintenanceWindows } from '../../src/alerts/maintenance.js';
import { alerting, channel, engine, event, HOUR, MIN, SEC, summary, T0, tickFor, view } from './helpers.js';

const rules = `
rules:
  - name: channel_down
    for_each: channel
    when: '!channel.live'
  - name: upstream_unreachable
    for_each: org
    when: 'upstream.state == "unreachable"'
    severity: critical
  - name: went_live
    on: session.started
    resolve_after: 1h
route:
  receiver: ops
  group_wait: 0s
  group_interval: 1m
`;
const iso = (ms: number) => new Date(ms).toISOString();

describe('silences from the config', () => {
  it('mute matching alerts while active; they are still tracked and listed with silenced_by', () => {
    const { engine: e, clock } = engine(`${rules}
silences:
  - id: migration
    matchers: ['org = "acme"', 'alertname =~ "channel_.*"']
    starts_at: ${iso(T0)}
    ends_at: ${iso(T0 + HOUR)}
    created_by: ops
    comment: migration
`);
    e.evaluate([
      view('acme', { channels: [channel('c1', 'offline')] }),
      view('globex', { channels: [channel('g1', 'offline')] }),
    ]);
    const during = tickFor(e, clock, 30 * MIN, MIN);
    expect(summary(during)).toEqual(['ops firing channel_down/g1:firing']);
    expect(e.alerts({ org: 'acme' })[0]).toMatchObject({ state: 'firing', silenced_by: ['migration'] });
    // When the silence ends, the still-firing alert is new to the receiver.
    e.evaluate([
      view('acme', { channels: [channel('c1', 'offline')] }),
      view('globex', { channels: [channel('g1', 'offline')] }),
    ]);
    const after = tickFor(e, clock, 40 * MIN, MIN);
    expect(summary(after)).toEqual(['ops firing channel_down/c1:firing']);
    expect(after[0]!.createdAt).toBe(T0 + HOUR);
  });
});

describe('silences through the API', () => {
  it('adds, lists, applies and expires a silence, and persists it', async () => {
    const { engine: e, clock, store } = engine(rules, { newId: () => 'sil-1' });
    const added = await e.addSilence({
      matchers: ['alertname = "went_live"', { name: 'org', value: 'acme', isRegex: false, isEqual: true }],
      duration: '2h',
      created_by: 'alice',
      comment: 'noisy launch',
    });
    expect(added).toMatchObject({
      silence: {
        id: 'sil-1',
        status: 'active',
        starts_at: iso(T0),
        ends_at: iso(T0 + 2 * HOUR),
        source: 'api',
      },
    });
    expect(JSON.parse(store.text!).silences[0].matchers).toEqual(['alertname = "went_live"', 'org="acme"']);
    e.onEvents([event('session.started')]);
    expect(tickFor(e, clock, 5 * MIN)).toEqual([]);
    expect(await e.expireSilence('sil-1')).toMatchObject({ silence: { status: 'expired' } });
    expect(summary(tickFor(e, clock, 2 * MIN))).toEqual(['ops firing went_live/acme:firing']);
    expect(await e.expireSilence('sil-1')).toEqual({ error: 'expired' });
    expect(await e.expireSilence('nope')).toEqual({ error: 'not_found' });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no matchers', { matchers: [], duration: '1h', created_by: 'a', comment: 'c' }, ['matchers']],
    [
      'a bad matcher',
      { matchers: ['org == x'], duration: '1h', created_by: 'a', comment: 'c' },
      ['matchers[0]'],
    ],
    ['no end', { matchers: ['org="a"'], created_by: 'a', comment: 'c' }, ['ends_at']],
    [
      'an end in the past',
      { matchers: ['org="a"'], ends_at: iso(T0 - 1), created_by: 'a', comment: 'c' },
      ['ends_at'],
    ],
    ['no author or comment', { matchers: ['org="a"'], duration: '1h' }, ['created_by', 'comment']],
    [
      'an unknown field',
      { matchers: ['org="a"'], duration: '1h', created_by: 'a', comment: 'c', x: 1 },
      ['(body)'],
    ],
  ])('refuses a silence with %s, naming the field', async (_name, input, fields) => {
    const { engine: e } = engine(rules);
    const r = await e.addSilence(input);
    expect('problems' in r && r.problems.map((p) => p.field)).toEqual(fields);
  });

  it('does not expire config silences', async () => {
    const { engine: e } = engine(`${rules}
silences:
  - matchers: ['org = "acme"']
    starts_at: ${iso(T0)}
    ends_at: ${iso(T0 + HOUR)}
    created_by: ops
    comment: x
`);
    const id = e.silences()[0]!.id;
    expect(id).toMatch(/^cfg-/);
    expect(await e.expireSilence(id)).toEqual({ error: 'config' });
  });
});

describe('maintenance windows', () => {
  const windows = (yaml: string) => new MaintenanceWindows(alerting(`maintenance:\n${yaml}`).maintenance);
  const weekly = windows(`
  - name: weekly
    schedule: '0 2 * * SUN'
    duration: 2h
    time_zone: Europe/Berlin
    matchers: ['org = "acme"']
`);

  it.each<[string, string, boolean]>([
    ['winter Sunday 02:30 Berlin = 01:30Z', '2026-03-22T01:30:00Z', true],
    ['winter Sunday 01:30 Berlin = 00:30Z', '2026-03-22T00:30:00Z', false],
    ['winter Sunday 04:00 Berlin = 03:00Z (end is exclusive)', '2026-03-22T03:00:00Z', false],
    [
      'spring-forward Sunday: 02:00 does not exist, the window opens at 03:00 CEST',
      '2026-03-29T01:30:00Z',
      true,
    ],
    ['spring-forward Sunday before the gap', '2026-03-29T00:30:00Z', false],
    ['summer Sunday 02:30 Berlin = 00:30Z', '2026-04-05T00:30:00Z', true],
    ['summer Sunday 04:00 Berlin = 02:00Z', '2026-04-05T02:00:00Z', false],
    ['fall-back Sunday: first 02:00 (CEST) = 00:00Z opens it once', '2026-10-25T01:30:00Z', true],
    ['fall-back Sunday after two hours', '2026-10-25T02:30:00Z', false],
    ['a Monday', '2026-03-23T01:30:00Z', false],
  ])('%s → %s', (_name, at, active) => {
    expect(weekly.matching({ org: 'acme' }, Date.parse(at))).toEqual(active ? ['weekly'] : []);
  });

  it('matches only the alerts its matchers select', () => {
    expect(weekly.matching({ org: 'globex' }, Date.parse('2026-03-22T01:30:00Z'))).toEqual([]);
  });

  it('lists the current or next window', () => {
    expect(weekly.list(Date.parse('2026-03-23T00:00:00Z'))[0]).toMatchObject({
      active: false,
      starts_at: '2026-03-29T01:00:00.000Z',
      ends_at: '2026-03-29T03:00:00.000Z',
    });
  });

  it('mutes alerts during a one-off window, and they are sent when it ends', () => {
    const { engine: e, clock } = engine(`${rules}
maintenance:
  - name: once
    starts_at: ${iso(T0)}
    ends_at: ${iso(T0 + 10 * MIN)}
`);
    e.onEvents([event('session.started')]);
    const ns = tickFor(e, clock, 5 * MIN, MIN);
    expect(ns).toEqual([]);
    expect(e.alerts()[0]!.silenced_by).toEqual(['maintenance:once']);
    ns.push(...tickFor(e, clock, 10 * MIN, MIN));
    expect(summary(ns)).toEqual(['ops firing went_live/acme:firing']);
    expect(ns[0]!.createdAt).toBe(T0 + 10 * MIN);
  });
});

describe('inhibition by an unreachable upstream', () => {
  it("mutes the org's data alerts, and the upstream alert says how many", () => {
    const { engine: e, clock } = engine(rules);
    const channels = [channel('c1', 'offline'), channel('c2', 'offline')];
    e.evaluate([
      view('acme', { channels, health: 'unreachable', lastError: 'timeout' }),
      view('globex', { channels }),
    ]);
    e.onEvents([event('session.started', { org: 'acme' })]);
    const ns = tickFor(e, clock, 2 * MIN, MIN);
    expect(summary(ns).sort()).toEqual([
      'ops firing channel_down/c1:firing,channel_down/c2:firing',
      'ops firing upstream_unreachable/acme:firing',
    ]);
    expect(ns.find((n) => n.groupLabels['org'] === 'globex')).toBeDefined();
    const upstream = e.alerts({ org: 'acme' }).find((a) => a.labels['alertname'] === 'upstream_unreachable')!;
    expect(upstream.annotations['inhibits']).toBe(
      '3 data alerts are muted for org acme while it is unreachable.',
    );
    expect(upstream.inhibited_by).toEqual([]);
    const data = e.alerts({ org: 'acme' }).filter((a) => a.labels['alertname'] !== 'upstream_unreachable');
    expect(data.map((a) => a.inhibited_by)).toEqual([
      ['upstream:unreachable'],
      ['upstream:unreachable'],
      ['upstream:unreachable'],
    ]);
  });

  it('follows upstream events too, and unmutes on recovery', () => {
    const { engine: e, clock } = engine(rules);
    e.onEvents([event('upstream.auth_failed', { org: 'acme' }), event('session.started', { org: 'acme' })]);
    expect(tickFor(e, clock, 2 * MIN, MIN)).toEqual([]);
    expect(e.alerts()[0]!.inhibited_by).toEqual(['upstream:auth_failed']);
    e.onEvents([event('upstream.recovered', { org: 'acme', at: clock.time })]);
    expect(summary(tickFor(e, clock, 2 * MIN, MIN))).toEqual(['ops firing went_live/acme:firing']);
  });

  it('can be turned off, and a rule can opt out', () => {
    const off = engine(`${rules}\ninhibit: { upstream: false }\n`);
    off.engine.onEvents([event('upstream.unreachable'), event('session.started')]);
    expect(off.engine.alerts()[0]!.inhibited_by).toEqual([]);
    const optOut = engine(rules.replace('resolve_after: 1h', 'resolve_after: 1h\n    inhibitable: false'));
    optOut.engine.onEvents([event('upstream.unreachable'), event('session.started')]);
    expect(optOut.engine.alerts()[0]!.inhibited_by).toEqual([]);
  });
});

describe('what an Alertmanager receiver is re-sent', () => {
  const amRules = rules.replace('group_wait: 0s', 'group_wait: 30s');
  const fingerprints = (e: ReturnType<typeof engine>['engine']) =>
    e.resendable('ops').map((a) => `${a.labels['alertname']}/${a.labels['channel_id'] ?? a.labels['org']}`);

  it('holds a firing alert back until its group was sent, as group_wait says', () => {
    const { engine: e, clock } = engine(amRules);
    e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
    tickFor(e, clock, 10 * SEC, SEC);
    expect(e.alerts({ state: 'firing' })).toHaveLength(1);
    expect(fingerprints(e)).toEqual([]);
    expect(summary(tickFor(e, clock, 30 * SEC, SEC))).toEqual(['ops firing channel_down/c1:firing']);
    expect(fingerprints(e)).toEqual(['channel_down/c1']);
  });

  it('leaves out silenced and inhibited alerts', () => {
    const { engine: e, clock } = engine(`${amRules}
silences:
  - matchers: ['channel_id = "c2"']
    starts_at: ${iso(T0)}
    ends_at: ${iso(T0 + HOUR)}
    created_by: ops
    comment: known
`);
    e.evaluate([
      view('acme', { channels: [channel('c1', 'offline'), channel('c2', 'offline')] }),
      view('globex', { channels: [channel('g1', 'offline')], health: 'unreachable', lastError: 'timeout' }),
    ]);
    tickFor(e, clock, 2 * MIN, MIN);
    expect(e.alerts({ state: 'firing' }).length).toBe(4);
    expect(fingerprints(e).sort()).toEqual(['channel_down/c1', 'upstream_unreachable/globex']);
  });

  it('tells Alertmanager an alert it holds resolved, also while tally mutes it; not other receivers', async () => {
    const told = async (keepsTold: boolean) => {
      const { engine: e, clock } = engine(amRules, { keepsTold: () => keepsTold });
      e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
      const first = summary(tickFor(e, clock, 40 * SEC, SEC));
      await e.addSilence({
        matchers: ['channel_id = "c1"'],
        duration: '2h',
        created_by: 'ops',
        comment: 'known',
      });
      tickFor(e, clock, 6 * MIN, MIN);
      // It resolves while silenced.
      e.evaluate([view('acme', { channels: [channel('c1', 'live')] })]);
      return [...first, ...summary(tickFor(e, clock, 10 * MIN, MIN))];
    };
    expect(await told(true)).toEqual([
      'ops firing channel_down/c1:firing',
      'ops resolved channel_down/c1:resolved',
    ]);
    expect(await told(false)).toEqual(['ops firing channel_down/c1:firing']);
  });

  it('tells Alertmanager the resolve of a held alert that came back pending before the flush', async () => {
    const pendingFirst = rules.replace("when: '!channel.live'", "when: '!channel.live'\n    for: 2m");
    const { engine: e, clock } = engine(pendingFirst.replace('group_wait: 0s', 'group_wait: 30s'), {
      keepsTold: () => true,
    });
    const ev = (status: string) => e.evaluate([view('acme', { channels: [channel('c1', status)] })]);
    const out: string[] = [];
    for (let i = 0; i < 4; i++) {
      ev('offline');
      out.push(...summary(tickFor(e, clock, MIN, SEC)));
    }
    await e.addSilence({
      matchers: ['channel_id = "c1"'],
      duration: '2h',
      created_by: 'ops',
      comment: 'known',
    });
    for (let i = 0; i < 3; i++) {
      ev('offline');
      out.push(...summary(tickFor(e, clock, MIN, SEC)));
    }
    expect(e.resendable('ops')).toHaveLength(1);
    ev('live'); // resolves while silenced …
    ev('offline'); // … and is down again (pending) before the group flushes
    out.push(...summary(tickFor(e, clock, MIN, SEC)));
    expect(out).toEqual(['ops firing channel_down/c1:firing', 'ops resolved channel_down/c1:resolved']);
  });

  it('keeps re-sending an alert Alertmanager already has when tally mutes it later', async () => {
    const { engine: e, clock } = engine(amRules);
    e.evaluate([
      view('acme', { channels: [channel('c1', 'offline')] }),
      view('globex', { channels: [channel('g1', 'offline')] }),
    ]);
    tickFor(e, clock, 40 * SEC, SEC);
    expect(fingerprints(e).sort()).toEqual(['channel_down/c1', 'channel_down/g1']);
    // Silenced in tally after the push, and the other org's upstream fails (inhibition):
    // both still fire, so Alertmanager must keep them, or it resolves them on its own.
    await e.addSilence({
      matchers: ['channel_id = "c1"'],
      duration: '2h',
      created_by: 'ops',
      comment: 'known',
    });
    e.evaluate([
      view('acme', { channels: [channel('c1', 'offline')] }),
      view('globex', { channels: [channel('g1', 'offline')], health: 'unreachable', lastError: 'timeout' }),
    ]);
    tickFor(e, clock, 2 * MIN, MIN);
    const muted = e.alerts({ state: 'firing' }).filter((a) => a.labels['alertname'] === 'channel_down');
    expect(muted.map((a) => [a.silenced_by.length > 0, a.inhibited_by.length > 0]).sort()).toEqual([
      [false, true],
      [true, false],
    ]);
    expect(fingerprints(e).sort()).toEqual([
      'channel_down/c1',
      'channel_down/g1',
      'upstream_unreachable/globex',
    ]);
    // What tally mutes it does not send anew: no notification carries the muted two.
    const later = tickFor(e, clock, 10 * MIN, MIN).flatMap((n) => n.alerts.map((a) => a.labels['alertname']));
    expect(later).not.toContain('channel_down');
    expect(fingerprints(e)).toContain('channel_down/c1');
  });
});
