import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayCommand, type ReplayConfigLoader } from '../../src/cli/replay.js';
import type { Notification } from '../../src/alerts/types.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import { captureIO } from '../helpers/io.js';
import { alerting, channel, event, MIN, SEC, T0, view } from './helpers.js';

const config = `
rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'is_live(string(event.from)) && !is_live(string(event.to))'
    annotations:
      summary: 'Channel {{ event.labels.channel }} went offline'
  - name: went_live
    on: session.started
    annotations:
      summary: 'Live: {{ event.labels.session }}'
  - name: channel_down
    for_each: channel
    when: '!channel.live'
route:
  receiver: ops
  group_wait: 30s
  group_interval: 5m
  routes:
    - matchers: ['alertname = "went_live"']
      receiver: chat
`;

const loader: ReplayConfigLoader = async () => ({
  alerting: alerting(config),
  orgs: [{ slug: 'acme', labels: { tier: 'gold' } }],
  externalURL: 'https://tally.example.com',
});
const replay = createReplayCommand(loader);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-replay-'));
  await mkdir(path.join(dir, 'events'));
  const line = (e: ReturnType<typeof event>, seq: number) => JSON.stringify({ seq, ...e });
  // Two segments, as in the state directory: two channels go offline together, a session
  // starts ten minutes later.
  await writeFile(
    path.join(dir, 'events', '000001.jsonl'),
    [
      line(
        event('channel.status_changed', {
          id: 'a',
          at: T0,
          entity: 'c1',
          from: 'live',
          to: 'offline',
          labels: { channel: 'News', channel_id: 'c1' },
        }),
        1,
      ),
      line(
        event('channel.status_changed', {
          id: 'b',
          at: T0 + SEC,
          entity: 'c2',
          from: 'live',
          to: 'offline',
          labels: { channel: 'Sport', channel_id: 'c2' },
        }),
        2,
      ),
    ].join('\n'),
  );
  await writeFile(
    path.join(dir, 'events', '000002.jsonl'),
    `${line(event('session.started', { id: 'c', at: T0 + 10 * MIN, entity: 's1', labels: { session: 'Morning' } }), 3)}\n`,
  );
  const snap = (channels: ReturnType<typeof channel>[], at: number) =>
    JSON.stringify({
      format: 'tally-snapshot',
      version: 1,
      savedAt: at,
      org: 'acme',
      snapshot: view('acme', { channels, at }).snapshot,
    });
  await writeFile(path.join(dir, 'a.json'), snap([channel('c1', 'live', { name: 'News' })], T0));
  await writeFile(path.join(dir, 'b.json'), snap([channel('c1', 'offline', { name: 'News' })], T0 + 5 * MIN));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tally replay', () => {
  it('prints what an event log would have sent, grouped, in simulated time', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'events'], io)).toBe(0);
    expect(io.out()).toBe(
      [
        '2026-03-02T00:00:30Z  ops  FIRING  {}:{alertname="channel_offline", org="acme"}  (2 alerts)',
        '    firing   channel_offline: Channel News went offline',
        '    firing   channel_offline: Channel Sport went offline',
        '2026-03-02T00:10:30Z  chat  FIRING  {}/{alertname="went_live"}:{alertname="went_live", org="acme"}  (1 alert)',
        '    firing   went_live: Live: Morning',
        '2 notifications to 2 receivers from 3 events, simulated 2026-03-02T00:00:00Z to 2026-03-02T00:20:30Z; nothing was sent.',
        'not replayed: channel_down (condition rules judge what tally read and when; an event log holds changes only, so a no-show, drop or overrun that changed nothing is not in it; replay two stored snapshots with --from A --to B to evaluate them at those times).',
        '',
      ].join('\n'),
    );
  });

  it('says so and exits 1 when --org names an org the log does not hold', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'events', '--org', 'acmee'], io)).toBe(1);
    expect(io.err()).toBe('tally: no events of org acmee in events (it holds acme)\n');
    expect(io.out()).toBe('');
  });

  it('reads a single segment file and writes JSON lines with --json', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', path.join(dir, 'events', '000001.jsonl'), '--json'], io)).toBe(0);
    const ns = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Notification);
    expect(ns).toHaveLength(1);
    expect(ns[0]).toMatchObject({
      receiver: 'ops',
      status: 'firing',
      externalURL: 'https://tally.example.com',
    });
    expect(ns[0]!.alerts.map((a) => a.labels['tier'])).toEqual(['gold', 'gold']);
  });

  it('replays the changes between two snapshots and evaluates condition rules on both', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'a.json', '--to', 'b.json', '--after', '1m'], io)).toBe(0);
    const lines = io.out().split('\n');
    expect(lines[0]).toBe(
      '2026-03-02T00:05:30Z  ops  FIRING  {}:{alertname="channel_down", org="acme"}  (1 alert)',
    );
    expect(lines).toContain(
      '2026-03-02T00:05:30Z  ops  FIRING  {}:{alertname="channel_offline", org="acme"}  (1 alert)',
    );
    expect(lines).toContain('    firing   channel_offline: Channel News went offline');
  });

  it('reads a stored snapshot with the journal beside it, so the latest save is replayed', async () => {
    const store = new SnapshotStore({
      dir: path.join(dir, 'stored'),
      logger: silentLogger(),
      clock: systemClock,
    });
    const live = view('acme', { channels: [channel('c1', 'live', { name: 'News' })], at: T0 }).snapshot;
    await store.save('acme', live);
    await store.save('acme', {
      ...live,
      takenAt: T0 + 5 * MIN,
      channels: view('acme', { channels: [channel('c1', 'offline', { name: 'News' })], at: T0 + 5 * MIN })
        .snapshot.channels!,
    });
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'a.json', '--to', 'stored/acme.json', '--after', '1m'], io)).toBe(0);
    expect(io.out()).toContain('    firing   channel_offline: Channel News went offline');
  });

  it.each<[string[], string, number]>([
    [[], '--from is required', 2],
    [['--from', 'missing.jsonl'], 'no such file', 1],
    [['--from', 'a.json'], 'not a change event', 1],
    [['--from', 'events', '--after', 'soon'], 'not a duration', 2],
  ])('fails clearly for %j', async (args, message, code) => {
    const io = captureIO({}, dir);
    expect(await replay(args, io)).toBe(code);
    expect(io.err()).toContain(message);
  });
});
