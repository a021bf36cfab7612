/**
 * Absent is not changed: a field a read leaves out is unknown, so the snapshot keeps its
 * last known value and the diff sees no change. A later read that brings the field back
 * is compared with what was known, so a real change in between is still reported.
 *
 * What counts as left out, per part:
 * - profile: `name` and `plan` when absent; `settings` when the whole object is absent
 *   or empty while it held keys before;
 * - subscription: `plan` when absent; `limits` and `usage` when a whole group is empty
 *   while it held figures before (a server that drops every limit at once is far more
 *   likely to have left the group out than to have made the plan unlimited); the funding
 *   when the read found no funding at all; a wallet's balance and currency when absent.
 * An explicit `null` reads as absent: tally never reports a change it cannot tell from a
 * field the server left out (docs/upstream-shapes.md).
 */
import type { AiFunding, Org, Subscription } from './model.js';

const isEmpty = (o: Record<string, unknown>) => Object.keys(o).length === 0;

/** The profile `next`, with what it left out taken from `prev`. */
export function carryProfile(prev: Org, next: Org): Org {
  const out: Org = { ...next };
  if (out.name === undefined && prev.name !== undefined) out.name = prev.name;
  if (out.plan === undefined && prev.plan !== undefined) out.plan = prev.plan;
  if (isEmpty(out.settings) && !isEmpty(prev.settings)) out.settings = prev.settings;
  return out;
}

/** The subscription `next`, with what it left out taken from `prev`. */
export function carrySubscription(prev: Subscription, next: Subscription): Subscription {
  const out: Subscription = { ...next, funding: carryFunding(prev.funding, next.funding) };
  if (out.plan === undefined && prev.plan !== undefined) out.plan = prev.plan;
  if (isEmpty(out.limits) && !isEmpty(prev.limits)) out.limits = prev.limits;
  if (isEmpty(out.usage) && !isEmpty(prev.usage)) out.usage = prev.usage;
  return out;
}

function carryFunding(prev: AiFunding, next: AiFunding): AiFunding {
  if (next.mode === 'unknown' && next.raw === undefined) return prev;
  if (next.mode === 'wallet' && prev.mode === 'wallet') {
    const out = { ...next };
    if (out.balance === undefined && prev.balance !== undefined) out.balance = prev.balance;
    if (out.currency === undefined && prev.currency !== undefined) out.currency = prev.currency;
    return out;
  }
  return next;
}
