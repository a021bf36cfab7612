/**
 * Test setup (vitest.config.ts): a session list held compactly equals the array of the
 * sessions it holds. A snapshot the poller or the store gives back holds `SessionList`s
 * (src/snapshot/session-list.ts); tests compare it with snapshots written as arrays.
 */
import { expect } from 'vitest';
import { SessionList } from '../../src/snapshot/session-list.js';

const asArray = (x: unknown): unknown => (x instanceof SessionList ? x.toArray() : x);

expect.addEqualityTesters([
  function sessionLists(a, b, testers) {
    if (!(a instanceof SessionList) && !(b instanceof SessionList)) return undefined;
    return this.equals(asArray(a), asArray(b), testers);
  },
]);
