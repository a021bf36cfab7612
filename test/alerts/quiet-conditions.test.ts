/**
 * Condition rules over lists that were not read again: a condition found false on the very
 * values it read, without "now", is not evaluated again until one of them is replaced
 * (src/alerts/evaluator.ts, `Known`), and gives the same alerts as evaluating it again.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironments } from '../../src/alerts/cel.js';
import { orgScope } from '../../src/alerts/context.js';
import { RuleEvaluator } from '../../src/alerts/evaluator.js';
import { type CompiledRule, type ConditionRule, compileRules } from '../../src/alerts/rules.js';
import { Templates } from '../../src/alerts/templates.js';
import { AlertTracker } from '../../src/alerts/tracker.js';
import { WalletHistory } from '../../src/alerts/wallet.js';
import { silentLogger } from '../../src/core/log.js';
import type { OrgView } from '../../src/poll/status.js';
import type { Session } from '../../src/snapshot/model.js';
import { alerting, channel, ManualClock, MIN, SEC, T0, view } from './helpers.js';

function setup(yaml: string) {
  const clock = new ManualClock();
  const cel = new CelEnvironments();
  const templates = new Templates();
  const rules = compileRules(alerting(yaml).rules, cel, templates).filter(
    (r): r is ConditionRule => r.kind === 'condition',
  );
  const counts = new Map<string, number>();
  for (const r of rules) counted(r, counts);
  const evaluator = new RuleEvaluator({
    cel,
    templates,
    wallet: new WalletHistory(3_600_000),
    logger: silentLogger(),
    clock,
    orgLabels: () => ({}),
  });
  const tracker = new AlertTracker();
  const pass = (v: OrgView) => evaluator.conditions([v], rules, tracker, clock.time);
  const states = () => [...tracker.all()].map((a) => `${a.rule}/${a.labels['session_id']}:${a.state}`).sort();
  // Lookups of an alert by fingerprint: what a session passed over one by one costs.
  let lookups = 0;
  const get = tracker.get.bind(tracker);
  tracker.get = (fp) => {
    lookups++;
    return get(fp);
  };
  return { clock, counts, pass, states, lookups: () => lookups };
}

/** Counts the evaluations of a rule's condition. */
function counted(r: CompiledRule, counts: Map<string, number>): void {
  const when = r.when!;
  const evaluate = when.evaluate.bind(when);
  when.evaluate = (ctx) => {
    counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
    return evaluate(ctx);
  };
}

function session(id: string, p: Partial<Session> = {}): Session {
  return {
    id,
    channelId: 'c1',
    title: id,
    status: 'ended',
    scheduledAt: T0,
    scheduledEndAt: T0 + 60 * MIN,
    ...p,
  };
}

function org(sessions: Session[], at = T0): OrgView {
  return view('acme', { at, channels: [channel('c1', 'offline')], sessions: { c1: sessions } });
}

/** `v` with its session lists as they were and its channel list read again, c1 live. */
function channelsReadAgain(v: OrgView): OrgView {
  return {
    ...v,
    snapshot: {
      ...v.snapshot,
      channels: { state: 'complete', at: T0 + 30 * SEC, value: [channel('c1', 'live')] },
    },
  };
}

describe('condition rules over lists not read again', () => {
  it('evaluates a condition found false on kept values once, until its list is read again', () => {
    const x = setup(`
rules:
  - name: live_session
    for_each: session
    when: 'session.live'
`);
    const v = org([session('s1'), session('s2')]);
    x.pass(v);
    x.clock.advance(10 * SEC);
    x.pass(v);
    x.pass(v);
    expect(x.counts.get('live_session')).toBe(2);
    // The list read again, one session now live: evaluated again, and it holds.
    const again = org([session('s1'), session('s2', { status: 'live' })], x.clock.time);
    x.pass(again);
    expect(x.counts.get('live_session')).toBe(4);
    expect(x.states()).toEqual(['live_session/s2:firing']);
  });

  it('evaluates a condition that read now on every pass, and fires on an unchanged list', () => {
    const x = setup(`
rules:
  - name: old_plan
    for_each: session
    when: 'now - session.scheduled_at > duration("5m")'
  - name: old_plan_since
    for_each: session
    when: 'since(session.scheduled_at) > duration("5m")'
`);
    const v = org([session('s1')]);
    x.pass(v);
    expect(x.states()).toEqual([]);
    x.clock.advance(6 * MIN);
    x.pass(v);
    expect(x.counts.get('old_plan')).toBe(2);
    expect(x.counts.get('old_plan_since')).toBe(2);
    expect(x.states()).toEqual(['old_plan/s1:firing', 'old_plan_since/s1:firing']);
  });

  it('keeps evaluating a condition whose alert is pending or firing', () => {
    const x = setup(`
rules:
  - name: live_session
    for_each: session
    when: 'session.live'
    for: 30s
`);
    const live = org([session('s1', { status: 'live' })]);
    x.pass(live);
    x.clock.advance(30 * SEC);
    x.pass(live);
    expect(x.states()).toEqual(['live_session/s1:firing']);
    const ended = org([session('s1')], x.clock.time);
    x.pass(ended);
    expect(x.states()).toEqual(['live_session/s1:resolved']);
    expect(x.counts.get('live_session')).toBe(3);
    x.pass(ended);
    expect(x.counts.get('live_session')).toBe(3);
  });

  it('evaluates again when the channel list it read is read again', () => {
    const x = setup(`
rules:
  - name: live_channel_session
    for_each: session
    when: 'channel.live && session.live'
`);
    const s = [session('s1', { status: 'live' })];
    const v = org(s);
    x.pass(v);
    x.pass(v);
    expect(x.counts.get('live_channel_session')).toBe(1);
    // Same session list, a new channel list read that shows the channel live.
    x.pass(channelsReadAgain(v));
    expect(x.counts.get('live_channel_session')).toBe(2);
    expect(x.states()).toEqual(['live_channel_session/s1:firing']);
  });

  it('passes over a quiet session list whole, until the list, or a channel it read, is read again', () => {
    const x = setup(`
rules:
  - name: live_session
    for_each: session
    when: 'session.live'
  - name: live_on_live_channel
    for_each: session
    when: 'channel.live && session.live'
`);
    const v = org([session('s1'), session('s2'), session('s3')]);
    x.pass(v);
    expect(x.counts.get('live_session')).toBe(3);
    const before = x.lookups();
    x.pass(v);
    x.pass(v);
    expect(x.lookups()).toBe(before);
    expect(x.counts.get('live_session')).toBe(3);
    // The channel list read again: only the rule that read the channel looks at each
    // session again (its channel is a new value), and none is evaluated again but for it.
    x.pass(channelsReadAgain(v));
    // The first pass evaluated both rules over the list: half its lookups are one rule's.
    expect(x.lookups()).toBe(before + before / 2);
    expect(x.counts.get('live_session')).toBe(3);
    expect(x.counts.get('live_on_live_channel')).toBe(6);
    const third = org([session('s1'), session('s2'), session('s3', { status: 'live' })], x.clock.time);
    x.pass(third);
    expect(x.states()).toEqual(['live_session/s3:firing']);
  });

  it('keeps looking at a list whose alert still fires after its condition cleared', () => {
    const x = setup(`
rules:
  - name: live_session
    for_each: session
    when: 'session.live'
    keep_firing_for: 1m
`);
    x.pass(org([session('s1', { status: 'live' }), session('s2')]));
    expect(x.states()).toEqual(['live_session/s1:firing']);
    const ended = org([session('s1'), session('s2')], x.clock.time);
    x.pass(ended);
    x.clock.advance(30 * SEC);
    x.pass(ended);
    expect(x.states()).toEqual(['live_session/s1:firing']);
    x.clock.advance(31 * SEC);
    x.pass(ended);
    expect(x.states()).toEqual(['live_session/s1:resolved']);
  });

  it('evaluates again when a detail it read is read again, with the same session list', () => {
    const x = setup(`
rules:
  - name: failed_detail
    for_each: session
    when: 'has(detail.status) && detail.status == "failed"'
`);
    const sessions = { c1: [session('s1'), session('s2')] };
    const v = view('acme', { channels: [channel('c1', 'offline')], sessions, details: { s1: {} } });
    x.pass(v);
    x.pass(v);
    expect(x.states()).toEqual([]);
    const failed = view('acme', {
      channels: [channel('c1', 'offline')],
      sessions,
      details: { s1: { status: 'failed' } },
    });
    // The same session list and channel list objects, a detail read anew.
    x.pass({
      ...v,
      snapshot: { ...v.snapshot, details: failed.snapshot.details },
    });
    expect(x.states()).toEqual(['failed_detail/s1:firing']);
  });

  it('gives a session read again the same id labels, and one read anew its own', () => {
    const wallet = new WalletHistory(3_600_000);
    const first = orgScope(org([session('s1'), session('s2')]), wallet).entities.session!;
    const again = orgScope(org([session('s1'), session('s3')], T0 + 30 * SEC), wallet).entities.session!;
    expect(again[0]!.vars['session']).not.toBe(first[0]!.vars['session']);
    expect(again[0]!.idLabels).toBe(first[0]!.idLabels);
    expect(again[1]!.idLabels).toEqual({ session_id: 's3', channel_id: 'c1' });
    expect(again[1]!.idLabels).not.toBe(first[1]!.idLabels);
  });
});
