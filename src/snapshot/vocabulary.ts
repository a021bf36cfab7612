/**
 * Status words by class (docs/upstream-shapes.md, "Vocabulary"): servers say `on_air`,
 * `Broadcasting`, `LIVE` or `streaming` for the same thing; the planner, the diff, the
 * metrics and the rules reason about the class, the word stays for display and events.
 * A word is split into its words (snake, camel, kebab, UPPER, spaced) and classed by the
 * known words first, then by the meaning stems its words carry (`liveNow`, `STREAM_ENDED`,
 * `active broadcast`); a word with no meaning tally knows is `unknown`, never a guess.
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
    // A session (a ticket, an order) still open is under way.
    'open',
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
    // A meeting that did not take place as planned (a CRM's meeting outcome).
    'no show',
  ],
};

/**
 * A word as its words, lower case: camel and Pascal humps, `_`, `-`, `.`, `/`, `:` and
 * spaces all separate (`inProgress`, `IN_PROGRESS`, `in-progress` → `in progress`).
 */
export function wordsOf(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

// Case and separators are one spelling: `ON_AIR`, `on-air`, `On Air`, `onAir` meet.
function fold(word: string): string {
  return wordsOf(word).join(' ');
}

const BY_WORD = byWord<Exclude<StatusClass, 'unknown'>>(WORDS);

/** A negation before the meaning: `not live`, `no stream`, `non public`, `never started`. */
const NEGATED = /\b(not|no|non|never)\b/;

/**
 * Meaning stems by class, in the order they decide: an outcome outweighs an activity
 * (`stream_failed` failed, `broadcast_scheduled` scheduled, `live ended` ended).
 */
const STEMS: readonly (readonly [Exclude<StatusClass, 'unknown'>, RegExp])[] = [
  [
    'canceled',
    /\b(cancel+(ed|ation)?|called off|call off|withdrawn|revoked|skipped|scrapped|declined|rejected|abandoned|won t do|will not do|wont do)\b/,
  ],
  [
    'failed',
    /\b(fail(ed|ure|ing)?|errors?|errored|crash(ed)?|broken|interrupted|abort(ed)?|timed out|time ?out)\b/,
  ],
  [
    'ended',
    /\b(end(ed)?|finish(ed)?|done|complete(d)?|over|stop(ped)?|closed|archived?|past|succeeded|concluded|terminated|wrapped up)\b/,
  ],
  [
    'scheduled',
    // A calendar's confirmed or tentative event, one moved, a broadcast tested before it airs.
    /\b((re)?schedul(e|ed|ing)|upcoming|pending|planned|queued|waiting|ready|created|draft|booked|announced|future|coming soon|starting soon|not (yet )?started|never started|confirmed|tentative|postponed?|testing)\b/,
  ],
  [
    'live',
    /\b(live|on ?air|airing|broadcast(ing)?|stream(ing)?|online|active|running|in progress|ongoing|started|playing|recording)\b/,
  ],
];

/** The class its meaning stems give a folded word; a negated meaning says only "not started". */
function byStems(folded: string): Exclude<StatusClass, 'unknown'> | undefined {
  if (NEGATED.test(folded)) return /\b(not|never) (yet )?started\b/.test(folded) ? 'scheduled' : undefined;
  return STEMS.find(([, stem]) => stem.test(folded))?.[0];
}

/** The class of a status word; `unknown` for a word with no meaning tally knows (the caller reports it as drift). */
export function statusClass(word: string): StatusClass {
  let cls = seen.get(word);
  if (cls === undefined) {
    cls = lookup(BY_WORD, word) ?? byStems(fold(word)) ?? 'unknown';
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
    'suspended',
    'deactivated',
    'away',
  ],
});

/** Stems of a channel that is not on air: switched off, waiting, or a negated live word. */
const CHANNEL_OFF_STEMS =
  /\b(offline|off|idle|inactive|standby|stand by|paus(e|ed)|disabled?|suspended|deactivated|dormant|sleeping|unavailable|available|away|busy|none)\b|\b(not|no|non)\b.*\b(live|on ?air|broadcast(ing)?|stream(ing)?|online|active)\b/;

/**
 * The class of a channel status word. A channel is live under any live word; offline
 * under an offline word or any word of a session that is not on air (ended, scheduled…).
 */
export function channelClass(word: string): ChannelClass {
  const cls = statusClass(word);
  if (cls === 'live') return 'live';
  if (cls !== 'unknown' || lookup(CHANNEL_OFFLINE, word) !== undefined) return 'offline';
  return CHANNEL_OFF_STEMS.test(fold(word)) ? 'offline' : 'unknown';
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
    'secret',
    'team',
    'org',
    'organization',
  ],
  unlisted: ['unlisted', 'link only', 'link', 'not listed', 'by link', 'hidden'],
});

/** Visibility stems in the order they decide: a link or a hidden listing, then a closed circle, then all. */
const VISIBILITY_STEMS: readonly (readonly [Exclude<VisibilityClass, 'unknown'>, RegExp])[] = [
  ['unlisted', /\b(unlisted|(not|non) listed|hidden|links?|url)\b/],
  [
    'private',
    /\b(private|restricted|members?|internal|invite(d| only)?|secret|team|staff|org|organi[sz]ation|only me|not public|non public|closed)\b/,
  ],
  ['public', /\b(public|open|everyone|anyone|all|listed|visible|published|world)\b/],
];

/** The class of a visibility word; `unknown` for a word with no meaning tally knows. */
export function visibilityClass(word: string): VisibilityClass {
  const folded = fold(word);
  return lookup(VISIBILITY, word) ?? VISIBILITY_STEMS.find(([, stem]) => stem.test(folded))?.[0] ?? 'unknown';
}
