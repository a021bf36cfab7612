/**
 * Grouping that fits incidents, with the route config.example.yaml ships: one incident per
 * session or channel, so a second incident is not held behind the first one's
 * group_interval; a storm of incidents at once is one notification that says so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Session } from '../../src/snapshot/model.js';
import { subjectLine } from '../../src/notify/summary.js';
import { channel, engine, MIN, SEC, T0, tickFor, view } from './helpers.js';

const example = parse(readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8')) as {
  rules: unknown[];
  route: unknown;
};
const config = stringify({ rules: example.rules, route: example.route });
const T = T0 + 10 * 60 * MIN;

function sessions(n: number, p: Partial<Session> = {}) {
  const channels = [];
  const lists: Record<string, Session[]> = {};
  for (let i = 0; i < n; i++) {
    const id = `c${i}`;
    // On air while its session is live: a live session on an offline channel is a drop.
    channels.push(channel(id, p.status === 'live' ? 'live' : 'offline', { name: `Channel ${i}` }));
    lists[id] = [
      {
        id: `s${i}`,
        channelId: id,
        title: `Show ${i}`,
        status: 'scheduled',
        scheduledAt: T,
        scheduledEndAt: T + 60 * MIN,
        ...p,
      },
    ];
  }
  return { channels, sessions: lists };
}

describe('incident grouping (shipped route)', () => {
  it('fifty no-shows at once are one notification that says so', () => {
    const { engine: x, clock } = engine(config);
    clock.time = T + 6 * MIN;
    const storm = view('acme', { at: clock.time, ...sessions(50) });
    x.evaluate([storm]);
    clock.advance(MIN);
    x.evaluate([storm]);
    const sent = tickFor(x, clock, 2 * MIN, 5 * SEC).filter((n) => n.receiver === 'console');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.alerts).toHaveLength(50);
    expect(subjectLine(sent[0]!)).toBe(
      '[FIRING:50] session_no_show (org=acme): 50 alerts at once from 50 groups',
    );
  });

  it('a second dropped session is sent after its own group_wait, not behind the first group_interval', () => {
    const { engine: x, clock } = engine(config);
    const early = (i: number) => ({ status: 'ended', startedAt: T, endedAt: T + 30 * MIN + i * MIN });
    const { channels, sessions: lists } = sessions(2, { status: 'live', startedAt: T });
    lists['c0']![0] = { ...lists['c0']![0]!, ...early(0) };
    clock.time = T + 31 * MIN;
    x.evaluate([view('acme', { at: clock.time, channels, sessions: lists })]);
    clock.advance(MIN);
    x.evaluate([view('acme', { at: clock.time, channels, sessions: lists })]);
    const first = tickFor(x, clock, MIN, 5 * SEC).filter((n) => n.receiver === 'console');
    expect(first.map((n) => n.alerts.map((a) => a.labels['session_id']))).toEqual([['s0']]);
    // Two minutes later the second one drops.
    clock.time = T + 33 * MIN;
    lists['c1']![0] = { ...lists['c1']![0]!, ...early(2) };
    const droppedAt = clock.time;
    const sentAt: number[] = [];
    for (let t = 0; t < 3 * MIN; t += 5 * SEC) {
      // Polls every 30 s, as tally's live interval.
      if (t % (30 * SEC) === 0) x.evaluate([view('acme', { at: clock.time, channels, sessions: lists })]);
      for (const n of tickFor(x, clock, 0)) {
        if (n.receiver === 'console' && n.alerts.some((a) => a.labels['session_id'] === 's1'))
          sentAt.push(clock.time);
      }
      clock.advance(5 * SEC);
    }
    expect(sentAt).toHaveLength(1);
    // Held over two reads (45 s), then its own group_wait (30 s): not the 5 minutes of a
    // group_interval behind the first.
    expect(sentAt[0]! - droppedAt).toBeLessThanOrEqual(90 * SEC);
  });

  it('routine goes to the routine receiver only', () => {
    const { engine: x, clock } = engine(config);
    const live = sessions(1, { status: 'live', startedAt: T + 20 * MIN, scheduledAt: T });
    clock.time = T + 21 * MIN;
    x.evaluate([view('acme', { at: clock.time, ...live })]);
    const sent = tickFor(x, clock, 2 * MIN, 5 * SEC);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.map((n) => n.receiver)).toEqual(sent.map(() => 'routine'));
  });
});
