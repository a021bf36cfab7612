/**
 * Whether a channel's word for on air means it (field `channel.status.meaning`,
 * docs/upstream-shapes.md, "Blindness is loud"): a server speaks one vocabulary, so a
 * channel read live by a word that the org's session lists mostly give to sessions planned
 * more than an hour later (Eventbrite's `live`: published, on sale) is not known to be on
 * air. When that holds for most channels read live, the channel list is degraded: whether
 * those channels are live is unknown. Nothing is re-classed: the channels keep the word
 * read, and the doubt is said, not guessed away.
 */
import type { Channel, Session } from '../../snapshot/model.js';
import { channelClass, statusClass } from '../../snapshot/vocabulary.js';
import { blindProblem, LIVE_AHEAD_MS } from './blindness.js';
import type { DriftIssue } from './drift.js';

/** The field a doubted channel word is reported under. */
export const CHANNEL_MEANING_FIELD = 'channel.status.meaning';

const CONSEQUENCE =
  'the word read as on air for these channels is given by the session lists mostly to sessions planned to start more than an hour later, so it may not mean on air; whether those channels are live is unknown';

/** Orgs remembered at most (one entry per org polled). */
const MAX_ORGS = 4096;

const fold = (w: string): string => w.trim().toLowerCase();

/** Sessions of one list carrying each word read as on air: how many, and how many planned over an hour later. */
type WordCounts = Map<string, { ahead: number; total: number }>;

/** The words read as on air in one session list, counted by how many are planned over an hour after `now`. */
export function liveWordsOf(
  sessions: readonly Pick<Session, 'status' | 'scheduledAt'>[],
  now: number,
): WordCounts {
  const counts: WordCounts = new Map();
  for (const s of sessions) {
    if (statusClass(s.status) !== 'live') continue;
    const c = counts.get(fold(s.status)) ?? { ahead: 0, total: 0 };
    c.total += 1;
    if (s.scheduledAt !== undefined && s.scheduledAt - now > LIVE_AHEAD_MS) c.ahead += 1;
    counts.set(fold(s.status), c);
  }
  return counts;
}

/** Per org: the live word of each channel read live, and the live words of each channel's sessions. */
interface OrgWords {
  live: Map<string, string>;
  lists: Map<string, WordCounts>;
}

/** Tracks channels' live words against the org's session lists, org by org. */
export class ChannelMeaning {
  private readonly orgs = new Map<string, OrgWords>();

  /** Takes a channel list read: the word of each channel read live. */
  channels(org: string, channels: readonly Pick<Channel, 'id' | 'status'>[]): void {
    const live = new Map<string, string>();
    for (const c of channels) if (channelClass(c.status) === 'live') live.set(c.id, fold(c.status));
    const ids = new Set(channels.map((c) => c.id));
    const lists = new Map([...(this.orgs.get(org)?.lists ?? [])].filter(([id]) => ids.has(id)));
    if (!this.orgs.has(org) && this.orgs.size >= MAX_ORGS) this.orgs.clear();
    this.orgs.set(org, { live, lists });
  }

  /**
   * Takes a channel's session list read at `now`: the blind issue when most channels read
   * live are so by a word the org's sessions mostly give to sessions planned over an hour
   * later, `'seen'` when not, undefined while no channel reads live or no session list says.
   */
  sessions(
    org: string,
    channelId: string,
    sessions: readonly Pick<Session, 'status' | 'scheduledAt'>[],
    now: number,
  ): DriftIssue | 'seen' | undefined {
    const words = this.orgs.get(org);
    if (words === undefined) return undefined;
    words.lists.set(channelId, liveWordsOf(sessions, now));
    if (words.live.size === 0) return undefined;
    const all: WordCounts = new Map();
    for (const list of words.lists.values())
      for (const [w, c] of list) {
        const a = all.get(w) ?? { ahead: 0, total: 0 };
        all.set(w, { ahead: a.ahead + c.ahead, total: a.total + c.total });
      }
    const doubtedWord = (w: string) => {
      const c = all.get(w);
      return c !== undefined && c.ahead * 2 > c.total;
    };
    const doubted = [...words.live.values()].filter(doubtedWord).length;
    if (doubted * 2 <= words.live.size) return 'seen';
    return {
      endpoint: 'channels',
      field: CHANNEL_MEANING_FIELD,
      problem: blindProblem(CONSEQUENCE),
      fatal: false,
      list: 'channels',
    };
  }
}
