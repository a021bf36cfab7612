import { describe, expect, it } from 'vitest';
import { compileMatchers, formatMatcher, parseMatcher } from '../../src/alerts/matchers.js';
import { compileRoute, matchRoutes } from '../../src/alerts/route.js';
import { routeReceiverPaths, routeReceivers } from '../../src/alerts/schema.js';
import { alerting, engine, event, T0, tickFor } from './helpers.js';

describe('matchers', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['org = "acme"', { org: 'acme' }, true],
    ['org="acme"', { org: 'other' }, false],
    ['org != "acme"', { org: 'other' }, true],
    ['team != "ops"', {}, true],
    ['team = ""', {}, true],
    ['alertname =~ "channel_.*"', { alertname: 'channel_offline' }, true],
    ['alertname =~ "channel"', { alertname: 'channel_offline' }, false], // anchored
    ['alertname !~ "channel_.*|member_.*"', { alertname: 'member_changed' }, false],
    ['severity=critical', { severity: 'critical' }, true],
    ['summary = "a \\"quoted\\" word"', { summary: 'a "quoted" word' }, true],
  ])('%s on %j → %s', (text, labels, expected) => {
    const [m] = compileMatchers([text]);
    expect(m!.test(labels)).toBe(expected);
  });

  it.each([
    ['org', 'is not a matcher'],
    ['org == "x"', 'quote the value'],
    ['9org = "x"', 'is not a matcher'],
    ['org =~ "("', 'invalid regular expression'],
    ['org = "x', 'unterminated'],
  ])('refuses %s', (text, message) => {
    expect(() => parseMatcher(text)).toThrow(message);
  });

  it('formats matchers the way Alertmanager prints them', () => {
    expect(formatMatcher(parseMatcher('org =~ "a.*"'))).toBe('org=~"a.*"');
  });
});

const tree = alerting(`
route:
  receiver: default
  group_by: [org]
  routes:
    - matchers: ['severity = "critical"']
      receiver: pager
      continue: true
      routes:
        - matchers: ['org = "acme"']
          receiver: acme-pager
    - matchers: ['severity =~ "critical|warning"']
      receiver: chat
      group_wait: 1m
    - matchers: ['team = "billing"']
      receiver: billing
`).route!;

describe('route tree', () => {
  const root = compileRoute(tree);
  it.each<[Record<string, string>, string[]]>([
    [{ severity: 'info' }, ['default']],
    [{ severity: 'warning' }, ['chat']],
    [{ severity: 'critical', org: 'other' }, ['pager', 'chat']],
    [{ severity: 'critical', org: 'acme' }, ['acme-pager', 'chat']],
    [{ severity: 'info', team: 'billing' }, ['billing']],
    [{ severity: 'warning', team: 'billing' }, ['chat']], // first match without continue stops
  ])('%j goes to %j', (labels, receivers) => {
    expect(matchRoutes(root, labels).map((r) => r.receiver)).toEqual(receivers);
  });

  it('lets children inherit group_by and timings they do not set', () => {
    const [pager, chat] = root.routes;
    expect(pager!.groupBy).toEqual(['org']);
    expect(pager!.groupWait).toBe(30_000);
    expect(chat!.groupWait).toBe(60_000);
    expect(chat!.id).toBe('{}/{severity=~"critical|warning"}');
  });

  it('lists every receiver the tree refers to, and where', () => {
    expect(routeReceivers(tree)).toEqual(['default', 'pager', 'acme-pager', 'chat', 'billing']);
    expect(routeReceiverPaths(tree)[2]).toEqual({
      receiver: 'acme-pager',
      path: ['routes', 0, 'routes', 0, 'receiver'],
    });
  });

  it('sends one notification per matching receiver (continue)', () => {
    const { engine: e, clock } = engine(`
rules:
  - name: down
    on: upstream.unreachable
    severity: critical
route:
  receiver: default
  group_wait: 0s
  routes:
    - matchers: ['severity = "critical"']
      receiver: pager
      continue: true
    - matchers: ['org = "acme"']
      receiver: chat
`);
    e.onEvents([event('upstream.unreachable', { at: T0 })]);
    const ns = tickFor(e, clock, 0);
    expect(ns.map((n) => n.receiver).sort()).toEqual(['chat', 'pager']);
    expect(e.alerts()[0]!.receivers.sort()).toEqual(['chat', 'pager']);
    expect(e.alerts({ receiver: 'pager' })).toHaveLength(1);
    expect(e.alerts({ receiver: 'default' })).toHaveLength(0);
  });
});
