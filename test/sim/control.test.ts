import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Change, type Simulator, startSimulator, type TriggerResult } from '../../src/sim/index.js';
import { normalizeSubscription, readObject } from '../../src/upstream/shape/index.js';
import { control, get, ManualClock, type Loose } from './helpers.js';

type Body = Record<string, Loose>;

describe('simulator control surface', () => {
  const clock = new ManualClock();
  let sim: Simulator;
  let channel: string;
  let scheduled: string;
  let member: string;

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      seed: 8,
      channels: 5,
      sessionsPerChannel: 6,
      paging: 'none',
      envelope: 'data',
    });
    const view = sim.view('demo');
    // A channel with a scheduled session and none live, so that its status follows the one we start.
    channel = view.channels.find((c) => {
      const list = view.sessions[c.id as string]!;
      return list.some((s) => s.status === 'scheduled') && !list.some((s) => s.status === 'live');
    })!.id as string;
    scheduled = view.sessions[channel]!.find((s) => s.status === 'scheduled')!.id as string;
    member = view.team[1]!.id as string;
  });
  afterAll(async () => {
    await sim.close();
  });

  async function post(route: string, body: unknown): Promise<TriggerResult> {
    const res = await control(sim, route, body);
    expect(res.status, `${route}: ${JSON.stringify(body)}`).toBe(200);
    return (await res.json()) as TriggerResult;
  }

  const data = async (path: string) => ((await (await get(sim, path)).json()) as Body).data;

  async function truthHas(expected: Partial<Change>): Promise<void> {
    const res = await fetch(`${sim.url}/_sim/changes?org=demo`);
    const body = (await res.json()) as { changes: Change[]; seq: number };
    expect(body.changes).toContainEqual(expect.objectContaining({ ...expected, source: 'trigger' }));
  }

  it('sets channel status and visibility', async () => {
    const r = await post('channel-status', { org: 'demo', channel, status: 'offline' });
    expect(r.changes).toMatchObject([
      { entity: { kind: 'channel', id: channel }, field: 'status', to: 'offline' },
    ]);
    await post('channel-visibility', { channel, visibility: 'private' });
    const ch = ((await data('/v1/demo/channels')) as Body[]).find((c) => c.id === channel)!;
    expect(ch).toMatchObject({ status: 'offline', visibility: 'private' });
    await truthHas({ entity: { kind: 'channel', id: channel }, field: 'visibility', to: 'private' });
  });

  it('adds and removes a channel', async () => {
    const r = await post('add-channel', { name: 'Pop-up Studio' });
    const channels = (await data('/v1/demo/channels')) as Body[];
    expect(channels.at(-1)).toMatchObject({ id: r.id, name: 'Pop-up Studio', status: 'idle' });
    await truthHas({ entity: { kind: 'channel', id: r.id! }, field: 'exists', from: false, to: true });
    await post('remove-channel', { channel: r.id });
    expect(((await data('/v1/demo/channels')) as Body[]).map((c) => c.id)).not.toContain(r.id);
    expect((await get(sim, `/v1/demo/channels/${r.id!}/sessions`)).status).toBe(404);
    await truthHas({ entity: { kind: 'channel', id: r.id! }, field: 'exists', from: true, to: false });
  });

  it('starts a scheduled session, which takes its channel live, and ends it', async () => {
    const r = await post('start-session', { session: scheduled });
    expect(r.changes.map((c) => `${c.entity.kind}.${c.field}=${String(c.to)}`)).toEqual([
      'session.status=live',
      'channel.status=live',
    ]);
    expect(await data(`/v1/demo/sessions/${scheduled}`)).toMatchObject({ status: 'live', ended_at: null });
    expect(((await data('/v1/demo/channels')) as Body[]).find((c) => c.id === channel)!.status).toBe('live');
    const ended = await post('end-session', { session: scheduled });
    expect(ended.changes).toContainEqual(
      expect.objectContaining({ field: 'status', from: 'live', to: 'ended' }),
    );
    expect(await data(`/v1/demo/sessions/${scheduled}`)).toMatchObject({
      status: 'ended',
      ended_at: expect.any(String),
    });
    expect(((await data('/v1/demo/channels')) as Body[]).find((c) => c.id === channel)!.status).toBe('idle');
    const again = await control(sim, 'start-session', { session: scheduled });
    expect(again.status).toBe(409);
  });

  it.each([
    ['end-session', 'ended'],
    ['fail-session', 'failed'],
  ])('%s creates a session when the channel has none live', async (route, status) => {
    const view = sim.view('demo');
    const ch = view.channels.find((c) => !view.sessions[c.id as string]!.some((x) => x.status === 'live'))!
      .id as string;
    const r = await post(route, { channel: ch, title: `Ad hoc ${status}` });
    const statuses = r.changes
      .filter((c) => c.entity.kind === 'session' && c.field !== 'ai.status')
      .map((c) => c.to);
    expect(statuses).toEqual([true, 'live', status]);
    const sessions = (await data(`/v1/demo/channels/${ch}/sessions`)) as Body[];
    expect(sessions.at(-1)).toMatchObject({ id: r.id, title: `Ad hoc ${status}`, status });
  });

  it('schedules and cancels a session', async () => {
    const at = new Date(clock.now() + 3 * 60 * 60 * 1000).toISOString();
    const r = await post('schedule-session', { channel, title: 'Later', at });
    expect(await data(`/v1/demo/sessions/${r.id!}`)).toMatchObject({ status: 'scheduled', scheduled_at: at });
    await post('cancel-session', { session: r.id });
    expect(await data(`/v1/demo/sessions/${r.id!}`)).toMatchObject({ status: 'cancelled' });
    await truthHas({
      entity: { kind: 'session', id: r.id! },
      field: 'status',
      from: 'scheduled',
      to: 'cancelled',
    });
  });

  it('adds questions, announcements, reactions and speakers, and moves ai', async () => {
    const live = await post('start-session', { channel, title: 'Town hall' });
    const id = live.id!;
    const q = await post('add-question', { session: id, text: 'Is this on?', author: 'ada' });
    await post('add-announcement', { session: id, text: 'Welcome!' });
    await post('add-reaction', { session: id, kind: 'heart', count: 3 });
    const sp = await post('add-speaker', { session: id, name: 'Grace' });
    await post('ai-status', { session: id, status: 'transcribing' });
    let d = await data(`/v1/demo/sessions/${id}`);
    expect(d.questions).toContainEqual({
      id: q.id,
      text: 'Is this on?',
      author: 'ada',
      asked_at: expect.any(String),
    });
    expect(d.announcements.map((a: Body) => a.text)).toContain('Welcome!');
    expect(d.reactions.by_kind.heart).toBeGreaterThanOrEqual(3);
    expect(d.speakers.map((s: Body) => s.id)).toContain(sp.id);
    expect(d.ai).toEqual({ status: 'transcribing', enabled: true });
    await post('remove-speaker', { session: id, speaker: sp.id });
    d = await data(`/v1/demo/sessions/${id}`);
    expect(d.speakers.map((s: Body) => s.id)).not.toContain(sp.id);
    await truthHas({
      entity: { kind: 'session', id },
      field: 'questions',
      item: { id: q.id!, text: 'Is this on?' },
    });
    await truthHas({ entity: { kind: 'session', id }, field: 'reactions', item: { id: 'heart' } });
    await truthHas({
      entity: { kind: 'session', id },
      field: 'speakers',
      item: { id: sp.id!, text: 'Grace' },
    });
  });

  it('adds and removes members and changes roles', async () => {
    const r = await post('add-member', { name: 'Nina Simone', email: 'nina@demo.example', role: 'admin' });
    let team = (await data('/v1/demo/team')) as Body[];
    expect(team.at(-1)).toMatchObject({ id: r.id, name: 'Nina Simone', role: 'admin' });
    await post('member-role', { member, role: 'viewer' });
    await post('remove-member', { member: r.id });
    team = (await data('/v1/demo/team')) as Body[];
    expect(team.map((m) => m.id)).not.toContain(r.id);
    expect(team.find((m) => m.id === member)!.role).toBe('viewer');
    await truthHas({ entity: { kind: 'member', id: member }, field: 'role', to: 'viewer' });
    await truthHas({ entity: { kind: 'member', id: r.id! }, field: 'exists', to: false });
  });

  it('sets plan, wallet balance and funding', async () => {
    await post('funding', { mode: 'wallet' });
    await post('plan', { plan: 'enterprise' });
    await post('wallet-balance', { balance: 12.345 });
    let sub = await data('/v1/demo/subscription');
    expect(sub).toMatchObject({
      plan: 'enterprise',
      limits: { channels: null },
      // Written as a decimal string (major units, unambiguous); the truth keeps the number.
      ai_funding: { mode: 'wallet', wallet: { balance: '12.35', currency: expect.any(String) } },
    });
    expect((await data('/v1/demo')).plan).toBe('enterprise');
    await post('funding', { mode: 'byok', provider: 'anthropic', keyStatus: 'invalid' });
    sub = await data('/v1/demo/subscription');
    expect(sub.ai_funding).toEqual({ mode: 'byok', byok: { provider: 'anthropic', key_status: 'invalid' } });
    await truthHas({
      entity: { kind: 'subscription', id: 'demo' },
      field: 'funding',
      from: 'wallet',
      to: 'byok',
    });
    await truthHas({ field: 'wallet.balance', to: 12.35 });
    await truthHas({ field: 'plan', to: 'enterprise' });
  });

  it('a whole wallet balance is written so that tally reads major units, not minor', async () => {
    await post('funding', { mode: 'wallet' });
    await post('wallet-balance', { balance: 120 });
    const body = await (await get(sim, '/v1/demo/subscription')).json();
    const read = normalizeSubscription(readObject('subscription', body, {}), {});
    expect(read.value.funding).toMatchObject({ mode: 'wallet', balance: 120 });
    expect(read.value.funding).toEqual(
      expect.objectContaining({ currency: expect.stringMatching(/^[A-Z]{3}$/) }),
    );
  });

  it('renames the org and changes its settings', async () => {
    await post('org-settings', {
      name: 'Demo Radio',
      aiEnabled: false,
      defaultVisibility: 'unlisted',
      language: 'fr',
    });
    const org = await data('/v1/demo');
    expect(org).toMatchObject({
      name: 'Demo Radio',
      settings: { ai_enabled: false, default_visibility: 'unlisted', language: 'fr' },
    });
    await truthHas({ entity: { kind: 'org', id: 'demo' }, field: 'name', to: 'Demo Radio' });
    await truthHas({ entity: { kind: 'org', id: 'demo' }, field: 'settings.ai_enabled', to: false });
  });

  it('offers every trigger as a typed helper too', () => {
    const r = sim.trigger.channelStatus({ channel, status: 'offline' });
    expect(r).toMatchObject({
      id: channel,
      changes: [{ field: 'status', to: 'offline', source: 'trigger' }],
    });
    expect(sim.changes().at(-1)).toEqual(r.changes[0]);
    expect(sim.trigger.channelStatus({ channel, status: 'offline' }).changes).toEqual([]);
  });

  it.each([
    ['channel-status', { channel: 'ch_nope', status: 'live' }, 404],
    ['channel-status', { channel: 'x', status: 'sideways' }, 400],
    ['channel-status', { org: 'nosuch', channel: 'x', status: 'live' }, 404],
    ['add-member', { role: 'king' }, 400],
    ['add-reaction', { session: 'x', surprise: 1 }, 400],
    ['no-such-trigger', {}, 404],
  ])('refuses %s with %j (%i)', async (route, body, status) => {
    const res = await control(sim, route, body);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
  });

  it('refuses bad JSON and wrong methods', async () => {
    let res = await fetch(`${sim.url}/_sim/plan`, { method: 'POST', body: '{nope' });
    expect(res.status).toBe(400);
    res = await fetch(`${sim.url}/_sim/plan`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    res = await fetch(`${sim.url}/_sim/changes`, { method: 'POST' });
    expect(res.status).toBe(405);
  });

  it('reads changes since a sequence number and for one org', async () => {
    const all = (await (await fetch(`${sim.url}/_sim/changes`)).json()) as { changes: Change[]; seq: number };
    expect(all.seq).toBe(all.changes.at(-1)!.seq);
    const since = all.changes.at(-3)!.seq;
    const tail = (await (await fetch(`${sim.url}/_sim/changes?since=${since}`)).json()) as {
      changes: Change[];
    };
    expect(tail.changes).toEqual(all.changes.slice(-2));
    const none = (await (await fetch(`${sim.url}/_sim/changes?org=other`)).json()) as { changes: Change[] };
    expect(none.changes).toEqual([]);
  });

  it('changes the style at runtime', async () => {
    let res = await fetch(`${sim.url}/_sim/style`, {
      method: 'POST',
      body: JSON.stringify({ envelope: 'key', paging: 'cursor', fieldCase: 'camel' }),
    });
    expect(await res.json()).toEqual({
      style: { envelope: 'key', paging: 'cursor', pageSize: 50, fieldCase: 'camel' },
    });
    const body = (await (await get(sim, '/v1/demo/channels')).json()) as Body;
    expect(Object.keys(body).sort()).toEqual(['channels', 'hasMore', 'nextCursor']);
    res = await fetch(`${sim.url}/_sim/style`, {
      method: 'POST',
      body: JSON.stringify({ paging: 'scroll' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('paging');
    sim.setStyle({ envelope: 'data', paging: 'none', fieldCase: 'snake' });
  });

  it('serves and resets the request log', async () => {
    await get(sim, '/v1/demo/team?probe=1');
    let log = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: Body[] };
    expect(log.requests.at(-1)).toMatchObject({ path: '/v1/demo/team', query: { probe: '1' }, status: 200 });
    expect(log.requests.some((r) => String(r.path).startsWith('/_sim'))).toBe(false);
    expect((await control(sim, 'reset-requests', {})).status).toBe(200);
    log = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: Body[] };
    expect(log.requests).toEqual([]);
  });

  it('reports its status and lists its routes', async () => {
    const status = (await (await fetch(`${sim.url}/_sim/status`)).json()) as Body;
    expect(status).toMatchObject({ now: clock.now(), speed: 1, orgs: [{ slug: 'demo', channels: 5 }] });
    const index = (await (await fetch(`${sim.url}/_sim/`)).json()) as Body;
    expect(Object.keys(index.routes)).toContain('POST /_sim/start-session');
  });
});
