/**
 * Quiet conditions: a condition rule found false on values the org scope keeps unchanged
 * between passes (context.ts, `isKeptPlain`) is false again while they are the very same
 * objects, so it is not evaluated again (docs/architecture.md, invariant 20). Two levels:
 *
 * - an entity's `Known.quiet`, the values its condition read when last false;
 * - a session list's `QuietLists` entry, when every session of one channel's list was quiet
 *   under a rule on its own session and channel alone, with no alert: while the list and
 *   the channel are the same objects, the whole list is passed over without a lookup per
 *   session (at 1000 channels a pass a second meets some 10 000 sessions per rule).
 */
import type { Plain } from './cel-types.js';
import { type Entity, isKeptPlain, type OrgScope } from './context.js';
import type { ConditionRule } from './rules.js';

/** A condition rule's fingerprint for an entity, and what its condition was last false on. */
export interface Known {
  org: string;
  fp: string;
  /**
   * The plain values of the rule's variables (in `readBy` order) its condition read when
   * it was last false, `NOT_READ` for those it did not read; undefined when the condition
   * held, failed, read "now" or read a value that is not kept unchanged between passes.
   */
  quiet: readonly unknown[] | undefined;
}

const NOT_READ = Symbol('not read');

/** Where an entity's variable comes from: its own variables first, then its org's. */
function sourceOf(name: string, e: Entity, scope: OrgScope): unknown {
  return Object.hasOwn(e.vars, name) ? e.vars[name] : scope.vars[name];
}

/**
 * What a condition that was false read, when that is enough to know it false again: only
 * the rule's own variables, never `now`, each a plain value the scope keeps unchanged
 * between passes, so the same object means the same value.
 */
export function quietOn(
  read: ReadonlySet<string>,
  names: readonly string[],
  e: Entity,
  scope: OrgScope,
): readonly unknown[] | undefined {
  for (const name of read) if (!names.includes(name)) return undefined;
  const out: unknown[] = [];
  for (const name of names) {
    if (!read.has(name)) {
      out.push(NOT_READ);
      continue;
    }
    const v = sourceOf(name, e, scope);
    if (typeof v !== 'object' || v === null || !isKeptPlain(v)) return undefined;
    out.push(v);
  }
  return out;
}

/** Whether every value a quiet condition read is still the very same one. */
export function isStill(
  quiet: readonly unknown[],
  names: readonly string[],
  e: Entity,
  scope: OrgScope,
): boolean {
  for (let i = 0; i < names.length; i++) {
    const v = quiet[i];
    if (v !== NOT_READ && sourceOf(names[i]!, e, scope) !== v) return false;
  }
  return true;
}

/**
 * What a quiet condition read, for a whole list's memo: its session alone (`OWN`), its
 * session and the session's channel (`CHANNEL`), or more, or it is not quiet (`OTHER`: a
 * detail or an org value may change while the list and the channel stay the same).
 */
export const Reach = { OTHER: 0, OWN: 1, CHANNEL: 2 } as const;
export type Reach = (typeof Reach)[keyof typeof Reach];

/** How far a quiet condition reached (`Reach`). */
export function reachOf(quiet: readonly unknown[], names: readonly string[]): Reach {
  let reach: Reach = Reach.OWN;
  for (let i = 0; i < names.length; i++) {
    if (quiet[i] === NOT_READ || names[i] === 'session') continue;
    if (names[i] !== 'channel') return Reach.OTHER;
    reach = Reach.CHANNEL;
  }
  return reach;
}

const readByRule = new WeakMap<ConditionRule, readonly string[]>();

/** The variables a condition rule's `when` and `value` read. */
export function readBy(rule: ConditionRule): readonly string[] {
  let names = readByRule.get(rule);
  if (names === undefined) {
    names = [...new Set([...rule.when.variables, ...(rule.value?.variables ?? [])])];
    readByRule.set(rule, names);
  }
  return names;
}

/**
 * The session lists found quiet under each rule, with the channel they were quiet with
 * when a condition read it. Keyed by the list's kept plain values (made once per list
 * read), so a list read again is a new key and the old entry goes with its list.
 */
export class QuietLists {
  private readonly byList = new WeakMap<
    readonly Plain[],
    Map<ConditionRule, { org: string; channel: unknown }>
  >();

  /** Whether the whole list is still quiet under the rule, with this channel value. */
  has(list: readonly Plain[], rule: ConditionRule, org: string, channel: unknown): boolean {
    const hit = this.byList.get(list)?.get(rule);
    return hit !== undefined && hit.org === org && (hit.channel === ANY_CHANNEL || hit.channel === channel);
  }

  /**
   * Notes the list quiet under the rule: every session quiet, with no alert, at most as far
   * as `reach` (the furthest any of them read).
   */
  note(list: readonly Plain[], rule: ConditionRule, org: string, channel: unknown, reach: Reach): void {
    let byRule = this.byList.get(list);
    if (byRule === undefined) {
      byRule = new Map();
      this.byList.set(list, byRule);
    }
    byRule.set(rule, { org, channel: reach === Reach.CHANNEL ? channel : ANY_CHANNEL });
  }

  forget(list: readonly Plain[], rule: ConditionRule): void {
    this.byList.get(list)?.delete(rule);
  }
}

/** A list whose conditions read no channel: quiet whatever the channel list says. */
const ANY_CHANNEL = Symbol('any channel');
