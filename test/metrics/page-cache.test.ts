import { gunzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyMetrics } from '../../src/metrics/index.js';
import { FakeSource, orgView, snapshot } from './fixtures.js';
import { parseSamples, value } from './parse.js';

const AT = 1_700_000_000_000;

function setup() {
  let now = AT;
  const first = snapshot({ org: 'acme', at: AT, channels: [{ id: 'c1', status: 'live' }] });
  const source = new FakeSource([orgView(first)]);
  const metrics = new TallyMetrics({
    registry: new Registry(),
    source,
    defaultMetrics: false,
    pageMaxAgeMs: 1000,
    now: () => now,
  });
  return { metrics, source, first, advance: (ms: number) => (now += ms) };
}

const polls = (body: string) =>
  value(parseSamples(body), 'tally_poll_duration_seconds_count', { org: 'acme', resource: 'channels' });

describe('/metrics page cache', () => {
  it('serves one render again while the snapshots are the same and the page is young', async () => {
    const { metrics, advance } = setup();
    metrics.recordPoll('acme', 'channels', 20);
    const a = await metrics.render(undefined);
    metrics.recordPoll('acme', 'channels', 20);
    advance(999);
    const b = await metrics.render(undefined);
    expect(b).toBe(a);
    expect(polls(b.text())).toBe(1);
    advance(1);
    const c = await metrics.render(undefined);
    expect(c).not.toBe(a);
    expect(polls(c.text())).toBe(2);
  });

  it('renders again at once when an org has a new snapshot', async () => {
    const { metrics, source, advance } = setup();
    const a = await metrics.render(undefined);
    expect(value(parseSamples(a.text()), 'tally_live_channels', { org: 'acme' })).toBe(1);
    source.views = [
      orgView(snapshot({ org: 'acme', at: AT + 5, channels: [{ id: 'c1', status: 'offline' }] })),
    ];
    advance(10);
    const b = await metrics.render(undefined);
    expect(value(parseSamples(b.text()), 'tally_live_channels', { org: 'acme' })).toBe(0);
  });

  it('keeps a page per format, gzipped', async () => {
    const { metrics } = setup();
    const text = await metrics.render('text/plain');
    const om = await metrics.render('application/openmetrics-text');
    expect(om.format).toBe('openmetrics');
    expect(await metrics.render('text/plain')).toBe(text);
    // The page is kept gzipped; its text is inflated afresh, to the same bytes each time.
    expect(gunzipSync(text.gzip).toString()).toBe(text.text());
    const streamed = Buffer.concat(await text.stream().toArray());
    expect(streamed.equals(gunzipSync(text.gzip))).toBe(true);
    expect(text.size).toBe(streamed.length);
    // zlib's fastest level, which the gzip header's XFL byte says (RFC 1952: 4).
    expect(text.gzip[8]).toBe(4);
  });

  it('renders afresh after a config reload, also when a render was under way', async () => {
    const { metrics } = setup();
    const before = metrics.render(undefined);
    metrics.recordConfigReload(false, AT + 5);
    const after = await metrics.render(undefined);
    expect(after).not.toBe(await before);
    expect(value(parseSamples(after.text()), 'tally_config_last_reload_successful', {})).toBe(0);
    // The page cached is the one rendered after the reload.
    expect(await metrics.render(undefined)).toBe(after);
  });

  it('shares one render between scrapes that arrive while it runs', async () => {
    const { metrics } = setup();
    const [a, b] = await Promise.all([metrics.render(undefined), metrics.render(undefined)]);
    expect(b).toBe(a);
  });

  it('renders every scrape with pageMaxAgeMs 0, and refuses a negative age', async () => {
    const source = new FakeSource([orgView(snapshot({ org: 'acme', at: AT }))]);
    const metrics = new TallyMetrics({
      registry: new Registry(),
      source,
      defaultMetrics: false,
      pageMaxAgeMs: 0,
    });
    const a = await metrics.render(undefined);
    expect(await metrics.render(undefined)).not.toBe(a);
    expect(
      () => new TallyMetrics({ registry: new Registry(), source, defaultMetrics: false, pageMaxAgeMs: -1 }),
    ).toThrow(/pageMaxAgeMs/);
  });
});
