/**
 * Any string is a valid id: a server whose channel, session and member ids are
 * `__proto__`, `constructor`, `toString`, unicode or a kilobyte long is read, diffed,
 * stored, resumed, exported as metric labels and served by the API like any other, end to
 * end through the App. (An object keyed by such an id would drop `__proto__` silently or
 * answer for `constructor` from its prototype.)
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/snapshot/events.js';
import { json, type Loopback, startServer } from '../upstream/loopback.js';
import { type Tally, startTally, tempDir, until } from './helpers.js';

const IDS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'ü-日本-🎙️', 'k'.repeat(1024)];

/** The fake API's world: channels with their status, sessions per channel, members. */
const world = {
  // `__proto__` joins after the baseline, as a new channel with new sessions.
  channels: new Map<string, string>(IDS.slice(1).map((id) => [id, 'offline'])),
  members: [...IDS],
};

/** Sessions start in an hour, inside the window tally reads. */
const at = new Date(Date.now() + 3_600_000).toISOString();

function answer(url: URL, res: ServerResponse) {
  const path = decodeURIComponent(url.pathname);
  if (path === '/v1/demo') return json(res, 200, { slug: 'demo', name: 'Demo', plan: 'pro', settings: {} });
  if (path === '/v1/demo/team')
    return json(res, 200, {
      data: world.members.map((id) => ({ id, name: `m ${id.slice(0, 8)}`, role: 'member' })),
    });
  if (path === '/v1/demo/subscription')
    return json(res, 200, { plan: 'pro', limits: {}, ai_funding: { mode: 'byok', provider: 'x' } });
  if (path === '/v1/demo/channels')
    return json(res, 200, {
      data: [...world.channels].map(([id, status]) => ({
        id,
        name: `c ${id.slice(0, 8)}`,
        status,
        visibility: 'public',
      })),
    });
  const sessions = /^\/v1\/demo\/channels\/(.+)\/sessions$/.exec(path);
  if (sessions) {
    const channel = sessions[1]!;
    // Every channel holds sessions named like the ids too, prefixed to stay unique.
    return json(res, 200, {
      data: IDS.slice(0, 2).map((id) => ({
        id: channel === IDS[0] ? id : `${channel}/${id}`,
        status: 'scheduled',
        title: 't',
        scheduled_at: at,
      })),
    });
  }
  if (path.startsWith('/v1/demo/sessions/')) return json(res, 404, { error: 'not found' });
  json(res, 404, { error: 'not found' });
}

let api: Loopback | undefined;
let tally: Tally | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await api?.close();
  await cleanup?.();
  tally = undefined;
  api = undefined;
});

describe('ids that are awkward for JavaScript objects', () => {
  it('go through read, diff, store, resume, metrics and the API like any other', async () => {
    const tmp = await tempDir('any-id');
    cleanup = tmp.remove;
    api = await startServer((req, res) => answer(new URL(req.url ?? '/', 'http://x'), res));
    const sim = { url: api.origin } as Parameters<typeof startTally>[0]['sim'];
    tally = await startTally({ sim, stateDir: tmp.dir });
    const t = tally;
    await until(
      () => t.app.ready() && Object.keys(t.app.orgs()[0]!.snapshot.sessions).length === IDS.length - 1,
      'the baseline',
      15_000,
    );
    world.channels.set('__proto__', 'offline');
    const addedTo = (channel: string) =>
      t.events.filter((e) => e.kind === 'session.added' && e.labels['channel_id'] === channel);
    await until(() => addedTo('__proto__').length === 2, 'the sessions of the new channel __proto__', 15_000);
    expect(t.events.find((e) => e.kind === 'channel.added')?.entity.id).toBe('__proto__');
    expect(
      addedTo('__proto__')
        .map((e) => e.entity.id)
        .sort(),
    ).toEqual(['__proto__', 'constructor']);

    const view = t.app.orgs()[0]!;
    const channels = view.snapshot.channels;
    expect(channels?.state === 'complete' && channels.value.map((c) => c.id).sort()).toEqual([...IDS].sort());
    expect(Object.keys(view.snapshot.sessions).sort()).toEqual([...IDS].sort());
    const team = view.snapshot.team;
    expect(team?.state === 'complete' && team.value.map((m) => m.id).sort()).toEqual([...IDS].sort());

    // The API serves them.
    const snap = (await (await fetch(`${t.app.url()}/api/v1/snapshot/demo`)).json()) as {
      snapshot?: { channels?: { value?: { id: string }[] } };
      channels?: { value?: { id: string }[] };
    };
    const served = (snap.snapshot ?? snap).channels?.value?.map((c) => c.id).sort();
    expect(served).toEqual([...IDS].sort());
    // Metric labels carry them, escaped.
    const metrics = await (await fetch(`${t.app.url()}/metrics`)).text();
    for (const id of IDS.slice(0, 4)) expect(metrics).toContain(`channel_id="${id}"`);

    // Changes to them are events with the right entity.
    world.channels.set('__proto__', 'live');
    world.channels.delete('constructor');
    const found = (kind: string, id: string) => (e: ChangeEvent) => e.kind === kind && e.entity.id === id;
    await until(
      () => t.events.some(found('channel.status_changed', '__proto__')),
      '__proto__ going live',
      15_000,
    );
    await until(() => t.events.some(found('channel.removed', 'constructor')), 'constructor removed', 15_000);
    world.channels.set('toString', 'live');
    await until(
      () => t.events.some(found('channel.status_changed', 'toString')),
      'toString going live',
      15_000,
    );

    // Stored and resumed as they were: a restart reports nothing new.
    await t.stop();
    const before = t.events.length;
    tally = await startTally({ sim, stateDir: tmp.dir });
    const again = tally;
    await until(() => again.app.ready(), 'the restart', 15_000);
    const resumed = again.app.orgs()[0]!.snapshot;
    expect(Object.keys(resumed.sessions)).toContain('__proto__');
    const resumedChannels = resumed.channels;
    expect(
      resumedChannels?.state === 'complete' &&
        resumedChannels.value.find((c) => c.id === '__proto__')?.status,
    ).toBe('live');
    await new Promise((r) => setTimeout(r, 3000));
    expect(again.events.filter((e) => e.entity.kind !== 'upstream')).toEqual([]);
    expect(before).toBeGreaterThan(0);
  });
});
