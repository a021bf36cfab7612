/**
 * Stored snapshots of an older model (docs/state.md, "Model versions"): a detail group
 * added after a detail was stored is unknown there, so the first read after the upgrade
 * is its baseline; a snapshot of a newer model is set aside for a silent baseline.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import { MODEL_VERSION, type OrgSnapshot } from '../../src/snapshot/model.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import { detailOf, snapshotOf, T0, T1, world, type World } from '../snapshot/fixtures.js';
import { captureLogger, linesAt, ManualClock, names, TempDirs } from './helpers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

async function setup() {
  const dir = join(await temp.make(), 'snapshots');
  const clock = new ManualClock();
  const { logger, lines } = captureLogger();
  const open = () => new SnapshotStore({ dir, logger, clock });
  return { dir, open, lines };
}

/** The world with speakers and a question on session s3's detail. */
function busy(): World {
  const w = world();
  const d = detailOf(w, 's3');
  d.speakers = {
    count: 2,
    items: [
      { id: 'sp1', text: 'Ada' },
      { id: 'sp2', text: 'Bob' },
    ],
  };
  d.questions = { count: 1, items: [{ id: 'q1', text: 'One' }] };
  return w;
}

/** Edits the stored snapshot file of `acme` in place. */
async function editStored(dir: string, edit: (snapshot: Record<string, unknown>) => void): Promise<void> {
  const path = join(dir, 'acme.json');
  const env = JSON.parse(await fsp.readFile(path, 'utf8')) as { snapshot: Record<string, unknown> };
  edit(env.snapshot);
  await fsp.writeFile(path, JSON.stringify(env));
}

/** Drops `speakers` from every stored detail: what a build before the group wrote. */
function withoutSpeakers(snapshot: Record<string, unknown>): void {
  const details = snapshot['details'] as Record<string, { value?: Record<string, unknown> }>;
  for (const part of Object.values(details)) delete part.value?.['speakers'];
}

describe('a stored snapshot of an older model', () => {
  it('yields no event of a detail group added later on the first read after the upgrade', async () => {
    const { dir, open } = await setup();
    await open().save('acme', snapshotOf(busy(), T0));
    await editStored(dir, withoutSpeakers);

    const loaded = (await open().load('acme')) as OrgSnapshot;
    const stored = loaded.details['s3'];
    expect(stored?.state === 'complete' && stored.value.unread).toEqual(['speakers']);

    // The first read after the upgrade: both speakers, one joined since, and a new question.
    const w = busy();
    const d = detailOf(w, 's3');
    d.speakers.items.push({ id: 'sp3', text: 'Cy' });
    d.speakers.count = 3;
    d.questions = { count: 2, items: [...d.questions.items, { id: 'q2', text: 'Two' }] };
    const first = snapshotOf(w, T1);
    // The group is a baseline; the groups the old build knew still report their news.
    expect(diff(loaded, first).map((e) => [e.kind, e.to])).toEqual([['session.question_added', 'Two']]);

    // From then on the group is diffed like any other.
    d.speakers.items.shift();
    d.speakers.count = 2;
    expect(diff(first, snapshotOf(w, T1 + 30_000)).map((e) => [e.kind, e.from])).toEqual([
      ['session.speaker_left', 'Ada'],
    ]);
  });

  it('upgrades details its journal holds with the file', async () => {
    const { dir, open } = await setup();
    const store = open();
    await store.save('acme', snapshotOf(world(), T0));
    await store.save('acme', snapshotOf(busy(), T0 + 1000));
    // The detail of s3 came in a journal record, without the group.
    const journalPath = join(dir, 'acme.journal');
    const [header, ...records] = (await fsp.readFile(journalPath, 'utf8')).trim().split('\n');
    const edited = records.map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record['details']) withoutSpeakers(record);
      return JSON.stringify(record);
    });
    await fsp.writeFile(journalPath, `${[header, ...edited].join('\n')}\n`);

    const loaded = (await open().load('acme')) as OrgSnapshot;
    const stored = loaded.details['s3'];
    expect(stored?.state === 'complete' && stored.value.speakers).toEqual({ count: 0, items: [] });
    expect(stored?.state === 'complete' && stored.value.unread).toEqual(['speakers']);
    expect(diff(loaded, snapshotOf(busy(), T1))).toEqual([]);
  });

  it('sets a snapshot of a newer model aside: the next poll is a silent baseline', async () => {
    const { dir, open, lines } = await setup();
    await open().save('acme', snapshotOf(busy(), T0));
    await editStored(dir, (s) => {
      s['version'] = MODEL_VERSION + 1;
    });
    expect(await open().load('acme')).toBeUndefined();
    expect((await names(dir)).some((n) => n.startsWith('acme.json.corrupt-'))).toBe(true);
    expect(linesAt(lines(), 'warn').map((l) => l['reason'])).toContainEqual(
      expect.stringContaining(`unsupported snapshot model version ${MODEL_VERSION + 1}`),
    );
  });
});
