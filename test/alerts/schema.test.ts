import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { alertingSchema } from '../../src/alerts/schema.js';

/** Validates YAML alert sections; returns `path: message` lines as the config loader prints them (without positions). */
function problems(yaml: string): string[] {
  const r = alertingSchema.safeParse(parse(yaml));
  if (r.success) return [];
  return r.error.issues.map((i) => {
    const path = i.path
      .map((s, n) => (typeof s === 'number' ? `[${s}]` : n === 0 ? String(s) : `.${String(s)}`))
      .join('');
    return `${path}: ${i.code === 'unrecognized_keys' ? `unknown ${i.keys.join(', ')}` : i.message}`;
  });
}

const rule = (body: string) => `rules:\n  - name: r\n${body}`;

describe('rule validation', () => {
  it.each<[string, string, string[]]>([
    [
      'a CEL syntax error, with its column in the expression',
      `    for_each: org\n    when: 'subscription.funding.balance < '`,
      ['rules[0].when: Unexpected token: EOF (at column 32 of the expression)'],
    ],
    [
      'an unknown variable',
      `    for_each: org\n    when: 'subscriptio.plan == "pro"'`,
      ['rules[0].when: Unknown variable: subscriptio (at column 1 of the expression)'],
    ],
    [
      'an unknown field',
      `    for_each: org\n    when: 'subscription.funding.balanc < 2.0'`,
      ['rules[0].when: No such key: balanc (at column 22 of the expression)'],
    ],
    [
      'a variable of another scope',
      `    for_each: org\n    when: 'channel.live'`,
      ['rules[0].when: Unknown variable: channel (at column 1 of the expression)'],
    ],
    [
      'a type mismatch',
      `    for_each: channel\n    when: 'channel.name == 3'`,
      ['rules[0].when: no such overload: string == int (at column 1 of the expression)'],
    ],
    [
      'a condition that is not true/false',
      `    for_each: channel\n    when: 'channel.name'`,
      [
        'rules[0].when: must be a true/false condition, but its type is string (at column 1 of the expression)',
      ],
    ],
    [
      'a duration literal CEL cannot read',
      `    for_each: org
    when: 'has(org.token_expires_at) && until(org.token_expires_at) < duration("7d")'`,
      [
        'rules[0].when: Invalid duration string: 7d (CEL durations use h, m, s, ms, us and ns, e.g. "168h"; for days use days(7)) (at column 60 of the expression)',
      ],
    ],
    [
      'a timestamp literal CEL cannot read',
      `    on: session.started
    when: 'timestamp("yesterday") < now'`,
      [
        'rules[0].when: timestamp() requires a string in ISO 8601 format (an RFC 3339 time such as "2030-01-01T00:00:00Z") (at column 1 of the expression)',
      ],
    ],
    [
      'an error on the second line of a block expression',
      `    for_each: org\n    when: |\n      upstream.state == "ok" &&\n        org.nam == "x"`,
      ['rules[0].when: No such key: nam (at expression line 2, column 7 of the expression)'],
    ],
    [
      'a bad value expression',
      `    on: session.started\n    value: 'event.too'`,
      ['rules[0].value: No such key: too (at column 7 of the expression)'],
    ],
    [
      'a template error',
      `    on: session.started\n    annotations:\n      summary: '{{ event.kind | nosuchfilter }}'`,
      ['rules[0].annotations.summary: undefined filter: nosuchfilter (at template line 1, column 1)'],
    ],
    [
      'both kinds at once',
      '    on: session.started\n    for_each: org\n    when: "true"',
      ['rules[0]: set either on (an event rule) or for_each (a condition rule)'],
    ],
    [
      'neither kind',
      '    severity: info',
      ['rules[0]: set either on (an event rule) or for_each (a condition rule)'],
    ],
    ['a condition rule without when', '    for_each: org', ['rules[0].when: required for condition rules']],
    [
      'for on an event rule',
      '    on: session.started\n    for: 5m',
      ['rules[0].for: only for condition rules'],
    ],
    [
      'resolve_after on a condition rule',
      '    for_each: org\n    when: "true"\n    resolve_after: 5m',
      ['rules[0].resolve_after: only for event rules'],
    ],
    [
      'a reserved label',
      '    on: session.started\n    labels: { org: x }',
      ['rules[0].labels.org: org is set by tally'],
    ],
    ['an unknown key', '    on: session.started\n    colour: red', ['rules[0]: unknown colour']],
  ])('reports %s', (_name, body, expected) => {
    expect(problems(rule(body))).toEqual(expected);
  });

  it('reports an unknown event kind', () => {
    expect(problems(rule('    on: session.exploded'))[0]).toMatch(/^rules\[0\]\.on: an event kind such as/);
  });

  it('reports duplicate rule names', () => {
    expect(
      problems('rules:\n  - { name: a, on: session.started }\n  - { name: a, on: session.ended }'),
    ).toEqual(['rules[1].name: duplicate of rules[0].name']);
  });

  it('passes the position inside the expression along for the loader', () => {
    const r = alertingSchema.safeParse(parse(rule(`    for_each: org\n    when: 'org.nam == "x"'`)));
    const issue = (r.error as z.ZodError).issues[0] as z.core.$ZodIssueCustom;
    expect(issue.params).toEqual({ expression: { line: 1, column: 5 } });
  });

  it('accepts the default rules', async () => {
    const text = await readFile(new URL('../../src/alerts/default-rules.yaml', import.meta.url), 'utf8');
    expect(problems(text)).toEqual([]);
  });
});

describe('route, silence and maintenance validation', () => {
  it.each<[string, string, string[]]>([
    ['a root route without receiver', 'route: { group_wait: 1m }', ['route.receiver: required']],
    [
      'root matchers',
      'route: { receiver: a, matchers: [\'org = "x"\'] }',
      ['route.matchers: the root route matches every alert'],
    ],
    [
      'a bad matcher deep in the tree',
      "route:\n  receiver: a\n  routes:\n    - receiver: b\n      routes:\n        - matchers: ['org ~ x']",
      [
        'route.routes[0].routes[0].matchers[0]: "org ~ x" is not a matcher such as org = "acme" (operators =, !=, =~, !~)',
      ],
    ],
    [
      'a bad group_by label',
      "route: { receiver: a, group_by: ['no-dash'] }",
      ['route.group_by[0]: a label name or ...'],
    ],
    [
      'a bad duration',
      'route: { receiver: a, group_wait: soon }',
      ['route.group_wait: a duration such as 30s, 5m, 1h30m or 7d'],
    ],
    [
      'a silence that ends before it starts',
      "silences:\n  - { matchers: ['org=\"a\"'], starts_at: '2026-01-02T00:00:00Z', ends_at: '2026-01-01T00:00:00Z', created_by: a, comment: b }",
      ['silences[0].ends_at: must be after starts_at'],
    ],
    [
      'a silence time without zone',
      "silences:\n  - { matchers: ['org=\"a\"'], starts_at: '2026-01-02T00:00:00', ends_at: '2026-01-03T00:00:00Z', created_by: a, comment: b }",
      ['silences[0].starts_at: an ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z'],
    ],
    [
      'a window of both kinds',
      "maintenance:\n  - { name: w, schedule: '0 2 * * *', duration: 1h, starts_at: '2026-01-01T00:00:00Z' }",
      ['maintenance[0]: set either starts_at and ends_at, or schedule and duration'],
    ],
    [
      'a recurring window without duration',
      "maintenance:\n  - { name: w, schedule: '0 2 * * *' }",
      ['maintenance[0].duration: required'],
    ],
    [
      'a bad cron',
      "maintenance:\n  - { name: w, schedule: '0 25 * * *', duration: 1h }",
      ['maintenance[0].schedule: invalid cron: CronPattern: Invalid value for hour: 25'],
    ],
    [
      'an unknown time zone',
      "maintenance:\n  - { name: w, schedule: '0 2 * * *', duration: 1h, time_zone: Mars/Olympus }",
      ['maintenance[0].time_zone: unknown time zone Mars/Olympus'],
    ],
    [
      'duplicate window names',
      "maintenance:\n  - { name: w, starts_at: '2026-01-01T00:00:00Z', ends_at: '2026-01-02T00:00:00Z' }\n  - { name: w, starts_at: '2026-01-01T00:00:00Z', ends_at: '2026-01-02T00:00:00Z' }",
      ['maintenance[1].name: duplicate name'],
    ],
  ])('reports %s', (_name, yaml, expected) => {
    expect(problems(yaml)).toEqual(expected);
  });

  it('fills in defaults', () => {
    const r = alertingSchema.parse(parse('route: { receiver: a }'));
    expect(r).toEqual({
      rules: [],
      route: { receiver: 'a', continue: false },
      silences: [],
      maintenance: [],
      inhibit: { upstream: true },
    });
  });

  it('produces a JSON Schema (for editors) including the recursive route', () => {
    const js = JSON.stringify(z.toJSONSchema(alertingSchema, { io: 'input', unrepresentable: 'any' }));
    expect(js).toContain('"for_each"');
    expect(js).toContain('"$ref"');
  });
});
