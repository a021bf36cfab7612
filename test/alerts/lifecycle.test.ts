import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { channel, engine, MIN, summary, T0, tickFor, view } from './helpers.js';

/** One step: minutes after T0, the channel's status (or gone / not read), the expected alert state. */
type Step = [number, string, string];

const rule = (extra: string) => `
rules:
  - name: chan_off
    for_each: channel
    when: 'channel.status == "offline"'
${extra}
route:
  receiver: ops
  group_wait: 0s
  group_interval: 1m
`;

function runSteps(extra: string, steps: Step[]): string[] {
  const { engine: e, clock } = engine(rule(extra));
  const seen: string[] = [];
  for (const [min, status] of steps) {
    clock.time = T0 + min * MIN;
    const channels = status === 'gone' ? [channel('other')] : [channel('c1', status)];
    e.evaluate([status === 'unread' ? view('acme') : view('acme', { channels })]);
    seen.push(e.alerts({ org: 'acme' }).find((a) => a.labels['channel_id'] === 'c1')?.state ?? 'none');
  }
  return seen;
}

describe('condition rule lifecycle', () => {
  it.each<[string, string, Step[]]>([
    [
      'fires at once without for',
      '',
      [
        [0, 'offline', 'firing'],
        [1, 'live', 'resolved'],
      ],
    ],
    [
      'stays pending until for has passed',
      '    for: 2m',
      [
        [0, 'offline', 'pending'],
        [1, 'offline', 'pending'],
        [2, 'offline', 'firing'],
        [3, 'live', 'resolved'],
      ],
    ],
    [
      'a pending alert that clears is forgotten',
      '    for: 2m',
      [
        [0, 'offline', 'pending'],
        [1, 'live', 'none'],
      ],
    ],
    [
      'keep_firing_for holds a cleared alert, then resolves it',
      '    keep_firing_for: 5m',
      [
        [0, 'offline', 'firing'],
        [1, 'live', 'firing'],
        [5, 'live', 'firing'],
        [6, 'live', 'resolved'],
      ],
    ],
    [
      'the condition holding again restarts keep_firing_for',
      '    keep_firing_for: 5m',
      [
        [0, 'offline', 'firing'],
        [1, 'live', 'firing'],
        [4, 'offline', 'firing'],
        [8, 'live', 'firing'],
        [13, 'live', 'resolved'],
      ],
    ],
    [
      'a channel that is gone resolves its alert',
      '',
      [
        [0, 'offline', 'firing'],
        [1, 'gone', 'resolved'],
      ],
    ],
    [
      'a channel list never read changes nothing',
      '',
      [
        [0, 'offline', 'firing'],
        [1, 'unread', 'firing'],
        [2, 'live', 'resolved'],
      ],
    ],
    [
      'a resolved alert fires again as a new instance',
      '',
      [
        [0, 'offline', 'firing'],
        [1, 'live', 'resolved'],
        [2, 'offline', 'firing'],
      ],
    ],
  ])('%s', (_name, extra, steps) => {
    expect(runSteps(extra, steps)).toEqual(steps.map((s) => s[2]));
  });

  it('keeps the fingerprint and labels when the channel is renamed', () => {
    const { engine: e, clock } = engine(rule(''));
    e.evaluate([view('acme', { channels: [channel('c1', 'offline', { name: 'Morning' })] })]);
    const before = e.alerts()[0]!;
    clock.advance(MIN);
    e.evaluate([view('acme', { channels: [channel('c1', 'offline', { name: 'Evening' })] })]);
    const after = e.alerts()[0]!;
    expect(after.fingerprint).toBe(before.fingerprint);
    expect(after.labels['channel']).toBe('Morning');
    expect(after.startsAt).toBe(before.startsAt);
  });

  it('labels carry alertname, severity, org, entity and org config labels', () => {
    const { engine: e } = engine(
      rule('    severity: critical\n    labels: { team: "{{ labels.org }}-ops" }'),
      {
        orgLabels: { acme: { tier: 'gold' } },
      },
    );
    e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
    expect(e.alerts()[0]!.labels).toEqual({
      alertname: 'chan_off',
      severity: 'critical',
      org: 'acme',
      channel_id: 'c1',
      channel: 'Channel c1',
      tier: 'gold',
      team: 'acme-ops',
    });
  });

  it('renders annotations when the alert starts firing, with value and entity fields', () => {
    const { engine: e, clock } = engine(`
rules:
  - name: busy
    for_each: session
    when: 'session.live && detail.questions > 3'
    value: detail.questions
    for: 1m
    annotations:
      summary: '{{ value }} questions in {{ session.title }} on {{ channel.name }}'
route: { receiver: ops }
`);
    const sessions = { c1: [{ id: 's1', channelId: 'c1', title: 'Show', status: 'live' }] };
    const channels = [channel('c1', 'live', { name: 'Main' })];
    e.evaluate([
      view('acme', { channels, sessions, details: { s1: { questions: { count: 5, items: [] } } } }),
    ]);
    expect(e.alerts()[0]!.annotations).toEqual({});
    clock.advance(MIN);
    e.evaluate([
      view('acme', { channels, sessions, details: { s1: { questions: { count: 7, items: [] } } } }),
    ]);
    const a = e.alerts()[0]!;
    expect(a.state).toBe('firing');
    expect(a.labels).toMatchObject({ session_id: 's1', channel_id: 'c1', session: 'Show', channel: 'Main' });
    expect(a.annotations['summary']).toBe('7 questions in Show on Main');
  });

  it('a run-time error counts as false and does not stop other entities', () => {
    const { engine: e } = engine(`
rules:
  - name: hidden
    for_each: channel
    when: 'channel.visibility == "private"'
route: { receiver: ops }
`);
    // c1 has no visibility: the lookup fails; c2 is private.
    e.evaluate([
      view('acme', { channels: [channel('c1'), channel('c2', 'live', { visibility: 'private' })] }),
    ]);
    expect(e.alerts().map((a) => a.labels['channel_id'])).toEqual(['c2']);
  });

  it('logs a failing rule at most once every ten minutes', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        cb();
      },
    });
    const { engine: e, clock } = engine(
      `
rules:
  - name: hidden
    for_each: channel
    when: 'channel.visibility == "private"'
`,
      { logger: createLogger({ level: 'warn', format: 'json', destination }) },
    );
    for (let i = 0; i < 12; i++) {
      e.evaluate([view('acme', { channels: [channel('c1')] })]);
      clock.advance(MIN);
    }
    await new Promise((r) => setImmediate(r)); // the logger writes asynchronously
    const warns = lines.filter((l) => l['msg'] === 'rule evaluation failed');
    expect(warns.map((l) => [l['rule'], l['suppressed']])).toEqual([
      ['hidden', 0],
      ['hidden', 9],
    ]);
    expect(String(warns[0]!['problem'])).toContain('No such key: visibility');
  });

  it('skips a rule while a variable it reads was never read (no false resolution)', () => {
    const { engine: e, clock } = engine(`
rules:
  - name: low
    for_each: org
    when: 'subscription.funding.balance < 10.0'
route: { receiver: ops }
`);
    e.evaluate([view('acme', { subscription: { funding: { mode: 'wallet', balance: 5 } } })]);
    expect(e.alerts()[0]!.state).toBe('firing');
    clock.advance(MIN);
    e.evaluate([view('acme')]); // subscription not read (e.g. right after a restart)
    expect(e.alerts()[0]!.state).toBe('firing');
  });

  it('evaluating some orgs leaves the alerts of the others alone', () => {
    const { engine: e } = engine(rule(''), { orgs: ['acme', 'other'] });
    e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
    e.evaluate([view('other', { channels: [] })]);
    expect(e.alerts()[0]!.state).toBe('firing');
  });

  it('resolves alerts of an org no longer watched, also across a restart', async () => {
    const first = engine(rule(''), { orgs: ['acme'] });
    first.engine.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
    await first.engine.save();
    const second = engine(rule(''), { orgs: ['other'], store: first.store, clock: first.clock });
    await second.engine.load();
    expect(second.engine.alerts()[0]!.state).toBe('resolved');
  });
});

describe('lifecycle notifications', () => {
  it.each<[string, string, string[]]>([
    [
      'send_resolved defaults to true for condition rules',
      '',
      ['ops firing chan_off/c1:firing', 'ops resolved chan_off/c1:resolved'],
    ],
    [
      'send_resolved: false sends no resolution',
      '    send_resolved: false',
      ['ops firing chan_off/c1:firing'],
    ],
  ])('%s', (_name, extra, expected) => {
    const { engine: e, clock } = engine(rule(extra));
    e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
    const ns = tickFor(e, clock, 2 * MIN);
    e.evaluate([view('acme', { channels: [channel('c1', 'live')] })]);
    ns.push(...tickFor(e, clock, 2 * MIN));
    expect(summary(ns)).toEqual(expected);
  });

  it('repeats a firing group after repeat_interval, and a rule can override it', () => {
    const run = (extra: string) => {
      const { engine: e, clock } = engine(`${rule(extra)}  repeat_interval: 1h\n`);
      e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
      return tickFor(e, clock, 3 * 60 * MIN, MIN).map((n) => (n.createdAt - T0) / MIN);
    };
    expect(run('')).toEqual([0, 60, 120, 180]);
    expect(run('    repeat_interval: 90m')).toEqual([0, 90, 180]);
  });
});
