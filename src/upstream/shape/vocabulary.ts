/**
 * Status words by class: servers say `on_air`, `Broadcasting`, `LIVE` or `streaming` for
 * the same thing; rules and diffs reason about the class, the word stays for display.
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

const BY_WORD: ReadonlyMap<string, StatusClass> = new Map(
  Object.entries(WORDS).flatMap(([cls, words]) =>
    words.flatMap((w) => [
      [fold(w), cls as StatusClass],
      [fold(w).replace(/ /g, ''), cls as StatusClass],
    ]),
  ),
);

/** The class of a status word; `unknown` for a word no list knows (the caller reports it as drift). */
export function statusClass(word: string): StatusClass {
  const f = fold(word);
  return BY_WORD.get(f) ?? BY_WORD.get(f.replace(/ /g, '')) ?? 'unknown';
}
