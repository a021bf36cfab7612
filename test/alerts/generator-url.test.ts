/**
 * Each alert's link (`generatorURL`): tally's own alert view under `server.external_url`
 * by default, or the rule's `generator_url` template — a Grafana dashboard, say — for
 * event and condition rules alike; a broken template is a config error.
 */
import { describe, expect, it } from 'vitest';
import { alerting, channel, engine, event, MIN, tickFor, view } from './helpers.js';

const rules = (link: string) => `
rules:
  - name: went_live
    on: session.started
    ${link}
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    ${link}
route: { receiver: ops, group_wait: 0s }
`;

function links(yaml: string, externalURL?: string): Record<string, string | undefined> {
  const { engine: e, clock } = engine(yaml, externalURL === undefined ? {} : { externalURL });
  e.evaluate([view('acme', { channels: [channel('c1', 'offline')] })]);
  e.onEvents([event('session.started', { org: 'acme' })]);
  const sent = tickFor(e, clock, 2 * MIN, MIN).flatMap((n) => n.alerts);
  return Object.fromEntries(sent.map((a) => [a.labels['alertname'], a.generatorURL]));
}

describe('alert links', () => {
  it("default to the alert in tally's API when external_url is set, and to nothing otherwise", () => {
    const withBase = links(rules(''), 'https://tally.example.com/');
    expect(withBase['went_live']).toMatch(
      /^https:\/\/tally\.example\.com\/api\/v1\/alerts\?fingerprint=\w+$/,
    );
    expect(withBase['channel_down']).toMatch(
      /^https:\/\/tally\.example\.com\/api\/v1\/alerts\?fingerprint=\w+$/,
    );
    expect(links(rules(''))).toEqual({ went_live: undefined, channel_down: undefined });
  });

  it('follow the rule’s generator_url template, rendered with the alert’s labels', () => {
    const link = `generator_url: 'https://grafana.example.com/d/tally?var-org={{ labels.org }}&var-rule={{ labels.alertname }}'`;
    expect(links(rules(link), 'https://tally.example.com')).toEqual({
      went_live: 'https://grafana.example.com/d/tally?var-org=acme&var-rule=went_live',
      channel_down: 'https://grafana.example.com/d/tally?var-org=acme&var-rule=channel_down',
    });
  });

  it('reject a template that does not parse, naming the rule and field', () => {
    expect(() => alerting(rules(`generator_url: 'https://g/{{ labels.org '`))).toThrow(/generator_url/);
  });
});
