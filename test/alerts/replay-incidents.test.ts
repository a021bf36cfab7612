/**
 * `tally replay` and the shipped incident rules (config.example.yaml): the event log names
 * the condition rules it cannot judge; two stored snapshots give the verdicts the live
 * engine gives over the same reads (docs/alerts.md, "Trying rules on history").
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createReplayCommand, type ReplayConfigLoader } from '../../src/cli/replay.js';
import { alertingSchema } from '../../src/alerts/schema.js';
import type { Notification } from '../../src/alerts/types.js';
import type { Session } from '../../src/snapshot/model.js';
import { captureIO } from '../helpers/io.js';
import { channel, engine, event, MIN, SEC, T0, view } from './helpers.js';

const example = parse(readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;
const shipped = alertingSchema.parse({ rules: example['rules'], route: example['route'] });
const loader: ReplayConfigLoader = async () => ({ alerting: shipped, orgs: [{ slug: 'acme' }] });
const replay = createReplayCommand(loader);

/** The two reads: a no-show (still scheduled 6 and 7 minutes after 10:00), an overrun (live 11 and 12 minutes past 10:30). */
const START = T0 + 10 * 60 * MIN;
function reads(at: number) {
  const noShow: Session = {
    id: 's-ns',
    channelId: 'c1',
    title: 'Morning Drive',
    status: 'scheduled',
    scheduledAt: START,
    scheduledEndAt: START + 60 * MIN,
  };
  const overrun: Session = {
    id: 's-ov',
    channelId: 'c2',
    title: 'Late Show',
    status: 'live',
    scheduledAt: START - 60 * MIN,
    scheduledEndAt: START + 5 * MIN,
    startedAt: START - 60 * MIN,
  };
  return view('acme', {
    at,
    channels: [channel('c1', 'offline', { name: 'Harbor Notes' }), channel('c2', 'live', { name: 'Quay' })],
    sessions: { c1: [noShow], c2: [overrun] },
  });
}
const A = START + 16 * MIN;
const B = START + 17 * MIN;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-replay-incidents-'));
  const file = (at: number) =>
    JSON.stringify({
      format: 'tally-snapshot',
      version: 1,
      savedAt: at,
      org: 'acme',
      snapshot: reads(at).snapshot,
    });
  await writeFile(path.join(dir, 'a.json'), file(A));
  await writeFile(path.join(dir, 'b.json'), file(B));
  const failed = event('session.ended', {
    at: A,
    entity: 's-f',
    from: 'live',
    to: 'failed',
    labels: { session: 'Evening', session_id: 's-f', channel: 'Quay', channel_id: 'c2' },
  });
  await writeFile(path.join(dir, 'events.jsonl'), `${JSON.stringify({ seq: 1, ...failed })}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The rule names of the firing alerts at warning or above, sorted. */
function paged(ns: readonly Notification[]): string[] {
  const out = new Set<string>();
  for (const n of ns)
    for (const a of n.alerts)
      if (a.state === 'firing' && a.labels['severity'] !== 'info') out.add(a.labels['alertname'] ?? '');
  return [...out].sort();
}

describe('tally replay with the shipped incident rules', () => {
  it('an event log: names the condition rules it cannot judge, and still judges the event rules', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'events.jsonl'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('session_failed');
    const note = out.split('\n').find((l) => l.startsWith('not replayed: '));
    for (const rule of [
      'session_no_show',
      'session_dropped',
      'session_overrun',
      'session_late_start',
      'channel_unscheduled',
    ])
      expect(note).toContain(rule);
    expect(note).not.toContain('session_failed');
  });

  it('an event log with --json: the note goes to stderr, stdout stays JSON lines', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'events.jsonl', '--json'], io)).toBe(0);
    expect(io.err()).toContain('tally: not replayed: session_no_show');
    for (const line of io.out().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('two snapshots: the same no-show and overrun verdicts as the live engine over the same reads', async () => {
    const io = captureIO({}, dir);
    expect(await replay(['--from', 'a.json', '--to', 'b.json', '--after', '2m', '--json'], io)).toBe(0);
    const replayed = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Notification);

    // The live engine, as the daemon runs it, fed the same two reads at their times.
    const { engine: e, clock } = engine(JSON.stringify({ rules: example['rules'], route: example['route'] }));
    clock.time = A;
    e.evaluate([reads(A)]);
    const sent: Notification[] = [...e.tick()];
    clock.time = B;
    e.evaluate([reads(B)]);
    for (let t = B; t <= B + 2 * MIN; t += SEC) {
      clock.time = t;
      sent.push(...e.tick());
    }
    expect(paged(sent)).toEqual(['session_no_show', 'session_overrun']);
    expect(paged(replayed)).toEqual(paged(sent));
    expect(io.out()).toContain('No-show: Morning Drive on Harbor Notes did not start at 10:00');
  });
});
