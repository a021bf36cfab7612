/**
 * A snapshot of a simulated org as tally would hold it after reading everything once,
 * built in-process from the simulator's view through tally's own normalizers. Benches
 * store it in the state directory before tally starts, so that tally resumes from a
 * full baseline (the steady state of a long-running daemon) instead of spending its
 * first sweep on a silent one.
 */
import type { Simulator } from '../../src/sim/index.js';
import { channelHint } from '../../src/poll/sweep-ledger.js';
import { inWindow } from '../../src/snapshot/diff.js';
import type {
  Channel,
  Member,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
} from '../../src/snapshot/model.js';
import {
  normalizeChannel,
  normalizeMember,
  normalizeOrg,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
  type ShapeOptions,
} from '../../src/upstream/shape/index.js';

/** What {@link snapshotFromSim} needs besides the simulator. */
export interface WorldSnapshotOptions {
  org: string;
  shape: ShapeOptions;
  /** tally's session window (`upstream.window`), in ms. */
  window: { past: number; future: number };
  /** The time the parts are stamped with (the clock's now). */
  at: number;
}

function complete<T>(at: number, value: T): Part<T> {
  return { state: 'complete', at, value };
}

function defined<T>(list: readonly (T | undefined)[]): T[] {
  return list.filter((x): x is T => x !== undefined);
}

/** Every part of `o.org` as the simulator shows it now, complete. */
export function snapshotFromSim(sim: Simulator, o: WorldSnapshotOptions): OrgSnapshot {
  const view = sim.view(o.org);
  const at = o.at;
  const window = { from: at - o.window.past, to: at + o.window.future };
  const channels = defined(view.channels.map((c) => normalizeChannel(c, o.shape).value)) as Channel[];
  const sessions: Record<string, SessionsPart> = {};
  const details: Record<string, Part<SessionDetail>> = {};
  for (const ch of channels) {
    const list = defined(
      (view.sessions[ch.id] ?? []).map((s) => normalizeSession(s, ch.id, o.shape).value),
    ) as Session[];
    const shown = list.filter((s) => inWindow(s, window));
    // As tally stores a list it read: with the channel's change hint at the time, if any.
    const hint = channelHint(ch);
    sessions[ch.id] = {
      state: 'complete',
      at,
      value: shown,
      window,
      ...(hint === undefined ? {} : { hint }),
    };
    for (const s of shown) {
      if (s.status !== 'live') continue;
      const raw = sim.sessionDetail(o.org, s.id);
      if (raw) details[s.id] = complete(at, normalizeSessionDetail(raw, s.id, o.shape).value);
    }
  }
  return {
    version: 1,
    org: o.org,
    takenAt: at,
    profile: complete(at, normalizeOrg(view.organization, o.org, o.shape).value),
    team: complete(at, defined(view.team.map((m) => normalizeMember(m, o.shape).value)) as Member[]),
    subscription: complete(at, normalizeSubscription(view.subscription, o.shape).value),
    channels: complete(at, channels),
    sessions,
    details,
  };
}

/** Sessions in a snapshot, over every channel. */
export function sessionCount(s: OrgSnapshot): number {
  let n = 0;
  for (const part of Object.values(s.sessions)) if (part.state !== 'failed') n += part.value.length;
  return n;
}
