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

  it('keeps a page per format, and one gzip per page', async () => {
    const { metrics } = setup();
    const text = await metrics.render('text/plain');
    const om = await metrics.render('application/openmetrics-text');
    expect(om.format).toBe('openmetrics');
    expect(await metrics.render('text/plain')).toBe(text);
    const zipped = await text.gzip();
    expect(await text.gzip()).toBe(zipped);
    expect(gunzipSync(zipped).toString()).toBe(text.text());
    // zlib's fastest level, which the gzip header's XFL byte says (RFC 1952: 4).
    expect(zipped[8]).toBe(4);
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

  describe('page buffers used again', () => {
    const turn = () => new Promise((r) => setImmediate(r));

    /**
     * Renders `n` pages, each after a poll and a page age after the last, each let go at
     * the end of its turn; what each held is read within that turn.
     */
    async function renderApart(
      { metrics, advance }: ReturnType<typeof setup>,
      n: number,
    ): Promise<{ buffer: ArrayBufferLike; polls: number | undefined }[]> {
      const pages = [];
      for (let i = 0; i < n; i++) {
        metrics.recordPoll('acme', 'channels', 20);
        const page = await metrics.render(undefined);
        pages.push({ buffer: page.body.buffer, polls: polls(page.text()) });
        await turn();
        advance(1000);
      }
      return pages;
    }

    it('writes a page into the buffer of one nothing holds any more', async () => {
      const pages = await renderApart(setup(), 8);
      expect(pages.map((p) => p.polls)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // The first page fits exactly; the one that outgrows it has room, and is used from then on.
      expect(new Set(pages.map((p) => p.buffer)).size).toBeLessThanOrEqual(2);
    });

    it('never writes into a page while something holds it', async () => {
      const t = setup();
      // Past the first pages, each is written into a buffer with room to spare.
      await renderApart(t, 3);
      const held = await t.metrics.render(undefined);
      const release = held.hold();
      const text = held.text();
      await turn();
      t.advance(1000);
      const others = await renderApart(t, 6);
      expect(others.map((p) => p.buffer)).not.toContain(held.body.buffer);
      expect(held.text()).toBe(text);
      release();
    });

    it('holds a page while it is gzipped, and for every scrape that shared its render', async () => {
      const t = setup();
      await renderApart(t, 3);
      const [a, b] = await Promise.all([t.metrics.render(undefined), t.metrics.render(undefined)]);
      const releaseB = b.hold();
      const zipped = a.gzip();
      const text = a.text();
      await turn();
      t.advance(1000);
      const later = await renderApart(t, 4);
      expect(later.map((p) => p.buffer)).not.toContain(a.body.buffer);
      expect(gunzipSync(await zipped).toString()).toBe(text);
      expect(b.text()).toBe(text);
      releaseB();
    });

    it('lets a page go when a reload empties the cache', async () => {
      const t = setup();
      const a = await t.metrics.render(undefined);
      await turn();
      t.metrics.recordConfigReload(true, AT + 5);
      t.advance(10);
      // a is free: the next pages are written into its buffer or one sized from it.
      const later = await renderApart(t, 4);
      expect(new Set([a.body.buffer, ...later.map((p) => p.buffer)]).size).toBeLessThanOrEqual(3);
    });
  });
});
