import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog, type EventLogOptions } from '../../src/store/event-log.js';
import type { Gap } from '../../src/store/event-gaps.js';
import { addGap, jumps, parseGaps } from '../../src/store/event-gaps.js';
import { captureLogger, linesAt, makeEvent, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
const open: EventLog[] = [];
afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
  await temp.cleanup();
});

async function setup(over: Partial<EventLogOptions> = {}) {
  const dir = join(await temp.make(), 'events');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const gaps: Gap[] = [];
  const opts: EventLogOptions = { dir, logger, clock, onGap: (g) => gaps.push(g), ...over };
  const reopen = async () => {
    const log = await EventLog.open(opts);
    open.push(log);
    return log;
  };
  return { dir, lines, gaps, log: await reopen(), reopen };
}

const warnings = (lines: () => Record<string, unknown>[]) => linesAt(lines(), 'warn').map((l) => l['msg']);

describe('event gaps (pure)', () => {
  it('merges touching ranges and finds jumps', () => {
    let gaps = addGap([], { from: 5, to: 7, reason: 'deleted', at: 1 });
    gaps = addGap(gaps, { from: 8, to: 9, reason: 'truncated', at: 2 });
    gaps = addGap(gaps, { from: 20, to: 20, reason: 'lost', at: 3 });
    expect(gaps).toEqual([
      { from: 5, to: 9, reason: 'deleted', at: 1 },
      { from: 20, to: 20, reason: 'lost', at: 3 },
    ]);
    expect(jumps([3, 4, 7, 8, 10], 0, 'lost', 0)).toEqual([
      { from: 5, to: 6, reason: 'lost', at: 0 },
      { from: 9, to: 9, reason: 'lost', at: 0 },
    ]);
    expect(
      parseGaps([{ from: 2, to: 1, reason: 'lost' }, 'x', { from: 1, to: 3, reason: 'lost', at: 0 }]),
    ).toEqual([{ from: 1, to: 3, reason: 'lost', at: 0 }]);
  });
});

describe('EventLog when its files go', () => {
  it('continues numbering after the highest handed out when the directory was lost', async () => {
    const { dir, log, reopen, gaps, lines } = await setup();
    await log.append([makeEvent(), makeEvent()]);
    await log.close();
    await fsp.rm(dir, { recursive: true });
    const again = await reopen();
    expect(again.stats().highestSeq).toBe(0);
    await again.continueAfter(2);
    const { appended } = await again.append([makeEvent()]);
    expect(appended[0]!.seq).toBe(3);
    expect(gaps).toEqual([expect.objectContaining({ from: 1, to: 2, reason: 'lost' })]);
    expect(warnings(lines)).toContain(
      'event log holds fewer events than tally logged; numbering goes on after the last one handed out',
    );
    const page = await again.query({ limit: 10, order: 'oldest' });
    expect(page.events.map((e) => e.seq)).toEqual([3]);
    expect(page.missing).toEqual([expect.objectContaining({ from: 1, to: 2 })]);
    // The missing range is kept across a restart (meta.json).
    await again.close();
    const third = await reopen();
    expect((await third.query({ limit: 10 })).missing).toEqual([expect.objectContaining({ from: 1, to: 2 })]);
  });

  it('writes to a new file when the directory is deleted under the running log', async () => {
    const { dir, log, reopen, gaps, lines } = await setup();
    await log.append([makeEvent(), makeEvent()]);
    await fsp.rm(dir, { recursive: true });
    const { appended } = await log.append([makeEvent({ id: 'after' })]);
    expect(appended[0]!.seq).toBe(3);
    expect(await names(dir)).toContain('000002.jsonl');
    expect(gaps).toEqual([expect.objectContaining({ from: 1, to: 2, reason: 'deleted' })]);
    expect(warnings(lines)).toContain('event segment deleted under the running log');
    await log.close();
    // What was appended after the loss is on disk, and a restart still says what is missing.
    const again = await reopen();
    const page = await again.query({ limit: 10 });
    expect(page.events.map((e) => e.id)).toEqual(['after']);
    expect(page.missing).toEqual([expect.objectContaining({ from: 1, to: 2, reason: 'deleted' })]);
    expect((await again.append([makeEvent()])).appended[0]!.seq).toBe(4);
  });

  it('answers a query over a truncated segment with what is left and the missing range', async () => {
    const { dir, log, gaps } = await setup();
    await log.append([makeEvent({ id: 'a' }), makeEvent({ id: 'b' }), makeEvent({ id: 'c' })]);
    const file = join(dir, '000001.jsonl');
    const text = await fsp.readFile(file, 'utf8');
    await fsp.truncate(file, text.indexOf('\n') + 5); // the first line whole, part of the second
    const page = await log.query({ limit: 10, order: 'oldest' });
    expect(page.events.map((e) => e.id)).toEqual(['a']);
    expect(page.missing).toEqual([expect.objectContaining({ from: 2, to: 3, reason: 'truncated' })]);
    expect(gaps).toHaveLength(1);
    // The next append goes to a new segment, never after the cut line.
    expect((await log.append([makeEvent({ id: 'd' })])).appended[0]!.seq).toBe(4);
    expect(await names(dir)).toContain('000002.jsonl');
    expect((await log.query({ limit: 10, order: 'oldest' })).events.map((e) => e.id)).toEqual(['a', 'd']);
  });

  it('answers a query over a deleted older segment instead of failing', async () => {
    const { dir, log } = await setup({ segmentBytes: 1024 });
    for (let i = 0; i < 12; i++) await log.append([makeEvent({ id: `e${i}` })]);
    const segs = (await names(dir)).filter((n) => n.endsWith('.jsonl'));
    expect(segs.length).toBeGreaterThan(2);
    await fsp.unlink(join(dir, segs[0]!));
    const page = await log.query({ limit: 100, order: 'oldest' });
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.events[0]!.seq).toBeGreaterThan(1);
    expect(page.missing).toEqual([expect.objectContaining({ from: 1, to: page.events[0]!.seq - 1 })]);
  });

  it('finds a segment missing between others when it opens', async () => {
    const { dir, log, reopen, lines } = await setup({ segmentBytes: 1024 });
    for (let i = 0; i < 12; i++) await log.append([makeEvent({ id: `e${i}` })]);
    await log.close();
    const segs = (await names(dir)).filter((n) => n.endsWith('.jsonl'));
    await fsp.unlink(join(dir, segs[1]!));
    const again = await reopen();
    expect(again.stats().missingEvents).toBeGreaterThan(0);
    expect(warnings(lines)).toContain('events missing from the event log');
  });
});
