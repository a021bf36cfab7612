import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot, type OrgSnapshot } from '../../src/snapshot/model.js';

// Any string is an id (property): whatever the ids, `__proto__` and `constructor` among
// them, the diff of two channel lists adds exactly the new ids and removes exactly the
// gone ones, and a session list keyed by such a channel id is compared like any other.

const AT = Date.UTC(2030, 0, 7, 9);
const awkward = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'ü-日本',
  'k'.repeat(1024),
);
const id = fc.oneof(awkward, fc.string({ minLength: 1, maxLength: 12 }));

function withChannels(ids: readonly string[], at: number): OrgSnapshot {
  const value = ids.map((c) => ({ id: c, name: `n${c.length}`, status: 'offline', visibility: 'public' }));
  const sessions: OrgSnapshot['sessions'] = {};
  for (const c of ids) {
    Object.defineProperty(sessions, c, {
      value: { state: 'complete', at, value: [], window: { from: at - 3_600_000, to: at + 3_600_000 } },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { ...emptySnapshot('acme', at), channels: { state: 'complete', at, value }, sessions };
}

describe('diff with any string as an id', () => {
  it('adds and removes exactly the ids that came and went (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 8 }), fc.uniqueArray(id, { maxLength: 8 }), (a, b) => {
        const events = diff(withChannels(a, AT), withChannels(b, AT + 1000));
        const ids = (kind: string) =>
          events
            .filter((e) => e.kind === kind)
            .map((e) => e.entity.id)
            .sort();
        expect(ids('channel.added')).toEqual(b.filter((x) => !a.includes(x)).sort());
        expect(ids('channel.removed')).toEqual(a.filter((x) => !b.includes(x)).sort());
      }),
      { numRuns: 300 },
    );
  });
});
