import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  emptySnapshot,
  type OrgSnapshot,
  type Session,
  type SessionsPart,
} from '../../src/snapshot/model.js';
import { StoreError } from '../../src/store/errors.js';
import { StoreHealth } from '../../src/store/health.js';
import { applyRecord, snapshotDelta } from '../../src/store/snapshot-journal.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import { captureLogger, FaultyFs, linesAt, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const WINDOW = { from: 0, to: 10_000 };

function list(channelId: string, at: number, ...titles: string[]): SessionsPart {
  const value: Session[] = titles.map((title, i) => ({
    id: `${channelId}-s${i}`,
    channelId,
    title,
    status: 'scheduled',
    scheduledAt: 1_700_000_000_000 + i,
  }));
  return { state: 'complete', at, value, window: WINDOW };
}

/** A snapshot of `n` channels, each with a session list of two sessions. */
function world(n: number, at = 1): OrgSnapshot {
  const snap = emptySnapshot('acme', at);
  snap.channels = {
    state: 'complete',
    at,
    value: Array.from({ length: n }, (_, i) => ({ id: `ch-${i}`, status: 'offline' })),
  };
  for (let i = 0; i < n; i++) snap.sessions[`ch-${i}`] = list(`ch-${i}`, at, 'a', 'b');
  return snap;
}

/** `snap` with one channel's list read again (a poll), sharing every other part as the poller does. */
function poll(snap: OrgSnapshot, channel: string, at: number, ...titles: string[]): OrgSnapshot {
  return { ...snap, takenAt: at, sessions: { ...snap.sessions, [channel]: list(channel, at, ...titles) } };
}

async function setup(journalMinBytes?: number) {
  const dir = join(await temp.make(), 'snapshots');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const health = new StoreHealth(clock);
  const fs = new FaultyFs();
  const opts = { dir, logger, clock, health, fs, journalMinBytes };
  const store = new SnapshotStore(opts);
  /** A store of a process started anew on the same directory. */
  const restart = () => new SnapshotStore({ ...opts, logger: captureLogger().logger });
  return { dir, clock, lines, health, fs, store, restart };
}

describe('snapshot journal', () => {
  it('appends only the parts a save changed, and a restart replays them onto the file', async () => {
    const { dir, store, restart } = await setup();
    const s1 = world(200);
    await store.save('acme', s1);
    const whole = await fsp.readFile(join(dir, 'acme.json'), 'utf8');
    const s2 = poll(s1, 'ch-7', 2, 'a', 'b', 'c');
    const s3 = { ...poll(s2, 'ch-9', 3, 'x'), team: { state: 'complete' as const, at: 3, value: [] } };
    await store.save('acme', s2, { pendingEvents: ['e1'] });
    await store.save('acme', s3, { pendingEvents: ['e2'] });
    // The file written whole is untouched; the journal holds two small records.
    expect(await fsp.readFile(join(dir, 'acme.json'), 'utf8')).toBe(whole);
    const journal = await fsp.readFile(join(dir, 'acme.journal'), 'utf8');
    const records = journal
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(Object.keys(records[0]!['sessions'] as object)).toEqual(['ch-7']);
    expect(Object.keys(records[1]!['sessions'] as object)).toEqual(['ch-9']);
    expect(records[1]!['top']).toEqual({ team: { state: 'complete', at: 3, value: [] } });
    expect(journal.length).toBeLessThan(whole.length / 10);
    // A new process reads the file and the journal: the latest save, its own extra fields.
    const loaded = await restart().loadWithEnvelope('acme');
    expect(loaded?.snapshot).toEqual(s3);
    expect(loaded?.extra).toEqual({ pendingEvents: ['e2'] });
  });

  it('records removed lists, details and org-level parts, and odd ids, as the snapshot has them', async () => {
    const { store, restart } = await setup();
    const s1: OrgSnapshot = {
      ...world(3),
      details: {
        'ch-0-s0': {
          state: 'failed',
          at: 1,
          error: { reason: 'timeout', message: 'GET /v1/acme/sessions/ch-0-s0 timed out' },
        },
      },
    };
    await store.save('acme', s1);
    const { 'ch-1': _gone, ...rest } = s1.sessions;
    const sessions: Record<string, SessionsPart> = { ...rest };
    Object.defineProperty(sessions, '__proto__', {
      value: list('__proto__', 2, 'odd'),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const { channels: _channels, ...withoutChannels } = s1;
    const s2: OrgSnapshot = { ...withoutChannels, takenAt: 2, sessions, details: {} };
    await store.save('acme', s2);
    const loaded = await restart().load('acme');
    expect(loaded).toEqual(s2);
    expect(Object.hasOwn(loaded!.sessions, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(loaded!.sessions)).toBe(Object.prototype);
    expect(loaded!.channels).toBeUndefined();
  });

  it('writes the file whole again once the journal has grown to half its size', async () => {
    const { dir, store, restart } = await setup(1);
    let snap = world(20);
    await store.save('acme', snap);
    const first = JSON.parse(await fsp.readFile(join(dir, 'acme.json'), 'utf8')) as { generation: string };
    let compactions = 0;
    let generation = first.generation;
    for (let t = 2; t < 60; t++) {
      snap = poll(snap, `ch-${t % 20}`, t, 'long title '.repeat(20), `${t}`);
      await store.save('acme', snap);
      const now = (JSON.parse(await fsp.readFile(join(dir, 'acme.json'), 'utf8')) as { generation: string })
        .generation;
      if (now !== generation) compactions++;
      generation = now;
      const journal = await fsp.stat(join(dir, 'acme.journal'));
      const whole = await fsp.stat(join(dir, 'acme.json'));
      expect(journal.size).toBeLessThanOrEqual(whole.size / 2 + 200);
      expect(await restart().load('acme')).toEqual(snap);
    }
    expect(compactions).toBeGreaterThan(2);
    expect(compactions).toBeLessThan(30);
  });

  it('resumes from the save before a line a crash cut off', async () => {
    const { dir, lines, store, restart } = await setup();
    const s1 = world(5);
    const s2 = poll(s1, 'ch-1', 2, 'new');
    await store.save('acme', s1);
    await store.save('acme', s2, { pendingEvents: ['e2'] });
    await fsp.appendFile(join(dir, 'acme.journal'), '{"savedAt":3,"takenAt":3,"sessions":{"ch-2":{"sta');
    const next = restart();
    const loaded = await next.loadWithEnvelope('acme');
    expect(loaded?.snapshot).toEqual(s2);
    expect(loaded?.extra).toEqual({ pendingEvents: ['e2'] });
    expect(linesAt(lines(), 'warn')).toEqual([]);
    // The next process writes the file whole and starts a clean journal.
    const s3 = poll(s2, 'ch-3', 4, 'later');
    await next.save('acme', s3);
    expect(await restart().load('acme')).toEqual(s3);
    expect(await names(dir)).toEqual(['acme.journal', 'acme.json']);
  });

  it('sets aside a journal damaged before its end and keeps the saves before the damage', async () => {
    const { dir, store, clock } = await setup();
    const s1 = world(5);
    const s2 = poll(s1, 'ch-1', 2, 'new');
    const s3 = poll(s2, 'ch-2', 3, 'newer');
    await store.save('acme', s1);
    await store.save('acme', s2);
    await store.save('acme', s3);
    const path = join(dir, 'acme.journal');
    const text = (await fsp.readFile(path, 'utf8')).split('\n');
    text[1] = text[1]!.replace('"state":"complete"', '"state":"unheard-of"');
    await fsp.writeFile(path, text.join('\n'));
    const { logger, lines } = captureLogger();
    const next = new SnapshotStore({ dir, logger, clock });
    expect(await next.load('acme')).toEqual(s1);
    const warns = linesAt(lines(), 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ file: path, msg: 'unreadable state file moved aside' });
    expect(String(warns[0]!['reason'])).toMatch(/line 2: sessions\.ch-1 is not a part/);
    expect((await names(dir)).some((n) => n.startsWith('acme.journal.corrupt-'))).toBe(true);
  });

  it('ignores a journal that continues another file: a crash between writing the file whole and starting its journal', async () => {
    const { dir, store, restart } = await setup(1);
    let snap = world(10);
    await store.save('acme', snap);
    snap = poll(snap, 'ch-1', 2, 'x');
    await store.save('acme', snap);
    const oldJournal = await fsp.readFile(join(dir, 'acme.journal'), 'utf8');
    // Saves until the file is written whole again.
    const before = await fsp.readFile(join(dir, 'acme.json'), 'utf8');
    for (let t = 3; (await fsp.readFile(join(dir, 'acme.json'), 'utf8')) === before; t++) {
      snap = poll(snap, `ch-${t % 10}`, t, 'long title '.repeat(30));
      await store.save('acme', snap);
    }
    // The crash left the old journal in place: its records belong to the older file.
    await fsp.writeFile(join(dir, 'acme.journal'), oldJournal);
    expect(await restart().load('acme')).toEqual(snap);
  });

  it('after a failed append, the next save writes the file whole; nothing accepted is lost', async () => {
    const { fs, health, store, restart } = await setup();
    const s1 = world(5);
    await store.save('acme', s1);
    const s2 = poll(s1, 'ch-1', 2, 'new');
    fs.fault = { step: 'write', code: 'ENOSPC', partial: true, times: 1 };
    const err = await store.save('acme', s2, { pendingEvents: ['e2'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'disk_full', op: 'write' });
    expect(health.read().failures.disk_full).toBe(1);
    // What is on disk is the save before; the half line is not read as a save.
    expect(await restart().load('acme')).toEqual(s1);
    const s3 = poll(s2, 'ch-2', 3, 'newer');
    const renames = fs.calls.rename;
    await store.save('acme', s3, { pendingEvents: ['e2', 'e3'] });
    expect(fs.calls.rename).toBeGreaterThan(renames);
    const loaded = await restart().loadWithEnvelope('acme');
    expect(loaded?.snapshot).toEqual(s3);
    expect(loaded?.extra).toEqual({ pendingEvents: ['e2', 'e3'] });
  });

  it('sets aside a journal whose last line is whole JSON but not a record', async () => {
    const { dir, store, clock } = await setup();
    await store.save('acme', world(2));
    await fsp.appendFile(join(dir, 'acme.journal'), '{"savedAt":"yesterday"}\n');
    const { logger, lines } = captureLogger();
    expect(await new SnapshotStore({ dir, logger, clock }).load('acme')).toEqual(world(2));
    expect(linesAt(lines(), 'warn')[0]).toMatchObject({ reason: 'line 2: no savedAt or takenAt' });
  });

  it.each(['null', '[]', '42', '"text"'])(
    'sets aside a journal whose last line is the whole JSON value %s',
    async (last) => {
      const { dir, store, clock } = await setup();
      await store.save('acme', world(2));
      await store.save('acme', poll(world(2), 'ch-1', 2, 'new'));
      // Blank lines before it: the line number is the file's.
      await fsp.appendFile(join(dir, 'acme.journal'), `\n\n${last}\n`);
      const { logger, lines } = captureLogger();
      expect(await new SnapshotStore({ dir, logger, clock }).load('acme')).toEqual(
        poll(world(2), 'ch-1', 2, 'new'),
      );
      expect(linesAt(lines(), 'warn')[0]).toMatchObject({
        msg: 'unreadable state file moved aside',
        reason: 'line 5: not a whole JSON object (cut off?)',
      });
      expect((await names(dir)).some((n) => n.startsWith('acme.journal.corrupt-'))).toBe(true);
    },
  );

  it('sets aside a journal that is a directory and resumes from the file', async () => {
    const { dir, store, clock } = await setup();
    await store.save('acme', world(2));
    await fsp.rm(join(dir, 'acme.journal'));
    await fsp.mkdir(join(dir, 'acme.journal'));
    const { logger, lines } = captureLogger();
    const next = new SnapshotStore({ dir, logger, clock });
    expect(await next.load('acme')).toEqual(world(2));
    expect(linesAt(lines(), 'warn')[0]).toMatchObject({ reason: 'is a directory' });
    // The next save starts a journal of its own.
    await next.save('acme', poll(world(2), 'ch-1', 2, 'new'));
    expect((await fsp.stat(join(dir, 'acme.journal'))).isFile()).toBe(true);
  });

  it('a save after the journal went away (moved aside, removed by hand) writes the file whole, never a journal without its header', async () => {
    const { dir, store, restart } = await setup();
    const s1 = world(3);
    await store.save('acme', s1);
    await fsp.rm(join(dir, 'acme.journal'));
    const s2 = poll(s1, 'ch-1', 2, 'new');
    await store.save('acme', s2);
    const header = JSON.parse((await fsp.readFile(join(dir, 'acme.journal'), 'utf8')).split('\n')[0]!);
    expect(header).toMatchObject({ format: 'tally-snapshot-journal' });
    expect(await restart().load('acme')).toEqual(s2);
  });

  it('skips blank lines and a byte-order mark', async () => {
    const { dir, store, restart } = await setup();
    const s1 = world(3);
    const s2 = poll(s1, 'ch-1', 2, 'new');
    const s3 = poll(s2, 'ch-2', 3, 'newer');
    await store.save('acme', s1);
    await store.save('acme', s2);
    await store.save('acme', s3, { pendingEvents: ['e3'] });
    const path = join(dir, 'acme.journal');
    const lines = (await fsp.readFile(path, 'utf8')).split('\n');
    await fsp.writeFile(path, `\uFEFF${lines[0]}\r\n\n  \n${lines[1]}\n\n${lines.slice(2).join('\n')}`);
    const loaded = await restart().loadWithEnvelope('acme');
    expect(loaded?.snapshot).toEqual(s3);
    expect(loaded?.extra).toEqual({ pendingEvents: ['e3'] });
  });

  it('reads a snapshot file of version 1 (before journals) and writes version 2', async () => {
    const { dir, store, restart } = await setup();
    const s1 = world(2);
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(
      join(dir, 'acme.json'),
      JSON.stringify({ format: 'tally-snapshot', version: 1, savedAt: 1, org: 'acme', snapshot: s1 }),
    );
    expect(await store.load('acme')).toEqual(s1);
    const s2 = poll(s1, 'ch-0', 2, 'x');
    await store.save('acme', s2);
    const raw = JSON.parse(await fsp.readFile(join(dir, 'acme.json'), 'utf8')) as { version: number };
    expect(raw.version).toBe(2);
    expect(await restart().load('acme')).toEqual(s2);
  });

  it('a failed fsync of the journal fails the save', async () => {
    const { fs, store } = await setup();
    await store.save('acme', world(2));
    fs.fault = { step: 'fsync', code: 'EIO', times: 1 };
    const err = await store.save('acme', poll(world(2), 'ch-0', 2, 'x')).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'io', op: 'fsync' });
  });

  it('snapshotDelta and applyRecord round-trip any change of parts', () => {
    const a = world(4);
    const b: OrgSnapshot = {
      ...poll(a, 'ch-0', 5, 'z'),
      profile: { state: 'complete', at: 5, value: { slug: 'acme', settings: {} } },
    };
    delete (b.sessions as Record<string, unknown>)['ch-3'];
    const record = snapshotDelta(a, b, 9, {});
    expect(record).toMatchObject({ savedAt: 9, takenAt: 5, sessionsGone: ['ch-3'] });
    expect(Object.keys(record.sessions ?? {})).toEqual(['ch-0']);
    const copy = structuredClone(a);
    applyRecord(copy, JSON.parse(JSON.stringify(record)));
    expect(copy).toEqual(b);
    expect(snapshotDelta(b, b, 10, {})).toEqual({ savedAt: 10, takenAt: 5 });
  });
});
