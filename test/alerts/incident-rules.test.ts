/**
 * The shipped incident rules (src/alerts/default-rules.yaml): each fires on its incident,
 * stays quiet on routine, and never fires from blindness (a read older than the moment
 * that matters). docs/alerts.md, "Incident rules".
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/snapshot/model.js';
import type { OrgView } from '../../src/poll/status.js';
import { subjectLine } from '../../src/notify/summary.js';
import { channel, engine, event, MIN, T0, tickFor } from './helpers.js';
import { view } from './helpers.js';

const defaults = readFileSync(new URL('../../src/alerts/default-rules.yaml', import.meta.url), 'utf8');
const config = `${defaults}\nroute: { receiver: ops }\n`;

/** 10:00 UTC on T0's day. */
const T = T0 + 10 * 60 * MIN;
const HARBOR = { name: 'Harbor Notes' };

function show(p: Partial<Session> = {}): Session {
  return {
    id: 's1',
    channelId: 'c1',
    title: 'Morning Drive',
    status: 'scheduled',
    scheduledAt: T,
    scheduledEndAt: T + 60 * MIN,
    ...p,
  };
}

/** A view whose channel list was read at `channelsAt` and session list at `sessionsAt`. */
function org(p: {
  session: Session;
  channelStatus?: string;
  channelsAt: number;
  sessionsAt: number;
  extra?: Session[];
}): OrgView {
  const v = view('acme', {
    at: p.channelsAt,
    channels: [channel('c1', p.channelStatus ?? 'offline', HARBOR)],
    sessions: { c1: [p.session, ...(p.extra ?? [])] },
  });
  v.snapshot.sessions['c1']!.at = p.sessionsAt;
  return v;
}

/**
 * Evaluates `views` now and again a minute later, as polls would: the incident rules hold
 * a condition over two reads (`for`) before it fires.
 */
function seen(
  x: ReturnType<typeof engine>['engine'],
  clock: ReturnType<typeof engine>['clock'],
  views: OrgView[],
) {
  x.evaluate(views);
  clock.advance(MIN);
  x.evaluate(views);
}

function firing(x: ReturnType<typeof engine>['engine'], rule: string) {
  return x.alerts({ state: 'firing' }).filter((a) => a.rule === rule);
}

describe('session_no_show', () => {
  it('fires on a list read after start + grace that still shows it scheduled, the channel not live', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 6 * MIN;
    seen(x, clock, [org({ session: show(), channelsAt: T + 6 * MIN, sessionsAt: T + 6 * MIN })]);
    const [a] = firing(x, 'session_no_show');
    expect(a?.labels).toMatchObject({ severity: 'critical', session_id: 's1', channel: 'Harbor Notes' });
    expect(a?.annotations['summary']).toBe(
      'No-show: Morning Drive on Harbor Notes did not start at 10:00 (planned 10:00–11:00 UTC)',
    );
  });

  it('stays quiet within the grace, for a session that went live, and while the channel is live', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 4 * MIN;
    seen(x, clock, [org({ session: show(), channelsAt: clock.time, sessionsAt: clock.time })]);
    clock.time = T + 8 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'live', startedAt: T + 30_000 }),
        channelStatus: 'live',
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    seen(x, clock, [
      org({ session: show(), channelStatus: 'live', channelsAt: clock.time, sessionsAt: clock.time }),
    ]);
    expect(x.alerts().filter((a) => a.rule === 'session_no_show')).toEqual([]);
  });

  it('never fires from blindness: a list read before start + grace says nothing, however late it is now', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 40 * MIN;
    // The upstream was down since 10:02: the last session list read is from then.
    seen(x, clock, [org({ session: show(), channelsAt: T + 40 * MIN, sessionsAt: T + 2 * MIN })]);
    expect(x.alerts().filter((a) => a.rule === 'session_no_show')).toEqual([]);
    // The first fresh read decides.
    clock.time = T + 41 * MIN;
    seen(x, clock, [org({ session: show(), channelsAt: clock.time, sessionsAt: clock.time })]);
    expect(firing(x, 'session_no_show')).toHaveLength(1);
  });

  it('a late start resolves it and says how it ended', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 6 * MIN;
    seen(x, clock, [org({ session: show(), channelsAt: clock.time, sessionsAt: clock.time })]);
    clock.time = T + 13 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'live', startedAt: T + 12 * MIN }),
        channelStatus: 'live',
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    const a = x.alerts().find((al) => al.rule === 'session_no_show');
    expect(a?.state).toBe('resolved');
    expect(a?.annotations['resolved_summary']).toBe(
      'Started late: Morning Drive on Harbor Notes went live at 10:12 (planned 10:00–11:00 UTC)',
    );
    // The late start itself is info only.
    expect(firing(x, 'session_late_start').map((l) => l.labels['severity'])).toEqual(['info']);
  });
});

describe('session_dropped', () => {
  const live = show({ status: 'live', startedAt: T });

  it('fires for a live session ending more than the margin before its planned end', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 41 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'ended', startedAt: T, endedAt: T + 40 * MIN }),
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    const [a] = firing(x, 'session_dropped');
    expect(a?.labels['severity']).toBe('critical');
    expect(a?.annotations['summary']).toBe(
      'Dropped: Morning Drive on Harbor Notes ended at 10:40 (planned 10:00–11:00 UTC)',
    );
  });

  it('fires when the channel went offline and a later session list still shows the session live', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 20 * MIN;
    seen(x, clock, [org({ session: live, channelsAt: T + 19 * MIN, sessionsAt: T + 20 * MIN })]);
    expect(firing(x, 'session_dropped')[0]?.annotations['summary']).toBe(
      'Dropped: Morning Drive on Harbor Notes went off air while live (planned 10:00–11:00 UTC)',
    );
  });

  it('fires while the channel list and the hot session list are read in turns, each every 30 s', () => {
    // The daemon reads both every 30 s at their own places in the minute: half the time the
    // channel list is the newer read. The drop must hold over that, not start again.
    const { engine: x, clock } = engine(config);
    const t = T + 20 * MIN;
    for (let k = 0; k <= 6; k++) {
      clock.time = t + k * 15_000;
      const sessionLast = k % 2 === 0;
      x.evaluate([
        org({
          session: live,
          channelsAt: sessionLast ? clock.time - 10_000 : clock.time,
          sessionsAt: sessionLast ? clock.time : clock.time - 15_000,
        }),
      ]);
    }
    expect(firing(x, 'session_dropped')).toHaveLength(1);
  });

  it('pages a drop whose session ends a minute later, about its planned end, before the group is first sent', () => {
    // The channel goes off air at 11:00:00, a minute into a show running late; the server
    // ends the session a minute later. The daemon evaluates every second between reads.
    const { engine: x, clock } = engine(config);
    const overran = show({ status: 'live', startedAt: T + 2 * MIN });
    const c = T + 60 * MIN + 20_000;
    const sent = [];
    for (let t = c; t <= c + 3 * MIN; t += 5_000) {
      clock.time = t;
      // Hot session lists read at :01 and :31 of each minute, the channel list at :20 and :50.
      const sessionsAt = t - ((t - (T + 1_000)) % 30_000);
      const channelsAt = t - ((t - c) % 30_000);
      const ended = sessionsAt >= c + 60_000;
      x.evaluate([
        org({
          session: ended ? show({ status: 'ended', startedAt: T + 2 * MIN, endedAt: c + 55_000 }) : overran,
          channelsAt,
          sessionsAt,
        }),
      ]);
      sent.push(...x.tick());
    }
    const paged = sent.filter(
      (n) => n.status === 'firing' && n.alerts.some((a) => a.labels['alertname'] === 'session_dropped'),
    );
    expect(paged).toHaveLength(1);
    expect(paged[0]?.alerts[0]?.annotations['summary']).toBe(
      'Dropped: Morning Drive on Harbor Notes went off air while live (planned 10:00–11:00 UTC)',
    );
  });

  it('stays quiet on routine: an end about the planned end, a session list older than the channel list', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 61 * MIN;
    for (const endedAt of [T + 58 * MIN, T + 60 * MIN, T + 63 * MIN]) {
      seen(x, clock, [
        org({
          session: show({ status: 'ended', startedAt: T, endedAt }),
          channelsAt: clock.time,
          sessionsAt: clock.time,
        }),
      ]);
    }
    // The end was seen in the channel list first; the session list read before it is old news.
    seen(x, clock, [org({ session: live, channelsAt: T + 61 * MIN, sessionsAt: T + 60 * MIN })]);
    expect(x.alerts().filter((a) => a.rule === 'session_dropped')).toEqual([]);
  });

  it('leaves a failed session to session_failed, and an early end long past to history', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 41 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'failed', startedAt: T, endedAt: T + 40 * MIN }),
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    clock.time = T + 5 * 60 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'ended', startedAt: T, endedAt: T + 40 * MIN }),
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    expect(x.alerts().filter((a) => a.rule === 'session_dropped')).toEqual([]);
  });

  it('resolves at the planned end and says how it ended', () => {
    const { engine: x, clock } = engine(config);
    const dropped = show({ status: 'ended', startedAt: T, endedAt: T + 40 * MIN });
    clock.time = T + 41 * MIN;
    seen(x, clock, [org({ session: dropped, channelsAt: clock.time, sessionsAt: clock.time })]);
    clock.time = T + 61 * MIN;
    seen(x, clock, [org({ session: dropped, channelsAt: clock.time, sessionsAt: clock.time })]);
    const a = x.alerts().find((al) => al.rule === 'session_dropped');
    expect(a?.state).toBe('resolved');
    expect(a?.annotations['resolved_summary']).toBe(
      'Dropped, over: Morning Drive on Harbor Notes ended at 10:40 (planned 10:00–11:00 UTC)',
    );
  });
});

describe('session_overrun', () => {
  const live = show({ status: 'live', startedAt: T });

  it('fires for a session still live in a list read more than 10 minutes past its planned end', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 71 * MIN;
    seen(x, clock, [
      org({ session: live, channelStatus: 'live', channelsAt: clock.time, sessionsAt: clock.time }),
    ]);
    const [a] = firing(x, 'session_overrun');
    expect(a?.labels['severity']).toBe('warning');
    expect(a?.annotations['summary']).toBe(
      'Overrun: Morning Drive on Harbor Notes is still live after its planned end at 11:00 (planned 10:00–11:00 UTC)',
    );
    clock.time = T + 76 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'ended', startedAt: T, endedAt: T + 75 * MIN }),
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    const done = x.alerts().find((al) => al.rule === 'session_overrun');
    expect(done?.state).toBe('resolved');
    expect(done?.annotations['resolved_summary']).toBe(
      'Overrun over: Morning Drive on Harbor Notes ended at 11:15 (planned 10:00–11:00 UTC)',
    );
  });

  it('stays quiet within the margin and on a list read before the planned end + margin', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 65 * MIN;
    seen(x, clock, [
      org({ session: live, channelStatus: 'live', channelsAt: clock.time, sessionsAt: clock.time }),
    ]);
    clock.time = T + 90 * MIN;
    seen(x, clock, [
      org({ session: live, channelStatus: 'live', channelsAt: clock.time, sessionsAt: T + 65 * MIN }),
    ]);
    expect(x.alerts().filter((a) => a.rule === 'session_overrun')).toEqual([]);
  });
});

describe('channel_unscheduled', () => {
  it('info for a live channel with no session live or planned around now', () => {
    const { engine: x, clock } = engine(config);
    const ended = show({
      status: 'ended',
      startedAt: T - 3 * 60 * MIN,
      endedAt: T - 2 * 60 * MIN,
      scheduledAt: T - 3 * 60 * MIN,
      scheduledEndAt: T - 2 * 60 * MIN,
    });
    for (const dt of [0, 3 * MIN]) {
      clock.time = T + dt;
      seen(x, clock, [
        org({ session: ended, channelStatus: 'live', channelsAt: clock.time, sessionsAt: clock.time }),
      ]);
    }
    expect(
      firing(x, 'channel_unscheduled').map((a) => [a.labels['severity'], a.annotations['summary']]),
    ).toEqual([['info', 'Unscheduled broadcast: Harbor Notes is live with no session planned around now']]);
  });

  it('quiet for a channel live within its planned slot, or whose sessions were never read', () => {
    const { engine: x, clock } = engine(config);
    for (const dt of [0, 3 * MIN]) {
      clock.time = T - 10 * MIN + dt;
      seen(x, clock, [
        org({ session: show(), channelStatus: 'live', channelsAt: clock.time, sessionsAt: clock.time }),
      ]);
      const unread = view('beta', { at: clock.time, channels: [channel('c9', 'live')] });
      seen(x, clock, [unread]);
    }
    expect(x.alerts().filter((a) => a.rule === 'channel_unscheduled')).toEqual([]);
  });
});

describe('routine pages no one', () => {
  it('went live, ended, channel offline, visibility, members and plans are info', () => {
    const { engine: x } = engine(config);
    x.onEvents([
      event('session.started', { entity: 's1', labels: { session: 'A' } }),
      event('session.ended', { entity: 's2', to: 'ended', labels: { session: 'B' } }),
      event('channel.status_changed', { entity: 'c1', from: 'live', to: 'offline' }),
      event('channel.visibility_changed', { entity: 'c2', from: 'public', to: 'private' }),
      event('member.added', { entity: 'm1' }),
      event('subscription.plan_changed', { entity: 'acme', field: 'plan', from: 'a', to: 'b' }),
      event('session.rescheduled', { entity: 's3', field: 'scheduled_end_at', from: T, to: T + MIN }),
    ]);
    const alerts = x.alerts();
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.filter((a) => a.labels['severity'] !== 'info')).toEqual([]);
  });
});

describe('messages a person reads at 3 a.m.', () => {
  it('a no-show is sent with its own words and a link to the channel on the status page; its end says how it ended', () => {
    const { engine: x, clock } = engine(config, { externalURL: 'https://tally.example.com/' });
    clock.time = T + 6 * MIN;
    seen(x, clock, [org({ session: show(), channelsAt: clock.time, sessionsAt: clock.time })]);
    const sent = tickFor(x, clock, MIN);
    expect(sent.map(subjectLine)).toEqual([
      '[FIRING:1] No-show: Morning Drive on Harbor Notes did not start at 10:00 (planned 10:00–11:00 UTC)',
    ]);
    expect(sent[0]!.alerts[0]!.generatorURL).toBe('https://tally.example.com/?org=acme&q=c1#channels');
    clock.time = T + 13 * MIN;
    seen(x, clock, [
      org({
        session: show({ status: 'live', startedAt: T + 12 * MIN }),
        channelStatus: 'live',
        channelsAt: clock.time,
        sessionsAt: clock.time,
      }),
    ]);
    const after = tickFor(x, clock, 6 * MIN).filter((n) =>
      n.alerts.some((a) => a.labels['alertname'] === 'session_no_show'),
    );
    expect(after.map(subjectLine)).toEqual([
      '[RESOLVED] Started late: Morning Drive on Harbor Notes went live at 10:12 (planned 10:00–11:00 UTC)',
    ]);
  });
});
