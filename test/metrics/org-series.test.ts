import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyMetrics } from '../../src/metrics/index.js';
import { FakeSource, orgView, snapshot } from './fixtures.js';

const text = async (m: TallyMetrics) => (await m.render(undefined)).text();
const lines = (t: string, prefix: string) => t.split('\n').filter((l) => l.startsWith(prefix));
const metrics = (source: FakeSource) =>
  new TallyMetrics({ registry: new Registry(), source, defaultMetrics: false, pageMaxAgeMs: 0 });

describe('per-org and per-channel series', () => {
  it('tally_channel_status says live="true" for any of tally\'s live words, as tally_live_channels counts', async () => {
    const source = new FakeSource([
      orgView(
        snapshot({
          org: 'acme',
          channels: [
            { id: 'c1', name: 'Main', status: 'on_air' },
            { id: 'c2', name: 'Side', status: 'offline' },
          ] as never,
        }),
      ),
    ]);
    const t = await text(metrics(source));
    expect(lines(t, 'tally_live_channels{')).toEqual(['tally_live_channels{org="acme"} 1']);
    expect(lines(t, 'tally_channel_status{')).toEqual([
      'tally_channel_status{org="acme",channel_id="c1",channel="Main",status="on_air",live="true"} 1',
      'tally_channel_status{org="acme",channel_id="c2",channel="Side",status="offline",live="false"} 1',
    ]);
  });

  it('a channel whose status word tally does not know is live="unknown", counted neither live nor not live', async () => {
    const source = new FakeSource([
      orgView(
        snapshot({
          org: 'acme',
          channels: [
            { id: 'c1', name: 'Main', status: 'liveNow' },
            { id: 'c2', name: 'Side', status: 'rehearsal' },
            { id: 'c3', name: 'Third', status: 'suspended' },
          ] as never,
        }),
      ),
    ]);
    const t = await text(metrics(source));
    expect(lines(t, 'tally_live_channels{')).toEqual(['tally_live_channels{org="acme"} 1']);
    expect(lines(t, 'tally_channel_status{')).toEqual([
      'tally_channel_status{org="acme",channel_id="c1",channel="Main",status="liveNow",live="true"} 1',
      'tally_channel_status{org="acme",channel_id="c2",channel="Side",status="rehearsal",live="unknown"} 1',
      'tally_channel_status{org="acme",channel_id="c3",channel="Third",status="suspended",live="false"} 1',
    ]);
  });

  it('tally_changes_total of an org that left the config goes with it, and starts at 0 when it comes back', async () => {
    const acme = orgView(snapshot({ org: 'acme' }));
    const beta = orgView(snapshot({ org: 'beta' }));
    const source = new FakeSource([acme, beta]);
    const m = metrics(source);
    m.recordEvents([{ org: 'beta', kind: 'channel.added' }] as never);
    expect(lines(await text(m), 'tally_changes_total{org="beta",kind="channel.added"}')).toEqual([
      'tally_changes_total{org="beta",kind="channel.added"} 1',
    ]);
    source.views = [acme];
    expect(lines(await text(m), 'tally_changes_total{org="beta"')).toEqual([]);
    expect(lines(await text(m), 'tally_changes_total{org="acme"').length).toBeGreaterThan(0);
    source.views = [acme, beta];
    expect(lines(await text(m), 'tally_changes_total{org="beta",kind="channel.added"}')).toEqual([
      'tally_changes_total{org="beta",kind="channel.added"} 0',
    ]);
  });

  it('tally_org_labels gives an org without a label named like an Object method an empty value', async () => {
    const source = new FakeSource([
      orgView(snapshot({ org: 'a' }), { labels: { constructor: 'x' } }),
      orgView(snapshot({ org: 'b' }), { labels: {} }),
    ]);
    const t = await text(metrics(source));
    expect(lines(t, 'tally_org_labels{')).toEqual([
      'tally_org_labels{org="a",constructor="x"} 1',
      'tally_org_labels{org="b",constructor=""} 1',
    ]);
  });
});
