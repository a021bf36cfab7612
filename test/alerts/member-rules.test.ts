/**
 * Condition rules with `for_each: member`: one alert per matching member of the team,
 * labelled `org`, `member_id` and `member` (the name, frozen when the alert is created),
 * with the usual lifecycle: pending for `for`, resolved when the condition clears or the
 * member leaves a team that was read completely, untouched while the team is not known.
 */
import { describe, expect, it } from 'vitest';
import type { Member } from '../../src/snapshot/model.js';
import { engine, MIN, summary, T0, tickFor, view } from './helpers.js';
import { byCodeUnits } from '../../src/core/order.js';

const RULES = `
rules:
  - name: admin_without_email
    for_each: member
    when: 'member.role == "admin" && !has(member.email)'
    severity: critical
    labels: { team: '{{ org.slug }}-ops' }
    annotations:
      summary: '{{ member.name }} ({{ labels.member_id }}) is an admin without e-mail'
  - name: viewer
    for_each: member
    when: 'member.role == "viewer"'
route: { receiver: ops, group_wait: 0s, group_interval: 1m }
`;

const ann: Member = { id: 'm1', name: 'Ann', role: 'admin' };
const bob: Member = { id: 'm2', name: 'Bob', email: 'bob@acme.test', role: 'admin' };
const cy: Member = { id: 'm3', name: 'Cy', email: 'cy@acme.test', role: 'viewer' };

describe('for_each: member', () => {
  it('fires once per matching member, with its id and name as labels', () => {
    const { engine: x } = engine(RULES);
    x.evaluate([view('acme', { team: [ann, bob, cy] }), view('beta', { team: [{ ...cy, id: 'm9' }] })]);
    const alerts = x.alerts().map((a) => ({ rule: a.rule, state: a.state, labels: a.labels }));
    expect(
      alerts.sort((a, b) => byCodeUnits(`${a.rule}${a.labels['org']}`, `${b.rule}${b.labels['org']}`)),
    ).toEqual([
      {
        rule: 'admin_without_email',
        state: 'firing',
        labels: {
          alertname: 'admin_without_email',
          severity: 'critical',
          org: 'acme',
          member_id: 'm1',
          member: 'Ann',
          team: 'acme-ops',
        },
      },
      {
        rule: 'viewer',
        state: 'firing',
        labels: { alertname: 'viewer', severity: 'warning', org: 'acme', member_id: 'm3', member: 'Cy' },
      },
      {
        rule: 'viewer',
        state: 'firing',
        labels: { alertname: 'viewer', severity: 'warning', org: 'beta', member_id: 'm9', member: 'Cy' },
      },
    ]);
    const byRule = (rule: string) => x.alerts().find((a) => a.rule === rule && a.labels['org'] === 'acme')!;
    expect(byRule('admin_without_email').annotations['summary']).toBe('Ann (m1) is an admin without e-mail');
    // Without a summary the rule still gets a readable one that names the member.
    expect(byRule('viewer').annotations['summary']).toContain('Cy');
  });

  it('labels a member without a name with its id', () => {
    const { engine: x } = engine(RULES);
    x.evaluate([view('acme', { team: [{ id: 'm4', role: 'viewer' }] })]);
    expect(x.alerts().map((a) => [a.labels['member_id'], a.labels['member']])).toEqual([['m4', 'm4']]);
  });

  /** [minutes after T0, Cy's state ('viewer', 'admin', 'gone' or 'unread'), the expected state of her alert]. */
  type Step = [number, string, string];
  it.each<[string, string, Step[]]>([
    [
      'resolves when the role changes',
      '',
      [
        [0, 'viewer', 'firing'],
        [1, 'admin', 'resolved'],
      ],
    ],
    [
      'resolves when the member leaves the team',
      '',
      [
        [0, 'viewer', 'firing'],
        [1, 'gone', 'resolved'],
      ],
    ],
    [
      'changes nothing while the team is not read',
      '',
      [
        [0, 'viewer', 'firing'],
        [1, 'unread', 'firing'],
        [2, 'admin', 'resolved'],
      ],
    ],
    [
      'waits for `for`',
      '    for: 2m',
      [
        [0, 'viewer', 'pending'],
        [1, 'viewer', 'pending'],
        [2, 'viewer', 'firing'],
        [3, 'gone', 'resolved'],
      ],
    ],
    [
      'forgets a pending alert whose condition cleared',
      '    for: 2m',
      [
        [0, 'viewer', 'pending'],
        [1, 'admin', 'none'],
      ],
    ],
  ])('%s', (_name, extra, steps) => {
    const { engine: x, clock } = engine(`
rules:
  - name: viewer
    for_each: member
    when: 'member.role == "viewer"'
${extra}
route: { receiver: ops }
`);
    const seen: string[] = [];
    for (const [min, state] of steps) {
      clock.time = T0 + min * MIN;
      const team = state === 'gone' ? [ann] : [ann, { ...cy, role: state }];
      x.evaluate([state === 'unread' ? view('acme') : view('acme', { team, at: clock.time })]);
      seen.push(x.alerts().find((a) => a.labels['member_id'] === 'm3')?.state ?? 'none');
    }
    expect(seen).toEqual(steps.map((s) => s[2]));
  });

  it('keeps the fingerprint and the name label when the member is renamed', () => {
    const { engine: x, clock } = engine(RULES);
    x.evaluate([view('acme', { team: [cy] })]);
    const before = x.alerts()[0]!;
    clock.advance(MIN);
    x.evaluate([view('acme', { team: [{ ...cy, name: 'Cyra' }], at: clock.time })]);
    const after = x.alerts();
    expect(after).toHaveLength(1);
    expect(after[0]!.fingerprint).toBe(before.fingerprint);
    expect(after[0]!.labels['member']).toBe('Cy');
  });

  it('sends the firing and, since condition rules send resolutions, the resolved notification', () => {
    const { engine: x, clock } = engine(RULES);
    x.evaluate([view('acme', { team: [ann, bob, cy] })]);
    expect(summary(tickFor(x, clock, 30_000))).toEqual([
      'ops firing admin_without_email/acme:firing',
      'ops firing viewer/acme:firing',
    ]);
    x.evaluate([view('acme', { team: [{ ...ann, email: 'ann@acme.test' }, bob, cy], at: clock.time })]);
    expect(summary(tickFor(x, clock, 2 * MIN))).toEqual(['ops resolved admin_without_email/acme:resolved']);
  });
});
