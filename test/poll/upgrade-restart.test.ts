/**
 * A restart on a build that knows a detail group the stored snapshot does not
 * (docs/state.md, "Model versions"): the poller resumes from the upgraded snapshot and its
 * first reads report nothing of the group, which the unchanged world still shows.
 */
import { join } from 'node:path';
import * as fsp from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { OrgPoller } from '../../src/poll/org-poller.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { diff } from '../../src/snapshot/diff.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { completeValue, emptySnapshot, type ItemGroup, type OrgSnapshot } from '../../src/snapshot/model.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { ManualClock } from '../helpers/clock.js';
import { TempDirs } from '../store/helpers.js';
import { testClient } from './client.js';

let clock: ManualClock;
let sim: Simulator;
let client: UpstreamClient;
const temp = new TempDirs();

beforeEach(async () => {
  clock = new ManualClock();
  sim = await startSimulator({ seed: 3, channels: 4, sessionsPerChannel: 3, frozen: true, clock });
  client = testClient(sim, clock);
});

afterEach(async () => {
  await client.close();
  await sim.close();
  await temp.cleanup();
});

function poller(initial: OrgSnapshot, events: ChangeEvent[]): OrgPoller {
  return new OrgPoller({ slug: 'demo', token: 'demo-token' }, undefined, initial, {
    fetcher: client,
    clock,
    logger: silentLogger(),
    diff: (a, b) => diff(a, b),
    window: { past: 86_400_000, future: 7 * 86_400_000 },
    onUpdate: (_s, e) => events.push(...e),
    perPage: 100,
    signal: new AbortController().signal,
  });
}

async function readEverything(p: OrgPoller): Promise<void> {
  const signal = new AbortController().signal;
  for (const part of ['profile', 'team', 'subscription', 'channels'] as const) await p.refresh(part, signal);
  for (const e of p.sweepEntries()) await p.readSessions(e.channelId, 'low', signal);
  for (const id of p.detailTargets()) await p.readDetail(id, 'high', signal);
  await p.settle();
}

/** How many speakers the details of `s` show in all (a stored detail may have no such group). */
function speakers(s: OrgSnapshot): number {
  let n = 0;
  for (const part of Object.values(s.details)) {
    const group: ItemGroup | undefined = completeValue(part)?.speakers;
    n += group?.items.length ?? 0;
  }
  return n;
}

describe('a restart on a build with a detail group the stored snapshot lacks', () => {
  it('resumes with the group unread, and its first read is a baseline', async () => {
    const first: ChangeEvent[] = [];
    const before = poller(emptySnapshot('demo', clock.now()), first);
    await readEverything(before);
    expect(first).toEqual([]);
    const taken = before.snapshot();
    expect(speakers(taken)).toBeGreaterThan(0);

    // Stored by a build before speakers: its details have no such group.
    const dir = join(await temp.make(), 'snapshots');
    await new SnapshotStore({ dir, logger: silentLogger(), clock }).save('demo', taken);
    const path = join(dir, 'demo.json');
    const env = JSON.parse(await fsp.readFile(path, 'utf8')) as {
      snapshot: { details: Record<string, { value?: Record<string, unknown> }> };
    };
    for (const part of Object.values(env.snapshot.details)) delete part.value?.['speakers'];
    await fsp.writeFile(path, JSON.stringify(env));

    const loaded = await new SnapshotStore({ dir, logger: silentLogger(), clock }).load('demo');
    expect(loaded).toBeDefined();
    expect(speakers(loaded!)).toBe(0);

    await clock.tick(60_000);
    const after: ChangeEvent[] = [];
    const resumed = poller(loaded!, after);
    await readEverything(resumed);
    expect(after).toEqual([]);
    // The group was read again, and is known from now on.
    expect(speakers(resumed.snapshot())).toBe(speakers(taken));
  });
});
