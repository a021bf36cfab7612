import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptySnapshot, type OrgSnapshot } from '../../src/snapshot/model.js';
import { StoreError } from '../../src/store/errors.js';
import { StoreHealth } from '../../src/store/health.js';
import { JsonStateFile } from '../../src/store/json-file.js';
import { holdSessionList, SnapshotStore } from '../../src/store/snapshot-store.js';
import { SessionList, sessionArray } from '../../src/snapshot/session-list.js';
import { captureLogger, FaultyFs, linesAt, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function snapshot(org: string, takenAt: number): OrgSnapshot {
  return {
    ...emptySnapshot(org, takenAt),
    channels: { state: 'complete', at: takenAt, value: [{ id: 'ch-1', name: 'Main', status: 'live' }] },
    team: {
      state: 'failed',
      at: takenAt,
      error: { reason: 'timeout', message: 'GET /v1/acme/team timed out' },
    },
  };
}

async function setup() {
  const dir = join(await temp.make(), 'snapshots');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const health = new StoreHealth(clock);
  const store = new SnapshotStore({ dir, logger, clock, health });
  return { dir, clock, lines, store, health };
}

describe('SnapshotStore', () => {
  it('saves and loads the latest snapshot per org in a versioned envelope', async () => {
    const { dir, clock, store } = await setup();
    await store.save('acme', snapshot('acme', 1));
    await store.save('acme', snapshot('acme', 2), { lastEventSeq: 41 });
    await store.save('beta', snapshot('beta', 3));
    expect(await store.load('acme')).toEqual(snapshot('acme', 2));
    expect(await store.load('beta')).toEqual(snapshot('beta', 3));
    expect(await store.load('gamma')).toBeUndefined();
    // The first save writes the file whole, with the generation its journal names.
    const raw = JSON.parse(await fsp.readFile(join(dir, 'acme.json'), 'utf8')) as Record<string, unknown>;
    expect(raw).toEqual({
      format: 'tally-snapshot',
      version: 2,
      savedAt: clock.now(),
      org: 'acme',
      generation: expect.stringMatching(/^[0-9a-f]{16}$/),
      snapshot: snapshot('acme', 1),
    });
    const journal = (await fsp.readFile(join(dir, 'acme.journal'), 'utf8')).split('\n');
    expect(JSON.parse(journal[0]!)).toEqual({
      format: 'tally-snapshot-journal',
      version: 1,
      org: 'acme',
      generation: raw['generation'],
    });
    expect(await store.loadWithEnvelope('acme')).toEqual({
      snapshot: snapshot('acme', 2),
      savedAt: clock.now(),
      extra: { lastEventSeq: 41 },
    });
    expect(await names(dir)).toEqual(['acme.journal', 'acme.json', 'beta.journal', 'beta.json']);
  });

  it('loads each session list held compactly, the same sessions, and leaves a list of anything else as it was', async () => {
    const { dir, store } = await setup();
    const snap = snapshot('acme', 1);
    const window = { from: 0, to: 10 };
    const sessions = [
      { id: 's1', channelId: 'ch-1', status: 'live', title: 'Morning', startedAt: 1_790_000_000_000 },
      { id: 's2', channelId: 'ch-1', status: 'scheduled', scheduledAt: 1_790_000_360_000 },
    ];
    snap.sessions['ch-1'] = { state: 'complete', at: 1, value: sessions, window };
    snap.sessions['ch-2'] = { state: 'complete', at: 1, value: [], window };
    // A hand-edited file: not a list of sessions.
    snap.sessions['ch-3'] = { state: 'complete', at: 1, value: [null, 7] as never, window };
    await store.save('acme', snap);
    const restarted = new SnapshotStore({ dir, logger: captureLogger().logger, clock: new ManualClock() });
    const loaded = (await restarted.load('acme'))!;
    const held = loaded.sessions['ch-1']!;
    expect(held.state === 'complete' && held.value).toBeInstanceOf(SessionList);
    expect(held.state === 'complete' && sessionArray(held.value)).toStrictEqual(sessions);
    expect(loaded.sessions['ch-2']!.state === 'complete' && loaded.sessions['ch-2']!.value).toBeInstanceOf(
      SessionList,
    );
    const odd = loaded.sessions['ch-3']!;
    expect(odd.state === 'complete' && odd.value).toStrictEqual([null, 7]);
    expect(holdSessionList(['snapshot', 'details', 's1'], { state: 'complete', value: [] })).toStrictEqual({
      state: 'complete',
      value: [],
    });
  });

  it('removes temp files an interrupted save left behind when opened', async () => {
    const { dir, clock, store } = await setup();
    await store.save('acme', snapshot('acme', 1));
    await fsp.writeFile(join(dir, '.acme.json.tmp-deadbeef'), '{"format":"tally-snap');
    const { logger } = captureLogger();
    const reopened = await SnapshotStore.open({ dir, logger, clock });
    expect(await names(dir)).toEqual(['acme.journal', 'acme.json']);
    expect(await reopened.load('acme')).toEqual(snapshot('acme', 1));
  });

  it('keeps odd org slugs inside its directory', async () => {
    const { dir, store } = await setup();
    await store.save('../Evil org', snapshot('../Evil org', 1));
    expect(await names(dir)).toEqual(['%2E%2E%2F%45vil%20org.journal', '%2E%2E%2F%45vil%20org.json']);
    expect(await store.load('../Evil org')).toEqual(snapshot('../Evil org', 1));
  });

  it.each([
    ['garbage', 'not json {', /invalid JSON/],
    ['an empty file', '', /empty file/],
    [
      'another format',
      JSON.stringify({ format: 'other', version: 1, savedAt: 1, snapshot: {} }),
      /unknown format/,
    ],
    [
      'a newer version',
      JSON.stringify({ format: 'tally-snapshot', version: 3, savedAt: 1, org: 'acme', snapshot: {} }),
      /unsupported version 3/,
    ],
    [
      'an invalid snapshot',
      JSON.stringify({
        format: 'tally-snapshot',
        version: 1,
        savedAt: 1,
        org: 'acme',
        snapshot: { version: 1 },
      }),
      /invalid snapshot: org is not a string/,
    ],
    [
      'another org',
      JSON.stringify({
        format: 'tally-snapshot',
        version: 1,
        savedAt: 1,
        org: 'acme',
        snapshot: snapshot('beta', 1),
      }),
      /holds org "beta"/,
    ],
  ])('moves %s aside with one warn line and loads nothing', async (_name, content, reason) => {
    const { dir, clock, lines, store } = await setup();
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(join(dir, 'acme.json'), content);
    expect(await store.load('acme')).toBeUndefined();
    const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
    expect(await names(dir)).toEqual([`acme.json.corrupt-${stamp}`]);
    expect(await fsp.readFile(join(dir, `acme.json.corrupt-${stamp}`), 'utf8')).toBe(content);
    const warns = linesAt(lines(), 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({
      file: join(dir, 'acme.json'),
      msg: 'unreadable state file moved aside',
    });
    expect(String(warns[0]!['reason'])).toMatch(reason);
    // Set aside once: the next start sees no file and stays quiet.
    expect(await store.load('acme')).toBeUndefined();
    expect(linesAt(lines(), 'warn')).toHaveLength(1);
    // And a new snapshot can be saved next to the evidence.
    await store.save('acme', snapshot('acme', 5));
    expect(await store.load('acme')).toEqual(snapshot('acme', 5));
  });

  it('does not overwrite an earlier set-aside file from the same moment', async () => {
    const { dir, store } = await setup();
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(join(dir, 'acme.json'), 'bad 1');
    await store.load('acme');
    await fsp.writeFile(join(dir, 'acme.json'), 'bad 2');
    await store.load('acme');
    const files = await names(dir);
    expect(files).toHaveLength(2);
    expect(files[1]).toMatch(/-2$/);
  });

  it('surfaces a failed save as a StoreError, keeps the previous snapshot, and records it', async () => {
    const { dir, clock, health } = await setup();
    const fs = new FaultyFs();
    const { logger } = captureLogger();
    const store = new SnapshotStore({ dir, logger, clock, health, fs });
    await store.save('acme', snapshot('acme', 1));
    fs.fault = { step: 'write', code: 'ENOSPC', partial: true };
    const err = await store.save('acme', snapshot('acme', 2)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'disk_full', retryable: true });
    expect(await store.load('acme')).toEqual(snapshot('acme', 1));
    expect(health.read().failures.disk_full).toBe(1);
  });

  it('serializes concurrent saves so the last call wins', async () => {
    const { store } = await setup();
    await Promise.all([1, 2, 3, 4, 5].map((t) => store.save('acme', snapshot('acme', t))));
    expect((await store.load('acme'))?.takenAt).toBe(5);
  });
});

describe('JsonStateFile (for other state, e.g. alerts)', () => {
  interface AlertState {
    firing: string[];
  }
  const validate = (v: unknown): AlertState => {
    const s = v as AlertState;
    if (!Array.isArray(s?.firing)) throw new Error('firing is not a list');
    return s;
  };

  it('round-trips a value under its own format and key', async () => {
    const dir = await temp.make();
    const clock = new ManualClock();
    const { logger } = captureLogger();
    const file = new JsonStateFile<AlertState>({
      path: join(dir, 'alerts.json'),
      format: 'tally-alerts',
      version: 3,
      key: 'alerts',
      validate,
      logger,
      clock,
    });
    expect(await file.load()).toBeUndefined();
    await file.save({ firing: ['a'] }, { format: 'ignored', note: 'kept' });
    expect(await file.load()).toEqual({
      value: { firing: ['a'] },
      savedAt: clock.now(),
      extra: { note: 'kept' },
    });
    const raw = JSON.parse(await fsp.readFile(join(dir, 'alerts.json'), 'utf8')) as Record<string, unknown>;
    expect(raw['format']).toBe('tally-alerts');
    expect(raw['version']).toBe(3);
  });

  it('sets aside a value its validator refuses', async () => {
    const dir = await temp.make();
    const { logger, lines } = captureLogger();
    const path = join(dir, 'alerts.json');
    await fsp.writeFile(
      path,
      JSON.stringify({ format: 'tally-alerts', version: 1, savedAt: 1, data: { firing: 3 } }),
    );
    const file = new JsonStateFile<AlertState>({
      path,
      format: 'tally-alerts',
      version: 1,
      validate,
      logger,
      clock: new ManualClock(),
    });
    expect(await file.load()).toBeUndefined();
    expect(linesAt(lines(), 'warn')[0]).toMatchObject({ reason: 'invalid data: firing is not a list' });
    expect((await names(dir))[0]).toMatch(/^alerts\.json\.corrupt-/);
  });
});
