import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusClass } from '../../src/snapshot/vocabulary.js';

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
