import { describe, expect, it } from 'vitest';
import { MemoryAlertStore } from '../../src/alerts/state.js';
import type { Notification } from '../../src/alerts/types.js';
import { channel, engine, event, HOUR, MIN, SEC, summary, T0, tickFor, view } from './helpers.js';

const config = `
rules:
  - name: channel_down
    for_each: channel
    when: '!channel.live'
    for: 5m
  - name: went_live
    on: session.started
    resolve_after: 10m
    send_resolved: true
route:
  receiver: ops
  group_wait: 0s
  group_interval: 1m
  repeat_interval: 1h
`;

const down = view('acme', { channels: [channel('c1', 'offline')] });
const up = view('acme', { channels: [channel('c1', 'live')] });

/** Runs `before` on one engine, saves, then builds a second engine on the same store and clock. */
async function restart(before: (e: ReturnType<typeof engine>) => Notification[], downFor: number) {
  const first = engine(config);
  const sent = before(first);
  await first.engine.save();
  first.clock.advance(downFor);
  const second = engine(config, { store: first.store, clock: first.clock });
  await second.engine.load();
  return { sent, ...second };
}

describe('restart with persisted alert state', () => {
  it('does not re-send a firing alert early, and repeats it on schedule with the next sequence number', async () => {
    const {
      sent,
      engine: e,
      clock,
    } = await restart((x) => {
      x.engine.evaluate([down]);
      x.clock.advance(5 * MIN);
      x.engine.evaluate([down]);
      return tickFor(x.engine, x.clock, 0);
    }, 10 * MIN);
    expect(summary(sent)).toEqual(['ops firing channel_down/c1:firing']);
    const after: Notification[] = [];
    for (let t = 0; t < 60 * MIN; t += MIN) {
      e.evaluate([down]);
      after.push(...tickFor(e, clock, MIN, 10 * SEC));
    }
    expect(after).toHaveLength(1);
    expect(after[0]!.createdAt - sent[0]!.createdAt).toBe(HOUR);
    expect(after[0]!.id).toBe(sent[0]!.id.replace(/-1$/, '-2'));
    expect(e.alerts()[0]!.startsAt).toBe(T0 + 5 * MIN);
  });

  it('resolves (and reports) an alert whose condition cleared while tally was down', async () => {
    const { engine: e, clock } = await restart((x) => {
      x.engine.evaluate([down]);
      x.clock.advance(5 * MIN);
      x.engine.evaluate([down]);
      return tickFor(x.engine, x.clock, 0);
    }, 30 * MIN);
    expect(e.tick()).toEqual([]); // nothing known yet: the alert still fires
    e.evaluate([up]);
    const ns = tickFor(e, clock, 2 * MIN);
    expect(summary(ns)).toEqual(['ops resolved channel_down/c1:resolved']);
    expect(ns[0]!.alerts[0]!.endsAt).toBe(T0 + 35 * MIN);
  });

  it('resolves an event alert whose time ran out while tally was down', async () => {
    const { engine: e, clock } = await restart((x) => {
      x.engine.onEvents([event('session.started')]);
      return tickFor(x.engine, x.clock, 0);
    }, 30 * MIN);
    const ns = tickFor(e, clock, MIN);
    expect(summary(ns)).toEqual(['ops resolved went_live/acme:resolved']);
    expect(ns[0]!.alerts[0]!.endsAt).toBe(T0 + 10 * MIN);
  });

  it('keeps a pending alert pending with its original start, so for still counts from then', async () => {
    const { engine: e, clock } = await restart((x) => {
      x.engine.evaluate([down]);
      return [];
    }, 3 * MIN);
    e.evaluate([down]);
    expect(e.alerts()[0]!.state).toBe('pending');
    clock.advance(2 * MIN);
    e.evaluate([down]);
    expect(e.alerts()[0]).toMatchObject({ state: 'firing', activeAt: T0 });
  });

  it('sends an alert that fired but was not sent before the restart', async () => {
    const { engine: e, clock } = await restart((x) => {
      x.engine.onEvents([event('session.started')]);
      return [];
    }, SEC);
    expect(summary(tickFor(e, clock, 0))).toEqual(['ops firing went_live/acme:firing']);
  });

  it('resolves alerts of a rule removed from the config', async () => {
    const first = engine(config);
    first.engine.onEvents([event('session.started')]);
    await first.engine.save();
    const second = engine(config.replace('name: went_live', 'name: session_live'), {
      store: first.store,
      clock: first.clock,
    });
    await second.engine.load();
    expect(second.engine.alerts()[0]).toMatchObject({ rule: 'went_live', state: 'resolved' });
  });

  it('starts without state when the saved state is unusable', async () => {
    const store = new MemoryAlertStore();
    store.text = JSON.stringify({ format: 'tally-alert-state', version: 99 });
    const { engine: e } = engine(config, { store });
    await e.load();
    expect(e.alerts()).toEqual([]);
  });

  it('keeps API silences across a restart', async () => {
    const first = engine(config, { newId: () => 's1' });
    await first.engine.addSilence({
      matchers: ['org="acme"'],
      duration: '1h',
      created_by: 'a',
      comment: 'c',
    });
    const second = engine(config, { store: first.store, clock: first.clock });
    await second.engine.load();
    expect(second.engine.silences().map((s) => `${s.id}:${s.status}`)).toEqual(['s1:active']);
  });
});

describe('the timer shell', () => {
  it('hands notifications over when due, saves, and retries after a failed hand-over without losing any', async () => {
    const handed: Notification[][] = [];
    let fail = 1;
    const x = engine(config, {
      onNotifications: async (ns) => {
        if (fail-- > 0) throw new Error('outbox full');
        handed.push(ns);
      },
    });
    await x.engine.start();
    x.engine.onEvents([event('session.started')]);
    await x.clock.tick(SEC);
    expect(handed).toEqual([]); // the first hand-over failed
    await x.clock.tick(10 * SEC);
    expect(handed.map(summary)).toEqual([['ops firing went_live/acme:firing']]);
    expect(handed[0]![0]!.id).toMatch(/-1$/);
    expect(JSON.parse(x.store.text!).groups[0].seq).toBe(1);
    await x.clock.tick(11 * MIN);
    expect(handed.map(summary)).toEqual([
      ['ops firing went_live/acme:firing'],
      ['ops resolved went_live/acme:resolved'],
    ]);
    await x.engine.stop();
    const saves = x.store.saves;
    await x.clock.tick(MIN);
    expect(x.store.saves).toBe(saves);
  });

  it('refuses to start without a place to hand notifications to', async () => {
    const { engine: e } = engine(config);
    await expect(e.start()).rejects.toThrow('onNotifications');
  });

  it('re-sends with the same id when the state was not saved after a hand-over (idempotent)', async () => {
    const a = engine(config);
    a.engine.onEvents([event('session.started')]);
    await a.engine.save();
    const first = a.engine.tick(); // handed over, then the process dies before saving
    const b = engine(config, { store: a.store, clock: a.clock });
    await b.engine.load();
    const again = b.engine.tick();
    expect(again.map((n) => n.id)).toEqual(first.map((n) => n.id));
  });
});

describe('the event cursor (alerts survive kill -9)', () => {
  const logged = (seq: number, org = 'acme') => ({
    ...event('session.started', { org, id: `e${seq}` }),
    seq,
  });

  it('saves the last applied sequence number with the state and replays only what came after', async () => {
    const first = engine(config);
    first.engine.onEvents([logged(1), logged(2, 'globex')]);
    expect(first.engine.replayCursor()).toBe(2);
    await first.engine.save();
    // A kill after event 3 was logged but before the state was saved again.
    first.engine.onEvents([logged(3, 'initech')]);

    const second = engine(config, { store: first.store, clock: first.clock });
    await second.engine.load();
    expect(second.engine.replayCursor()).toBe(2);
    // The start reads the log from the beginning of its retained part: 1 and 2 were applied.
    expect(second.engine.replay([logged(1), logged(2, 'globex'), logged(3, 'initech')])).toBe(1);
    expect(second.engine.replayCursor()).toBe(3);
    expect(
      second.engine
        .alerts()
        .map((a) => a.labels['org'])
        .sort(),
    ).toEqual(['acme', 'globex', 'initech']);
    const sent = tickFor(second.engine, second.clock, 0);
    expect(summary(sent).some((s) => s.includes('went_live'))).toBe(true);
  });

  it('starts at the given point when the state has no cursor', async () => {
    const x = engine(config);
    await x.engine.load();
    expect(x.engine.replayCursor()).toBeUndefined();
    x.engine.setCursor(41);
    expect(x.engine.replay([logged(41), logged(42)])).toBe(1);
  });
});
