import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { StoreError } from '../../src/store/errors.js';
import { EventLog, type EventLogOptions } from '../../src/store/event-log.js';
import { InvalidCursorError } from '../../src/store/event-query.js';
import { StoreHealth } from '../../src/store/health.js';
import { captureLogger, FaultyFs, linesAt, makeEvent, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
const open: EventLog[] = [];
afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
  await temp.cleanup();
});

const DAY = 86_400_000;

async function setup(over: Partial<EventLogOptions> = {}) {
  const dir = join(await temp.make(), 'events');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const opts: EventLogOptions = { dir, logger, clock, ...over };
  const reopen = async (more: Partial<EventLogOptions> = {}) => {
    const log = await EventLog.open({ ...opts, ...more });
    open.push(log);
    return log;
  };
  return { dir, clock, lines, log: await reopen(), reopen };
}

function strip(e: ChangeEvent & { seq?: number }): ChangeEvent {
  const { seq: _seq, ...rest } = e;
  return rest;
}

describe('EventLog append', () => {
  it('assigns sequence numbers, stores JSON lines and reads them back after a reopen', async () => {
    const { dir, log, reopen } = await setup();
    const a = makeEvent();
    const b = makeEvent({ kind: 'member.added', entity: { kind: 'member', id: 'm-1' } });
    const res = await log.append([a, b]);
    expect(res.appended.map((e) => e.seq)).toEqual([1, 2]);
    expect(res.duplicates).toEqual([]);
    expect(await names(dir)).toEqual(['000001.jsonl']);
    const text = await fsp.readFile(join(dir, '000001.jsonl'), 'utf8');
    expect(text.split('\n')).toHaveLength(3);
    expect(JSON.parse(text.split('\n')[0]!)).toEqual({ seq: 1, ...a });
    await log.close();

    const again = await reopen();
    expect((await again.tail(10)).map(strip)).toEqual([a, b]);
    const c = makeEvent();
    expect((await again.append([c])).appended[0]!.seq).toBe(3);
  });

  it('writes a batch with one write and one fsync', async () => {
    const fs = new FaultyFs();
    const { log } = await setup({ fs });
    const before = { ...fs.calls };
    await log.append(Array.from({ length: 500 }, () => makeEvent()));
    expect(fs.calls.write - before.write).toBe(1);
    expect(fs.calls.fsync - before.fsync).toBe(1);
  });

  it('skips ids already in the log, within a batch and after a reopen', async () => {
    const { log, reopen } = await setup();
    const a = makeEvent({ id: 'a' });
    const b = makeEvent({ id: 'b' });
    await log.append([a]);
    const res = await log.append([a, b, b]);
    expect(res.appended.map((e) => e.id)).toEqual(['b']);
    expect(res.duplicates).toEqual(['a', 'b']);
    await log.close();
    const again = await reopen();
    expect(await again.append([a, b])).toEqual({ appended: [], duplicates: ['a', 'b'] });
    expect(again.has('a')).toBe(true);
    expect(again.stats()).toMatchObject({ events: 2, firstSeq: 1, lastSeq: 2 });
  });

  it.each([
    ['half a line', '{"seq":3,"id":"c","at":17356'],
    ['zeros left by a crash', '\0'.repeat(64)],
    ['a garbled line with its newline', '{"seq":3,"id\n'],
  ])(
    'cuts a torn tail (%s) off on open, with a warn line, and appends cleanly after it',
    async (_n, torn) => {
      const { dir, log, reopen, lines } = await setup();
      await log.append([makeEvent({ id: 'a' }), makeEvent({ id: 'b' })]);
      await log.close();
      const file = join(dir, '000001.jsonl');
      const good = (await fsp.stat(file)).size;
      await fsp.appendFile(file, torn);
      const again = await reopen();
      expect((await fsp.stat(file)).size).toBe(good);
      const warn = linesAt(lines(), 'warn').find((l) => l['msg'] === 'cut torn last line off event segment');
      expect(warn).toMatchObject({ file, bytes: Buffer.byteLength(torn) });
      await again.append([makeEvent({ id: 'c' })]);
      await again.close();
      const third = await reopen();
      expect((await third.tail(5)).map((e) => [e.seq, e.id])).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
    },
  );

  it('skips an unreadable line in the middle and keeps the rest', async () => {
    const { dir, log, reopen, lines } = await setup();
    await log.append([makeEvent({ id: 'a' })]);
    await log.close();
    const file = join(dir, '000001.jsonl');
    await fsp.appendFile(file, 'garbage\n');
    const b = makeEvent({ id: 'b' });
    await fsp.appendFile(file, `${JSON.stringify({ seq: 2, ...b })}\n`);
    const again = await reopen();
    expect((await again.tail(5)).map((e) => e.id)).toEqual(['a', 'b']);
    expect(
      linesAt(lines(), 'warn').find((l) => l['msg'] === 'skipped unreadable lines in event segment'),
    ).toMatchObject({ lines: 1 });
  });

  it.each([
    ['ENOSPC', 'write', 'disk_full'],
    ['EIO', 'fsync', 'io'],
  ] as const)('rolls back a batch whose %s failed at %s and stays usable', async (code, step, reason) => {
    const fs = new FaultyFs();
    const health = new StoreHealth(new ManualClock());
    const { dir, log, reopen } = await setup({ fs, health });
    await log.append([makeEvent({ id: 'a' })]);
    fs.fault = { step, code, partial: true, times: 1 };
    const err = await log.append([makeEvent({ id: 'b' }), makeEvent({ id: 'c' })]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason, path: join(dir, '000001.jsonl') });
    expect(health.read().failures[reason]).toBe(1);
    expect(log.has('b')).toBe(false);
    const res = await log.append([makeEvent({ id: 'b' })]);
    expect(res.appended.map((e) => [e.seq, e.id])).toEqual([[2, 'b']]);
    await log.close();
    const again = await reopen();
    expect((await again.tail(5)).map((e) => e.id)).toEqual(['a', 'b']);
  });

  it('starts a new segment when a failed append cannot be rolled back', async () => {
    const fs = new FaultyFs();
    const { dir, log, reopen, lines } = await setup({ fs });
    await log.append([makeEvent({ id: 'a' })]);
    fs.faults = [
      { step: 'write', code: 'EIO', partial: true, times: 1 },
      { step: 'truncate', code: 'EIO', times: 1 },
    ];
    await expect(log.append([makeEvent({ id: 'b' })])).rejects.toThrow(StoreError);
    await log.append([makeEvent({ id: 'c' })]);
    expect(await names(dir)).toEqual(['000001.jsonl', '000002.jsonl']);
    await log.close();
    const again = await reopen();
    expect((await again.tail(5)).map((e) => [e.seq, e.id])).toEqual([
      [1, 'a'],
      [2, 'c'],
    ]);
    expect(linesAt(lines(), 'warn').map((l) => l['msg'])).toContain(
      'ignored unreadable tail of event segment',
    );
  });
});

describe('EventLog retention', () => {
  it('drops whole old segments past maxBytes, and forgets their ids', async () => {
    const { dir, log } = await setup({ maxBytes: 4000, segmentBytes: 1000 });
    const first = makeEvent({ id: 'first' });
    await log.append([first]);
    for (let i = 0; i < 40; i++) await log.append([makeEvent()]);
    const stats = log.stats();
    expect(stats.bytes).toBeLessThanOrEqual(4000);
    expect(stats.segments).toBeGreaterThan(2);
    expect(stats.lastSeq).toBe(41);
    expect(stats.firstSeq).toBeGreaterThan(1);
    const files = await names(dir);
    expect(files[0]).not.toBe('000001.jsonl');
    let onDisk = 0;
    for (const f of files) onDisk += (await fsp.stat(join(dir, f))).size;
    expect(onDisk).toBe(stats.bytes);
    expect(log.has('first')).toBe(false);
    expect((await log.append([first])).appended).toHaveLength(1);
  });

  it('drops segments whose newest event is older than maxAgeMs, by the injected clock', async () => {
    const { clock, log } = await setup({ maxAgeMs: 7 * DAY, segmentBytes: 600 });
    const t0 = clock.now();
    await log.append([makeEvent({ id: 'old-1', at: t0 }), makeEvent({ id: 'old-2', at: t0 })]);
    clock.advance(3 * DAY);
    await log.append([makeEvent({ id: 'mid', at: clock.now() })]);
    expect(log.stats().events).toBe(3);
    clock.advance(5 * DAY);
    expect(await log.prune()).toBe(2);
    expect((await log.tail(10)).map((e) => e.id)).toEqual(['mid']);
    clock.advance(3 * DAY);
    expect(await log.prune()).toBe(1);
    expect(log.stats()).toMatchObject({ segments: 0, bytes: 0, events: 0, highestSeq: 3, missingEvents: 0 });
  });

  it('never reuses a sequence number after everything expired, across a reopen', async () => {
    const { clock, log, reopen } = await setup({ maxAgeMs: DAY });
    await log.append([makeEvent({ at: clock.now() }), makeEvent({ at: clock.now() })]);
    clock.advance(2 * DAY);
    await log.prune();
    await log.close();
    const again = await reopen();
    const res = await again.append([makeEvent({ at: clock.now() })]);
    expect(res.appended[0]!.seq).toBe(3);
  });

  it('keeps everything when both limits are 0', async () => {
    const { clock, log } = await setup({ maxAgeMs: 0, maxBytes: 0, segmentBytes: 500 });
    for (let i = 0; i < 20; i++) await log.append([makeEvent({ at: clock.now() })]);
    clock.advance(1000 * DAY);
    expect(await log.prune()).toBe(0);
    expect(log.stats().events).toBe(20);
  });

  it('applies retention on open', async () => {
    const { clock, log, reopen } = await setup({ maxAgeMs: DAY });
    await log.append([makeEvent({ at: clock.now() })]);
    await log.close();
    clock.advance(2 * DAY);
    const again = await reopen();
    expect(again.stats().events).toBe(0);
  });
});

describe('EventLog query', () => {
  const T = Date.UTC(2025, 0, 1);
  const events: ChangeEvent[] = [
    makeEvent({
      id: 'e1',
      at: T + 1,
      org: 'acme',
      kind: 'channel.added',
      entity: { kind: 'channel', id: 'c1' },
    }),
    makeEvent({
      id: 'e2',
      at: T + 2,
      org: 'beta',
      kind: 'channel.added',
      entity: { kind: 'channel', id: 'c9' },
    }),
    makeEvent({
      id: 'e3',
      at: T + 3,
      org: 'acme',
      kind: 'session.started',
      entity: { kind: 'session', id: 's1' },
    }),
    makeEvent({
      id: 'e4',
      at: T + 4,
      org: 'acme',
      kind: 'channel.status_changed',
      entity: { kind: 'channel', id: 'c1' },
    }),
    makeEvent({
      id: 'e5',
      at: T + 5,
      org: 'beta',
      kind: 'session.ended',
      entity: { kind: 'session', id: 's7' },
    }),
  ];

  it.each([
    [{}, ['e5', 'e4', 'e3', 'e2', 'e1']],
    [{ order: 'oldest' as const }, ['e1', 'e2', 'e3', 'e4', 'e5']],
    [{ org: 'acme' }, ['e4', 'e3', 'e1']],
    [{ kinds: ['channel.added', 'session.ended'] }, ['e5', 'e2', 'e1']],
    [{ kinds: [] }, ['e5', 'e4', 'e3', 'e2', 'e1']],
    [{ entityId: 'c1' }, ['e4', 'e1']],
    [{ since: T + 2, until: T + 4 }, ['e3', 'e2']],
    [{ org: 'beta', since: T + 3 }, ['e5']],
    [{ org: 'nobody' }, []],
  ])('filters %j', async (filter, ids) => {
    const { log } = await setup({ segmentBytes: 700 });
    for (const e of events) await log.append([e]);
    expect(log.stats().segments).toBeGreaterThan(1);
    const page = await log.query({ limit: 100, ...filter });
    expect(page.events.map((e) => e.id)).toEqual(ids);
    expect(page.nextCursor).toBeUndefined();
  });

  it.each(['newest', 'oldest'] as const)(
    'pages %s first across segments, each event exactly once',
    async (order) => {
      const { log } = await setup({ segmentBytes: 2000 });
      for (let i = 0; i < 10; i++) {
        await log.append(
          Array.from({ length: 10 }, (_, j) => makeEvent({ org: (i + j) % 3 === 0 ? 'acme' : 'beta' })),
        );
      }
      expect(log.stats().segments).toBeGreaterThan(3);
      const all = (await log.query({ limit: 1000, order, org: 'acme' })).events.map((e) => e.seq);
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await log.query({ limit: 7, order, org: 'acme', cursor });
        seen.push(...page.events.map((e) => e.seq));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== undefined);
      expect(seen).toEqual(all);
      expect(all).toHaveLength(34);
      expect(pages).toBe(5);
      const sorted = [...all].sort((a, b) => (order === 'newest' ? b - a : a - b));
      expect(all).toEqual(sorted);
    },
  );

  it('refuses a cursor it did not hand out', async () => {
    const { log } = await setup();
    await expect(log.query({ limit: 5, cursor: 'nonsense!' })).rejects.toThrow(InvalidCursorError);
  });

  it('continues from a cursor whose event was dropped by retention', async () => {
    const { log } = await setup({ maxBytes: 3000, segmentBytes: 1000 });
    await log.append(Array.from({ length: 3 }, () => makeEvent()));
    const page = await log.query({ limit: 1, order: 'oldest' });
    for (let i = 0; i < 20; i++) await log.append([makeEvent()]);
    const next = await log.query({ limit: 2, order: 'oldest', cursor: page.nextCursor });
    expect(next.events[0]!.seq).toBe(log.stats().firstSeq);
  });

  it('returns the last n events oldest first from tail', async () => {
    const { log } = await setup();
    await log.append([makeEvent({ id: 'x' }), makeEvent({ id: 'y' }), makeEvent({ id: 'z' })]);
    expect((await log.tail(2)).map((e) => e.id)).toEqual(['y', 'z']);
    expect(await log.tail(0)).toEqual([]);
  });
});

describe('EventLog at scale', () => {
  it('holds 100k events: appends, reopens and pages without reading everything', async () => {
    const { log, reopen } = await setup({ maxBytes: 256 * 1024 * 1024 });
    const T = Date.UTC(2025, 0, 1);
    for (let b = 0; b < 100; b++) {
      await log.append(
        Array.from({ length: 1000 }, (_, i) =>
          makeEvent({ id: `big-${b}-${i}`, at: T + b * 1000 + i, org: i % 10 === 0 ? 'acme' : 'beta' }),
        ),
      );
    }
    await log.close();
    const started = Date.now();
    const again = await reopen({ maxBytes: 256 * 1024 * 1024 });
    const openMs = Date.now() - started;
    expect(again.stats()).toMatchObject({ events: 100_000, firstSeq: 1, lastSeq: 100_000 });
    const q0 = Date.now();
    const page = await again.query({ limit: 50, org: 'acme' });
    const second = await again.query({ limit: 50, org: 'acme', cursor: page.nextCursor });
    const queryMs = Date.now() - q0;
    expect(page.events).toHaveLength(50);
    expect(page.events[0]!.id).toBe('big-99-990');
    expect(second.events[0]!.seq).toBe(page.events[49]!.seq - 10);
    expect((await again.append([makeEvent({ id: 'big-0-0' })])).duplicates).toEqual(['big-0-0']);
    // Generous bounds for a slow CI machine; locally both are a fraction of these.
    expect(openMs).toBeLessThan(5000);
    expect(queryMs).toBeLessThan(500);
  });
});
