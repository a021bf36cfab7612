/**
 * Status words by class (docs/upstream-shapes.md, "Vocabulary"): servers say `on_air`,
 * `Broadcasting`, `LIVE` or `streaming` for the same thing; the planner, the diff, the
 * metrics and the rules reason about the class, the word stays for display and events.
 */

/** What a channel or session status means, whatever word the server used. */
export type StatusClass = 'scheduled' | 'live' | 'ended' | 'canceled' | 'failed' | 'unknown';

const WORDS: Readonly<Record<Exclude<StatusClass, 'unknown'>, readonly string[]>> = {
  scheduled: [
    'scheduled',
    'upcoming',
    'pending',
    'planned',
    'queued',
    'waiting',

    'ready',
    'created',
    'draft',
    'not started',
    'starting soon',
  ],
  live: [
    'live',
    'on air',
    'onair',
    'broadcasting',
    'streaming',
    'active',
    'running',
    'in progress',
    'started',

    'playing',
    'recording',
  ],
  ended: [
    'ended',
    'finished',
    'done',
    'completed',
    'complete',
    'over',
    'stopped',
    'closed',
    'archived',
    'past',
    'succeeded',
  ],
  canceled: ['canceled', 'cancelled', 'called off', 'withdrawn', 'revoked', 'skipped'],
  failed: [
    'failed',
    'failure',
    'error',
    'errored',
    'aborted',
    'crashed',
    'broken',
    'interrupted',
    'timed out',
    'timeout',
  ],
};

// Case, `_`, `-`, `.` and runs of spaces are one spelling: `ON_AIR`, `on-air`, `On Air` meet.
function fold(word: string): string {
  return word
    .trim()
    .toLowerCase()
    .replace(/[_\-.\s]+/g, ' ')
    .trim();
}

const BY_WORD = byWord<Exclude<StatusClass, 'unknown'>>(WORDS);

/** The class of a status word; `unknown` for a word no list knows (the caller reports it as drift). */
export function statusClass(word: string): StatusClass {
  let cls = seen.get(word);
  if (cls === undefined) {
    cls = lookup(BY_WORD, word) ?? 'unknown';
    // Servers use a handful of words; the cache stays small unless a server sends noise.
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.set(word, cls);
  }
  return cls;
}

/** Words classified so far: hot paths (metrics, the planner) ask for the same few words. */
const seen = new Map<string, StatusClass>();
const SEEN_MAX = 1024;

function lookup<T>(table: ReadonlyMap<string, T>, word: string): T | undefined {
  const f = fold(word);
  return table.get(f) ?? table.get(f.replace(/ /g, ''));
}

function byWord<C extends string>(words: Readonly<Record<C, readonly string[]>>): ReadonlyMap<string, C> {
  return new Map(
    Object.entries<readonly string[]>(words).flatMap(([cls, list]) =>
      list.flatMap((w) => [
        [fold(w), cls as C],
        [fold(w).replace(/ /g, ''), cls as C],
      ]),
    ),
  );
}

/** What a channel's status means: on air, not on air, or a word tally does not know. */
export type ChannelClass = 'live' | 'offline' | 'unknown';

const CHANNEL_OFFLINE = byWord({
  offline: [
    'offline',
    'off air',
    'idle',
    'inactive',
    'not live',
    'available',
    'standby',
    'paused',
    'disabled',
  ],
});

/**
 * The class of a channel status word. A channel is live under any live word; offline
 * under an offline word or any word of a session that is not on air (ended, scheduled…).
 */
export function channelClass(word: string): ChannelClass {
  const cls = statusClass(word);
  if (cls === 'live') return 'live';
  if (cls !== 'unknown' || lookup(CHANNEL_OFFLINE, word) !== undefined) return 'offline';
  return 'unknown';
}

/** Who may see a channel, whatever word the server used. */
export type VisibilityClass = 'public' | 'private' | 'unlisted' | 'unknown';

const VISIBILITY = byWord<Exclude<VisibilityClass, 'unknown'>>({
  public: ['public', 'open', 'everyone', 'anyone', 'listed', 'visible', 'published', 'world'],
  private: [
    'private',
    'restricted',
    'members',
    'members only',
    'internal',
    'invite only',
    'hidden',
    'secret',
    'team',
    'org',
    'organization',
  ],
  unlisted: ['unlisted', 'link only', 'link', 'not listed', 'by link'],
});

/** The class of a visibility word; `unknown` for a word no list knows. */
export function visibilityClass(word: string): VisibilityClass {
  return lookup(VISIBILITY, word) ?? 'unknown';
}
