/**
 * Rule expressions as docs/alerts.md ("Expressions (CEL)") documents them: every helper on a
 * fixed clock, every variable and field as the real engine hands it to condition and event
 * rules, and wrong types refused when the config loads, with the column in the expression and
 * the line and column in the file.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironments, expectedOnAir } from '../../src/alerts/cel.js';
import { SCOPE_VARIABLES, type Scope, toCel } from '../../src/alerts/cel-types.js';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/core/errors.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import type { OrgView } from '../../src/poll/status.js';
import { channel, engine, event, HOUR, MIN, T0, view } from './helpers.js';

const DAY = 24 * HOUR;

describe('helpers at a fixed now (2026-03-02T00:00:00Z, a Monday)', () => {
  const cel = new CelEnvironments();

  /** Compiles `expr` in `scope` and evaluates it with `now` at `nowMs` and the given variables. */
  function run(expr: string, vars: Record<string, unknown> = {}, nowMs = T0, scope: Scope = 'org'): unknown {
    cel.setNow(nowMs);
    const ctx: Record<string, unknown> = { now: new Date(nowMs) };
    for (const [name, value] of Object.entries(vars)) {
      const type = SCOPE_VARIABLES[scope][name];
      if (type === undefined) throw new Error(`${name} is not a variable of ${scope}`);
      ctx[name] = toCel(type, value, cel.classes);
    }
    return cel.compile(scope, expr).evaluate(ctx);
  }

  it.each<[string, string, unknown]>([
    ['duration', 'duration("90m").getMinutes()', 90n],
    ['duration', 'duration("90m") == duration("1h30m")', true],
    ['duration', 'duration("2h").getHours()', 2n],
    ['duration', 'duration("45s").getSeconds()', 45n],
    ['duration', 'duration("1500ms") > duration("1s") && duration("1500ms") < duration("2s")', true],
    ['duration', 'duration("1500ms") == duration("1.5s")', true],
    ['days', 'days(7) == duration("168h")', true],
    ['days', 'days(7).getHours()', 168n],
    ['days', 'days(1.5).getHours()', 36n],
    ['days', 'days(0) == duration("0s")', true],
    ['since', 'since(timestamp("2026-03-01T22:00:00Z")).getMinutes()', 120n],
    ['since', 'since(timestamp("2026-02-23T00:00:00Z")) == days(7)', true],
    ['since', 'since(now) == duration("0s")', true],
    ['since', 'since(timestamp("2026-03-02T01:00:00Z")).getMinutes()', -60n],
    ['until', 'until(timestamp("2026-03-09T00:00:00Z")) == days(7)', true],
    ['until', 'until(timestamp("2026-03-02T00:30:00Z")).getMinutes()', 30n],
    ['until (passed)', 'until(timestamp("2026-03-01T23:00:00Z")).getMinutes()', -60n],
    ['until (passed)', 'until(timestamp("2026-03-01T23:00:00Z")) < duration("0s")', true],
    ['now', 'now == timestamp("2026-03-02T00:00:00Z")', true],
    ['now', 'now.getDayOfWeek()', 1n],
    ['now', 'now.getFullYear()', 2026n],
    ['now', 'now.getHours("Europe/Berlin")', 1n],
    ['now', 'now + days(1) == timestamp("2026-03-03T00:00:00Z")', true],
    ['is_live', 'is_live("live")', true],
    ['status_class', 'status_class("On Air")', 'live'],
    ['status_class', 'status_class("errored")', 'failed'],
    ['status_class', 'status_class("rehearsal")', 'unknown'],
    ['channel_class', 'channel_class("idle")', 'offline'],
    ['visibility_class', 'visibility_class("members-only")', 'private'],
    ['is_live', 'is_live("on_air")', true],
    ['is_live', 'is_live("idle")', false],
    ['is_live', 'is_live("ended")', false],
    ['is_live', 'is_live("")', false],
    ['is_ended', 'is_ended("ended")', true],
    ['is_ended', 'is_ended("failed")', true],
    ['is_ended', 'is_ended("cancelled")', true],
    ['is_ended', 'is_ended("live")', false],
    ['is_ended', 'is_ended("scheduled")', false],
    ['is_scheduled', 'is_scheduled("scheduled")', true],
    ['is_scheduled', 'is_scheduled("live")', false],
    ['is_scheduled', 'is_scheduled("ended")', false],
  ])('%s: %s', (_helper, expr, expected) => {
    expect(run(expr)).toEqual(expected);
  });

  it('since, until and now follow the time they are given', () => {
    const t = { org: { slug: 'acme', settings: {}, labels: {}, token_expires_at: T0 + DAY } };
    const at = (ms: number) => [
      run('since(timestamp("2026-03-01T00:00:00Z")).getHours()', t, ms),
      run('until(org.token_expires_at).getHours()', t, ms),
      run('now.getHours()', t, ms),
    ];
    expect(at(T0)).toEqual([24n, 24n, 0n]);
    expect(at(T0 + 5 * HOUR)).toEqual([29n, 19n, 5n]);
  });

  it.each<[string, string, unknown]>([
    ['size()', 'size(channels)', 2n],
    [
      'has()',
      'channels.exists(c, !has(c.visibility)) && has(subscription.funding.mode) && !has(subscription.funding.balance)',
      true,
    ],
    ['in', '"admin" in team.map(m, m.role)', true],
    ['.exists()', 'channels.exists(c, c.live)', true],
    ['.all()', 'channels.all(c, c.live)', false],
    ['.filter()', 'channels.filter(c, !c.live).map(c, c.name)', ['Sport']],
    ['.map()', 'team.map(m, m.name)', ['Ann', 'Bob']],
    ['.startsWith()', 'team[0].email.startsWith("ann@")', true],
    ['.matches()', 'channels[0].name.matches("^N[a-z]+$")', true],
    ['string()', 'string(subscription.usage["members"])', '5'],
    ['int()', 'int(subscription.usage_pct["channels"])', 90n],
    ['double()', 'double(size(team)) / 4.0', 0.5],
    ['timestamp()', 'timestamp("2026-03-02T00:00:00Z") == now', true],
    ['getHours()', 'timestamp("2026-03-01T21:30:00Z").getHours()', 21n],
    ['int and double compare', 'size(team) < 2.5', true],
  ])('standard CEL %s', (_what, expr, expected) => {
    const vars = {
      team: [
        { id: 'm1', name: 'Ann', email: 'ann@acme.test', role: 'admin' },
        { id: 'm2', name: 'Bob', role: 'viewer' },
      ],
      channels: [
        { id: 'c1', name: 'News', status: 'live', visibility: 'public', live: true },
        { id: 'c2', name: 'Sport', status: 'offline', live: false },
      ],
      subscription: {
        limits: { channels: 10 },
        usage: { channels: 9, members: 5 },
        usage_pct: { channels: 90 },
        funding: { mode: 'byok' },
      },
    };
    expect(run(expr, vars)).toEqual(expected);
  });
});

/** acme: a wallet, two channels, three sessions, two members, a token that expires in 10 days. */
function acme(): OrgView {
  const v = view('acme', {
    name: 'Acme Radio',
    labels: { team: 'broadcast' },
    tokenExpiresAt: T0 + 10 * DAY,
    subscription: {
      plan: 'pro',
      limits: { channels: 10, members: 50 },
      usage: { channels: 9, members: 5 },
      funding: { mode: 'wallet', balance: 12.5, currency: 'EUR' },
    },
    team: [
      { id: 'm1', name: 'Ann', email: 'ann@acme.test', role: 'owner' },
      { id: 'm2', name: 'Bob', email: 'bob@acme.test', role: 'viewer' },
    ],
    channels: [
      channel('c1', 'live', { name: 'News', visibility: 'public' }),
      channel('c2', 'offline', { name: 'Sport', visibility: 'private' }),
    ],
    sessions: {
      c1: [
        {
          id: 's1',
          channelId: 'c1',
          title: 'Morning',
          status: 'live',
          scheduledAt: T0 - 5 * HOUR,
          startedAt: T0 - 4 * HOUR,
        },
      ],
      c2: [
        { id: 's2', channelId: 'c2', title: 'Match', status: 'scheduled', scheduledAt: T0 + 2 * HOUR },
        {
          id: 's3',
          channelId: 'c2',
          title: 'Replay',
          status: 'failed',
          startedAt: T0 - 3 * HOUR,
          endedAt: T0 - HOUR,
        },
      ],
    },
    details: {
      s1: {
        title: 'Morning',
        status: 'live',
        questions: { count: 12, items: [] },
        announcements: { count: 2, items: [] },
        reactions: { count: 30, byKind: { clap: 20, heart: 10 } },
        speakers: { count: 3, items: [] },
        ai: { status: 'transcribing', enabled: true },
      },
    },
  });
  const profile = v.snapshot.profile;
  if (profile?.state === 'complete') {
    profile.value.plan = 'pro';
    profile.value.settings = { 'notifications.email': true, region: 'eu' };
  }
  return v;
}

/** beta: unreachable for 10 minutes, bring-your-own-key funding, no owner, one channel on air. */
function beta(): OrgView {
  const v = view('beta', {
    health: 'unreachable',
    lastError: 'connect timeout',
    subscription: {
      plan: 'free',
      funding: { mode: 'byok', provider: 'openai', keyStatus: 'invalid' },
    },
    team: [{ id: 'm3', name: 'Cy', email: 'cy@beta.test', role: 'admin' }],
    channels: [channel('c3', 'on_air', { name: 'Talk', visibility: 'unlisted' })],
    sessions: {
      c3: [{ id: 's4', channelId: 'c3', title: 'Late', status: 'on_air', startedAt: T0 - 2 * HOUR }],
    },
  });
  v.health.lastSuccessAt = T0 - 10 * MIN;
  return v;
}

/** gamma: only the profile and a subscription with a funding mode tally does not know were read. */
function gamma(): OrgView {
  return view('gamma', { subscription: { funding: { mode: 'unknown', raw: 'credits' } } });
}

/** What identifies an alert of each kind of rule (an event alert's event is in its annotations). */
const KEY: Record<Scope, string> = {
  org: 'org',
  channel: 'channel_id',
  session: 'session_id',
  member: 'member_id',
  event: 'event_id',
};

/** The entities a condition rule fires for, evaluated at T0 after an hour of wallet history. */
function firingFor(forEach: Exclude<Scope, 'event'>, when: string): string[] {
  const { engine: x, clock } = engine(`
rules:
  - name: r
    for_each: ${forEach}
    when: ${JSON.stringify(when)}
route: { receiver: ops }
`);
  // acme's wallet went from 24.5 to 12.5 in the last hour: 288 per day, 12.5 / 288 days left.
  clock.time = T0 - HOUR;
  x.evaluate([
    view('acme', { at: clock.time, subscription: { funding: { mode: 'wallet', balance: 24.5 } } }),
  ]);
  clock.time = T0;
  x.evaluate([acme(), beta(), gamma()]);
  return x
    .alerts({ state: 'firing' })
    .map((a) => a.labels[KEY[forEach]] ?? '')
    .sort();
}

describe('variables of condition rules, as the engine builds them', () => {
  it.each<[Exclude<Scope, 'event'>, string, string[]]>([
    ['org', 'now == timestamp("2026-03-02T00:00:00Z")', ['acme', 'beta', 'gamma']],
    ['org', 'org.slug == "beta"', ['beta']],
    ['org', 'org.name == "Acme Radio"', ['acme']],
    ['org', 'has(org.plan) && org.plan == "pro"', ['acme']],
    // A field the API did not return makes the expression fail, which counts as false.
    ['org', 'org.plan != "pro"', []],
    ['org', 'org.settings["notifications.email"] == true && org.settings["region"] == "eu"', ['acme']],
    ['org', 'org.labels["team"] == "broadcast"', ['acme']],
    ['org', 'has(org.token_expires_at) && until(org.token_expires_at) < days(14)', ['acme']],
    ['org', 'has(org.token_expires_at) && until(org.token_expires_at) < days(7)', []],
    ['org', 'upstream.state == "unreachable"', ['beta']],
    ['org', 'upstream.state == "ok"', ['acme', 'gamma']],
    ['org', 'since(upstream.last_success_at) > duration("5m")', ['beta']],
    ['org', 'has(upstream.last_error) && upstream.last_error.startsWith("connect")', ['beta']],
    ['org', 'has(upstream.reason) && upstream.reason == "timeout"', ['beta']],
    ['org', 'subscription.plan == "free"', ['beta']],
    ['org', 'subscription.limits["channels"] == 10.0', ['acme']],
    ['org', 'subscription.usage["members"] == 5.0', ['acme']],
    ['org', 'subscription.usage_pct.exists(k, subscription.usage_pct[k] >= 90.0)', ['acme']],
    ['org', 'subscription.usage_pct["members"] == 10.0', ['acme']],
    [
      'org',
      'subscription.funding.mode == "wallet" && subscription.funding.balance < 20.0 && subscription.funding.currency == "EUR"',
      ['acme'],
    ],
    [
      'org',
      'subscription.funding.mode == "byok" && subscription.funding.provider == "openai" && subscription.funding.key_status == "invalid"',
      ['beta'],
    ],
    ['org', 'subscription.funding.mode == "credits"', ['gamma']],
    [
      'org',
      'subscription.funding.burn_per_day > 287.9 && subscription.funding.burn_per_day < 288.1',
      ['acme'],
    ],
    ['org', 'subscription.funding.days_left > 0.0433 && subscription.funding.days_left < 0.0435', ['acme']],
    // gamma's team was never read: the rule is skipped there, not evaluated as false.
    ['org', '!team.exists(m, has(m.role) && m.role == "owner")', ['beta']],
    ['org', 'size(team) >= 0', ['acme', 'beta']],
    ['org', 'team.exists(m, m.id == "m2" && m.name == "Bob" && m.email == "bob@acme.test")', ['acme']],
    ['org', 'channels.exists(c, c.live)', ['acme', 'beta']],
    ['org', 'channels.filter(c, !c.live).map(c, c.name) == ["Sport"]', ['acme']],
    ['org', 'channels.all(c, c.visibility == "unlisted" && c.status == "on_air" && c.id == "c3")', ['beta']],
    ['channel', 'channel.live', ['c1', 'c3']],
    ['channel', 'channel.status == "offline" && channel.visibility == "private"', ['c2']],
    ['channel', 'channel.name.matches("^N.*") && channel.id == "c1"', ['c1']],
    ['channel', 'org.slug == "beta" && size(channels) == 1 && upstream.state == "unreachable"', ['c3']],
    ['session', 'session.live && since(session.started_at) > duration("3h")', ['s1']],
    ['session', 'session.live', ['s1', 's4']],
    [
      'session',
      'session.ended && session.status == "failed" && until(session.ended_at) < duration("0s")',
      ['s3'],
    ],
    ['session', 'is_scheduled(session.status) && until(session.scheduled_at) == duration("2h")', ['s2']],
    ['session', 'since(session.scheduled_at) == duration("5h")', ['s1']],
    [
      'session',
      'session.id == "s2" && session.title == "Match" && session.channel_id == "c2" && channel.name == "Sport"',
      ['s2'],
    ],
    [
      'session',
      'detail.questions > 10 && detail.announcements == 2 && detail.reactions == 30 && detail.speakers == 3',
      ['s1'],
    ],
    [
      'session',
      'detail.reactions_by_kind["clap"] == 20 && detail.ai_status == "transcribing" && detail.ai_enabled && detail.title == "Morning" && detail.status == "live"',
      ['s1'],
    ],
    ['member', 'member.role == "owner"', ['m1']],
    ['member', 'member.id == "m3" && member.name == "Cy" && member.email.endsWith("@beta.test")', ['m3']],
    ['member', 'org.slug == "acme" && size(team) == 2', ['m1', 'm2']],
  ])('for_each %s: %s', (forEach, when, expected) => {
    expect(firingFor(forEach, when)).toEqual(expected);
  });

  it('now, since and until follow the engine clock', () => {
    const { engine: x, clock } = engine(`
rules:
  - name: long_live
    for_each: session
    when: 'session.live && since(session.started_at) > duration("3h") && now > timestamp("2026-03-01T00:00:00Z")'
route: { receiver: ops }
`);
    x.evaluate([acme(), beta()]);
    expect(x.alerts({ state: 'firing' }).map((a) => a.labels['session_id'])).toEqual(['s1']);
    // 90 minutes later beta's session (started 2h before T0) has run 3.5h too.
    clock.advance(90 * MIN);
    x.evaluate([acme(), beta()]);
    expect(
      x
        .alerts({ state: 'firing' })
        .map((a) => a.labels['session_id'])
        .sort(),
    ).toEqual(['s1', 's4']);
  });
});

describe('variables of event rules', () => {
  const events = (): ChangeEvent[] => [
    event('channel.status_changed', {
      id: 'e1',
      at: T0 - 5 * MIN,
      entity: 'c1',
      field: 'status',
      from: 'on_air',
      to: 'offline',
      labels: { channel: 'News', channel_id: 'c1' },
    }),
    event('member.added', {
      id: 'e2',
      org: 'beta',
      at: T0 - 2 * HOUR,
      entity: 'm9',
      labels: { member: 'Dee' },
    }),
    event('session.ended', {
      id: 'e3',
      at: T0 - MIN,
      entity: 's3',
      to: 'failed',
      labels: { session: 'Replay' },
    }),
  ];

  it.each<[string, string[]]>([
    ['now == timestamp("2026-03-02T00:00:00Z")', ['e1', 'e2', 'e3']],
    // e2 and e3 have no `from`: reading it fails, which counts as false.
    ['is_live(string(event.from)) && !is_live(string(event.to))', ['e1']],
    ['event.id == "e1" && event.field == "status" && event.labels["channel"] == "News"', ['e1']],
    [
      'event.kind == "member.added" && event.entity_kind == "member" && event.entity_id == "m9" && event.org == "beta"',
      ['e2'],
    ],
    ['since(event.at) > duration("1h")', ['e2']],
    ['since(event.at) == duration("5m")', ['e1']],
    ['has(event.to) && is_ended(string(event.to))', ['e3']],
    ['!has(event.to)', ['e2']],
  ])('%s', (when, expected) => {
    const { engine: x } = engine(`
rules:
  - name: r
    on: '*'
    when: ${JSON.stringify(when)}
route: { receiver: ops }
`);
    x.onEvents(events());
    expect(
      x
        .alerts()
        .map((a) => a.annotations[KEY.event] ?? '')
        .sort(),
    ).toEqual(expected);
  });
});

describe('wrong types are config errors at load', () => {
  /** A whole config with one rule; the `when` line is the last of the rule. */
  const config = (kind: string, when: string) => `upstream:
  base_url: http://127.0.0.1:8080
orgs:
  - slug: acme
    token: abc123
rules:
  - name: r
    ${kind}
    when: '${when}'
route: { receiver: console }
receivers:
  - name: console
    log: {}
`;

  async function problems(text: string): Promise<readonly string[]> {
    try {
      await parseConfig(text, { source: 'tally.yaml', env: {}, baseDir: '.' });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  }

  it.each<[string, string, string, string]>([
    // [kind line, expression, problem, where in the expression it points]
    [
      'for_each: org',
      'since("2026-01-01T00:00:00Z") > duration("1h")',
      "found no matching overload for 'since(string)'",
      'since',
    ],
    ['for_each: org', 'until(org.slug) < days(1)', "found no matching overload for 'until(string)'", 'until'],
    ['for_each: org', 'days("7") > duration("1h")', "found no matching overload for 'days(string)'", 'days'],
    ['for_each: org', 'days(true) > duration("1h")', "found no matching overload for 'days(bool)'", 'days'],
    [
      'for_each: org',
      'duration(5) > duration("1h")',
      "found no matching overload for 'duration(int)'",
      'duration',
    ],
    ['for_each: org', 'is_live(3)', "found no matching overload for 'is_live(int)'", 'is_live'],
    [
      'for_each: org',
      'upstream.state == "ok" && is_ended(org)',
      "found no matching overload for 'is_ended(Org)'",
      'is_ended',
    ],
    [
      'for_each: org',
      'is_scheduled(org.slug, "x")',
      "found no matching overload for 'is_scheduled(string, string)'",
      'is_scheduled',
    ],
    [
      'for_each: org',
      'until(org.token_expires_at) < 14',
      'no such overload: google.protobuf.Duration < int',
      'until',
    ],
    ['for_each: org', 'days(1) == 1', 'no such overload: google.protobuf.Duration == int', 'days'],
    [
      'for_each: org',
      'now > duration("1h")',
      'no such overload: google.protobuf.Timestamp > google.protobuf.Duration',
      'now',
    ],
    [
      'on: channel.status_changed',
      'now == "2026-03-02"',
      'no such overload: google.protobuf.Timestamp == string',
      'now',
    ],
    [
      'for_each: org',
      'since(now)',
      'must be a true/false condition, but its type is google.protobuf.Duration',
      'since',
    ],
    [
      'for_each: org',
      'upstream.state == "ok" && since(session.started_at) > days(1)',
      'Unknown variable: session',
      'session',
    ],
  ])('%s: %s', async (kind, when, problem, token) => {
    const text = config(kind, when);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.startsWith('    when: ')) + 1;
    const exprColumn = when.indexOf(token) + 1;
    // The file column of the same character: after the opening quote of the value.
    const fileColumn = lines[line - 1]!.indexOf("'") + 1 + exprColumn;
    expect(await problems(text)).toEqual([
      `rules[0].when: ${problem} (at column ${exprColumn} of the expression) (line ${line}, column ${fileColumn})`,
    ]);
  });

  it('accepts the documented examples', async () => {
    for (const [kind, when] of [
      ['for_each: org', 'has(org.token_expires_at) && until(org.token_expires_at) < days(14)'],
      ['for_each: session', 'session.live && since(session.started_at) > duration("3h")'],
      ['for_each: org', 'subscription.usage_pct.exists(k, subscription.usage_pct[k] >= 90.0)'],
      ['for_each: org', '!team.exists(m, has(m.role) && m.role == "owner")'],
      ['on: channel.status_changed', 'is_live(string(event.from)) && !is_live(string(event.to))'],
    ] as const)
      expect(await problems(config(kind, when)), when).toEqual([]);
  });
});

describe('expected_on_air', () => {
  const H = 3_600_000;
  const at = (ms: number) => new Date(ms);
  it.each<[string, Parameters<typeof expectedOnAir>[0], number, boolean]>([
    ['live, whatever the plan', { live: true }, 0, true],
    ['inside the planned range', { scheduled_at: at(0), scheduled_end_at: at(H) }, H / 2, true],
    [
      'within the margin before the start',
      { scheduled_at: at(H), scheduled_end_at: at(2 * H) },
      H - 60_000,
      true,
    ],
    ['past the end and the margin', { scheduled_at: at(0), scheduled_end_at: at(H) }, H + 20 * 60_000, false],
    ['no planned end: the margin around the start', { scheduled_at: at(0) }, 10 * 60_000, true],
    ['no plan at all', {}, 0, false],
  ])('%s', (_name, s, now, expected) => {
    expect(expectedOnAir(s, 15 * 60_000, now)).toBe(expected);
  });

  it('is a CEL helper over a channel’s sessions', () => {
    const cel = new CelEnvironments();
    const e = cel.compile(
      'channel',
      'channel.live && !sessions.exists(s, expected_on_air(s, duration("15m")))',
      'bool',
    );
    expect([...e.variables].sort()).toEqual(['channel', 'sessions']);
    cel.setNow(2 * 3_600_000);
    const C = cel.classes.Channel;
    const S = cel.classes.Session;
    expect(
      e.evaluate({ channel: new C({ live: true }), sessions: [new S({ live: false, scheduled_at: at(0) })] }),
    ).toBe(true);
    expect(e.evaluate({ channel: new C({ live: true }), sessions: [new S({ live: true })] })).toBe(false);
  });
});
