import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { channelClass, statusClass, visibilityClass, wordsOf } from '../../src/snapshot/vocabulary.js';

describe('statusClass', () => {
  it.each([
    ['LIVE', 'live'],
    ['on_air', 'live'],
    ['On Air', 'live'],
    ['onAir', 'live'],
    ['broadcasting', 'live'],
    ['Streaming', 'live'],
    ['upcoming', 'scheduled'],
    ['PENDING', 'scheduled'],
    ['finished', 'ended'],
    ['Done', 'ended'],
    ['completed', 'ended'],
    ['cancelled', 'canceled'],
    ['CANCELED', 'canceled'],
    ['errored', 'failed'],
    ['Aborted', 'failed'],
    ['timed-out', 'failed'],
    ['zorblat', 'unknown'],
    ['', 'unknown'],
  ])('%s → %s', (word, cls) => {
    expect(statusClass(word)).toBe(cls);
  });

  it('case and separators never change the class', () => {
    const known = ['on air', 'in progress', 'timed out', 'not started', 'called off', 'failed'];
    fc.assert(
      fc.property(
        fc.constantFrom(...known),
        fc.constantFrom('_', '-', ' ', '.', '  '),
        fc.boolean(),
        (w, sep, upper) => {
          const spelled = w.replace(/ /g, sep);
          expect(statusClass(upper ? spelled.toUpperCase() : spelled)).toBe(statusClass(w));
        },
      ),
    );
  });
});

/** Writes `words` as a server might: snake, kebab, dotted, spaced, camel, Pascal or UPPER. */
function spell(words: readonly string[], style: number, upper: boolean): string {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const joined = [
    () => words.join('_'),
    () => words.join('-'),
    () => words.join('.'),
    () => words.join(' '),
    () => words.map((w, i) => (i === 0 ? w : cap(w))).join(''),
    () => words.map(cap).join(''),
  ][style % 6]!();
  // Humps upper-cased lose their boundaries (`LIVENOW`): UPPER is a style of separated words.
  return upper && style % 6 < 4 ? joined.toUpperCase() : joined;
}

describe('words by meaning (docs/upstream-shapes.md, "Vocabulary")', () => {
  const STATUS: readonly [string, string][] = [
    ['on air', 'live'],
    ['broadcasting', 'live'],
    ['streaming', 'live'],
    ['in progress', 'live'],
    ['active broadcast', 'live'],
    ['live now', 'live'],
    ['online', 'live'],
    ['upcoming', 'scheduled'],
    ['planned', 'scheduled'],
    ['scheduled', 'scheduled'],
    ['pending', 'scheduled'],
    ['not started', 'scheduled'],
    ['finished', 'ended'],
    ['completed', 'ended'],
    ['done', 'ended'],
    ['ended', 'ended'],
    ['closed', 'ended'],
    ['over', 'ended'],
    ['stream ended', 'ended'],
    ['canceled', 'canceled'],
    ['cancelled', 'canceled'],
    ['called off', 'canceled'],
    ['failed', 'failed'],
    ['errored', 'failed'],
    ['error', 'failed'],
    ['crashed', 'failed'],
    ['interrupted', 'failed'],
    ['broadcast failed', 'failed'],
  ];
  const CHANNEL: readonly [string, string][] = [
    ['on air', 'live'],
    ['online', 'live'],
    ['live now', 'live'],
    ['suspended', 'offline'],
    ['disabled', 'offline'],
    ['deactivated', 'offline'],
    ['archived', 'offline'],
    ['standby', 'offline'],
    ['paused', 'offline'],
    ['idle', 'offline'],
    ['ready', 'offline'],
    ['waiting', 'offline'],
    ['not started', 'offline'],
    ['not streaming', 'offline'],
    ['off air', 'offline'],
  ];
  const VISIBILITY: readonly [string, string][] = [
    ['public', 'public'],
    ['open', 'public'],
    ['everyone', 'public'],
    ['listed', 'public'],
    ['private', 'private'],
    ['restricted', 'private'],
    ['members only', 'private'],
    ['not public', 'private'],
    ['unlisted', 'unlisted'],
    ['hidden', 'unlisted'],
    ['link only', 'unlisted'],
    ['anyone with the link', 'unlisted'],
  ];
  const drawn = (table: readonly [string, string][]) =>
    fc.tuple(fc.constantFrom(...table), fc.nat(5), fc.boolean());

  it.each(STATUS)('status %s → %s', (w, cls) => expect(statusClass(w)).toBe(cls));
  it.each(CHANNEL)('channel %s → %s', (w, cls) => expect(channelClass(w)).toBe(cls));
  it.each(VISIBILITY)('visibility %s → %s', (w, cls) => expect(visibilityClass(w)).toBe(cls));

  it('any casing and separators of a meaning word class it the same (property)', () => {
    fc.assert(
      fc.property(drawn(STATUS), drawn(CHANNEL), drawn(VISIBILITY), (s, c, v) => {
        expect(statusClass(spell(s[0][0].split(' '), s[1], s[2]))).toBe(s[0][1]);
        expect(channelClass(spell(c[0][0].split(' '), c[1], c[2]))).toBe(c[0][1]);
        expect(visibilityClass(spell(v[0][0].split(' '), v[1], v[2]))).toBe(v[0][1]);
      }),
    );
  });

  it('a word with no meaning tally knows is unknown, never "not live"', () => {
    for (const w of ['rehearsal', 'zorblat', 'GREEN', 'state7', '']) {
      expect(statusClass(w)).toBe('unknown');
      expect(channelClass(w)).toBe('unknown');
      expect(visibilityClass(w)).toBe('unknown');
    }
    // A negated live word is not live; a negation alone says nothing.
    expect(statusClass('not live')).toBe('unknown');
    expect(channelClass('not live')).toBe('offline');
    expect(channelClass('no')).toBe('unknown');
  });

  it('splits a word into its words', () => {
    expect(wordsOf('inProgress')).toEqual(['in', 'progress']);
    expect(wordsOf('LIVE_NOW')).toEqual(['live', 'now']);
    expect(wordsOf('HTTPStreaming')).toEqual(['http', 'streaming']);
    expect(wordsOf(' on-air.now ')).toEqual(['on', 'air', 'now']);
  });

  it('presence and ticket words by meaning: away is not on air, open is under way, "won\'t do" is called off', () => {
    expect(channelClass('away')).toBe('offline');
    expect(channelClass('Away')).toBe('offline');
    expect(channelClass('busy')).toBe('offline');
    expect(channelClass('online')).toBe('live');
    expect(statusClass('open')).toBe('live');
    expect(statusClass('OPEN')).toBe('live');
    expect(statusClass("Won't Do")).toBe('canceled');
    expect(statusClass('declined')).toBe('canceled');
    expect(statusClass('reopened')).toBe('unknown');
  });
});

describe('words classed by their stems, not listed one by one', () => {
  it.each([
    ['confirmed', 'scheduled'],
    ['TENTATIVE', 'scheduled'],
    ['testing', 'scheduled'],
    ['postponed', 'scheduled'],
    ['postpone', 'scheduled'],
    ['RESCHEDULED', 'scheduled'],
    ['archive', 'ended'],
    ['archived_recording', 'ended'],
  ])('%s → %s', (word, cls) => {
    expect(statusClass(word)).toBe(cls);
  });

  it('a channel with nothing on air (`none`) is offline', () => {
    expect(channelClass('none')).toBe('offline');
    expect(channelClass('NONE')).toBe('offline');
  });
});
