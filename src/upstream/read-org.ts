/**
 * Reading one org completely, once: the org-level parts, every (watched) channel's
 * sessions in the window, and the detail of every live session. Used by `tally once`
 * and by anything that needs a full snapshot outside the poller's schedule.
 */
import type { Clock } from '../core/clock.js';
import {
  type Channel,
  emptySnapshot,
  type OrgSnapshot,
  type Part,
  type SessionDetail,
  type SessionsPart,
  type TimeWindow,
} from '../snapshot/model.js';
import { isLiveStatus } from '../snapshot/status.js';
import type { Priority } from './transport/budget.js';
import type { Fetcher, FetchOptions, OrgAuth } from './types.js';
import { setOwn } from '../core/own.js';

/** Options of `UpstreamClient.readAll`. */
export interface ReadAllOptions {
  signal?: AbortSignal | undefined;
  /** Called with a one-line progress report now and then. */
  onProgress?: ((msg: string) => void) | undefined;
  /** Priority of every read (default `normal`). */
  priority?: Priority | undefined;
  /** Which channels are watched: the others are left out of the channel list and not read. */
  channelFilter?: ((c: Channel) => boolean) | undefined;
  /** Window of the session lists (default: the configured window around now). */
  window?: TimeWindow | undefined;
}

/** Reads everything of one org; rejects only when aborted. */
export async function readOrg(
  reader: Fetcher,
  org: OrgAuth,
  o: ReadAllOptions & { concurrency: number; clock: Clock },
): Promise<OrgSnapshot> {
  const fo: FetchOptions = { priority: o.priority ?? 'normal', ...(o.signal ? { signal: o.signal } : {}) };
  const progress = o.onProgress ?? (() => {});
  progress(`${org.slug}: reading profile, team, subscription, channels`);
  const [profile, team, subscription, allChannels] = await Promise.all([
    reader.fetchOrg(org, fo),
    reader.fetchTeam(org, fo),
    reader.fetchSubscription(org, fo),
    reader.fetchChannels(org, fo),
  ]);
  const channels = filterChannels(allChannels, o.channelFilter);
  const head = [
    `profile ${word(profile)}`,
    `team ${word(team)}`,
    `subscription ${word(subscription)}`,
    `channels ${word(channels)}`,
  ].join(', ');
  const ids = channels.state === 'failed' ? [] : channels.value.map((c) => c.id);
  progress(`${org.slug}: ${head}, 0/${ids.length} channels`);

  const sessions: Record<string, SessionsPart> = {};
  const step = Math.max(1, Math.ceil(ids.length / 10));
  let done = 0;
  await eachLimited(ids, o.concurrency, async (id) => {
    setOwn(
      sessions,
      id,
      await reader.fetchSessions(org, id, { ...fo, ...(o.window ? { window: o.window } : {}) }),
    );
    done += 1;
    if (done % step === 0 || done === ids.length)
      progress(`${org.slug}: ${head}, ${done}/${ids.length} channels`);
  });

  const live = liveSessionIds(sessions);
  const details: Record<string, Part<SessionDetail>> = {};
  await eachLimited(live, o.concurrency, async (id) => {
    setOwn(details, id, await reader.fetchSessionDetail(org, id, fo));
  });
  if (live.length > 0) {
    progress(
      `${org.slug}: ${head}, ${ids.length}/${ids.length} channels, ${live.length} live session details`,
    );
  }

  const snap = emptySnapshot(org.slug, o.clock.now());
  return {
    ...snap,
    profile,
    team,
    subscription,
    channels,
    sessions: sortKeys(sessions),
    details: sortKeys(details),
  };
}

/** A channel list with only the watched channels. */
function filterChannels(part: Part<Channel[]>, keep: ((c: Channel) => boolean) | undefined): Part<Channel[]> {
  if (!keep || part.state === 'failed') return part;
  return { ...part, value: part.value.filter(keep) };
}

/** Ids of the sessions listed as live, in a stable order. */
function liveSessionIds(sessions: Record<string, SessionsPart>): string[] {
  const out = new Set<string>();
  for (const part of Object.values(sessions)) {
    if (part.state === 'failed') continue;
    for (const s of part.value) if (isLiveStatus(s.status)) out.add(s.id);
  }
  return [...out].sort();
}

/** One word for a part's outcome, for progress lines. */
export function word(part: Part<unknown>): string {
  if (part.state === 'complete') return 'ok';
  return `${part.state} (${part.error.reason})`;
}

/** Runs `fn` over `items` with at most `limit` at once; rejects on the first rejection. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

function sortKeys<V>(rec: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
