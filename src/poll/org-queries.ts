/**
 * What the planner and the poller ask of one org's snapshot (org-poller.ts): which
 * channels are hot, which details are due, what the org costs, and what of a read the
 * snapshot takes. Pure functions of the snapshot and the poller's bookkeeping.
 */
import { carryChannels, carryProfile, carrySubscription } from '../snapshot/carry.js';
import type { Channel, Org, OrgSnapshot, Part, Subscription } from '../snapshot/model.js';
import { isLiveStatus, isScheduledStatus } from '../snapshot/status.js';
import {
  holdable,
  idAt,
  scheduledAt,
  scheduledEndAt,
  SessionList,
  type Sessions,
  statusAt,
} from '../snapshot/session-list.js';
import { setOwn } from '../core/own.js';
import type { OrgLoad } from './planner.js';
import { channelHint } from './sweep-ledger.js';

/** The org-level parts, each read whole. */
export type TopPart = 'profile' | 'team' | 'subscription' | 'channels';

/**
 * How long after a planned start a session still scheduled is a no-show by the shipped
 * rule (`session_no_show`, docs/alerts.md): the channel is read again around then, so the
 * list that decides is read within the grace and one hot interval.
 */
export const NO_SHOW_GRACE_MS = 5 * 60_000;

/**
 * How long past a planned end a session still live is an overrun by the shipped rule
 * (`session_overrun`, docs/alerts.md): a channel whose session is still scheduled is read
 * again around its planned end and around then, so a late start that runs over, or a
 * broadcast that began and ended between reads, is known within the margin and one hot
 * interval even when no read showed it live.
 */
export const OVERRUN_MARGIN_MS = 10 * 60_000;

/** Whether `at` or `at + after` is within `horizonMs` of `now`. */
function near(at: number | undefined, after: number, now: number, horizonMs: number): boolean {
  return at !== undefined && (Math.abs(at - now) <= horizonMs || Math.abs(at + after - now) <= horizonMs);
}

/**
 * Whether `list` holds a session live, or one still scheduled whose planned start (or
 * start plus {@link NO_SHOW_GRACE_MS}) or planned end (or end plus
 * {@link OVERRUN_MARGIN_MS}) is within `horizonMs` of `now` (docs/polling.md,
 * "What is read, and how often": predictive reads).
 */
export function dueWithin(list: Sessions, now: number, horizonMs: number): boolean {
  for (let i = 0; i < list.length; i++) {
    const status = statusAt(list, i);
    if (isLiveStatus(status)) return true;
    if (!isScheduledStatus(status)) continue;
    if (near(scheduledAt(list, i), NO_SHOW_GRACE_MS, now, horizonMs)) return true;
    if (near(scheduledEndAt(list, i), OVERRUN_MARGIN_MS, now, horizonMs)) return true;
  }
  return false;
}

/**
 * The hot channels of `snap` (OrgPoller.hotChannels): live ones, and, once the first
 * baseline is done, those with a session live or due within `horizonMs`.
 */
export function hotChannelsOf(
  snap: OrgSnapshot,
  channels: readonly Channel[],
  baseline: boolean,
  now: number,
  horizonMs: number,
): string[] {
  const out: string[] = [];
  for (const ch of channels) {
    if (isLiveStatus(ch.status)) {
      out.push(ch.id);
      continue;
    }
    if (baseline) continue;
    const part = snap.sessions[ch.id];
    if (part?.state !== 'complete') continue;
    if (dueWithin(part.value, now, horizonMs)) out.push(ch.id);
  }
  return out;
}

/** Sessions whose detail is read at the detail interval: live ones, and those owed a final read. */
export function detailTargetsOf(snap: OrgSnapshot, finalDetail: ReadonlySet<string>): string[] {
  const out = new Set(finalDetail);
  for (const part of Object.values(snap.sessions)) {
    if (part.state !== 'complete') continue;
    const list = part.value;
    for (let i = 0; i < list.length; i++) if (isLiveStatus(statusAt(list, i))) out.add(idAt(list, i));
  }
  return [...out];
}

/** What an org costs, for the planner, given its hot channels and detail targets counted. */
export function loadOf(
  slug: string,
  snap: OrgSnapshot,
  counts: { channels: number; channelPages: number; hotChannels: number; liveSessions: number },
  perPage: number,
): OrgLoad {
  let sessions = 0;
  let lists = 0;
  for (const part of Object.values(snap.sessions)) {
    if (part.state !== 'complete') continue;
    sessions += part.value.length;
    lists += 1;
  }
  const perList = lists === 0 ? 0 : sessions / lists;
  return { slug, ...counts, sessionPages: Math.max(1, Math.ceil(perList / perPage)) };
}

/**
 * `snap` with its session lists held compactly (session-list.ts), where they are arrays of
 * objects (the store holds them so as it reads them, session-list.ts; a snapshot given
 * another way may not). The snapshot itself when none is.
 */
export function held(snap: OrgSnapshot): OrgSnapshot {
  let sessions: OrgSnapshot['sessions'] | undefined;
  for (const channelId of Object.keys(snap.sessions)) {
    const part = snap.sessions[channelId]!;
    if (part.state === 'failed' || !holdable(part.value)) continue;
    sessions ??= { ...snap.sessions };
    setOwn(sessions, channelId, { ...part, value: SessionList.of(part.value) });
  }
  return sessions === undefined ? snap : { ...snap, sessions };
}

/** Keeps the last complete value: only a complete part, or one over nothing complete, is taken. */
export function takes(prev: Part<unknown> | undefined, next: Part<unknown>): boolean {
  return next.state === 'complete' || prev?.state !== 'complete';
}

/** A complete profile, subscription or channel list, with what the read left out kept from `snap`'s (carry.ts). */
export function carriedTop(snap: OrgSnapshot, part: TopPart, value: Part<unknown>): Part<unknown> {
  const prev = snap[part];
  if (value.state !== 'complete' || prev?.state !== 'complete') return value;
  if (part === 'profile') return { ...value, value: carryProfile(prev.value as Org, value.value as Org) };
  if (part === 'subscription') {
    return { ...value, value: carrySubscription(prev.value as Subscription, value.value as Subscription) };
  }
  if (part === 'channels') {
    const list = carryChannels(prev.value as Channel[], value.value as Channel[]);
    return list === value.value ? value : { ...value, value: list };
  }
  return value;
}

/** The channel list's hint of `channelId` in `snap` (sweep-ledger.ts), when listed. */
export function hintOf(snap: OrgSnapshot, channelId: string): string | undefined {
  const list = snap.channels;
  if (list === undefined || list.state === 'failed') return undefined;
  const ch = list.value.find((c) => c.id === channelId);
  return ch === undefined ? undefined : channelHint(ch);
}
