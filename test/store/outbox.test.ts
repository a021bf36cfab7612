import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { StoreHealth } from '../../src/store/health.js';
import { Outbox, type OutboxOptions } from '../../src/store/outbox.js';
import { captureLogger, FaultyFs, linesAt, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

interface Note {
  text: string;
}

async function setup(over: Partial<OutboxOptions<Note>> = {}) {
  const dir = join(await temp.make(), 'outbox');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const opts: OutboxOptions<Note> = { dir, logger, clock, ...over };
  const reopen = (more: Partial<OutboxOptions<Note>> = {}) => Outbox.open<Note>({ ...opts, ...more });
  return { dir, clock, lines, outbox: await reopen(), reopen };
}

describe('Outbox', () => {
  it('has an entry on disk once put resolves, and a reopened outbox sees it', async () => {
    const { dir, clock, outbox, reopen } = await setup();
    const { entry, created } = await outbox.put('n-1', { text: 'hello' });
    expect(created).toBe(true);
    expect(entry).toEqual({
      id: 'n-1',
      item: { text: 'hello' },
      createdAt: clock.now(),
      attempts: 0,
      nextAttemptAt: clock.now(),
    });
    expect(await names(dir)).toEqual(['n-1.json']);
    const raw = JSON.parse(await fsp.readFile(join(dir, 'n-1.json'), 'utf8')) as Record<string, unknown>;
    expect(raw).toMatchObject({ format: 'tally-outbox-entry', version: 1, entry });
    const again = await reopen();
    expect(again.list()).toEqual([entry]);
  });

  it('treats putting a pending id again as a no-op', async () => {
    const { dir, clock, outbox } = await setup();
    await outbox.put('n-1', { text: 'first' });
    clock.advance(1000);
    const second = await outbox.put('n-1', { text: 'second' });
    expect(second.created).toBe(false);
    expect(second.entry.item).toEqual({ text: 'first' });
    expect(await names(dir)).toEqual(['n-1.json']);
    const [a, b] = await Promise.all([outbox.put('n-2', { text: 'x' }), outbox.put('n-2', { text: 'y' })]);
    expect([a.created, b.created]).toEqual([true, false]);
    expect(outbox.size).toBe(2);
  });

  it('lists oldest first, across a reopen', async () => {
    const { clock, outbox, reopen } = await setup();
    await outbox.put('b', { text: '1' });
    await outbox.put('a', { text: '2' });
    clock.advance(10);
    await outbox.put('0', { text: '3' });
    expect(outbox.list().map((e) => e.id)).toEqual(['b', 'a', '0']);
    expect((await reopen()).list().map((e) => e.id)).toEqual(['a', 'b', '0']);
  });

  it('records attempt bookkeeping durably and clears lastError', async () => {
    const { clock, outbox, reopen } = await setup();
    await outbox.put('n-1', { text: 'x' });
    const updated = await outbox.update('n-1', {
      attempts: 1,
      nextAttemptAt: clock.now() + 5000,
      lastError: 'HTTP 503',
    });
    expect(updated).toMatchObject({ attempts: 1, nextAttemptAt: clock.now() + 5000, lastError: 'HTTP 503' });
    expect((await reopen()).get('n-1')).toEqual(updated);
    const cleared = await outbox.update('n-1', { attempts: 2, lastError: undefined });
    expect(cleared).not.toHaveProperty('lastError');
    expect((await reopen()).get('n-1')).toEqual(cleared);
    expect(await outbox.update('nope', { attempts: 9 })).toBeUndefined();
  });

  it('removes an entry on ack, for good', async () => {
    const { dir, outbox, reopen } = await setup();
    await outbox.put('n-1', { text: 'x' });
    await outbox.put('n-2', { text: 'y' });
    expect(await outbox.ack('n-1')).toBe(true);
    expect(await outbox.ack('n-1')).toBe(false);
    expect(await outbox.update('n-1', { attempts: 3 })).toBeUndefined();
    expect(await names(dir)).toEqual(['n-2.json']);
    expect((await reopen()).list().map((e) => e.id)).toEqual(['n-2']);
  });

  it('drops entries older than a maximum age and returns them', async () => {
    const { clock, outbox, lines, reopen } = await setup();
    await outbox.put('old', { text: 'x' });
    clock.advance(60_000);
    await outbox.put('new', { text: 'y' });
    clock.advance(30_000);
    const dropped = await outbox.dropOlderThan(60_000);
    expect(dropped.map((e) => e.id)).toEqual(['old']);
    expect(outbox.list().map((e) => e.id)).toEqual(['new']);
    expect((await reopen()).list().map((e) => e.id)).toEqual(['new']);
    expect(linesAt(lines(), 'warn')[0]).toMatchObject({ dropped: 1, ids: ['old'] });
  });

  it('keeps odd ids inside its directory and reads them back', async () => {
    const { dir, outbox, reopen } = await setup();
    const id = '{}:{org="acme", rule="channel_offline"}:3/../x';
    await outbox.put(id, { text: 'x' });
    const files = await names(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[a-z0-9_%A-F-]+\.json$/);
    const again = await reopen();
    expect(again.get(id)?.item).toEqual({ text: 'x' });
    expect(await again.ack(id)).toBe(true);
    expect(await names(dir)).toEqual([]);
  });

  it('cleans leftover temp files and sets corrupt entries aside on open', async () => {
    const { dir, outbox, reopen, lines } = await setup({
      validate: (v) => {
        if (typeof (v as Note).text !== 'string') throw new Error('text is not a string');
        return v as Note;
      },
    });
    await outbox.put('good', { text: 'x' });
    await fsp.writeFile(join(dir, '.good.json.tmp-0123abcd'), '{"half":');
    await fsp.writeFile(join(dir, 'torn.json'), '{"format":"tally-outbox-entry","ver');
    await fsp.writeFile(
      join(dir, 'bad-item.json'),
      JSON.stringify({
        format: 'tally-outbox-entry',
        version: 1,
        savedAt: 1,
        entry: { id: 'bad-item', item: { text: 5 }, createdAt: 1, attempts: 0, nextAttemptAt: 1 },
      }),
    );
    const again = await reopen();
    expect(again.list().map((e) => e.id)).toEqual(['good']);
    const files = await names(dir);
    expect(files.filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
    expect(files).not.toContain('.good.json.tmp-0123abcd');
    const reasons = linesAt(lines(), 'warn').map((l) => String(l['reason']));
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/invalid entry: text is not a string/),
        expect.stringMatching(/invalid JSON/),
      ]),
    );
    // Set-aside files stay out of the way on the next open.
    expect((await reopen()).list().map((e) => e.id)).toEqual(['good']);
  });

  it.each([
    ['ENOSPC', 'disk_full'],
    ['EROFS', 'read_only'],
  ] as const)('surfaces %s on put as a StoreError and leaves nothing pending', async (code, reason) => {
    const fs = new FaultyFs();
    const health = new StoreHealth(new ManualClock());
    const { dir, outbox, reopen } = await setup({ fs, health });
    fs.fault = { step: 'write', code, partial: true };
    const err = await outbox.put('n-1', { text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason });
    expect(outbox.list()).toEqual([]);
    expect(await names(dir)).toEqual([]);
    expect(health.read().failures[reason]).toBe(1);
    fs.fault = undefined;
    await outbox.put('n-1', { text: 'x' });
    expect((await reopen()).list()).toHaveLength(1);
  });

  it('keeps an entry pending when its ack cannot be written', async () => {
    const fs = new FaultyFs();
    const { outbox, reopen } = await setup({ fs });
    await outbox.put('n-1', { text: 'x' });
    fs.fault = { step: 'unlink', code: 'EROFS' };
    await expect(outbox.ack('n-1')).rejects.toMatchObject({ name: 'StoreError', reason: 'read_only' });
    expect(outbox.get('n-1')).toBeDefined();
    expect((await reopen()).get('n-1')).toBeDefined();
  });
});
