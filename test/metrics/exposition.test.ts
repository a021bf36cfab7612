import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listedFamily } from '../../src/metrics/collected.js';
import {
  GzipLines,
  openMetrics,
  render,
  sampleLine,
  sampleLineParts,
  TextBuffer,
} from '../../src/metrics/exposition.js';
import type { LineMemo } from '../../src/metrics/snapshot-summary.js';
import { negotiate } from '../../src/metrics/negotiate.js';
import { TallyMetrics } from '../../src/metrics/index.js';
import { FakeSource, orgView, snapshot } from './fixtures.js';
import { hasPromtool, promtoolProblems } from './promtool.js';

describe('negotiate', () => {
  it.each([
    [undefined, 'prometheus'],
    ['', 'prometheus'],
    ['*/*', 'prometheus'],
    ['text/plain;version=0.0.4', 'prometheus'],
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
    // What Prometheus 2.x sends when it prefers OpenMetrics.
    [
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      'openmetrics',
    ],
    ['text/plain;q=0.9, application/openmetrics-text;q=0.5', 'prometheus'],
    ['application/openmetrics-text;q=0', 'prometheus'],
    ['application/openmetrics-text;version=2.0.0', 'prometheus'],
    ['application/json', 'prometheus'],
  ])('Accept %j → %s', (accept, format) => {
    expect(negotiate(accept)).toBe(format);
  });
});

describe('openMetrics', () => {
  it('names counter and info families without their sample suffix and ends with # EOF', () => {
    const text = openMetrics([
      {
        name: 'tally_changes_total',
        help: 'Changes.',
        type: 'counter',
        values: [{ labels: { kind: 'a"b' }, value: 2 }],
      },
      {
        name: 'tally_build_info',
        help: 'Build.',
        type: 'gauge',
        values: [{ labels: { version: '1' }, value: 1 }],
      },
      {
        name: 'tally_poll_duration_seconds',
        help: 'Polls.',
        type: 'histogram',
        values: [
          { labels: { le: 1 }, value: 1, metricName: 'tally_poll_duration_seconds_bucket' },
          { labels: { le: 0.5 }, value: 0, metricName: 'tally_poll_duration_seconds_bucket' },
          { labels: { le: '+Inf' }, value: 1, metricName: 'tally_poll_duration_seconds_bucket' },
          { labels: {}, value: 0.75, metricName: 'tally_poll_duration_seconds_sum' },
        ],
      },
      {
        name: 'tally_ratio',
        help: 'Line\nbreak.',
        type: 'gauge',
        values: [{ labels: {}, value: Number.NaN }],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP tally_changes Changes.',
        '# TYPE tally_changes counter',
        'tally_changes_total{kind="a\\"b"} 2',
        '# HELP tally_build Build.',
        '# TYPE tally_build info',
        'tally_build_info{version="1"} 1',
        '# HELP tally_poll_duration_seconds Polls.',
        '# TYPE tally_poll_duration_seconds histogram',
        'tally_poll_duration_seconds_bucket{le="1.0"} 1',
        'tally_poll_duration_seconds_bucket{le="0.5"} 0',
        'tally_poll_duration_seconds_bucket{le="+Inf"} 1',
        'tally_poll_duration_seconds_sum 0.75',
        '# HELP tally_ratio Line\\nbreak.',
        '# TYPE tally_ratio gauge',
        'tally_ratio NaN',
        '# EOF',
        '',
      ].join('\n'),
    );
  });

  it('renders the same values in both formats and leaves the registry in Prometheus form', async () => {
    const source = new FakeSource([
      orgView(snapshot({ org: 'acme', channels: [{ id: 'c1', status: 'live' }] })),
    ]);
    const metrics = new TallyMetrics({ registry: new Registry(), source, defaultMetrics: false });
    metrics.recordEvents([
      {
        id: '1',
        at: 1,
        org: 'acme',
        kind: 'channel.added',
        entity: { kind: 'channel', id: 'c1' },
        labels: {},
      },
    ]);
    const om = await metrics.render('application/openmetrics-text');
    expect(om.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(om.text()).toContain('# TYPE tally_changes counter\n');
    expect(om.text()).toContain('tally_changes_total{org="acme",kind="channel.added"} 1\n');
    expect(om.text().endsWith('# EOF\n')).toBe(true);
    const text = await metrics.render('text/plain');
    expect(text.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text.text()).toContain('# TYPE tally_changes_total counter\n');
    expect(text.text()).toContain('tally_channels{org="acme",status="live",visibility="unknown"} 1');
    expect(text.text()).not.toContain('# EOF');
  });
});

describe('TextBuffer', () => {
  it('keeps every line, multi-byte text included, past its first allocation', () => {
    const out = new TextBuffer();
    const lines = Array.from({ length: 5000 }, (_, i) => `tally_x{channel="Café ☕ 🎙️ ${i}"} ${i}`);
    for (const line of lines) out.push(line);
    out.push('a', 'b');
    expect(out.toString()).toBe(`${[...lines, 'a', 'b'].join('\n')}\n`);
  });

  it('takes a line in parts as the line they make, across batches', () => {
    const out = new TextBuffer();
    const want: string[] = [];
    for (let i = 0; i < 1200; i++) {
      if (i % 3 === 0) {
        out.push(`whole ${i}`);
        want.push(`whole ${i}`);
      } else {
        out.pushParts('tally_x{', `channel="${i}"`, `} ${i}`);
        want.push(`tally_x{channel="${i}"} ${i}`);
      }
    }
    expect(out.toString()).toBe(`${want.join('\n')}\n`);
  });
});

describe('sampleLineParts', () => {
  it('makes the sample line, split after the first labels, whatever the labels and the split', () => {
    const label = fc.option(fc.string(), { nil: undefined });
    fc.assert(
      fc.property(
        fc.record({ org: label, channel_id: label, status: label, le: label }),
        fc.integer({ min: 0, max: 5 }),
        fc.double(),
        fc.constantFrom('prometheus' as const, 'openmetrics' as const),
        (labels, head, value, format) => {
          const parts = sampleLineParts(labels, head, value, format);
          expect(`tally_x{${parts.head}${parts.tail}`.replace(/^tally_x\{\}/, 'tally_x')).toBe(
            sampleLine('tally_x', labels, value, format),
          );
        },
      ),
    );
  });
});

describe('GzipLines', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `tally_x{channel="Café ☕ 🎙️ ${i}"} ${i}`);

  it('gzips the same text as TextBuffer, across batches and multi-byte characters', () => {
    const zipped = new GzipLines();
    const text = new TextBuffer();
    for (const line of [...lines(1500), 'a', 'b']) {
      zipped.push(line);
      text.push(line);
    }
    const { gzip, size } = zipped.finish();
    expect(gunzipSync(gzip).toString('utf8')).toBe(text.toString());
    expect(size).toBe(Buffer.byteLength(text.toString()));
    // One member, as gzip(1) and Go's reader expect: ID bytes, deflate, XFL fastest.
    expect([...gzip.subarray(0, 3)]).toEqual([0x1f, 0x8b, 0x08]);
    expect(gzip[8]).toBe(4);
    // The trailer: CRC-32 and length of the text (RFC 1952 2.3.1).
    expect(gzip.readUInt32LE(gzip.length - 8)).toBe(crc32(Buffer.from(text.toString())));
    expect(gzip.readUInt32LE(gzip.length - 4)).toBe(size);
  });

  it('deflates a batch too large for its scratch buffer as well', () => {
    const zipped = new GzipLines();
    const long = `tally_x{title="${'€'.repeat(60_000)}"} 1`;
    zipped.push('before 1', long, 'after 2');
    const { gzip, size } = zipped.finish();
    const want = `before 1\n${long}\nafter 2\n`;
    expect(gunzipSync(gzip).toString('utf8')).toBe(want);
    expect(size).toBe(Buffer.byteLength(want));
  });

  it('is a valid empty gzip with nothing written', () => {
    const { gzip, size } = new GzipLines().finish();
    expect(size).toBe(0);
    expect(gunzipSync(gzip).length).toBe(0);
  });

  it('is not much larger than one deflate of the whole text', () => {
    const zipped = new GzipLines();
    const text = new TextBuffer();
    for (const line of lines(20_000)) {
      zipped.push(line);
      text.push(line);
    }
    const whole = gzipSync(text.toString(), { level: 1 });
    expect(zipped.finish().gzip.length).toBeLessThan(whole.length * 1.25);
  });
});

describe('listedFamily', () => {
  it("keeps a channel's labels once for the lines of every family that begins with them", async () => {
    const registry = new Registry();
    const head: LineMemo = {};
    const status: LineMemo = {};
    const sessions: LineMemo[] = [{}, {}];
    let withLabels = 0;
    listedFamily(
      registry,
      'tally_a',
      'A.',
      ['org', 'channel', 'status'],
      (emit) => {
        if (emit.kept(status, head)) return;
        withLabels++;
        emit({ org: 'acme', channel: 'Café "1"', status: 'live' }, 1, status, head);
      },
      2,
    );
    listedFamily(
      registry,
      'tally_b',
      'B.',
      ['org', 'channel', 'status'],
      (emit) => {
        if (emit.kept(sessions[0]!, head) && emit.kept(sessions[1]!, head)) return;
        withLabels++;
        emit({ org: 'acme', channel: 'Café "1"', status: 'ended' }, 7, sessions[0], head);
        emit({ org: 'acme', channel: 'Café "1"', status: 'planned' }, 2, sessions[1], head);
      },
      2,
    );
    const want = [
      'tally_a{org="acme",channel="Café \\"1\\"",status="live"} 1',
      'tally_b{org="acme",channel="Café \\"1\\"",status="ended"} 7',
      'tally_b{org="acme",channel="Café \\"1\\"",status="planned"} 2',
    ];
    for (const format of ['prometheus', 'openmetrics'] as const) {
      const lines = (await render(registry, format)).body.split('\n').filter((l) => !l.startsWith('#'));
      expect(lines.filter((l) => l !== '')).toEqual(want);
    }
    // Labeled once per family, then served from the memos in both formats.
    expect(withLabels).toBe(2);
    expect(head.line).toBe('org="acme",channel="Café \\"1\\""');
    expect([status.line, sessions[0]!.line, sessions[1]!.line]).toEqual([
      ',status="live"} 1',
      ',status="ended"} 7',
      ',status="planned"} 2',
    ]);
  });
});

describe('promtool check metrics', () => {
  it.skipIf(!hasPromtool())(
    'finds nothing wrong with the real output (skipped when promtool is not on PATH; the e2e tier runs it too)',
    async () => {
      const source = new FakeSource([
        orgView(
          snapshot({
            org: 'acme',
            profile: { slug: 'acme', name: 'Acme "Radio"\\', settings: {} },
            team: [{ id: 'u1', role: 'admin' }],
            subscription: {
              limits: { channels: 3 },
              usage: { channels: 1 },
              funding: { mode: 'wallet', balance: 2 },
            },
            channels: [{ id: 'c1', name: 'Line\nbreak', status: 'live' }],
            sessions: { c1: [{ id: 's1', status: 'live' }] },
            details: { s1: {} },
          }),
          { labels: { team: 'radio' }, tokenExpiresAt: 1_900_000_000_000 },
        ),
      ]);
      const metrics = new TallyMetrics({ registry: new Registry(), source });
      metrics.upstream.onRequest({ org: 'acme', endpoint: 'channels', statusClass: '2xx', durationMs: 12 });
      metrics.recordPoll('acme', 'channels', 12);
      expect(await promtoolProblems((await metrics.render(undefined)).text())).toEqual([]);
    },
  );
});
