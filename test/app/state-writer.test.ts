import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateWriter } from '../../src/app/state-writer.js';
import { silentLogger } from '../../src/core/log.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { emptySnapshot, type OrgSnapshot } from '../../src/snapshot/model.js';
import type { EventLog } from '../../src/store/event-log.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import { ManualClock } from '../helpers/clock.js';
import { TempDirs } from '../store/helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const event = (id: string) => ({ id, kind: 'channel.status_changed' }) as unknown as ChangeEvent;
const channels = (at: number, status: string): NonNullable<OrgSnapshot['channels']> => ({
  state: 'complete',
  at,
  value: [{ id: 'ch', status }],
});

/** An event log whose next appends can be held and failed; it drops ids it has, as the real one does. */
class TestLog {
  readonly ids: string[] = [];
  hold: Promise<void> | undefined;
  failures = 0;

  async append(events: readonly ChangeEvent[]) {
    if (this.hold) await this.hold;
    if (this.failures > 0) {
      this.failures -= 1;
      throw Object.assign(new Error('EIO: injected'), { reason: 'io' });
    }
    const appended = events.filter((e) => !this.ids.includes(e.id));
    this.ids.push(...appended.map((e) => e.id));
    return { appended };
  }
}

async function setup() {
  const dir = join(await temp.make(), 'snapshots');
  const clock = new ManualClock();
  const store = new SnapshotStore({ dir, logger: silentLogger(), clock });
  const log = new TestLog();
  const heard: string[] = [];
  let running = true;
  const writer = new StateWriter({
    clock,
    logger: silentLogger(),
    snapshots: store,
    eventLog: log as unknown as EventLog,
    announce: (events) => heard.push(...events.map((e) => e.id)),
    onWriteFailure: () => undefined,
    running: () => running,
  });
  current = writer;
  const stored = () => new SnapshotStore({ dir, logger: silentLogger(), clock }).loadWithEnvelope('acme');
  return {
    clock,
    log,
    heard,
    writer,
    store,
    stored,
    stop: () => (running = false),
    start: () => (running = true),
  };
}

/** Lets the writes that were queued settle (file I/O takes its own time on a loaded machine). */
let current: StateWriter | undefined;
const settle = async () => {
  await new Promise((r) => setTimeout(r, 5));
  // A write that waits for the manual clock settles only after a tick: wait for it a while at most.
  await Promise.race([current?.settled(), new Promise((r) => setTimeout(r, 500))]);
};

describe('StateWriter', () => {
  const s0: OrgSnapshot = { ...emptySnapshot('acme', 0), channels: channels(0, 'offline') };
  const s1: OrgSnapshot = { ...s0, takenAt: 1, channels: channels(1, 'live') };
  const s2: OrgSnapshot = { ...s1, takenAt: 2, team: { state: 'complete', at: 2, value: [] } };

  it('a write queued behind one whose append fails carries that one’s events, and no retry saves an older snapshot', async () => {
    const { clock, log, heard, writer, stored } = await setup();
    writer.update('acme', s0, [event('e0')]);
    await clock.tick(1000);
    await settle();
    // The save of s1 goes through; its append is held, then fails.
    let release!: () => void;
    log.hold = new Promise((r) => {
      release = r;
    });
    log.failures = 1;
    writer.update('acme', s1, [event('e1')]);
    await clock.tick(1000);
    await settle();
    // Meanwhile s2 and its event come, and its write is queued behind the held one.
    writer.update('acme', s2, [event('e2')]);
    await clock.tick(1000);
    log.hold = undefined;
    release();
    await settle();
    // The queued write took e1 with it: on disk and in the log, nothing is missing.
    expect(log.ids).toEqual(['e0', 'e1', 'e2']);
    expect(heard).toEqual(['e0', 'e1', 'e2']);
    // The retry after the failure saves the newest snapshot, not s1.
    await clock.tick(60_000);
    await settle();
    const disk = await stored();
    expect(disk?.snapshot).toEqual({ ...s2, takenAt: s2.takenAt });
    expect(disk?.extra).toEqual({ pendingEvents: [] });
  });

  it('an org removed is written, then let go; one whose write fails is kept until its retry succeeds', async () => {
    const { clock, log, heard, writer, store, stored } = await setup();
    writer.update('acme', s0, [event('e0')]);
    await clock.tick(1000);
    await settle();
    expect(writer.holds('acme') && store.holds('acme')).toBe(true);
    // Removed with a write waiting whose append fails: nothing is let go yet.
    log.failures = 1;
    writer.update('acme', s1, [event('e1')]);
    writer.forget('acme', () => true);
    await settle();
    expect(writer.holds('acme')).toBe(true);
    expect(log.ids).toEqual(['e0']);
    // The retry writes it all; then the org is let go, and its newest snapshot is on disk.
    await clock.tick(1000);
    await settle();
    expect(log.ids).toEqual(['e0', 'e1']);
    expect(heard).toEqual(['e0', 'e1']);
    expect(writer.holds('acme')).toBe(false);
    expect(store.holds('acme')).toBe(false);
    expect((await stored())?.snapshot.channels).toEqual(s1.channels);
  });

  it('events a stored snapshot carried that the log refuses at start wait for a retry; the start goes on', async () => {
    const { clock, log, heard, writer, stored, stop, start } = await setup();
    stop(); // not running yet: resuming orgs
    log.failures = 1;
    await expect(writer.publishInOrder('acme', [event('e0')], () => s0)).resolves.toBeUndefined();
    expect(log.ids).toEqual([]);
    start();
    // The first poll's update arms the retry, which carries e0 with it.
    writer.update('acme', s1, [event('e1')]);
    await clock.tick(1000);
    await settle();
    expect(log.ids).toEqual(['e0', 'e1']);
    expect(heard).toEqual(['e0', 'e1']);
    expect((await stored())?.extra).toEqual({ pendingEvents: ['e0', 'e1'].map(event) });
  });

  it('an org added back before it was let go keeps what it has', async () => {
    const { clock, writer, store } = await setup();
    writer.update('acme', s0, []);
    await clock.tick(1000);
    await settle();
    writer.forget('acme', () => false);
    await settle();
    expect(writer.holds('acme') && store.holds('acme')).toBe(true);
  });

  it('while stopping, a failed append leaves its events in the envelope of the saved snapshot', async () => {
    const { clock, log, writer, stored, stop } = await setup();
    writer.update('acme', s0, []);
    await clock.tick(1000);
    await settle();
    log.failures = 1;
    stop();
    writer.update('acme', s1, [event('e1')]);
    await writer.flushAll();
    expect(log.ids).toEqual([]);
    const disk = await stored();
    expect(disk!.snapshot.channels).toEqual(s1.channels);
    expect((disk!.extra['pendingEvents'] as { id: string }[]).map((e) => e.id)).toEqual(['e1']);
  });
});
